#include "rounding_tolerance.hpp"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "reference_engine.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"

namespace rnnwb::testing {
namespace {

void moveByOneUlp(std::span<float> values, std::mt19937& random) {
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  for (float& v : values)
    if (v != 0.0f) v = std::nextafter(v, (random() & 1u) ? kInfinity : -kInfinity);
}

// Checks the arrays element by element so that the message names the first one outside.
void verifyArray(std::span<const float> reference, std::span<const float> other, double tolerance,
                 const QString& what) {
  QCOMPARE(other.size(), reference.size());
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const double difference = std::abs(double(other[i]) - reference[i]);
    QVERIFY2(difference <= tolerance,
             qPrintable(QString("%1[%2]: %3 vs %4, differ by %5 > %6 (%7 x the rounding spread)")
                            .arg(what)
                            .arg(i)
                            .arg(other[i], 0, 'g', 9)
                            .arg(reference[i], 0, 'g', 9)
                            .arg(difference)
                            .arg(tolerance)
                            .arg(kRoundingFactor)));
  }
}

}  // namespace

EngineRun runCpuEngine(const CompiledPlan& plan, const ParameterSet& params,
                       const SequenceBatch& batch, const StreamState& state, int threads) {
  CpuBackend backend(plan, {.threads = threads});
  EngineRun run{0, ParameterSet::zerosLike(params), {}};
  run.loss = backend.forwardBackward(params, batch, state, &run.state, &run.gradients);
  return run;
}

double maxAbsDifference(std::span<const float> a, std::span<const float> b) {
  double largest = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    largest = std::max(largest, std::abs(double(a[i]) - b[i]));
  return largest;
}

RoundingSpread measureRoundingSpread(const CompiledPlan& plan, const ParameterSet& params,
                                     const SequenceBatch& batch, const StreamState& state,
                                     const EngineRun& unmoved, int trials) {
  RoundingSpread spread;
  spread.state.assign(unmoved.state.layerCount(), 0.0);
  for (int trial = 0; trial < trials; ++trial) {
    std::mt19937 random(1234u + static_cast<unsigned>(trial));
    ParameterSet movedParams = params;
    moveByOneUlp(movedParams.values(), random);
    SequenceBatch movedBatch = batch;
    for (Tensor& input : movedBatch.inputs) moveByOneUlp(input.f32(), random);
    StreamState movedState = state;
    for (int l = 0; l < movedState.layerCount(); ++l)
      moveByOneUlp(movedState.layerFrames(l), random);
    const EngineRun moved = runCpuEngine(plan, movedParams, movedBatch, movedState, 1);
    spread.loss = std::max(spread.loss, std::abs(moved.loss - unmoved.loss));
    spread.gradient = std::max(
        spread.gradient, maxAbsDifference(moved.gradients.values(), unmoved.gradients.values()));
    for (int l = 0; l < unmoved.state.layerCount(); ++l)
      spread.state[l] = std::max(spread.state[l], maxAbsDifference(moved.state.layerFrames(l),
                                                                   unmoved.state.layerFrames(l)));
  }
  return spread;
}

void verifyWithinRounding(const EngineRun& reference, const EngineRun& other,
                          const RoundingSpread& spread, const std::string& what) {
  const QString name = QString::fromStdString(what);
  const double lossTolerance = kRoundingFactor * spread.loss;
  QVERIFY2(std::abs(other.loss - reference.loss) <= lossTolerance,
           qPrintable(QString("%1 loss: %2 vs %3, tolerance %4")
                          .arg(name)
                          .arg(other.loss, 0, 'g', 12)
                          .arg(reference.loss, 0, 'g', 12)
                          .arg(lossTolerance)));
  verifyArray(reference.gradients.values(), other.gradients.values(),
              kRoundingFactor * spread.gradient, name + " gradient");
  if (QTest::currentTestFailed()) return;
  QCOMPARE(other.state.layerCount(), reference.state.layerCount());
  for (int l = 0; l < reference.state.layerCount(); ++l) {
    verifyArray(reference.state.layerFrames(l), other.state.layerFrames(l),
                kRoundingFactor * spread.state[l], name + QString(" state of layer %1").arg(l));
    if (QTest::currentTestFailed()) return;
  }
}

namespace {

void verifyNear(double value, double exact, double tolerance, const QString& what) {
  QVERIFY2(std::abs(value - exact) <= tolerance,
           qPrintable(QString("%1: %2 vs float64 %3, tolerance %4")
                          .arg(what)
                          .arg(value, 0, 'g', 9)
                          .arg(exact, 0, 'g', 12)
                          .arg(tolerance)));
}

// The entries where the two gradients differ most: where a fault or the rounding shows.
std::vector<std::size_t> mostDifferent(const ParameterSet& a, const ParameterSet& b, int count) {
  std::vector<std::size_t> order(a.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto difference = [&](std::size_t i) { return std::abs(a.values()[i] - b.values()[i]); };
  const auto end = order.begin() + std::min<std::ptrdiff_t>(count, std::ssize(order));
  std::partial_sort(order.begin(), end, order.end(),
                    [&](std::size_t i, std::size_t j) { return difference(i) > difference(j); });
  order.erase(end, order.end());
  return order;
}

}  // namespace

void verifyAgainstFloat64(const CompiledPlan& plan, const ParameterSet& params,
                          const SequenceBatch& batch, const StreamState& state,
                          const EngineRun& one, const EngineRun& other,
                          const RoundingSpread& spread, int sampled) {
  std::vector<double> exactParams(params.values().begin(), params.values().end());
  const double exactLoss = referenceLoss(plan, params.layout(), exactParams, batch, state);
  for (const EngineRun* run : {&one, &other})
    verifyNear(run->loss, exactLoss, kRoundingFactor * spread.loss, "loss");
  const auto outputs = referenceOutputs(plan, params.layout(), exactParams, batch, state);
  for (int l = 0; l < one.state.layerCount(); ++l) {
    // The state holds the last framesOf(l) frames of y, all streams: the tail of the outputs.
    const auto kept = one.state.layerFrames(l);
    const std::size_t offset = outputs[l].size() - kept.size();
    for (const EngineRun* run : {&one, &other})
      for (std::size_t i = 0; i < kept.size(); ++i)
        verifyNear(run->state.layerFrames(l)[i], outputs[l][offset + i],
                   kRoundingFactor * spread.state[l],
                   QString("state of layer %1 [%2]").arg(l).arg(i));
    if (QTest::currentTestFailed()) return;
  }
  const double step = 1e-5;
  for (std::size_t i : mostDifferent(one.gradients, other.gradients, sampled)) {
    std::vector<double> moved = exactParams;
    moved[i] += step;
    const double up = referenceLoss(plan, params.layout(), moved, batch, state);
    moved[i] -= 2 * step;
    const double down = referenceLoss(plan, params.layout(), moved, batch, state);
    const double exact = (up - down) / (2 * step);
    for (const EngineRun* run : {&one, &other})
      verifyNear(run->gradients.values()[i], exact, kRoundingFactor * spread.gradient,
                 QString("gradient[%1]").arg(i));
  }
}

}  // namespace rnnwb::testing

#include "backend_comparison.hpp"

#include <cmath>
#include <vector>

#include "engine_test_support.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"

namespace rnnwb::testing {
namespace {

void note(ComparisonResult& result, double error, const std::string& where) {
  // NaN counts as the worst error there is.
  if (std::isnan(error) || error > result.worst) {
    result.worst = std::isnan(error) ? INFINITY : error;
    result.where = where;
  }
}

double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-30); }

void compareStates(const StreamState& a, const StreamState& b, ComparisonResult& result) {
  if (a.layerCount() != b.layerCount() || a.streams() != b.streams()) {
    note(result, INFINITY, "state shape");
    return;
  }
  for (int l = 0; l < a.layerCount(); ++l) {
    const auto x = a.layerFrames(l), y = b.layerFrames(l);
    if (x.size() != y.size()) note(result, INFINITY, "state of layer " + std::to_string(l));
    else note(result, relativeError(x.data(), y.data(), x.size()),
              "state of layer " + std::to_string(l));
  }
}

}  // namespace

double relativeError(const float* a, const float* b, std::size_t count) {
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return std::sqrt(diff) / std::max(std::sqrt(norm), 1e-30);
}

ComparisonResult compareWithCpu(Backend& backend, const ComparisonCase& c) {
  const CompiledPlan& plan = backend.plan();
  CpuBackend cpu(plan);
  ParameterSet params(plan);
  randomizeParameters(params, c.seed);
  SequenceBatch batch = randomBatch(plan, c.frames, c.streams, c.seed + 1);
  batch.firstPredictedFrame = c.firstPredictedFrame;
  batch.carryFrames = c.carryFrames;
  const StreamState state = c.carriedState ? randomState(plan, c.streams, c.seed + 2)
                                           : StreamState();
  ComparisonResult result;

  ParameterSet gradCpu = ParameterSet::zerosLike(params), grad = ParameterSet::zerosLike(params);
  grad.fill(12345.0f);  // the backend must overwrite every gradient
  StreamState outCpu, out;
  const double lossCpu = cpu.forwardBackward(params, batch, state, &outCpu, &gradCpu);
  const double loss = backend.forwardBackward(params, batch, state, &out, &grad);
  note(result, relative(loss, lossCpu), "forwardBackward loss");
  for (const ParameterView& view : params.layout().views())
    note(result, relativeError(grad.view(view).data(), gradCpu.view(view).data(), view.size),
         "gradient " + view.key);
  compareStates(out, outCpu, result);

  std::vector<Tensor> yCpu, y;
  const double fCpu = cpu.forward(params, batch, state, &outCpu, &yCpu);
  const double f = backend.forward(params, batch, state, &out, &y);
  note(result, relative(f, fCpu), "forward loss");
  for (std::size_t o = 0; o < yCpu.size() && o < y.size(); ++o)
    note(result, relativeError(y[o].f32().data(), yCpu[o].f32().data(), yCpu[o].f32().size()),
         "output " + std::to_string(o));
  if (y.size() != yCpu.size()) note(result, INFINITY, "number of outputs");
  compareStates(out, outCpu, result);
  return result;
}

}  // namespace rnnwb::testing

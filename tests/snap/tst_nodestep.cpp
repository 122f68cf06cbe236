// The one-step API (NodeStep) against finite differences: its VJP w.r.t. the parameters, the
// previous state and the external inputs, and D_t; and the compressed immediate Jacobian (one
// VJP per colour) against one VJP per state row, on every node of the examples (layers shrunk)
// and of random small graphs.
#include <QTest>

#include <cmath>
#include <functional>
#include <random>

#include "engine_test_support.hpp"
#include "rnnwb/core/engine/node_step.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/snap/immediate_jacobian.hpp"
#include "snap_test_graphs.hpp"

using namespace rnnwb;

namespace {

struct StepInputs {
  std::vector<std::vector<float>> external;
  std::vector<const float*> pointers;
  std::vector<float> prev;
};

StepInputs randomInputs(const CompiledPlan& plan, const NodeStep& step, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  StepInputs in;
  for (int c : step.externalConnections()) {
    in.external.emplace_back(plan.graph().layers[plan.fromLayer(c)].size);
    for (float& v : in.external.back()) v = u(rng);
  }
  for (auto& e : in.external) in.pointers.push_back(e.data());
  in.prev.resize(static_cast<std::size_t>(step.stateSize()));
  for (float& v : in.prev) v = u(rng);
  return in;
}

/// vᵀ y of one forward, in double.
double objective(const NodeStep& step, const ParameterSet& params, const StepInputs& in,
                 const std::vector<float>& v) {
  NodeStep::Tape tape = step.makeTape();
  step.forward(params, in.pointers, in.prev, tape);
  double sum = 0.0;
  for (std::size_t i = 0; i < v.size(); ++i) sum += double(v[i]) * tape.y[i];
  return sum;
}

/// Central difference of the objective along one float, in place.
double difference(float& x, const std::function<double()>& f) {
  const float keep = x, eps = 1e-2f;
  x = keep + eps;
  const double up = f();
  x = keep - eps;
  const double down = f();
  x = keep;
  return (up - down) / (2.0 * eps);
}

bool close(double a, double b) { return std::abs(a - b) <= 2e-3 * (1.0 + std::abs(b)); }

std::vector<Graph> testGraphs() {
  std::vector<Graph> graphs;
  for (const char* name : {"elman", "lstm-peephole", "gru", "gru-complement", "sparse-rnn",
                           "mi-rnn", "two-recurrent-nodes", "jordan"})
    graphs.push_back(testing::withLayerSize(
        loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/" + name + ".rnn.json"), 4));
  for (std::uint64_t seed = 1; seed <= 12; ++seed)
    graphs.push_back(testing::makeSnapTestGraph(seed));
  return graphs;
}

}  // namespace

class TestNodeStep : public QObject {
  Q_OBJECT

 private slots:
  void vjpMatchesFiniteDifferences() {
    int checkedNodes = 0;
    for (const Graph& g : testGraphs()) {
      const CompiledPlan plan(g);
      ParameterSet params(plan);
      testing::randomizeParameters(params, 3, 0.7);
      std::mt19937_64 rng(11);
      for (int k = 0; k < static_cast<int>(plan.nodes().size()); ++k) {
        if (plan.graph().layers[plan.nodes()[k].layers.front()].isInput()) continue;
        if (plan.nodes()[k].recurrent && snap::rtrlRefusal(plan, k)) continue;
        const NodeStep step(plan, params.layout(), k);
        StepInputs in = randomInputs(plan, step, rng);
        std::vector<float> v(static_cast<std::size_t>(step.unitCount()));
        for (float& x : v) x = std::uniform_real_distribution<float>(-1, 1)(rng);
        NodeStep::Tape tape = step.makeTape();
        step.forward(params, in.pointers, in.prev, tape);
        std::vector<float> dParams(params.size(), 0.0f), dPrev(in.prev.size(), 0.0f);
        std::vector<std::vector<float>> dExt;
        std::vector<float*> dExtPointers;
        for (auto& e : in.external) dExt.emplace_back(e.size(), 0.0f);
        for (auto& e : dExt) dExtPointers.push_back(e.data());
        std::vector<float> scratch;
        step.vjp(params, in.pointers, in.prev, tape, v, {dParams, dPrev, dExtPointers}, scratch);
        const auto f = [&] { return objective(step, params, in, v); };
        for (std::size_t i = 0; i < in.prev.size(); ++i)
          QVERIFY2(close(dPrev[i], difference(in.prev[i], f)), qPrintable(QString::number(i)));
        for (std::size_t e = 0; e < in.external.size(); ++e)
          for (std::size_t i = 0; i < in.external[e].size(); ++i)
            QVERIFY(close(dExt[e][i], difference(in.external[e][i], f)));
        std::span<float> theta = params.values();
        const std::span<const float> mask = params.mask();
        for (std::size_t p = 0; p < theta.size(); p += 3)
          if (mask.empty() || mask[p] != 0.0f)
            QVERIFY2(close(dParams[p], difference(theta[p], f)), qPrintable(QString::number(p)));
        ++checkedNodes;
      }
    }
    QVERIFY(checkedNodes > 20);
  }

  void refusesLongInnerDelay() {
    Graph g = testing::withLayerSize(
        loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/elman.rnn.json"), 3);
    g.connections[1].delay = 2;
    g.connections[1].id = "h-slow";
    const CompiledPlan plan(g);
    const ParameterSet params(plan);
    try {
      NodeStep step(plan, params.layout(), plan.nodeOfLayer(plan.layerIndex("h")));
      QFAIL("a delay-2 connection inside the node was accepted");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(QString(e.what()).contains("'h-slow'"), e.what());
    }
  }

  void stateJacobianMatchesVjp() {
    for (const Graph& g : testGraphs()) {
      const CompiledPlan plan(g);
      ParameterSet params(plan);
      testing::randomizeParameters(params, 5, 0.7);
      std::mt19937_64 rng(13);
      for (int k = 0; k < static_cast<int>(plan.nodes().size()); ++k) {
        if (!plan.nodes()[k].recurrent || snap::rtrlRefusal(plan, k)) continue;
        const NodeStep step(plan, params.layout(), k);
        StepInputs in = randomInputs(plan, step, rng);
        NodeStep::Tape tape = step.makeTape();
        step.forward(params, in.pointers, in.prev, tape);
        const int h = step.stateSize();
        std::vector<float> d(std::size_t(h) * h), scratch;
        step.stateJacobian(params, tape, d, scratch);
        // Row s of D is the VJP of the state unit s w.r.t. the previous state.
        for (int layer : step.stateLayers())
          for (int i = 0; i < plan.graph().layers[layer].size; ++i) {
            std::vector<float> v(std::size_t(step.unitCount()), 0.0f), row(std::size_t(h), 0.0f);
            v[std::size_t(step.unitOffset(layer) + i)] = 1.0f;
            step.vjp(params, in.pointers, in.prev, tape, v, {{}, row, {}}, scratch);
            const int s = step.stateOffset(layer) + i;
            for (int j = 0; j < h; ++j)
              QVERIFY2(
                  std::abs(row[j] - d[std::size_t(s) * h + j]) <= 1e-5f * (1 + std::abs(row[j])),
                  qPrintable(QString("%1 %2").arg(s).arg(j)));
          }
      }
    }
  }

  void compressedImmediateMatchesRows() {
    for (const Graph& g : testGraphs()) {
      const CompiledPlan plan(g);
      ParameterSet params(plan);
      testing::randomizeParameters(params, 9, 0.7);
      std::mt19937_64 rng(17);
      for (int k = 0; k < static_cast<int>(plan.nodes().size()); ++k) {
        if (!plan.nodes()[k].recurrent || snap::rtrlRefusal(plan, k)) continue;
        const snap::RtrlNodeLayout layout(plan, k);
        const snap::SnapPatterns patterns(layout);
        const NodeStep step(plan, params.layout(), k);
        snap::ImmediateJacobian immediate(step, layout, patterns, params.layout());
        StepInputs in = randomInputs(plan, step, rng);
        NodeStep::Tape tape = step.makeTape();
        step.forward(params, in.pointers, in.prev, tape);
        std::vector<float> values(static_cast<std::size_t>(immediate.nnz()));
        auto workspace = immediate.makeWorkspace();
        immediate.compute(params, in.pointers, in.prev, tape, values, workspace);
        const snap::SparseCsr pattern = patterns.expandByParameter(patterns.immediate());
        const auto offsets = snap::parameterOffsets(layout, params.layout());
        // Dense I by one VJP per state row; every nonzero must lie on I's pattern.
        std::vector<float> scratch;
        for (int layer : step.stateLayers())
          for (int i = 0; i < plan.graph().layers[layer].size; ++i) {
            const int s = step.stateOffset(layer) + i;
            std::vector<float> v(std::size_t(step.unitCount()), 0.0f);
            std::vector<float> row(params.size(), 0.0f);
            v[std::size_t(step.unitOffset(layer) + i)] = 1.0f;
            step.vjp(params, in.pointers, in.prev, tape, v, {row, {}, {}}, scratch);
            for (int p = 0; p < pattern.rows; ++p) {
              float fromPattern = 0.0f;
              for (int q = pattern.rowStart[p]; q < pattern.rowStart[p + 1]; ++q)
                if (pattern.colIndex[q] == s) fromPattern = values[q];
              const float expected = row[offsets[p]];
              QVERIFY(std::abs(fromPattern - expected) <= 1e-6f * (1 + std::abs(expected)));
            }
          }
      }
    }
  }
};

QTEST_APPLESS_MAIN(TestNodeStep)
#include "tst_nodestep.moc"

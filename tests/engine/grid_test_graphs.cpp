#include "grid_test_graphs.hpp"

#include <random>

#include "engine_test_support.hpp"
#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::testing {

std::string graph2d(const std::string& layers, const std::string& connections, int dims) {
  return R"({"format": "rnnwb.graph", "version": 2, "name": "t", "dimensions": )" +
         std::to_string(dims) + R"(, "layers": [)" + layers + R"(], "connections": [)" +
         connections + "]}";
}

/// Random examples of random sizes, with targets for each output's loss.
ExampleBatch randomExamples(const CompiledPlan& plan, int count, std::uint64_t seed, int maxHeight,
                            int maxWidth) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  const auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(random);
  };
  const bool twoD = plan.graph().dimensions == 2;
  ExampleBatch batch;
  for (int k = 0; k < count; ++k) {
    const int height = twoD ? uniform(1, maxHeight) : 1;
    const int width = uniform(2, maxWidth);
    Example e;
    for (int l : plan.inputLayers()) {
      const int size = plan.graph().layers[l].size;
      std::vector<float> v(static_cast<std::size_t>(height) * width * size);
      for (float& x : v) x = value(random);
      e.inputs.push_back(
          Tensor::fromF32(twoD ? Shape{height, width, size} : Shape{width, size}, std::move(v)));
    }
    for (int l : plan.outputLayers()) {
      const Layer& spec = plan.graph().layers[l];
      const GridExtent extent = layerExtent(plan, l, height, width);
      Shape grid =
          plan.grid(l).dimensions == 2 ? Shape{extent.height, extent.width} : Shape{extent.width};
      if (spec.loss == LossKind::Ctc) {  // at most one label per two frames: always alignable
        std::vector<std::int64_t> labels;
        for (int t = 0; t < (extent.width + 1) / 2; ++t)
          labels.push_back(uniform(1, spec.size - 1));
        e.targets.push_back(Tensor::fromI64({static_cast<std::int64_t>(labels.size())}, labels));
      } else if (spec.loss == LossKind::CrossEntropy) {
        std::vector<std::int64_t> classes(static_cast<std::size_t>(extent.cells()));
        for (auto& c : classes) c = uniform(0, spec.size - 1);
        e.targets.push_back(Tensor::fromI64(grid, classes));
      } else {
        grid.push_back(spec.size);
        std::vector<float> v(static_cast<std::size_t>(extent.cells()) * spec.size);
        for (float& x : v) x = value(random);
        e.targets.push_back(Tensor::fromF32(grid, std::move(v)));
      }
    }
    batch.examples.push_back(std::move(e));
  }
  return batch;
}

/// The v2 graphs every test runs: the examples, and small graphs for what they lack.
QStringList gridGraphs() {
  return {"leaky-lp-2d.rnn.json",
          "leaky-lp-2d-cells-report.rnn.json",
          "leaky-lp-2d-one-output-gate.rnn.json",
          "leaky-lp-2d-four-directions.rnn.json",
          "bidirectional-ctc.rnn.json",
          "block-reduce",
          "long-delays",
          "cross-entropy-2d",
          "fixed-and-mse"};
}

QStringList gridGraphsAndRecognizer() {
  QStringList graphs = gridGraphs();
  graphs << "mdlstm-words-small.rnn.json";
  return graphs;
}

ExampleBatch randomExamplesFor(const QString& name, const CompiledPlan& plan, int count,
                               std::uint64_t seed) {
  const bool words = name.startsWith("mdlstm");
  return randomExamples(plan, count, seed, words ? 24 : 4, words ? 64 : 6);
}

Graph gridGraph(const QString& name) {
  if (name.endsWith(".json"))
    return loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/" + name.toStdString());
  if (name == "block-reduce")  // block-strided, then a row-wise recurrence, a reduce and ctc
    return graphFromJson(graph2d(
        R"({"id": "x", "kind": "input", "size": 2},
           {"id": "b", "kind": "additive", "size": 4, "activation": "tanh"},
           {"id": "h", "kind": "additive", "size": 3, "activation": "tanh"},
           {"id": "y", "kind": "additive", "size": 4, "activation": "softmax", "loss": "ctc"})",
        R"({"from": "x", "to": "b", "type": "block", "block": [2, 2]},
           {"from": "b", "to": "h"}, {"from": "h", "to": "h", "delay": [-1, 0]},
           {"from": "h", "to": "y", "reduce": "y"}, {"from": "b", "to": "y", "type": "diagonal", "reduce": "y"})"));
  if (name == "long-delays")  // delays of 2 and 3 cross a one-pixel separator
    return graphFromJson(graph2d(
        R"({"id": "x", "kind": "input", "size": 3},
           {"id": "h", "kind": "additive", "size": 3, "activation": "tanh"},
           {"id": "g", "kind": "multiplicative", "size": 3},
           {"id": "y", "kind": "additive", "size": 2, "loss": "mse"})",
        R"({"from": "x", "to": "h"}, {"from": "h", "to": "h", "delay": [2, 0]},
           {"from": "h", "to": "h", "delay": [-1, 3]}, {"from": "x", "to": "g"},
           {"from": "h", "to": "g", "type": "complement", "delay": [0, 2]},
           {"from": "g", "to": "y"}, {"from": "x", "to": "y", "delay": [-3, -1]})"));
  if (name == "cross-entropy-2d")  // σ = (1, 0) and (0, -1), one after the other
    return graphFromJson(graph2d(
        R"({"id": "x", "kind": "input", "size": 2},
           {"id": "a", "kind": "additive", "size": 3, "activation": "sigmoid"},
           {"id": "c", "kind": "additive", "size": 3, "activation": "tanh"},
           {"id": "y", "kind": "additive", "size": 3, "activation": "softmax", "loss": "cross_entropy"})",
        R"({"from": "x", "to": "a"}, {"from": "a", "to": "a", "delay": [1, 0]},
           {"from": "a", "to": "a", "type": "diagonal", "delay": [1, -1]},
           {"from": "a", "to": "c"}, {"from": "c", "to": "c", "delay": [0, -1]},
           {"from": "c", "to": "y"})"));
  // fixed weights and a fixed bias, with mse
  return graphFromJson(graph2d(
      R"({"id": "x", "kind": "input", "size": 2},
         {"id": "h", "kind": "additive", "size": 3, "activation": "tanh", "bias_init": 0.5, "bias_trainable": false},
         {"id": "y", "kind": "additive", "size": 2, "loss": "mse"})",
      R"({"from": "x", "to": "h", "trainable": false, "init": 0.25},
         {"from": "h", "to": "h", "delay": [1, 1]}, {"from": "h", "to": "y"})"));
}

}  // namespace rnnwb::testing

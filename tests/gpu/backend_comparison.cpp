#include "backend_comparison.hpp"

#include <cmath>
#include <vector>

#include "engine_test_support.hpp"
#include "random_graph.hpp"
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
    if (x.size() != y.size())
      note(result, INFINITY, "state of layer " + std::to_string(l));
    else
      note(result, relativeError(x.data(), y.data(), x.size()),
           "state of layer " + std::to_string(l));
  }
}

std::string operationJson(const std::string& kind, const std::string& activation,
                          const std::string& type, int delay, double density,
                          const std::string& loss) {
  const std::string out = loss == "cross_entropy" ? "softmax" : "identity";
  std::string extra = type == "full" ? ", \"density\": " + std::to_string(density) : "";
  auto connection = [&](const std::string& from, int d) {
    return "{\"from\": \"" + from + "\", \"to\": \"a\", \"type\": \"" + type +
           "\", \"delay\": " + std::to_string(d) + extra + "}";
  };
  return R"({"format": "rnnwb.graph", "version": 1, "layers": [
    {"id": "x", "kind": "input", "size": 6},
    {"id": "b", "kind": "additive", "size": 6, "activation": "tanh"},
    {"id": "a", "kind": ")" +
         kind + R"(", "size": 6, "activation": ")" + activation + R"("},
    {"id": "out", "kind": "additive", "size": 5, "activation": ")" +
         out + R"(", "loss": ")" + loss + R"("}],
    "connections": [{"from": "x", "to": "b"}, )" +
         connection("x", 0) + ", " + connection("b", delay) + ", " +
         connection("a", std::max(1, delay)) + R"(, {"from": "a", "to": "out"}]})";
}

}  // namespace

std::vector<OperationCase> operationCases() {
  std::vector<OperationCase> cases;
  // softmax is the output layer's activation in every cross_entropy case (the format allows it
  // only there).
  for (const char* act : {"identity", "sigmoid", "tanh", "relu"})
    cases.push_back({std::string("activation ") + act,
                     operationJson("additive", act, "full", 0, 1.0, "cross_entropy")});
  for (const char* type : {"full", "diagonal", "identity"})
    for (const char* kind : {"additive", "multiplicative"})
      for (int delay : {0, 1, 3})
        cases.push_back({std::string(kind) + " " + type + " delay " + std::to_string(delay),
                         operationJson(kind, "tanh", type, delay, 1.0, "mse")});
  cases.push_back(
      {"masked full", operationJson("additive", "tanh", "full", 1, 0.3, "cross_entropy")});
  cases.push_back(
      {"masked multiplicative", operationJson("multiplicative", "sigmoid", "full", 2, 0.5, "mse")});
  return cases;
}

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
  const StreamState state =
      c.carriedState ? randomState(plan, c.streams, c.seed + 2) : StreamState();
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

Graph gpuSuiteRandomGraph(int seed) {
  RandomGraphOptions options;
  options.layers = 10;
  options.connections = 22;
  options.layerSize = 16;
  return makeRandomGraph(static_cast<std::uint64_t>(seed), options);
}

ComparisonCase gpuSuiteCase(int seed) {
  return {6, 5, seed % 3, seed % 6, seed % 2 == 0, static_cast<std::uint64_t>(seed) * 13};
}

}  // namespace rnnwb::testing

#include "reference_engine.hpp"

#include <algorithm>
#include <cmath>

namespace rnnwb::testing {

double referenceActivate(Activation a, double s) {
  switch (a) {
    case Activation::Sigmoid:
      return 1.0 / (1.0 + std::exp(-s));
    case Activation::Tanh:
      return std::tanh(s);
    case Activation::Relu:
      return s > 0 ? s : 0.0;
    default:
      return s;
  }
}
namespace {

struct Evaluator {
  const CompiledPlan& plan;
  const ParameterLayout& layout;
  const std::vector<double>& params;
  const SequenceBatch& batch;
  const StreamState& state;
  // y[layer][t][n][i], t in [0, T)
  std::vector<std::vector<double>> y;

  double output(int layer, int t, int n, int i) const {
    const int size = plan.graph().layers[layer].size;
    if (t >= 0) return y[layer][(static_cast<std::size_t>(t) * batch.streams + n) * size + i];
    const int kept = plan.maxDelayFrom(layer);
    if (state.empty() || -t > kept) return 0.0;
    const auto frames = state.layerFrames(layer);
    return frames[(static_cast<std::size_t>(kept + t) * batch.streams + n) * size + i];
  }

  std::vector<double> contribution(int c, int t, int n) const {
    const Connection& connection = plan.graph().connections[c];
    const int from = plan.fromLayer(c);
    const int rows = plan.graph().layers[plan.toLayer(c)].size;
    const int cols = plan.graph().layers[from].size;
    const int source = t - connection.delay;
    std::vector<double> z(rows, 0.0);
    const ParameterView* w = layout.connectionWeight(c);
    for (int i = 0; i < rows; ++i) {
      if (connection.type == ConnectionType::Identity) {
        z[i] = output(from, source, n, i);
      } else if (connection.type == ConnectionType::Complement) {
        z[i] = 1.0 - output(from, source, n, i);
      } else if (connection.type == ConnectionType::Diagonal) {
        z[i] = params[w->offset + i] * output(from, source, n, i);
      } else {
        for (int j = 0; j < cols; ++j)
          z[i] += params[w->offset + i * cols + j] * output(from, source, n, j);
      }
    }
    return z;
  }

  std::vector<double> preActivation(int layer, int t, int n) const {
    const Layer& spec = plan.graph().layers[layer];
    std::vector<double> s(spec.size, spec.kind == LayerKind::Multiplicative ? 1.0 : 0.0);
    if (const ParameterView* b = layout.layerBias(layer))
      for (int i = 0; i < spec.size; ++i) s[i] = params[b->offset + i];
    for (int c : plan.anterior(layer)) {
      const auto z = contribution(c, t, n);
      for (int i = 0; i < spec.size; ++i)
        s[i] = spec.kind == LayerKind::Multiplicative ? s[i] * z[i] : s[i] + z[i];
    }
    return s;
  }

  double frameLoss(int layer, int o, int t, int n, const std::vector<double>& s,
                   const std::vector<double>& out) const {
    const Layer& spec = plan.graph().layers[layer];
    const std::size_t row = static_cast<std::size_t>(t) * batch.streams + n;
    if (spec.loss == LossKind::CrossEntropy) {
      const double top = *std::max_element(s.begin(), s.end());
      double sum = 0;
      for (double v : s) sum += std::exp(v - top);
      return std::log(sum) + top - s[batch.targets[o].i64()[row]];
    }
    double total = 0;
    for (int i = 0; i < spec.size; ++i) {
      const double diff = out[i] - batch.targets[o].f32()[row * spec.size + i];
      total += 0.5 * diff * diff;
    }
    return total;
  }

  double run() {
    const Graph& graph = plan.graph();
    y.assign(graph.layers.size(), {});
    for (std::size_t l = 0; l < graph.layers.size(); ++l)
      y[l].assign(static_cast<std::size_t>(batch.frames) * batch.streams * graph.layers[l].size, 0);
    double loss = 0;
    for (int t = 0; t < batch.frames; ++t)
      for (int n = 0; n < batch.streams; ++n)
        for (const SccNode& node : plan.nodes())
          for (int layer : node.innerOrder) loss += step(layer, t, n);
    return loss;
  }

  double step(int layer, int t, int n) {
    const Layer& spec = plan.graph().layers[layer];
    const std::size_t base = (static_cast<std::size_t>(t) * batch.streams + n) * spec.size;
    if (spec.isInput()) {
      const auto& inputs = plan.inputLayers();
      const auto i = std::find(inputs.begin(), inputs.end(), layer) - inputs.begin();
      for (int k = 0; k < spec.size; ++k) y[layer][base + k] = batch.inputs[i].f32()[base + k];
      return 0;
    }
    const auto s = preActivation(layer, t, n);
    std::vector<double> out(spec.size);
    if (spec.activation == Activation::Softmax) {
      const double top = *std::max_element(s.begin(), s.end());
      double sum = 0;
      for (int k = 0; k < spec.size; ++k) sum += out[k] = std::exp(s[k] - top);
      for (double& v : out) v /= sum;
    } else {
      for (int k = 0; k < spec.size; ++k) out[k] = referenceActivate(spec.activation, s[k]);
    }
    std::copy(out.begin(), out.end(), y[layer].begin() + base);
    if (!spec.isOutput() || t < batch.firstPredictedFrame) return 0;
    const auto& outputs = plan.outputLayers();
    const int o =
        static_cast<int>(std::find(outputs.begin(), outputs.end(), layer) - outputs.begin());
    return frameLoss(layer, o, t, n, s, out);
  }
};

}  // namespace

double referenceLoss(const CompiledPlan& plan, const ParameterLayout& layout,
                     const std::vector<double>& params, const SequenceBatch& batch,
                     const StreamState& stateIn) {
  Evaluator evaluator{plan, layout, params, batch, stateIn, {}};
  return evaluator.run();
}

std::vector<std::vector<double>> referenceOutputs(const CompiledPlan& plan,
                                                  const ParameterLayout& layout,
                                                  const std::vector<double>& params,
                                                  const SequenceBatch& batch,
                                                  const StreamState& stateIn) {
  Evaluator evaluator{plan, layout, params, batch, stateIn, {}};
  evaluator.run();
  return std::move(evaluator.y);
}

std::vector<double> numericGradient(const CompiledPlan& plan, const ParameterSet& params,
                                    const SequenceBatch& batch, const StreamState& stateIn,
                                    double step) {
  std::vector<double> values(params.values().begin(), params.values().end());
  std::vector<double> gradient(values.size(), 0.0);
  const auto mask = params.mask();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!mask.empty() && mask[i] == 0.0f) continue;
    const double keep = values[i];
    values[i] = keep + step;
    const double up = referenceLoss(plan, params.layout(), values, batch, stateIn);
    values[i] = keep - step;
    const double down = referenceLoss(plan, params.layout(), values, batch, stateIn);
    values[i] = keep;
    gradient[i] = (up - down) / (2 * step);
  }
  return gradient;
}

}  // namespace rnnwb::testing

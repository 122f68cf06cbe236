#include "grid_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "reference_engine.hpp"

namespace rnnwb::testing {
namespace {

std::vector<double> logSoftmax(const double* s, int n) {
  const double top = *std::max_element(s, s + n);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += std::exp(s[i] - top);
  std::vector<double> out(s, s + n);
  for (double& v : out) v -= top + std::log(sum);
  return out;
}

double logAdd(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
}

// -log p(labels | s) by the CTC forward recursion, blank = 0.
double ctc(const std::vector<double>& s, int frames, int classes, const std::vector<int>& labels) {
  std::vector<int> ext{0};
  for (int l : labels) ext.insert(ext.end(), {l, 0});
  const int states = static_cast<int>(ext.size());
  std::vector<double> alpha(states, -INFINITY), next(states);
  for (int t = 0; t < frames; ++t) {
    const std::vector<double> ly =
        logSoftmax(s.data() + static_cast<std::size_t>(t) * classes, classes);
    for (int k = 0; k < states; ++k) {
      double v;
      if (t == 0) {
        v = k < 2 ? 0.0 : -INFINITY;
      } else {
        v = alpha[k];
        if (k >= 1) v = logAdd(v, alpha[k - 1]);
        if (k >= 2 && ext[k] != 0 && ext[k] != ext[k - 2]) v = logAdd(v, alpha[k - 2]);
      }
      next[k] = v == -INFINITY ? v : v + ly[ext[k]];
    }
    alpha = next;
  }
  const double last = states > 1 ? logAdd(alpha[states - 1], alpha[states - 2]) : alpha[0];
  return -last;
}

struct GridEvaluator {
  const CompiledPlan& plan;
  const ParameterLayout& layout;
  const std::vector<double>& params;
  const Example& example;
  int dimensions = plan.graph().dimensions;
  std::vector<GridExtent> extents;
  std::vector<std::vector<double>> y, s;

  double at(int layer, int x, int yy, int i) const {
    const GridExtent& e = extents[layer];
    if (x < 0 || yy < 0 || x >= e.width || yy >= e.height) return 0.0;  // outside the example
    const int size = plan.graph().layers[layer].size;
    return y[layer][(static_cast<std::size_t>(yy) * e.width + x) * size + i];
  }

  // The source vector a connection reads at (x, y), before its weight.
  std::vector<double> source(int c, int x, int yy) const {
    const Connection& connection = plan.graph().connections[c];
    const int from = plan.fromLayer(c);
    const int size = plan.graph().layers[from].size;
    std::vector<double> v(size, 0.0);
    for (int i = 0; i < size; ++i) {
      if (connection.reduce != ReduceAxis::None) {
        for (int row = 0; row < extents[from].height; ++row) v[i] += at(from, x, row, i);
      } else {
        v[i] = at(from, x - connection.delay, yy - connection.delayY, i);
        if (connection.type == ConnectionType::Complement) v[i] = 1.0 - v[i];
      }
    }
    return v;
  }

  std::vector<double> term(int c, int x, int yy) const {
    const Connection& connection = plan.graph().connections[c];
    const int from = plan.fromLayer(c);
    const int rows = plan.graph().layers[plan.toLayer(c)].size;
    const int cols = plan.graph().layers[from].size;
    const ParameterView* w = layout.connectionWeight(c);
    std::vector<double> z(rows, 0.0);
    if (connection.type == ConnectionType::Block) {
      const int bx = connection.block[0], by = connection.block[1];
      for (int o = 0; o < rows; ++o)
        for (int ch = 0; ch < cols; ++ch)
          for (int i = 0; i < by; ++i)
            for (int l = 0; l < bx; ++l)
              z[o] += params[w->offset + ((static_cast<std::size_t>(o) * cols + ch) * by + i) * bx +
                             l] *
                      at(from, x * bx + l, yy * by + i, ch);
      return z;
    }
    const std::vector<double> v = source(c, x, yy);
    for (int o = 0; o < rows; ++o) {
      if (connection.type == ConnectionType::Full) {
        for (int k = 0; k < cols; ++k)
          z[o] += params[w->offset + static_cast<std::size_t>(o) * cols + k] * v[k];
      } else if (connection.type == ConnectionType::Diagonal) {
        z[o] = params[w->offset + o] * v[o];
      } else {
        z[o] = v[o];
      }
    }
    return z;
  }

  void compute(int layer, int x, int yy) {
    const Layer& spec = plan.graph().layers[layer];
    const std::size_t cell = static_cast<std::size_t>(yy) * extents[layer].width + x;
    std::vector<double> sum(spec.size, spec.kind == LayerKind::Multiplicative ? 1.0 : 0.0);
    if (const ParameterView* b = layout.layerBias(layer))
      for (int i = 0; i < spec.size; ++i) sum[i] = params[b->offset + i];
    for (int c : plan.anterior(layer)) {
      const std::vector<double> z = term(c, x, yy);
      for (int i = 0; i < spec.size; ++i)
        sum[i] = spec.kind == LayerKind::Multiplicative ? sum[i] * z[i] : sum[i] + z[i];
    }
    std::copy(sum.begin(), sum.end(), s[layer].begin() + cell * spec.size);
    if (spec.activation == Activation::Softmax) {
      const std::vector<double> ls = logSoftmax(sum.data(), spec.size);
      for (int i = 0; i < spec.size; ++i) y[layer][cell * spec.size + i] = std::exp(ls[i]);
    } else {
      for (int i = 0; i < spec.size; ++i)
        y[layer][cell * spec.size + i] = referenceActivate(spec.activation, sum[i]);
    }
  }

  void run() {
    const auto& layers = plan.graph().layers;
    const int height = example.height(dimensions), width = example.width(dimensions);
    for (int l = 0; l < static_cast<int>(layers.size()); ++l) {
      extents.push_back(layerExtent(plan, l, height, width));
      y.emplace_back(static_cast<std::size_t>(extents.back().cells()) * layers[l].size, 0.0);
      s.push_back(y.back());
    }
    for (std::size_t i = 0; i < plan.inputLayers().size(); ++i) {
      const auto values = example.inputs[i].f32();
      std::copy(values.begin(), values.end(), y[plan.inputLayers()[i]].begin());
    }
    for (const SccNode& node : plan.nodes()) {
      if (layers[node.innerOrder.front()].isInput()) continue;
      const GridExtent e = extents[node.innerOrder.front()];
      std::vector<std::pair<long long, std::pair<int, int>>> order;
      for (int yy = 0; yy < e.height; ++yy)
        for (int x = 0; x < e.width; ++x) {
          long long key = 0;
          if (!node.scan.empty())
            key = node.scan[0] * x + (node.scan.size() > 1 ? node.scan[1] * yy : 0);
          order.push_back({key, {x, yy}});
        }
      std::stable_sort(order.begin(), order.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (const auto& [key, p] : order)
        for (int layer : node.innerOrder) compute(layer, p.first, p.second);
    }
  }

  double loss() const {
    double total = 0.0;
    const auto& layers = plan.graph().layers;
    for (std::size_t o = 0; o < plan.outputLayers().size() && o < example.targets.size(); ++o) {
      const int l = plan.outputLayers()[o];
      const int size = layers[l].size;
      const Tensor& target = example.targets[o];
      const long long cells = extents[l].cells();
      if (layers[l].loss == LossKind::Ctc) {
        const auto labels = target.i64();
        total += ctc(s[l], extents[l].width, size, std::vector<int>(labels.begin(), labels.end()));
        continue;
      }
      for (long long cell = 0; cell < cells; ++cell) {
        if (layers[l].loss == LossKind::CrossEntropy) {
          total -= logSoftmax(s[l].data() + cell * size, size)[target.i64()[cell]];
          continue;
        }
        for (int i = 0; i < size; ++i) {
          const double d = y[l][cell * size + i] - target.f32()[cell * size + i];
          total += 0.5 * d * d;
        }
      }
    }
    return total;
  }
};

}  // namespace

GridReference gridReference(const CompiledPlan& plan, const ParameterLayout& layout,
                            const std::vector<double>& params, const Example& example) {
  GridEvaluator evaluator{plan, layout, params, example};
  evaluator.run();
  return {evaluator.y, evaluator.loss()};
}

double gridReferenceLoss(const CompiledPlan& plan, const ParameterLayout& layout,
                         const std::vector<double>& params, const ExampleBatch& batch) {
  double total = 0.0;
  for (const Example& example : batch.examples)
    total += gridReference(plan, layout, params, example).loss;
  return total;
}

std::vector<double> gridNumericGradient(const CompiledPlan& plan, const ParameterSet& params,
                                        const ExampleBatch& batch, double step) {
  std::vector<double> values(params.values().begin(), params.values().end());
  std::vector<double> gradient(values.size(), 0.0);
  for (const ParameterView& view : params.layout().views()) {
    if (!view.trainable) continue;
    for (std::size_t i = view.offset; i < view.offset + view.size; ++i) {
      if (params.hasMasks() && params.mask()[i] == 0.0f) continue;
      const double saved = values[i];
      values[i] = saved + step;
      const double up = gridReferenceLoss(plan, params.layout(), values, batch);
      values[i] = saved - step;
      const double down = gridReferenceLoss(plan, params.layout(), values, batch);
      values[i] = saved;
      gradient[i] = (up - down) / (2.0 * step);
    }
  }
  return gradient;
}

}  // namespace rnnwb::testing

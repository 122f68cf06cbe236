#include "rnnwb/ui/smoothing.hpp"

#include <algorithm>
#include <cmath>

namespace rnnwb::ui {

std::vector<double> smoothedValues(const std::vector<double>& values, double weight) {
  std::vector<double> out(values.size());
  const bool constant =
      std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); });
  double last = 0.0;
  int accumulated = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double value = values[i];
    if (constant || !std::isfinite(value)) {
      out[i] = value;
      continue;
    }
    last = last * weight + (1.0 - weight) * value;
    ++accumulated;
    const double debias = weight == 1.0 ? 1.0 : 1.0 - std::pow(weight, accumulated);
    out[i] = last / debias;
  }
  return out;
}

}  // namespace rnnwb::ui

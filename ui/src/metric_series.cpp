#include "rnnwb/ui/metric_series.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rnnwb/core/train/metric_table.hpp"
#include "rnnwb/ui/smoothing.hpp"

namespace rnnwb::ui {

RunSeries buildSeries(const std::vector<train::MetricsRecord>& records, const std::string& metric,
                      XAxis axis, double weight) {
  std::vector<const train::MetricsRecord*> carrying;
  std::vector<double> values;
  carrying.reserve(records.size());
  values.reserve(records.size());
  for (const train::MetricsRecord& r : records)
    if (const auto value = train::metricValue(r, metric)) {
      carrying.push_back(&r);
      values.push_back(*value);
    }
  const std::vector<double> smoothed = smoothedValues(values, weight);
  RunSeries s;
  const double none = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0; i < carrying.size(); ++i) {
    const train::MetricsRecord& r = *carrying[i];
    if (axis == XAxis::Wall && !r.wallTime) continue;
    s.x.push_back(axis == XAxis::Step       ? static_cast<double>(r.step)
                  : axis == XAxis::Relative ? r.wallS
                                            : *r.wallTime);
    s.raw.push_back(values[i]);
    s.smoothed.push_back(smoothed[i]);
    s.steps.push_back(r.step);
    s.relative.push_back(r.wallS);
    s.wall.push_back(r.wallTime.value_or(none));
  }
  return s;
}

int nearestIndex(const std::vector<double>& xs, double x) {
  if (xs.empty()) return -1;
  const auto above = std::lower_bound(xs.begin(), xs.end(), x);
  if (above == xs.begin()) return 0;
  if (above == xs.end()) return static_cast<int>(xs.size()) - 1;
  const auto below = above - 1;
  return static_cast<int>((x - *below <= *above - x ? below : above) - xs.begin());
}

bool hasWallTime(const std::vector<train::MetricsRecord>& records) {
  return !records.empty() && std::all_of(records.begin(), records.end(),
                                         [](const auto& r) { return r.wallTime.has_value(); });
}

}  // namespace rnnwb::ui

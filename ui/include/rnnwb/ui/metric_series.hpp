#pragma once
// One run's points of one metric, as a plot card draws them and its readout and CSV read them:
// every record that has the metric (never decimated: the plot decimates when it draws), its x on
// the chosen axis, the raw value and TensorBoard's smoothed value.
#include <cstdint>
#include <string>
#include <vector>

#include "rnnwb/core/train/metrics.hpp"

namespace rnnwb::ui {

/// What the plots' x axis shows: the update step, the run's training time (wall_s: the seconds
/// it trained over all its sessions, pauses between them left out) or the calendar time of each
/// report (wall_time, which files written before rnnwb wrote it do not have).
enum class XAxis { Step, Relative, Wall };

struct RunSeries {
  std::vector<double> x;         // on the chosen axis, ascending as the file is
  std::vector<double> raw;       // the metric as written
  std::vector<double> smoothed;  // TensorBoard's debiased EMA of raw
  std::vector<std::int64_t> steps;
  std::vector<double> relative;  // wall_s
  std::vector<double> wall;      // wall_time, NaN where the record has none
  std::size_t size() const { return x.size(); }
};

/// The run's points of `metric` on `axis`, smoothed with `weight` (0 to 0.999). On the wall-time
/// axis, records without wall_time are left out (smoothing still sees their values).
RunSeries buildSeries(const std::vector<train::MetricsRecord>& records, const std::string& metric,
                      XAxis axis, double weight);

/// The index of the point whose x is nearest `x` (xs ascending); -1 when there is none.
int nearestIndex(const std::vector<double>& xs, double x);

/// Whether every record carries wall_time (the wall-time axis can show the whole run).
bool hasWallTime(const std::vector<train::MetricsRecord>& records);

}  // namespace rnnwb::ui

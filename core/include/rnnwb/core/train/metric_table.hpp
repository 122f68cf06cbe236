#pragma once
// The metrics of runs by name, as plots and tables show them: which metrics a run's records carry
// (the keys of metrics.jsonl that are measurements, not positions such as step, frames or wall
// time), one metric's value in a record, and a CSV of one metric over several runs (the
// workbench's CSV export and `rnnwb metrics --csv` write the same text).
#include <optional>
#include <string>
#include <vector>

#include "rnnwb/core/train/metrics.hpp"

namespace rnnwb::train {

/// The metrics that at least one record carries: the trainer's own in a fixed order (losses
/// first: train_loss, valid_loss, train_bpc, valid_bpc, cer, wer, grad_norm, lr, frames_per_s),
/// then extra keys by name. Every record counts as carrying train_loss, grad_norm, lr and
/// frames_per_s.
std::vector<std::string> metricNames(const std::vector<MetricsRecord>& records);

/// A record's value of a metric; nothing when the record does not carry it.
std::optional<double> metricValue(const MetricsRecord& record, const std::string& name);

/// A number as the CSV and the readouts write it: the shortest text that reads back to it.
std::string shortestNumber(double value);

struct MetricsCsvRun {
  std::string name;  // the column's title
  const std::vector<MetricsRecord>* records = nullptr;
};

/// One metric over runs as CSV (RFC 4180 quoting, '\n' line ends). Header:
/// `step,<run 1>,...,<run n>,<run 1> wall_time,...,<run n> wall_time`; one row per step at which
/// any run has the metric, ascending; a run's cells are empty where it has no value at that step
/// (a later record of the same step wins). Values are raw (not smoothed), wall_time in Unix
/// seconds, empty for a file written before rnnwb wrote it.
std::string metricsCsv(const std::vector<MetricsCsvRun>& runs, const std::string& metric);

}  // namespace rnnwb::train

#include "rnnwb/core/train/metric_table.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

namespace rnnwb::train {

namespace {

const char* const kOwnMetrics[] = {"train_loss", "valid_loss", "train_bpc", "valid_bpc",   "cer",
                                   "wer",        "grad_norm",  "lr",        "frames_per_s"};

/// Quotes a CSV field when it holds a comma, a quote or a line break (RFC 4180).
std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

}  // namespace

std::optional<double> metricValue(const MetricsRecord& r, const std::string& name) {
  if (std::find(r.missing.begin(), r.missing.end(), name) != r.missing.end()) return std::nullopt;
  if (name == "train_loss") return r.trainLoss;
  if (name == "valid_loss") return r.validLoss;
  if (name == "train_bpc") return r.trainBpc;
  if (name == "valid_bpc") return r.validBpc;
  if (name == "cer") return r.cer;
  if (name == "wer") return r.wer;
  if (name == "grad_norm") return r.gradNorm;
  if (name == "lr") return r.lr;
  if (name == "frames_per_s") return r.framesPerS;
  const auto extra = r.extra.find(name);
  if (extra == r.extra.end()) return std::nullopt;
  return extra->second;
}

std::vector<std::string> metricNames(const std::vector<MetricsRecord>& records) {
  std::vector<std::string> names;
  if (records.empty()) return names;
  for (const char* own : kOwnMetrics)
    if (std::any_of(records.begin(), records.end(),
                    [own](const MetricsRecord& r) { return metricValue(r, own).has_value(); }))
      names.emplace_back(own);
  std::set<std::string> extras;
  for (const MetricsRecord& r : records)
    for (const auto& [key, value] : r.extra) extras.insert(key);
  names.insert(names.end(), extras.begin(), extras.end());
  return names;
}

std::string shortestNumber(double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

std::string metricsCsv(const std::vector<MetricsCsvRun>& runs, const std::string& metric) {
  struct Cell {
    double value;
    std::optional<double> wallTime;
  };
  std::vector<std::map<std::int64_t, Cell>> columns(runs.size());
  std::set<std::int64_t> steps;
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (const MetricsRecord& r : *runs[i].records)
      if (const auto value = metricValue(r, metric)) {
        columns[i][r.step] = {*value, r.wallTime};
        steps.insert(r.step);
      }
  std::string csv = "step";
  for (const MetricsCsvRun& run : runs) csv += ',' + csvField(run.name);
  for (const MetricsCsvRun& run : runs) csv += ',' + csvField(run.name + " wall_time");
  csv += '\n';
  for (const std::int64_t step : steps) {
    csv += std::to_string(step);
    for (const auto& column : columns) {
      const auto cell = column.find(step);
      csv += ',' + (cell == column.end() ? std::string() : shortestNumber(cell->second.value));
    }
    for (const auto& column : columns) {
      const auto cell = column.find(step);
      const bool has = cell != column.end() && cell->second.wallTime;
      csv += ',' + (has ? shortestNumber(*cell->second.wallTime) : std::string());
    }
    csv += '\n';
  }
  return csv;
}

}  // namespace rnnwb::train

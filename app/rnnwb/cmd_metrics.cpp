// rnnwb metrics RUN... [--metric NAME] [--csv]: what run folders' metrics.jsonl hold. Without
// --csv, one line per run and metric (points, last step and value, best value); with --csv, one
// metric over the runs as CSV, the same text as the workbench's CSV export.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "cli_support.hpp"
#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/train/metric_table.hpp"
#include "rnnwb/core/train/run_folder.hpp"

namespace rnnwb::cli {

namespace {

struct LoadedRun {
  std::string name;
  std::vector<train::MetricsRecord> records;
};

std::vector<LoadedRun> loadRuns(const std::vector<std::string>& dirs) {
  std::vector<LoadedRun> runs;
  for (const std::string& dir : dirs) {
    const train::RunFolder folder{std::filesystem::path(dir)};
    if (!std::filesystem::exists(folder.metricsPath()))
      throw std::runtime_error(dir + ": no metrics.jsonl (not a run folder, or no report yet)");
    // Named by the folder; the path as given when two folders share a name.
    std::string name = std::filesystem::path(dir).lexically_normal().filename().string();
    if (name.empty())
      name = std::filesystem::path(dir).lexically_normal().parent_path().filename().string();
    requireNotAFolder(folder.metricsPath(), "the metrics file");
    train::MetricsReader reader(folder.metricsPath());
    runs.push_back({name, reader.readNew()});
    if (const int skipped = reader.skippedLines())  // said nothing before
      std::cerr << "rnnwb metrics: warning: " << folder.metricsPath().string() << ": skipped "
                << skipped
                << " line(s) that are not reports (not JSON, a number JSON cannot hold such as "
                   "NaN or 1e999, or a step that is not an integer)\n";
  }
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = 0; j < runs.size(); ++j)
      if (i != j && runs[i].name == runs[j].name) runs[i].name = dirs[i];
  return runs;
}

void printSummary(const std::vector<LoadedRun>& runs) {
  for (const LoadedRun& run : runs) {
    std::cout << run.name << ": " << run.records.size() << " reports\n";
    for (const std::string& metric : train::metricNames(run.records)) {
      std::size_t points = 0;
      const train::MetricsRecord* last = nullptr;
      double least = 0.0;
      for (const train::MetricsRecord& r : run.records)
        if (const auto value = train::metricValue(r, metric)) {
          least = points == 0 ? *value : std::min(least, *value);
          ++points;
          last = &r;
        }
      std::cout << "  " << metric << ": " << points << " points, last "
                << train::shortestNumber(*train::metricValue(*last, metric)) << " at step "
                << last->step << ", min " << train::shortestNumber(least) << '\n';
    }
  }
}

int printCsv(const std::vector<LoadedRun>& runs, const std::string& metric) {
  std::vector<train::MetricsCsvRun> columns;
  bool any = false;
  for (const LoadedRun& run : runs) {
    columns.push_back({run.name, &run.records});
    const auto names = train::metricNames(run.records);
    any = any || std::find(names.begin(), names.end(), metric) != names.end();
  }
  if (!any) {
    std::string carried;
    for (const std::string& name : train::metricNames(runs.front().records))
      carried += (carried.empty() ? "" : ", ") + name;
    throw std::runtime_error(
        "no run has metric '" + metric + "'" +
        (carried.empty() ? "" : " (" + runs.front().name + " has " + carried + ")"));
  }
  std::cout << train::metricsCsv(columns, metric);
  return 0;
}

}  // namespace

void registerMetrics(CLI::App& app, int& exitCode) {
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto metric = std::make_shared<std::string>("train_loss");
  auto csv = std::make_shared<bool>(false);
  CLI::App* cmd =
      addCommand(app, "metrics", "Summarize run folders' metrics, or print one metric as CSV",
                 exitCode, [dirs, metric, csv] {
                   const std::vector<LoadedRun> runs = loadRuns(*dirs);
                   if (*csv) return printCsv(runs, *metric);
                   printSummary(runs);
                   return 0;
                 });
  cmd->add_option("RUN", *dirs, "Run folders (rnnwb train --run-dir)")->required();
  cmd->add_option("--metric", *metric,
                  "With --csv: the metric (a key of metrics.jsonl: train_loss, valid_loss, "
                  "train_bpc, valid_bpc, cer, grad_norm, lr, frames_per_s, ...)")
      ->capture_default_str();
  cmd->add_flag("--csv", *csv,
                "Print the metric as CSV: step, one column of raw values per run, then each "
                "run's wall_time (Unix seconds)");
}

}  // namespace rnnwb::cli

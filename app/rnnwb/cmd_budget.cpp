// rnnwb budget GRAPH [--streams N] [--h H] [--h-prime H'] [--budget SIZE] [--json]: which training
// algorithm fits a memory budget (core/include/rnnwb/core/snap/algorithm_budget.hpp).
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

#include "cli_support.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/snap/algorithm_budget.hpp"

namespace rnnwb::cli {
namespace {

struct BudgetOptions {
  std::string file;
  snap::BudgetQuery query;
  std::string budget;  // empty: the machine's physical memory
  std::string optimizer = "adam";
  bool measure = true;
  int threads = 1;
  bool json = false;
};

std::string perFrame(double seconds, bool measured) {
  std::ostringstream out;
  out << std::setprecision(3) << (measured ? "" : "~");
  if (seconds <= 0) return "-";
  if (seconds < 1e-3)
    out << seconds * 1e6 << " us";
  else if (seconds < 1)
    out << seconds * 1e3 << " ms";
  else
    out << seconds << " s";
  return out.str();
}

void printTable(const snap::BudgetTable& table, const BudgetOptions& o) {
  std::cout << "budget " << formatBytes(o.query.budgetBytes) << ", " << o.query.streams
            << " streams; parameters, gradient and optimizer state: "
            << formatBytes(table.sharedBytes) << " (" << table.parameters << " parameters)\n";
  if (table.flopsPerSecond > 0)
    std::cout << "time per frame of all streams: measured by a short run of each algorithm that "
                 "fits; ~ marks the model's estimate at the engine's "
              << std::setprecision(3) << table.flopsPerSecond / 1e9 << " GFLOP/s on this graph\n";
  std::cout << '\n'
            << std::left << std::setw(16) << "algorithm" << std::setw(14) << "memory"
            << std::setw(16) << "time per frame"
            << "fits\n";
  for (const snap::AlgorithmEstimate& row : table.rows)
    std::cout << std::setw(16) << row.label << std::setw(14) << formatBytes(row.totalBytes)
              << std::setw(16) << perFrame(row.secondsPerFrame, row.measured)
              << (row.refusal ? "no: " + *row.refusal
                  : row.fits  ? "yes"
                              : "no")
              << '\n';
  for (const std::string& line : table.unmeasured) std::cout << "note: " << line << '\n';
}

nlohmann::json tableJson(const snap::BudgetTable& table, const BudgetOptions& o) {
  nlohmann::json rows = nlohmann::json::array();
  for (const snap::AlgorithmEstimate& row : table.rows) {
    nlohmann::json r = {{"algo", row.algorithm},
                        {"label", row.label},
                        {"bytes", row.totalBytes},
                        {"own_bytes", row.ownBytes},
                        {"flops_per_frame", row.flopsPerFrame},
                        {"seconds_per_frame", row.secondsPerFrame},
                        {"measured", row.measured},
                        {"fits", row.fits}};
    if (row.refusal) r["refused"] = *row.refusal;
    rows.push_back(r);
  }
  return {{"budget_bytes", o.query.budgetBytes},
          {"streams", o.query.streams},
          {"h", o.query.window},
          {"h_prime", o.query.newFrames},
          {"shared_bytes", table.sharedBytes},
          {"params", table.parameters},
          {"flops_per_s", table.flopsPerSecond},
          {"algorithms", rows},
          {"unmeasured", table.unmeasured}};
}

int runBudget(BudgetOptions o) {
  const CompiledPlan plan(loadValidGraph(o.file));
  o.query.budgetBytes = o.budget.empty() ? physicalMemoryBytes() : parseBytes(o.budget);
  o.query.optimizerSlots = o.optimizer == "adam" ? 2 : 1;
  // Sized from the plan alone; only what fits the budget and this machine is run to be timed.
  std::vector<std::string> unmeasured;
  const double rate =
      o.measure ? snap::measureEngineRateIfItFits(plan, o.query, o.threads, unmeasured) : 0;
  snap::BudgetTable table = snap::estimateAlgorithms(plan, o.query, rate);
  table.unmeasured.insert(table.unmeasured.begin(), unmeasured.begin(), unmeasured.end());
  if (o.measure) snap::measureAlgorithms(plan, o.query, table, o.threads);
  if (o.json)
    std::cout << tableJson(table, o).dump(2) << '\n';
  else
    printTable(table, o);
  return 0;
}

}  // namespace

void registerBudget(CLI::App& app, int& exitCode) {
  auto o = std::make_shared<BudgetOptions>();
  CLI::App* cmd = addCommand(
      app, "budget",
      "Which training algorithm fits a memory budget: the bytes BPTT(h; h'), SnAp-1/2/3 and "
      "exact RTRL would hold for N streams, and their time per frame on this machine",
      exitCode, [o] { return runBudget(*o); });
  requireExistingFile(cmd->add_option("GRAPH", o->file, "Graph file (*.rnn.json)")->required());
  const CLI::Range positive(1, 1 << 20);
  cmd->add_option("--streams", o->query.streams, "Streams N (default 32)")->check(positive);
  cmd->add_option("--h", o->query.window, "BPTT's window h in frames (default 64)")
      ->check(positive);
  cmd->add_option("--h-prime", o->query.newFrames,
                  "Frames each update advances, h' <= h (default 64)")
      ->check(positive);
  cmd->add_option("--budget", o->budget,
                  "Memory budget, e.g. 2GiB or 500MB (default: this machine's memory)")
      ->type_name("SIZE");
  cmd->add_option("--optimizer", o->optimizer, "Optimizer whose state counts (default adam)")
      ->check(CLI::IsMember({"adam", "sgd"}));
  cmd->add_option("--threads", o->threads, "Threads of the measured engine run (default 1)")
      ->check(CLI::Range(1, 256));
  cmd->add_flag("!--no-measure", o->measure,
                "Skip timing the engine on the graph (times are then left out)");
  cmd->add_flag("--json", o->json, "Print the table as JSON");
}

}  // namespace rnnwb::cli

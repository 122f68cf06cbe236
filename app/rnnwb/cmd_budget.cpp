// rnnwb budget GRAPH [--streams N] [--h H] [--h-prime H'] [--budget SIZE] [--json]: which training
// algorithm fits a memory budget (core/include/rnnwb/core/snap/algorithm_budget.hpp). For a 2-D
// graph, the bytes of its words run instead (core/include/rnnwb/core/train/words_budget.hpp),
// sized by the words task's settings (--batch, --synthetic-words, --images, ...).
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

#include "cli_support.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/products.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/snap/algorithm_budget.hpp"
#include "rnnwb/core/train/words_budget.hpp"
#include "spec_options.hpp"

namespace rnnwb::cli {
namespace {

struct BudgetOptions : SpecOptions {
  std::string file, configFile;
  std::vector<CLI::Option*> oneDimensional;  // --streams, --h, --h-prime
  CLI::Option* optimizerOption = nullptr;
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

/// Says which of `options` were given, for a refusal.
std::string givenFlags(const std::vector<CLI::Option*>& options) {
  std::string flags;
  for (const CLI::Option* option : options)
    if (option->count() > 0) flags += (flags.empty() ? "" : ", ") + option->get_name();
  return flags;
}

std::string secondsText(double seconds) {
  std::ostringstream out;
  out << std::setprecision(3);
  if (seconds < 1)
    out << seconds * 1e3 << " ms";
  else
    out << seconds << " s";
  return out.str();
}

void printBatch(const char* title, const train::WordsBatchMemory& batch) {
  std::cout << '\n'
            << title << ": " << batch.words << " words, " << batch.positions << " pixels, "
            << formatBytes(batch.total()) << '\n'
            << "  " << std::left << std::setw(44) << "examples (ink and labels)"
            << formatBytes(batch.tensorBytes) << '\n';
  for (const MemoryPart& part : batch.engine.parts)
    if (part.bytes > 0)
      std::cout << "  " << std::setw(44) << "engine: " + part.name << formatBytes(part.bytes)
                << '\n';
}

void printWordsBudget(const train::WordsBudget& b) {
  std::cout << "budget " << formatBytes(b.budgetBytes) << "; a words run of " << b.source << ", "
            << b.trainWords << " for training and " << b.validWords << " for validation, "
            << b.batch << " a batch (" << b.stepsPerEpoch << " updates an epoch), packed by "
            << b.packer << '\n'
            << "shared: " << b.sharedText << '\n'
            << "word images: " << formatBytes(b.dataBytes) << '\n';
  printBatch("the largest batch of the first epoch", b.largestOfFirstEpoch);
  printBatch("the worst case, the largest words in one batch", b.worstCase);
  std::cout << "\ntotal: " << formatBytes(b.typicalTotal()) << " (largest batch of epoch 1), "
            << formatBytes(b.worstTotal()) << " (worst case); fits: " << (b.fits() ? "yes" : "no")
            << '\n';
  if (b.timedUpdates > 0)
    std::cout << "time per update: " << secondsText(b.secondsPerUpdate) << " (the first "
              << b.timedUpdates << " updates), about "
              << secondsText(b.secondsPerUpdate * b.stepsPerEpoch) << " an epoch\n";
  for (const std::string& line : b.notes) std::cout << "note: " << line << '\n';
}

nlohmann::json memoryJson(const train::WordsBatchMemory& batch) {
  nlohmann::json engine = nlohmann::json::object();
  for (const MemoryPart& part : batch.engine.parts) engine[part.name] = part.bytes;
  return {{"words", batch.words},
          {"pixels", batch.positions},
          {"tensor_bytes", batch.tensorBytes},
          {"engine_bytes", batch.engine.total()},
          {"engine", engine},
          {"bytes", batch.total()}};
}

nlohmann::json wordsBudgetJson(const train::WordsBudget& b) {
  return {{"budget_bytes", b.budgetBytes},
          {"source", b.source},
          {"packer", b.packer},
          {"batch", b.batch},
          {"train_words", b.trainWords},
          {"valid_words", b.validWords},
          {"steps_per_epoch", b.stepsPerEpoch},
          {"params", b.parameters},
          {"shared_bytes", b.sharedBytes},
          {"data_bytes", b.dataBytes},
          {"largest_batch_of_first_epoch", memoryJson(b.largestOfFirstEpoch)},
          {"worst_case", memoryJson(b.worstCase)},
          {"typical_bytes", b.typicalTotal()},
          {"worst_bytes", b.worstTotal()},
          {"fits", b.fits()},
          {"seconds_per_update", b.secondsPerUpdate},
          {"timed_updates", b.timedUpdates},
          {"notes", b.notes}};
}

/// The budget of a 2-D graph: its words run, sized by the words task's settings.
int runWordsBudget(const BudgetOptions& o) {
  if (const std::string flags = givenFlags(o.oneDimensional); !flags.empty())
    throw std::invalid_argument(flags + ": these size a 1-D run; " + o.file +
                                " is 2-D, whose words run is sized by --batch and the words "
                                "(--synthetic-words, --images, ...)");
  train::SettingValues given = givenSettings(o);
  given["graph"] = o.file;
  given["task.kind"] = "words";
  // A run config's optimizer stands unless --optimizer is given.
  if (o.configFile.empty() || o.optimizerOption->count() > 0) given["optimizer.kind"] = o.optimizer;
  const train::TrainConfig config =
      o.configFile.empty() ? train::withValues({}, given)
                           : train::withValues(train::loadTrainConfig(o.configFile), given);
  train::WordsBudgetOptions options;
  options.budgetBytes = o.budget.empty() ? physicalMemoryBytes() : parseBytes(o.budget);
  options.timedUpdates = o.measure ? 2 : 0;
  setBlasThreads(o.threads);  // the timed updates' threads, as --threads says (default 1)
  const train::WordsBudget budget = train::estimateWordsBudget(config, options);
  if (o.json)
    std::cout << wordsBudgetJson(budget).dump(2) << '\n';
  else
    printWordsBudget(budget);
  return 0;
}

int runBudget(BudgetOptions o) {
  const CompiledPlan plan(loadValidGraph(o.file));
  if (plan.graph().dimensions == 2) return runWordsBudget(o);
  std::vector<CLI::Option*> wordsOptions;
  for (const auto& [key, option] : o.options) wordsOptions.push_back(option);
  if (const std::string flags = givenFlags(wordsOptions); !flags.empty() || !o.configFile.empty())
    throw std::invalid_argument((flags.empty() ? std::string("--config") : flags) +
                                ": these size the words run of a 2-D graph; " + o.file +
                                " is 1-D, sized by --streams, --h and --h-prime");
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
      "exact RTRL would hold for N streams, and their time per frame on this machine; for a 2-D "
      "graph, the bytes of its words run (parameters, data, batch, engine buffers)",
      exitCode, [o] { return runBudget(*o); });
  requireExistingFile(cmd->add_option("GRAPH", o->file, "Graph file (*.rnn.json)")->required());
  const CLI::Range positive(1, 1 << 20);
  o->oneDimensional = {
      cmd->add_option("--streams", o->query.streams, "Streams N (default 32)")->check(positive),
      cmd->add_option("--h", o->query.window, "BPTT's window h in frames (default 64)")
          ->check(positive),
      cmd->add_option("--h-prime", o->query.newFrames,
                      "Frames each update advances, h' <= h (default 64)")
          ->check(positive)};
  // A 2-D graph's words run: the words task's own settings, and the seed of its words.
  addSpecOptions(
      cmd, *o, [](const train::Setting& s) { return s.tasks == train::kWords || s.key == "seed"; });
  cmd->add_option("--config", o->configFile,
                  "A run config whose words task sizes a 2-D graph's run (options override it)");
  cmd->add_option("--budget", o->budget,
                  "Memory budget, e.g. 2GiB or 500MB (default: this machine's memory)")
      ->type_name("SIZE");
  o->optimizerOption =
      cmd->add_option("--optimizer", o->optimizer, "Optimizer whose state counts (default adam)")
          ->check(CLI::IsMember({"adam", "sgd"}));
  cmd->add_option("--threads", o->threads, "Threads of the measured engine run (default 1)")
      ->check(CLI::Range(1, 256));
  cmd->add_flag("!--no-measure", o->measure,
                "Skip timing the engine on the graph (times are then left out)");
  cmd->add_flag("--json", o->json, "Print the table as JSON");
}

}  // namespace rnnwb::cli

#pragma once
// RunSpec: the one table of every training setting (docs/training.md, "The run spec"). Each row
// says the setting's config key, its `rnnwb train` flag, its type and range, its help text, the
// tasks (and optimizers) it applies to, and whether `--resume` may change it; it reads and writes
// its TrainConfig field. Everything else is derived from the table and from nothing else: reading
// and writing config JSON (train_config.hpp), the options of `rnnwb train` and their --help, the
// merge of options over a config file, the options refused on --resume, the table of
// docs/training.md (checked by tst_runspec) and the workbench's Training form.
//
// Adding a setting: a field in TrainConfig (train_config.hpp) and one row in run_spec_table.cpp,
// plus the code that uses it.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rnnwb/core/train/train_config.hpp"

namespace rnnwb::train {

enum class SettingType {
  Integer,   // whole number in [min, max] (int64 range)
  Unsigned,  // whole number in [0, 2^64 - 1] (the seed)
  Real,      // finite number in [realMin, realMax]
  Flag,      // true / false; on the command line a flag without a value
  Text,      // any string; `choices`, when given, are the known values (checked by validation)
  Path,      // a file or folder; relative paths resolve against the config file's folder
  Choice,    // one of `choices`, checked when read
};

/// The tasks a setting applies to, as bits.
enum TaskSet : unsigned {
  kCharLm = 1u,
  kAdding = 2u,
  kCopy = 4u,
  kWords = 8u,
  kSequenceTasks = kCharLm | kAdding | kCopy,
  kAllTasks = kSequenceTasks | kWords,
};
/// The bit of a task name (0 for an unknown one).
unsigned taskBit(std::string_view taskKind);

struct Setting {
  std::string key;   // the config key, dotted for nested objects: "task.text"
  std::string flag;  // "--text"; "GRAPH" for the positional argument; empty: config file only
  SettingType type = SettingType::Text;
  std::string help;
  unsigned tasks = kAllTasks;
  std::string optimizer;                // "sgd" or "adam" when it belongs to one optimizer only
  bool resumeMayChange = false;         // --resume may give it (and then it changes the run)
  bool flagNegates = false;             // Flag: the command-line flag sets it to false
  std::int64_t min = 0, max = 0;        // Integer
  double realMin = 0.0, realMax = 0.0;  // Real (both 0: any finite number)
  std::vector<std::string> choices;     // Choice, Text: the known values
  std::string noun;                     // Choice: "optimizer" -> "unknown optimizer 'x'"
  std::string defaultText;              // shown instead of the default value (--help, docs)
  std::string replaces;                 // given on the command line alone, resets this key
  std::function<nlohmann::json(const TrainConfig&)> get;
  std::function<void(TrainConfig&, const nlohmann::json&)> set;  // the value is checked already
  /// The value a resolved config (toJson) holds, when it is not get's: h's default applied.
  std::function<nlohmann::json(const TrainConfig&)> resolved;
  /// When the resolved config holds it besides the task and optimizer rules (null: always).
  std::function<bool(const TrainConfig&)> writtenWhen;
};

/// Every setting, in the order of a config file (and of docs/training.md).
const std::vector<Setting>& runSpec();
const Setting* findSetting(std::string_view key);
const Setting* findSettingByFlag(std::string_view flag);

/// Whether the config's task and optimizer use the setting (the form shows it, the resolved
/// config holds it).
bool appliesTo(const Setting& setting, const TrainConfig& config);
/// The default value as text ("16", "adam", "2 h'").
std::string defaultText(const Setting& setting);
/// The range or choices as text ("1 to 256", "sgd, adam"), empty when there is none.
std::string rangeText(const Setting& setting);

/// A JSON value for the setting, converted exactly (no silent rounding or wrapping) and checked
/// against its type and range. Throws std::invalid_argument; `name` starts the message ("'streams'"
/// or "--streams") unless the setting names itself (a Choice: "unknown optimizer 'x' ...").
nlohmann::json checkedValue(const Setting& setting, const nlohmann::json& value,
                            const std::string& name);
/// The same for a value written on the command line (the message shows the text as written).
nlohmann::json valueFromText(const Setting& setting, const std::string& text);

/// Settings given by key (command-line options, a form), already checked.
using SettingValues = std::map<std::string, nlohmann::json>;

/// The config the values describe: `base` with each value set; a value of a setting that
/// `replaces` another resets that one unless it was given too (--steps over a config's epochs).
TrainConfig withValues(TrainConfig base, const SettingValues& values);

/// The config of a new run: the config file (when not empty; relative paths resolve against its
/// folder), `given` over it, and the words task's default graph. Throws std::invalid_argument when
/// a sequence task has no graph.
TrainConfig resolveRunConfig(const std::string& configFile, const SettingValues& given);

/// The settings a resumed run may change, as flags: "--steps, --epochs or --lr".
std::string resumeMutableFlagsText();
/// Throws std::invalid_argument (naming the flag) when `given` holds a setting --resume may not
/// change.
void requireResumeMayChange(const SettingValues& given, const std::string& runDir);

/// The table of docs/training.md ("The run spec"), in Markdown.
std::string runSpecMarkdown();

}  // namespace rnnwb::train

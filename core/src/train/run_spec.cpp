#include "rnnwb/core/train/run_spec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace rnnwb::train {
namespace {

using nlohmann::json;

std::string join(const std::vector<std::string>& items, const std::string& last) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += i + 1 == items.size() ? last : ", ";
    text += items[i];
  }
  return text;
}

std::string numberText(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

[[noreturn]] void wrongType(const std::string& name, const json& value) {
  throw std::invalid_argument(name + " has the wrong type: " + value.dump());
}

/// A whole number, exactly: JSON integers, or floats with no fraction (2.0), never rounded.
json checkedWhole(const Setting& s, const json& value, const std::string& name,
                  const std::string& shown) {
  const bool isUnsigned = s.type == SettingType::Unsigned;
  const std::string range = isUnsigned
                                ? "from 0 to 2^64 - 1"
                                : "from " + std::to_string(s.min) + " to " + std::to_string(s.max);
  auto outOfRange = [&] {
    throw std::invalid_argument(name + " must be a whole number " + range + ", got " + shown);
  };
  if (!value.is_number()) wrongType(name, value);
  if (value.is_number_unsigned()) {
    const std::uint64_t u = value.get<std::uint64_t>();
    if (isUnsigned) return json(u);
    if (u > static_cast<std::uint64_t>(s.max)) outOfRange();
    return json(static_cast<std::int64_t>(u));
  }
  if (value.is_number_integer()) {
    const std::int64_t i = value.get<std::int64_t>();
    if (isUnsigned ? i < 0 : (i < s.min || i > s.max)) outOfRange();
    return isUnsigned ? json(static_cast<std::uint64_t>(i)) : json(i);
  }
  const double d = value.get<double>();
  if (!std::isfinite(d) || d != std::floor(d)) outOfRange();
  if (isUnsigned) {
    if (d < 0.0 || d >= 18446744073709551616.0) outOfRange();
    return json(static_cast<std::uint64_t>(d));
  }
  if (d < static_cast<double>(s.min) || d > static_cast<double>(s.max)) outOfRange();
  return json(static_cast<std::int64_t>(d));
}

json checkedReal(const Setting& s, const json& value, const std::string& name,
                 const std::string& shown) {
  if (!value.is_number()) wrongType(name, value);
  const double d = value.get<double>();
  const bool ranged = s.realMin != 0.0 || s.realMax != 0.0;
  if (!std::isfinite(d) || (ranged && (d < s.realMin || d > s.realMax)))
    throw std::invalid_argument(
        name + " must be a " +
        (ranged ? "number from " + numberText(s.realMin) + " to " + numberText(s.realMax)
                : std::string("finite number")) +
        ", got " + shown);
  return json(d);
}

/// The object a dotted key lives in ("task" for "task.text"; "" for the top level) and its leaf.
std::pair<std::string, std::string> splitKey(const std::string& key) {
  const auto dot = key.find('.');
  if (dot == std::string::npos) return {"", key};
  return {key.substr(0, dot), key.substr(dot + 1)};
}

std::string resolvePath(const std::string& path, const std::filesystem::path& baseDir) {
  if (path.empty() || baseDir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (baseDir / path).lexically_normal().string();
}

}  // namespace

unsigned taskBit(std::string_view kind) {
  if (kind == "char-lm") return kCharLm;
  if (kind == "adding") return kAdding;
  if (kind == "copy") return kCopy;
  if (kind == "words") return kWords;
  return 0;
}

const Setting* findSetting(std::string_view key) {
  for (const Setting& s : runSpec())
    if (s.key == key) return &s;
  return nullptr;
}

const Setting* findSettingByFlag(std::string_view flag) {
  for (const Setting& s : runSpec())
    if (!s.flag.empty() && s.flag == flag) return &s;
  return nullptr;
}

bool appliesTo(const Setting& s, const TrainConfig& c) {
  if ((s.tasks & taskBit(c.task.kind)) == 0) return false;
  return s.optimizer.empty() || s.optimizer == toString(c.optimizer.kind);
}

std::string defaultText(const Setting& s) {
  if (!s.defaultText.empty()) return s.defaultText;
  const json value = s.get(TrainConfig{});
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return numberText(value.get<double>());
  return value.dump();
}

std::string rangeText(const Setting& s) {
  switch (s.type) {
    case SettingType::Integer:
      return std::to_string(s.min) + " to " + std::to_string(s.max);
    case SettingType::Unsigned:
      return "0 to 2^64 - 1";
    case SettingType::Real:
      if (s.realMin == 0.0 && s.realMax == 0.0) return "";
      return numberText(s.realMin) + " to " + numberText(s.realMax);
    default:
      return join(s.choices, ", ");
  }
}

json checkedValue(const Setting& s, const json& value, const std::string& name) {
  // Only for messages: text that is not UTF-8 (a path) is shown with U+FFFD, and refused by
  // validateTrainConfig naming its key, rather than by nlohmann's type_error.316 here.
  const std::string shown = value.dump(-1, ' ', false, json::error_handler_t::replace);
  switch (s.type) {
    case SettingType::Integer:
    case SettingType::Unsigned:
      return checkedWhole(s, value, name, shown);
    case SettingType::Real:
      return checkedReal(s, value, name, shown);
    case SettingType::Flag:
      if (!value.is_boolean()) wrongType(name, value);
      return value;
    case SettingType::Choice: {
      if (!value.is_string()) wrongType(name, value);
      const std::string text = value.get<std::string>();
      for (const std::string& choice : s.choices)
        if (choice == text) return value;
      throw std::invalid_argument("unknown " + s.noun + " '" + text + "' (use " +
                                  join(s.choices, " or ") + ")");
    }
    default:
      if (!value.is_string()) wrongType(name, value);
      return value;
  }
}

json valueFromText(const Setting& s, const std::string& text) {
  const std::string name = s.flag;
  auto rethrowShowing = [&](const json& parsed) {
    try {
      return checkedValue(s, parsed, name);
    } catch (const std::invalid_argument& e) {  // show the value as written, not as parsed
      const std::string message = e.what();
      const auto got = message.rfind(", got ");
      if (got == std::string::npos) throw;
      throw std::invalid_argument(message.substr(0, got) + ", got " + text);
    }
  };
  switch (s.type) {
    case SettingType::Integer:
    case SettingType::Unsigned:
    case SettingType::Real: {
      const char* begin = text.c_str();
      char* end = nullptr;
      std::int64_t whole = 0;
      const auto [at, error] = std::from_chars(begin, begin + text.size(), whole);
      if (s.type != SettingType::Real && error == std::errc() && at == begin + text.size())
        return rethrowShowing(json(whole));
      const double real = std::strtod(begin, &end);
      if (text.empty() || end != begin + text.size())  // not a number at all
        return rethrowShowing(json(std::numeric_limits<double>::quiet_NaN()));
      return rethrowShowing(json(real));
    }
    case SettingType::Flag:
      return checkedValue(s, json(text == "true" || text == "1"), name);
    default:
      return checkedValue(s, json(text), name);
  }
}

TrainConfig withValues(TrainConfig base, const SettingValues& values) {
  for (const auto& [key, value] : values) {
    const Setting* s = findSetting(key);
    if (!s) throw std::invalid_argument("unknown setting '" + key + "'");
    s->set(base, value);
    if (!s->replaces.empty() && !values.count(s->replaces)) {
      const Setting* other = findSetting(s->replaces);
      other->set(base, other->get(TrainConfig{}));
    }
  }
  return base;
}

std::string resumeMutableFlagsText() {
  std::vector<std::string> flags;
  for (const Setting& s : runSpec())
    if (s.resumeMayChange) flags.push_back(s.flag);
  return join(flags, " or ");
}

void requireResumeMayChange(const SettingValues& given, const std::string& runDir) {
  for (const Setting& s : runSpec())
    if (!s.resumeMayChange && given.count(s.key))
      throw std::invalid_argument("--resume continues the run as " + runDir +
                                  "/config.json says; only " + resumeMutableFlagsText() +
                                  " may change (got " + s.flag + ")");
}

std::string runSpecMarkdown() {
  std::string text =
      "| option | config key | type | default | range | tasks | `--resume` | meaning |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  static const char* kTypeNames[] = {"integer", "integer", "number", "flag",
                                     "text",    "path",    "choice"};
  for (const Setting& s : runSpec()) {
    std::vector<std::string> tasks;
    for (const char* kind : {"char-lm", "adding", "copy", "words"})
      if (s.tasks & taskBit(kind)) tasks.push_back(kind);
    std::string applies = s.tasks == kAllTasks ? "all" : join(tasks, ", ");
    if (!s.optimizer.empty()) applies += " (" + s.optimizer + ")";
    const std::string range = rangeText(s);
    const std::string shownDefault = defaultText(s);
    text += "| " + (s.flag.empty() ? std::string() : "`" + s.flag + "`") + " | `" + s.key + "` | " +
            kTypeNames[static_cast<int>(s.type)] + " | " +
            (shownDefault.empty() ? "" : "`" + shownDefault + "`") + " | " + range + " | " +
            applies + " | " + (s.resumeMayChange ? "may change" : "") + " | " + s.help + " |\n";
  }
  return text;
}

// --- config JSON -------------------------------------------------------------------------------

namespace {

/// Reads every setting the JSON holds into `c`, then refuses keys no setting (and no entry of
/// `reserved`) has, naming the object they are in.
void readSettings(const json& root, const std::string& source, const std::filesystem::path& baseDir,
                  TrainConfig& c, const std::vector<std::string>& reserved) {
  std::map<std::string, std::vector<std::string>> known = {{"", reserved}};
  auto where = [&](const std::string& object) {
    return object.empty() ? source : source + ": " + object;
  };
  for (const Setting& s : runSpec()) {
    const auto [object, leaf] = splitKey(s.key);
    known[object].push_back(leaf);
    const json* holder = &root;
    if (!object.empty()) {
      known[""].push_back(object);
      const auto it = root.find(object);
      if (it == root.end()) continue;
      if (!it->is_object()) throw std::invalid_argument(where(object) + ": must be a JSON object");
      holder = &*it;
    }
    const auto it = holder->find(leaf);
    if (it == holder->end()) continue;
    try {
      s.set(c, checkedValue(s, *it, "'" + leaf + "'"));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where(object) + ": " + e.what());
    }
    if (s.type == SettingType::Path)
      s.set(c, json(resolvePath(s.get(c).get<std::string>(), baseDir)));
  }
  for (const auto& [object, leaves] : known) {
    const auto it = object.empty() ? root.end() : root.find(object);
    if (!object.empty() && it == root.end()) continue;
    const json& holder = object.empty() ? root : *it;
    for (const auto& [key, value] : holder.items())
      if (std::find(leaves.begin(), leaves.end(), key) == leaves.end())
        throw std::invalid_argument(where(object) + ": unknown key '" + key + "'");
  }
}

}  // namespace

nlohmann::ordered_json toJson(const TrainConfig& c) {
  nlohmann::ordered_json j{{"format", kTrainConfigFormat}, {"version", kTrainConfigVersion}};
  for (const Setting& s : runSpec()) {
    if (!appliesTo(s, c) || (s.writtenWhen && !s.writtenWhen(c))) continue;
    const auto [object, leaf] = splitKey(s.key);
    (object.empty() ? j : j[object])[leaf] = s.resolved ? s.resolved(c) : s.get(c);
  }
  return j;
}

TrainConfig trainConfigFromJson(const json& j, const std::string& source,
                                const std::filesystem::path& baseDir) {
  if (!j.is_object()) throw std::invalid_argument(source + ": a config must be a JSON object");
  const auto format = j.find("format");
  if (format != j.end() && *format != kTrainConfigFormat)
    throw std::invalid_argument(source + ": 'format' must be \"" + std::string(kTrainConfigFormat) +
                                "\", got " + format->dump());
  const auto version = j.find("version");
  if (version != j.end() && *version != kTrainConfigVersion)
    throw std::invalid_argument(source + ": unknown config version " + version->dump() +
                                " (this rnnwb reads " + std::to_string(kTrainConfigVersion) + ")");
  if (const auto task = j.find("task");
      task != j.end() && task->is_object() && task->contains("model"))
    throw std::invalid_argument(
        source +
        ": task.model: the fixed word recogniser and its model configs are retired; "
        "make the recogniser as a graph (rnnwb new mdlstm --cell "
        "examples/leaky-lp-2d.rnn.json -o words.rnn.json) and train it (rnnwb train "
        "words.rnn.json --task words)");
  TrainConfig c;
  readSettings(j, source, baseDir, c, {"format", "version"});
  return c;
}

TrainConfig resolveRunConfig(const std::string& configFile, const SettingValues& given) {
  TrainConfig c =
      withValues(configFile.empty() ? TrainConfig{} : loadTrainConfig(configFile), given);
  if (c.task.kind == "words" && c.graph.empty()) c.graph = kDefaultWordsGraph;
  if (c.graph.empty())
    throw std::invalid_argument(configFile.empty()
                                    ? "give a GRAPH file (or --config FILE)"
                                    : configFile + ": no \"graph\" and no GRAPH given");
  return c;
}

}  // namespace rnnwb::train

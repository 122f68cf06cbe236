#include "config_changes.hpp"

#include <algorithm>
#include <array>
#include <map>

#include <nlohmann/json.hpp>

#include "rnnwb/core/json_read.hpp"

namespace rnnwb::train {
namespace {

using nlohmann::json;

// Leaves as "object.key" -> value, for one level of nesting (the config has no more).
std::map<std::string, json> configLeaves(const json& j) {
  std::map<std::string, json> flat;
  for (const auto& [key, value] : j.items()) {
    if (!value.is_object()) {
      flat[key] = value;
      continue;
    }
    for (const auto& [leaf, inner] : value.items()) flat[key + "." + leaf] = inner;
  }
  return flat;
}

std::string shownLeaf(const std::map<std::string, json>& flat, const std::string& key) {
  const auto it = flat.find(key);
  return it == flat.end() ? "(unset)" : it->second.dump();
}

}  // namespace

std::string resumeFingerprint(const TrainConfig& config) {
  nlohmann::ordered_json j = toJson(config);
  for (const char* key : {"steps", "epochs", "ranks", "graph", "init_weights"}) j.erase(key);
  if (j.contains("task")) j["task"].erase("model");
  return j.dump();
}

ConfigChanges configChanges(const std::string& atCheckpoint, const std::string& now) {
  static constexpr std::array<const char*, 3> kFilesOnly = {"checkpoint_every", "keep_checkpoints",
                                                            "hostfile"};
  ConfigChanges changes;
  json before;
  try {  // checkpoint metadata is read like any input: bounded nesting
    before = parseJsonBounded(atCheckpoint);
  } catch (const JsonReadError&) {
  }
  if (!before.is_object()) {
    changes.refused.push_back("the checkpoint's record of its config is not a JSON object");
    return changes;
  }
  const auto a = configLeaves(before), b = configLeaves(json::parse(now));
  std::vector<std::string> keys;
  for (const auto& [key, value] : a) keys.push_back(key);
  for (const auto& [key, value] : b)
    if (!a.count(key)) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (const std::string& key : keys) {
    const std::string was = shownLeaf(a, key), is = shownLeaf(b, key);
    if (was == is) continue;
    const bool filesOnly = std::find(kFilesOnly.begin(), kFilesOnly.end(), key) != kFilesOnly.end();
    (filesOnly ? changes.logged : changes.refused)
        .push_back(key + ": " + was + " at the checkpoint, " + is + " in config.json");
  }
  return changes;
}

}  // namespace rnnwb::train

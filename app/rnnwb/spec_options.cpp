#include "spec_options.hpp"

namespace rnnwb::cli {
namespace {

const char* typeName(train::SettingType type) {
  switch (type) {
    case train::SettingType::Integer:
    case train::SettingType::Unsigned:
      return "INT";
    case train::SettingType::Real:
      return "NUMBER";
    case train::SettingType::Path:
      return "PATH";
    default:
      return "TEXT";
  }
}

}  // namespace

void addSpecOptions(CLI::App* cmd, SpecOptions& o,
                    const std::function<bool(const train::Setting&)>& take) {
  for (const train::Setting& s : train::runSpec()) {
    if (s.flag.empty() || (take && !take(s))) continue;
    if (s.type == train::SettingType::Flag) {
      o.options[s.key] = cmd->add_flag(s.flag, s.help);
      continue;
    }
    const bool numeric =
        std::string_view(typeName(s.type)) != "TEXT" && s.type != train::SettingType::Path;
    const std::string range = numeric ? train::rangeText(s) : std::string();
    const std::string help = range.empty() ? s.help : s.help + " (" + range + ")";
    o.options[s.key] = cmd->add_option(s.flag, o.texts[s.key], help)
                           ->default_str(train::defaultText(s))
                           ->type_name(typeName(s.type));
  }
}

train::SettingValues givenSettings(const SpecOptions& o) {
  train::SettingValues values;
  for (const auto& [key, option] : o.options) {
    if (option->count() == 0) continue;
    const train::Setting& s = *train::findSetting(key);
    values[key] = s.type == train::SettingType::Flag ? nlohmann::json(!s.flagNegates)
                                                     : train::valueFromText(s, o.texts.at(key));
  }
  return values;
}

}  // namespace rnnwb::cli

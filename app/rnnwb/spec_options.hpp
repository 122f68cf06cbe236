#pragma once
// Options made from the run spec's rows (run_spec.hpp): `rnnwb train` takes all of them,
// `rnnwb budget` those that size a words run.
#include <functional>
#include <map>
#include <string>

#include "cli_support.hpp"
#include "rnnwb/core/train/run_spec.hpp"

namespace rnnwb::cli {

struct SpecOptions {
  std::map<std::string, std::string> texts;     // by config key, as written
  std::map<std::string, CLI::Option*> options;  // by config key
};

/// One option per row of the run spec that has a flag and that `take` accepts (all by default).
void addSpecOptions(CLI::App* cmd, SpecOptions& o,
                    const std::function<bool(const train::Setting&)>& take = {});

/// The settings given on the command line, each checked against its row.
train::SettingValues givenSettings(const SpecOptions& o);

}  // namespace rnnwb::cli

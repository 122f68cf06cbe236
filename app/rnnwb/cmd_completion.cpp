// rnnwb completion bash: a bash completion script made from the same option definitions that
// make --help (each command's CLI11 options, and for train the run spec's rows), so that the two
// never disagree. The build writes it once and the install puts it where bash-completion looks.
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "rnnwb/core/train/run_spec.hpp"

namespace rnnwb::cli {
namespace {

// What a value-taking option completes to: a word list, files, or nothing (a number).
struct ValueCompletion {
  std::vector<std::string> words;
  bool files = false;
};

std::string joinedBy(const std::vector<std::string>& words, const char* separator) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

std::string joined(const std::vector<std::string>& words) { return joinedBy(words, " "); }

// The choices --help shows after the type ("TEXT:{adam,sgd}", from CLI::IsMember).
std::vector<std::string> choicesOfTypeName(const std::string& typeName) {
  std::vector<std::string> choices;
  const auto open = typeName.find('{'), close = typeName.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return choices;
  std::stringstream list(typeName.substr(open + 1, close - open - 1));
  for (std::string item; std::getline(list, item, ',');) choices.push_back(item);
  return choices;
}

ValueCompletion valueCompletion(const CLI::Option& option, const std::string& flag) {
  ValueCompletion c;
  if (const train::Setting* s = train::findSettingByFlag(flag)) {
    c.words = s->choices;
    c.files = s->type == train::SettingType::Path;
    return c;
  }
  const std::string type = option.get_type_name();
  c.words = choicesOfTypeName(type);
  if (!c.words.empty()) return c;
  for (const char* number : {"INT", "UINT", "FLOAT", "NUMBER", "K", "N", "T", "SIZE"})
    if (type.rfind(number, 0) == 0 &&
        (type.size() == std::string(number).size() || type[std::string(number).size()] == ':'))
      return c;
  c.files = true;
  return c;
}

// One command's case: completing an option's value, else its option names, else files.
void printCommand(std::ostream& out, const CLI::App& command) {
  std::vector<std::string> names{"--help"};
  std::ostringstream values;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_positional() || option->get_name() == "--help") continue;
    std::vector<std::string> flags;
    for (const std::string& s : option->get_snames()) flags.push_back("-" + s);
    for (const std::string& l : option->get_lnames()) flags.push_back("--" + l);
    names.insert(names.end(), flags.begin(), flags.end());
    if (option->get_items_expected_max() == 0 || flags.empty()) continue;  // a flag
    const ValueCompletion c = valueCompletion(*option, flags.back());
    values << "        " << joinedBy(flags, "|") << ")";
    if (!c.words.empty())
      values << " COMPREPLY=($(compgen -W '" << joined(c.words) << "' -- \"$cur\"));";
    else if (c.files)
      values << " compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"));";
    values << " return ;;\n";  // a number: nothing to offer
  }
  out << "    " << command.get_name() << ")\n      case $prev in\n"
      << values.str() << "      esac\n"
      << "      if [[ $cur == -* ]]; then\n"
      << "        COMPREPLY=($(compgen -W '" << joined(names) << "' -- \"$cur\"))\n"
      << "      else\n"
      << "        compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      << "      fi ;;\n";
}

int printBashCompletion(CLI::App& app) {
  std::cout << "# bash completion for rnnwb, written by `rnnwb completion bash` from the options\n"
               "# that make --help.\n"
               "_rnnwb() {\n"
               "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i\n"
               "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
               "    [[ ${COMP_WORDS[i]} == -* ]] || { cmd=${COMP_WORDS[i]}; break; }\n"
               "  done\n"
               "  case $cmd in\n"
               "    '')\n";
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(sub->get_name());
  std::cout << "      COMPREPLY=($(compgen -W '" << joined(commands)
            << " --help --version' -- \"$cur\")) ;;\n";
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    printCommand(std::cout, *sub);
  std::cout << "  esac\n}\ncomplete -F _rnnwb rnnwb\n";
  return 0;
}

}  // namespace

void registerCompletion(CLI::App& app, int& exitCode) {
  auto shell = std::make_shared<std::string>();
  auto* cmd = addCommand(app, "completion",
                         "Print a shell completion script for rnnwb (installed for bash)", exitCode,
                         [&app, shell] { return printBashCompletion(app); });
  cmd->add_option("SHELL", *shell, "The shell")->required()->check(CLI::IsMember({"bash"}));
}

}  // namespace rnnwb::cli

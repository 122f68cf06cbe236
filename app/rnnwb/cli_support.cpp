#include "cli_support.hpp"

#include <filesystem>
#include <iostream>

#include "rnnwb/core/diagnostic.hpp"

namespace rnnwb::cli {

int runGuarded(const std::string& command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const GraphError& e) {
    for (const Diagnostic& d : e.problems()) {
      // loadValidGraph prefixes "FILE: "; insert "error: " after it.
      const auto colon = d.message.find(": ");
      if (colon != std::string::npos)
        std::cerr << d.message.substr(0, colon) << ": error: " << d.message.substr(colon + 2)
                  << '\n';
      else
        std::cerr << "rnnwb " << command << ": error: " << d.message << '\n';
    }
  } catch (const std::exception& e) {
    std::cerr << "rnnwb " << command << ": error: " << e.what() << '\n';
  }
  return 1;
}

CLI::App* addCommand(CLI::App& app, const std::string& name, const std::string& description,
                     int& exitCode, std::function<int()> body) {
  CLI::App* sub = app.add_subcommand(name, description);
  sub->callback([name, &exitCode, body = std::move(body)] { exitCode = runGuarded(name, body); });
  return sub;
}

void requireExistingFile(CLI::Option* option) {
  option->check([](const std::string& path) -> std::string {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return "no such file: " + path;
    if (std::filesystem::is_directory(path, ec)) return "a directory, not a file: " + path;
    return {};
  });
}

}  // namespace rnnwb::cli

#include "cli_support.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>

#include "rnnwb/core/diagnostic.hpp"
#include "rnnwb/core/memory_size.hpp"

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
    std::cerr << "rnnwb " << command << ": error: " << exceptionMessage(e) << '\n';
  } catch (...) {  // nothing of ours throws anything else, but a library might
    std::cerr << "rnnwb " << command << ": error: an exception that is not a std::exception\n";
  }
  return 1;
}

namespace {

// An exception that escapes a thread (or a noexcept function) ends the process through
// std::terminate, whose default handler aborts: no message a user can act on, a core dump and
// exit code 134. This handler says what was thrown and exits with 1, as runGuarded would.
[[noreturn]] void onTerminate() {
  std::cerr << "rnnwb: error: ";
  try {
    if (const std::exception_ptr current = std::current_exception())
      std::rethrow_exception(current);
    std::cerr << "std::terminate called without an exception (an internal error)\n";
  } catch (const std::exception& e) {
    std::cerr << exceptionMessage(e) << '\n';
  } catch (...) {
    std::cerr << "an exception that is not a std::exception\n";
  }
  std::cerr.flush();
  std::_Exit(1);
}

}  // namespace

void installTerminateHandler() { std::set_terminate(onTerminate); }

int finishOutput(const std::string& command, int exitCode) {
  // std::cout is synchronised with stdio (the default), so its text is in stdout's buffer.
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return exitCode;
  const std::string reason = !flushed && errno != 0 ? std::strerror(errno) : "a write failed";
  std::cerr << "rnnwb " << command << ": error: cannot write the standard output: " << reason
            << '\n';
  return exitCode != 0 ? exitCode : 1;
}

CLI::App* addCommand(CLI::App& app, const std::string& name, const std::string& description,
                     int& exitCode, std::function<int()> body) {
  CLI::App* sub = app.add_subcommand(name, description);
  // A command of a command ("new mdlstm") says its whole path in its messages.
  const std::string path = app.get_parent() ? app.get_name() + " " + name : name;
  sub->callback([path, &exitCode, body = std::move(body)] { exitCode = runGuarded(path, body); });
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

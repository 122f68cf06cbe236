#pragma once
// What every rnnwb command shares: how errors are printed and how a command reports its exit code.
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace rnnwb::cli {

/// Runs a command's body and turns exceptions into messages on stderr and an exit code:
/// a GraphError prints one "FILE: error: MESSAGE" line per problem (its messages already carry
/// the file), anything else "rnnwb COMMAND: error: MESSAGE" (a failed allocation as "out of
/// memory: ...", see exceptionMessage). Returns the exit code.
int runGuarded(const std::string& command, const std::function<int()>& body);

/// Makes an exception that escapes a thread print its message (out of memory named as such) and
/// exit 1 instead of aborting.
void installTerminateHandler();

/// The exit code of a command once its output is flushed: a command that printed into a full
/// disk, a closed pipe or /dev/full must not exit 0 as though its output were whole. Prints
/// "rnnwb COMMAND: error: cannot write the standard output: REASON" and returns 1 then.
int finishOutput(const std::string& command, int exitCode);

/// Registers a subcommand; its callback stores the exit code of runGuarded(body) in exitCode.
CLI::App* addCommand(CLI::App& app, const std::string& name, const std::string& description,
                     int& exitCode, std::function<int()> body);

/// A file the command line names as input: it must exist (CLI11 would say so, but with a
/// message that hides which option it was).
void requireExistingFile(CLI::Option* option);

}  // namespace rnnwb::cli

// One registration function per command file.
namespace rnnwb::cli {
void registerValidate(CLI::App& app, int& exitCode);
void registerAnalyze(CLI::App& app, int& exitCode);
void registerExport(CLI::App& app, int& exitCode);
void registerImport(CLI::App& app, int& exitCode);
void registerFormat(CLI::App& app, int& exitCode);
void registerMask(CLI::App& app, int& exitCode);
void registerPack(CLI::App& app, int& exitCode);
void registerInit(CLI::App& app, int& exitCode);
void registerGrad(CLI::App& app, int& exitCode);
void registerTrain(CLI::App& app, int& exitCode);
void registerBudget(CLI::App& app, int& exitCode);
void registerMetrics(CLI::App& app, int& exitCode);
void registerNew(CLI::App& app, int& exitCode);
void registerCompletion(CLI::App& app, int& exitCode);
}  // namespace rnnwb::cli

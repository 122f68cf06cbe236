#pragma once
// Runs the rnnwb command line as a user does, for the tests that check commands end to end.
// The including test defines RNNWB_CLI, the path of the rnnwb executable.
#include <QProcess>
#include <QString>
#include <QStringList>

namespace rnnwb::testing {

struct CliRun {
  int exitCode;
  QString out;
  QString err;
};

/// Runs rnnwb with these arguments and waits up to `timeoutMs` (a minute); a run that hangs
/// reports exit -1.
inline CliRun runCli(const QStringList& args, int timeoutMs = 60000) {
  QProcess p;
  p.start(RNNWB_CLI, args);
  if (!p.waitForFinished(timeoutMs)) return {-1, {}, "timed out"};
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

}  // namespace rnnwb::testing

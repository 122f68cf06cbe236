#pragma once
// SIGINT, SIGTERM and SIGHUP as a request to stop: the training loop finishes its current update,
// writes a checkpoint and returns, instead of dying with the update half done. A second signal
// while the first is pending ends the process at once, as it would without the handler (a user who
// presses Ctrl-C twice means it). SIGPIPE is ignored while the guard lives, so that a closed output
// pipe shows as a write error (stopOnOutputError) rather than killing the process without a
// checkpoint.
#include <chrono>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>

namespace rnnwb::train {

/// Thrown by long work inside one step (a validation pass over a huge set) when a stop was
/// requested: the loop catches it, writes a checkpoint and stops as for a signal between steps.
class StopRequested : public std::runtime_error {
 public:
  StopRequested(int signalNumber, const std::string& during)
      : std::runtime_error("stopped by signal " + std::to_string(signalNumber) + " during " +
                           during),
        m_signal(signalNumber) {}
  int signalNumber() const { return m_signal; }

 private:
  int m_signal;
};

/// Collective, in a data-parallel run: given this rank's "stop now" (a signal number or 0),
/// returns the signal any rank said (0 if none), the same on every rank.
using StopAgreement = std::function<int(int)>;

/// For a loop inside one step that may run for minutes (a validation pass over a huge set): the
/// call throws StopRequested when a stop was requested and the loop has run longer than `grace`.
/// Shorter work finishes, so that what it is for (the step's report) is not lost to a Ctrl-C.
/// With `agree` (a data-parallel run), every call is collective and all ranks throw at the same
/// call when any rank would: a rank that stopped alone would leave the others waiting in the
/// validation's sum while it gathers the checkpoint. Every rank must then make the same calls.
class StopCheck {
 public:
  explicit StopCheck(std::string during, std::chrono::milliseconds grace = std::chrono::seconds(5),
                     StopAgreement agree = {});
  void operator()() const;

 private:
  std::string m_during;
  std::chrono::steady_clock::time_point m_deadline;
  StopAgreement m_agree;
};

/// The grace a validation pass gets to finish after a stop request: 5 s, or the milliseconds
/// (0 to 60000) the environment's RNNWB_VALIDATION_GRACE_MS says (the fault tests use 0, so a
/// short validation can be interrupted).
std::chrono::milliseconds validationGrace();

/// Installs the handlers (idempotent). Returns the previous handlers on destruction.
class StopSignalGuard {
 public:
  StopSignalGuard();
  ~StopSignalGuard();
  StopSignalGuard(const StopSignalGuard&) = delete;
  StopSignalGuard& operator=(const StopSignalGuard&) = delete;
};

/// The signal number received since the guard was installed (or requestStop), 0 if none.
int stopRequested();
/// Asks the loop to stop as a signal would (tests, the workbench's in-process use).
void requestStop(int signalNumber);
void clearStopRequest();
/// Asks the loop to stop as SIGPIPE would when `stream` had a write error (its reader went away,
/// the disk is full): the run ends cleanly with a checkpoint instead of writing into the void.
void stopOnOutputError(std::FILE* stream);

}  // namespace rnnwb::train

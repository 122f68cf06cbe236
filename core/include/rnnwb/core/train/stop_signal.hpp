#pragma once
// SIGINT and SIGTERM as a request to stop: the training loop finishes its current update, writes
// a checkpoint and returns, instead of dying with the update half done. A second signal while the
// first is pending ends the process at once, as it would without the handler (a user who presses
// Ctrl-C twice means it).
namespace rnnwb::train {

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

}  // namespace rnnwb::train

#pragma once
// SIGINT and SIGTERM as a request to stop: the training loop finishes its current update, writes
// a checkpoint and returns, instead of dying with the update half done. A second signal of the
// same kind while the first is pending still only asks (the checkpoint is what the user wants).
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

#include "rnnwb/core/train/stop_signal.hpp"

#include <signal.h>
#include <atomic>

namespace rnnwb::train {
namespace {

// A lock-free atomic is async-signal-safe; the handler does nothing else.
std::atomic<int> g_stopSignal{0};
static_assert(std::atomic<int>::is_always_lock_free);

// The first signal asks for a clean stop; a second one (the user insists) ends the process as the
// signal's default action would. signal() and raise() are async-signal-safe.
extern "C" void onStopSignal(int signalNumber) {
  if (g_stopSignal.exchange(signalNumber) != 0) {
    signal(signalNumber, SIG_DFL);
    raise(signalNumber);
  }
}

struct sigaction g_previousInt {
}, g_previousTerm{};

}  // namespace

StopSignalGuard::StopSignalGuard() {
  g_stopSignal.store(0);
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previousInt);
  sigaction(SIGTERM, &action, &g_previousTerm);
}

StopSignalGuard::~StopSignalGuard() {
  sigaction(SIGINT, &g_previousInt, nullptr);
  sigaction(SIGTERM, &g_previousTerm, nullptr);
}

int stopRequested() { return g_stopSignal.load(); }
void requestStop(int signalNumber) { g_stopSignal.store(signalNumber); }
void clearStopRequest() { g_stopSignal.store(0); }

}  // namespace rnnwb::train

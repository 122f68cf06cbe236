#include "rnnwb/core/train/stop_signal.hpp"

#include <signal.h>
#include <atomic>
#include <cstdlib>
#include <iterator>

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

// SIGHUP (the terminal closed, ssh dropped) is a stop request like SIGTERM. SIGPIPE is ignored:
// a reader of the output that went away (`rnnwb train ... | head`) makes the write fail instead
// of killing the process mid-update, and stopOnOutputError turns that failure into a clean stop.
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_previous[std::size(kStopSignals)] = {};
struct sigaction g_previousPipe {};

}  // namespace

StopSignalGuard::StopSignalGuard() {
  g_stopSignal.store(0);
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i)
    sigaction(kStopSignals[i], &action, &g_previous[i]);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &g_previousPipe);
}

StopSignalGuard::~StopSignalGuard() {
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i)
    sigaction(kStopSignals[i], &g_previous[i], nullptr);
  sigaction(SIGPIPE, &g_previousPipe, nullptr);
}

int stopRequested() { return g_stopSignal.load(); }
void requestStop(int signalNumber) { g_stopSignal.store(signalNumber); }
void clearStopRequest() { g_stopSignal.store(0); }

StopCheck::StopCheck(std::string during, std::chrono::milliseconds grace, StopAgreement agree)
    : m_during(std::move(during)),
      m_deadline(std::chrono::steady_clock::now() + grace),
      m_agree(std::move(agree)) {}

std::chrono::milliseconds validationGrace() {
  const char* text = std::getenv("RNNWB_VALIDATION_GRACE_MS");
  char* end = nullptr;
  const long ms = text ? std::strtol(text, &end, 10) : -1;
  if (!text || end == text || *end || ms < 0 || ms > 60000) return std::chrono::seconds(5);
  return std::chrono::milliseconds(ms);
}

void StopCheck::operator()() const {
  int signalNumber = stopRequested();
  if (signalNumber && std::chrono::steady_clock::now() <= m_deadline) signalNumber = 0;
  if (m_agree) signalNumber = m_agree(signalNumber);
  if (signalNumber) throw StopRequested(signalNumber, m_during);
}

void stopOnOutputError(std::FILE* stream) {
  int none = 0;
  if (std::ferror(stream)) g_stopSignal.compare_exchange_strong(none, SIGPIPE);
}

}  // namespace rnnwb::train

#include "worker_pool.hpp"

#include <algorithm>
#include <chrono>

#include "rnnwb/core/check.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace rnnwb {
namespace {

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

/// Waits until value != old: a short spin first, because the passes of one chunk follow each
/// other within microseconds and waking a sleeping thread (a futex, an idle virtual CPU) costs
/// tens of them; then a sleep, so that idle workers cost nothing between chunks.
template <typename T>
T waitWhileEqual(const std::atomic<T>& value, T old) {
  using Clock = std::chrono::steady_clock;
  constexpr auto spinFor = std::chrono::microseconds(100);
  const auto start = Clock::now();
  for (int i = 1;; ++i) {
    const T now = value.load(std::memory_order_acquire);
    if (now != old) return now;
    relax();
    if (i % 64 == 0 && Clock::now() - start > spinFor) break;
  }
  for (;;) {
    value.wait(old, std::memory_order_acquire);
    const T now = value.load(std::memory_order_acquire);
    if (now != old) return now;
  }
}

}  // namespace

WorkerPool::WorkerPool(int workers) : m_errors(static_cast<std::size_t>(std::max(workers, 1))) {
  WB_CHECK(workers >= 1, "a worker pool needs at least one worker");
  for (int w = 1; w < workers; ++w) m_threads.emplace_back([this, w] { serve(w); });
}

WorkerPool::~WorkerPool() {
  m_stopping = true;
  m_generation.fetch_add(1, std::memory_order_release);
  m_generation.notify_all();
  for (std::thread& thread : m_threads) thread.join();
}

void WorkerPool::serve(int worker) {
  unsigned seen = 0;
  for (;;) {
    seen = waitWhileEqual(m_generation, seen);
    if (m_stopping) return;
    try {
      (*m_task)(worker);
    } catch (...) {
      m_errors[worker] = std::current_exception();
    }
    if (m_running.fetch_sub(1, std::memory_order_acq_rel) == 1) m_running.notify_one();
  }
}

void WorkerPool::run(const std::function<void(int)>& task) {
  if (m_threads.empty()) {
    task(0);
    return;
  }
  m_task = &task;
  m_running.store(static_cast<int>(m_threads.size()), std::memory_order_relaxed);
  m_generation.fetch_add(1, std::memory_order_release);
  m_generation.notify_all();
  try {
    task(0);
  } catch (...) {
    m_errors[0] = std::current_exception();
  }
  for (int left = m_running.load(std::memory_order_acquire); left != 0;)
    left = waitWhileEqual(m_running, left);
  m_task = nullptr;
  std::exception_ptr first;
  for (std::exception_ptr& error : m_errors) {
    if (error && !first) first = error;
    error = nullptr;
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace rnnwb

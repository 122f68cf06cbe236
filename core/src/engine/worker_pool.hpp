#pragma once
// Threads that stay alive between the passes of the CPU engine, so that a pass split among the
// workers costs a wake-up instead of a thread start. Private to core: the CPU engine and
// RtrlLearner (streams stepped in parallel) use it.
#include <atomic>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace rnnwb {

class WorkerPool {
 public:
  /// `workers` >= 1; the calling thread is worker 0, so workers - 1 threads are started.
  explicit WorkerPool(int workers);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(m_threads.size()) + 1; }

  /// Runs task(w) for every worker w in [0, size()) at once, the caller as worker 0, and returns
  /// when all have finished. The first exception that a task throws is rethrown here. One run at
  /// a time: the engine that owns the pool calls it from one thread.
  void run(const std::function<void(int)>& task);

 private:
  void serve(int worker);

  std::vector<std::thread> m_threads;
  const std::function<void(int)>* m_task = nullptr;
  // Bumped to start a run (and once more with m_stopping to end the threads); the workers wait on
  // it, the caller waits on m_running to fall to 0.
  std::atomic<unsigned> m_generation{0};
  std::atomic<int> m_running{0};
  bool m_stopping = false;
  std::vector<std::exception_ptr> m_errors;  // one per worker
};

}  // namespace rnnwb

// The CPU engine's worker pool: every worker runs each task once, runs follow each other without
// losing a worker (also after the workers have gone to sleep), and a task's exception reaches the
// caller without stopping the pool.
#include <QTest>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "worker_pool.hpp"

using namespace rnnwb;

class TestWorkerPool : public QObject {
  Q_OBJECT
 private slots:
  void everyWorkerRunsEachTaskOnce_data();
  void everyWorkerRunsEachTaskOnce();
  void runsAfterTheWorkersSlept();
  void rethrowsATasksException();
  void rejectsNoWorkers();
};

void TestWorkerPool::everyWorkerRunsEachTaskOnce_data() {
  QTest::addColumn<int>("workers");
  QTest::newRow("caller only") << 1;
  QTest::newRow("two") << 2;
  QTest::newRow("more than the cores") << 5;
}

void TestWorkerPool::everyWorkerRunsEachTaskOnce() {
  QFETCH(int, workers);
  WorkerPool pool(workers);
  QCOMPARE(pool.size(), workers);
  std::vector<int> counts(workers, 0);
  const auto caller = std::this_thread::get_id();
  std::atomic<int> onCaller{0};
  for (int run = 0; run < 200; ++run) {
    pool.run([&](int w) {
      ++counts[w];  // one slot per worker: no two threads write the same entry
      if (std::this_thread::get_id() == caller) onCaller += w == 0 ? 1 : 100;
    });
  }
  for (int w = 0; w < workers; ++w) QCOMPARE(counts[w], 200);
  QCOMPARE(onCaller.load(), 200);  // worker 0, and only worker 0, is the calling thread
}

void TestWorkerPool::runsAfterTheWorkersSlept() {
  WorkerPool pool(3);
  std::atomic<int> calls{0};
  for (int run = 0; run < 3; ++run) {
    // Longer than the workers spin before they sleep.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    pool.run([&](int) { ++calls; });
  }
  QCOMPARE(calls.load(), 9);
}

void TestWorkerPool::rethrowsATasksException() {
  WorkerPool pool(3);
  for (int thrower : {0, 2}) {
    bool caught = false;
    try {
      pool.run([&](int w) {
        if (w == thrower) throw std::runtime_error("worker " + std::to_string(w));
      });
    } catch (const std::runtime_error& e) {
      caught = true;
      QCOMPARE(QString(e.what()), QString("worker %1").arg(thrower));
    }
    QVERIFY(caught);
  }
  std::atomic<int> calls{0};
  pool.run([&](int) { ++calls; });  // the pool still works, and no old error comes back
  QCOMPARE(calls.load(), 3);
}

void TestWorkerPool::rejectsNoWorkers() { QVERIFY_THROWS_EXCEPTION(std::exception, WorkerPool(0)); }

QTEST_APPLESS_MAIN(TestWorkerPool)
#include "tst_workerpool.moc"

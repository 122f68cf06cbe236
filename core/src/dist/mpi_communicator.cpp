// The MPI communicator: MPI_COMM_WORLD, sums by MPI_Iallreduce in buckets. MPI is included here
// only. Waiting is a test-and-sleep loop rather than MPI_Wait so that a rank that died is noticed
// (through /proc, for the ranks on this host) instead of blocking the others forever: most
// launchers end the job then, but not all, and not at once.
//
// Sums started with startSum (a bucket of the gradient, during the backward pass) move only while
// some thread is inside an MPI call: Open MPI has no progress of its own for shared memory. One
// MPI_Testall between the backward's nodes is not enough (the last node is most of the pass;
// tests/bench/bench_sum_progress.cpp: it hides nothing, a call every 100 us hides all), so a
// progress thread polls (every 50 us, backing off to 1 ms) while started sums are unfinished and
// sleeps otherwise.
// MPI is initialised MPI_THREAD_SERIALIZED for it, and every MPI call of this file holds m_mpi.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "world.hpp"

namespace rnnwb::dist {

bool builtWithMpi() { return true; }

namespace {

using Clock = std::chrono::steady_clock;

void checkMpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int length = 0;
  MPI_Error_string(code, text.data(), &length);
  throw std::runtime_error(std::string(call) + " failed: " + std::string(text.data(), length));
}

/// False when `pid` on this host has exited (gone, or a zombie its launcher has not reaped).
bool processAlive(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return true;
  const char state = line[close + 2];
  return state != 'Z' && state != 'X';
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    checkMpi(MPI_Comm_rank(MPI_COMM_WORLD, &m_rank), "MPI_Comm_rank");
    checkMpi(MPI_Comm_size(MPI_COMM_WORLD, &m_size), "MPI_Comm_size");
    exchangePeers();
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    // RNNWB_MPI_PROGRESS_THREAD=0 turns the thread off (for measuring what it does).
    const char* wanted = std::getenv("RNNWB_MPI_PROGRESS_THREAD");
    if (level >= MPI_THREAD_SERIALIZED && !(wanted && std::string(wanted) == "0"))
      m_progress = std::thread([this] { progressLoop(); });
  }
  ~MpiCommunicator() override {
    if (m_progress.joinable()) {
      {
        const std::lock_guard lock(m_mpi);
        m_stopProgress = true;
      }
      m_wake.notify_one();
      m_progress.join();
    }
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }

  int rank() const override { return m_rank; }
  int size() const override { return m_size; }
  std::string name() const override { return "MPI"; }

  void allreduceSum(std::span<float> values) override {
    std::vector<MPI_Request> requests;
    for (std::size_t begin = 0; begin < values.size(); begin += bucketFloats()) {
      const std::size_t count = std::min(bucketFloats(), values.size() - begin);
      requests.emplace_back();
      const std::lock_guard lock(m_mpi);
      checkMpi(MPI_Iallreduce(MPI_IN_PLACE, values.data() + begin, static_cast<int>(count),
                              MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &requests.back()),
               "MPI_Iallreduce");
    }
    waitAll(requests, "the gradient all-reduce");
  }

  void startSum(std::span<float> values) override {
    {
      const std::lock_guard lock(m_mpi);
      m_started.emplace_back();
      checkMpi(MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                              MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &m_started.back()),
               "MPI_Iallreduce");
      m_unfinished = true;
    }
    m_wake.notify_one();
  }

  void startSumHost(std::span<double> values) override {
    {
      const std::lock_guard lock(m_mpi);
      m_started.emplace_back();
      checkMpi(MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                              MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &m_started.back()),
               "MPI_Iallreduce");
      m_unfinished = true;
    }
    m_wake.notify_one();
  }

  void progressSums() override {
    const std::lock_guard lock(m_mpi);
    if (m_started.empty()) return;
    int done = 0;
    checkMpi(MPI_Testall(static_cast<int>(m_started.size()), m_started.data(), &done,
                         MPI_STATUSES_IGNORE),
             "MPI_Testall");
  }

  void finishSums() override {
    std::vector<MPI_Request> requests;
    {
      const std::lock_guard lock(m_mpi);
      requests = std::move(m_started);
      m_started.clear();
      m_unfinished = false;
    }
    waitAll(requests, "the gradient all-reduce");
  }

  void allreduceSumHost(std::span<double> values) override {
    std::vector<MPI_Request> requests(1);
    {
      const std::lock_guard lock(m_mpi);
      checkMpi(MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                              MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, requests.data()),
               "MPI_Iallreduce");
    }
    waitAll(requests, "an all-reduce of loss sums and flags");
  }

  void broadcast(std::span<std::byte> bytes, int root) override {
    std::vector<MPI_Request> requests(1);
    std::unique_lock lock(m_mpi);
    checkMpi(MPI_Ibcast(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, root,
                        MPI_COMM_WORLD, requests.data()),
             "MPI_Ibcast");
    lock.unlock();
    waitAll(requests, "a broadcast from rank " + std::to_string(root));
  }

  [[noreturn]] void abortAll(int exitCode) override {
    const std::lock_guard lock(m_mpi);  // held for good: the process ends
    MPI_Abort(MPI_COMM_WORLD, exitCode);
    std::exit(exitCode);  // MPI_Abort does not return; this keeps [[noreturn]] honest
  }

 private:
  // Every rank's pid and host, so that a wait can tell which rank of this host is gone.
  void exchangePeers() {
    m_pids.resize(static_cast<std::size_t>(m_size));
    const int pid = static_cast<int>(::getpid());
    checkMpi(MPI_Allgather(&pid, 1, MPI_INT, m_pids.data(), 1, MPI_INT, MPI_COMM_WORLD),
             "MPI_Allgather");
    std::array<char, MPI_MAX_PROCESSOR_NAME> host{};
    int length = 0;
    MPI_Get_processor_name(host.data(), &length);
    std::vector<char> hosts(host.size() * static_cast<std::size_t>(m_size));
    checkMpi(MPI_Allgather(host.data(), static_cast<int>(host.size()), MPI_CHAR, hosts.data(),
                           static_cast<int>(host.size()), MPI_CHAR, MPI_COMM_WORLD),
             "MPI_Allgather");
    for (int r = 0; r < m_size; ++r) m_hosts.emplace_back(hosts.data() + r * host.size());
  }

  void waitAll(std::vector<MPI_Request>& requests, const std::string& what) {
    const Clock::time_point start = Clock::now();
    Clock::time_point nextCheck = start + std::chrono::seconds(1);
    for (long polls = 0;; ++polls) {
      int done = 0;
      {
        const std::lock_guard lock(m_mpi);
        checkMpi(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                             MPI_STATUSES_IGNORE),
                 "MPI_Testall");
      }
      if (done) return;
      // Spin briefly (a peer a few microseconds behind), then yield the core.
      if (polls > 2000) std::this_thread::sleep_for(std::chrono::microseconds(100));
      if (Clock::now() >= nextCheck) {
        throwIfPeerGone(what);
        nextCheck += std::chrono::seconds(1);
      }
    }
  }

  // Moves the started sums while this rank computes; an error is left to finishSums to report.
  // A sum not done after a few polls waits for a peer still computing: the polls then back off
  // to one a millisecond, so that the thread takes little from the core it shares.
  void progressLoop() {
    std::unique_lock lock(m_mpi);
    std::chrono::microseconds pause(50);
    while (!m_stopProgress) {
      if (!m_unfinished) {
        m_wake.wait(lock);
        pause = std::chrono::microseconds(50);
        continue;
      }
      int done = 0;
      if (MPI_Testall(static_cast<int>(m_started.size()), m_started.data(), &done,
                      MPI_STATUSES_IGNORE) != MPI_SUCCESS ||
          done)
        m_unfinished = false;
      lock.unlock();
      std::this_thread::sleep_for(pause);
      pause = std::min(2 * pause, std::chrono::microseconds(1000));
      lock.lock();
    }
  }

  void throwIfPeerGone(const std::string& what) const {
    const std::string& ownHost = m_hosts[static_cast<std::size_t>(m_rank)];
    for (int r = 0; r < m_size; ++r) {
      const auto i = static_cast<std::size_t>(r);
      if (r == m_rank || m_hosts[i] != ownHost || processAlive(m_pids[i])) continue;
      throw RankLostError(r, "rank " + std::to_string(r) + " (pid " + std::to_string(m_pids[i]) +
                                 " on " + m_hosts[i] +
                                 ") is gone: it died or was killed while "
                                 "rank " +
                                 std::to_string(m_rank) + " waited for it in " + what);
    }
  }

  int m_rank = 0, m_size = 1;
  std::mutex m_mpi;                    // one MPI call at a time (MPI_THREAD_SERIALIZED)
  std::vector<MPI_Request> m_started;  // startSum's, until finishSums
  bool m_unfinished = false;           // some of them may still be moving
  bool m_stopProgress = false;
  std::condition_variable m_wake;
  std::thread m_progress;  // progressLoop, when MPI allows another thread
  std::vector<int> m_pids;
  std::vector<std::string> m_hosts;
};

}  // namespace

std::unique_ptr<Communicator> openMpiWorld(const LaunchInfo& launch) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // Open MPI spins while a rank waits; on this project's 2-core machine the spinning rank
    // slowed the one still computing (2 ranks: 104-111k frames/s spinning, 120-121k yielding,
    // docs/benchmarks.md). A user's own setting (mpirun --mca mpi_yield_when_idle 0, or the
    // variable) is kept: overwrite is 0. Other MPIs ignore the variable.
    ::setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
    int provided = 0;
    checkMpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided),
             "MPI_Init_thread");
  }
  auto comm = std::make_unique<MpiCommunicator>();
  if (comm->rank() != launch.rank || comm->size() != launch.size)
    throw std::runtime_error("MPI says rank " + std::to_string(comm->rank()) + " of " +
                             std::to_string(comm->size()) + ", the launcher's environment rank " +
                             std::to_string(launch.rank) + " of " + std::to_string(launch.size));
  return comm;
}

}  // namespace rnnwb::dist

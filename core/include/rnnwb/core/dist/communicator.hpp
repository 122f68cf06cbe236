#pragma once
// The processes of a data-parallel run and the few collective operations training needs: a sum of
// the gradient over every rank (with small host sums riding along), a broadcast, an agreement on
// stopping, and a check that every rank holds the same parameters. No MPI or NCCL header here: the
// implementations live in rnnwb_dist_mpi (core/src/dist, built when CMake finds MPI) and in gpu/
// (NCCL).
//
// Every rank calls the same operations in the same order (they are collective). An operation
// that cannot finish because a rank died throws RankLostError naming it, where the
// implementation can tell (the MPI one can for ranks on its own host).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rnnwb::dist {

/// A rank that left the job (killed, crashed) while the others waited for it.
class RankLostError : public std::runtime_error {
 public:
  RankLostError(int rank, const std::string& what) : std::runtime_error(what), m_rank(rank) {}
  int rank() const { return m_rank; }

 private:
  int m_rank;
};

/// Ranks whose parameters differ from rank 0's (the data-parallel invariant broke).
class DivergedRanksError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// "single process", "MPI", "NCCL": for logs.
  virtual std::string name() const = 0;

  /// Sums `values` over every rank, in place; every rank gets the same result. The buffer is cut
  /// into buckets of bucketFloats() values that are reduced concurrently. The memory is the
  /// implementation's kind: host memory for the CPU ones, device memory for NCCL.
  virtual void allreduceSum(std::span<float> values) = 0;
  /// A sum in parts, to overlap with computation: startSum begins summing `values` over every
  /// rank (in place; the memory stays untouched by the caller until finishSums returns),
  /// progressSums lets the started sums advance (an MPI library moves nonblocking collectives
  /// only inside its calls), finishSums waits for all of them. Every rank starts the same parts
  /// in the same order. The default runs each part as allreduceSum inside finishSums.
  virtual void startSum(std::span<float> values) { m_deferredSums.push_back(values); }
  /// A small host sum (loss sums, frame counts, flags) started among the parts of startSum and
  /// finished with them by finishSums: an update's figures travel in its gradient's meeting
  /// instead of a meeting of their own. The default runs it as allreduceSumHost in finishSums.
  virtual void startSumHost(std::span<double> values) { m_deferredHostSums.push_back(values); }
  virtual void progressSums() {}
  virtual void finishSums() {
    // Inline, like the rest of this class: rnnwb_dist_mpi's subclass needs no symbol of rnnwb_dist.
    const std::vector<std::span<float>> parts = std::move(m_deferredSums);
    const std::vector<std::span<double>> hostParts = std::move(m_deferredHostSums);
    m_deferredSums.clear();
    m_deferredHostSums.clear();
    for (std::span<float> part : parts) allreduceSum(part);
    for (std::span<double> part : hostParts) allreduceSumHost(part);
  }
  /// Sums small host vectors (loss sums, frame counts, flags) over every rank, in place.
  virtual void allreduceSumHost(std::span<double> values) = 0;
  /// Copies rank `root`'s bytes (host memory) to every rank.
  virtual void broadcast(std::span<std::byte> bytes, int root) = 0;
  /// Ends every rank of the job at once (after an error on this one that the others cannot
  /// learn of: without it they would wait for this rank forever).
  [[noreturn]] virtual void abortAll(int exitCode) = 0;

  std::size_t bucketFloats() const { return m_bucketFloats; }
  void setBucketFloats(std::size_t floats) { m_bucketFloats = floats > 0 ? floats : 1; }

 private:
  std::size_t m_bucketFloats = std::size_t{1} << 20;  // 4 MiB of F32 per bucket
  std::vector<std::span<float>> m_deferredSums;
  std::vector<std::span<double>> m_deferredHostSums;
};

/// One process alone: every collective is the identity.
std::unique_ptr<Communicator> makeSingleProcessCommunicator();

/// A stop asked of any rank (a signal), as every rank agrees on it.
struct StopAgreement {
  int signal = 0;  // 0: no rank was asked to stop
  int rank = -1;   // the lowest rank that was asked
};
/// Collective: `localSignal` is this rank's pending stop signal (0 if none).
StopAgreement agreeOnStop(Communicator& comm, int localSignal);
/// agreeOnStop in two halves, for a caller that sums the slots with other values in one meeting:
/// `slots` (one per rank) gets `localSignal` in this rank's slot and 0 in the others; the same
/// slots summed over the ranks then say the agreement.
void writeStopSlots(const Communicator& comm, int localSignal, std::span<double> slots);
StopAgreement stopOfSlots(std::span<const double> summed);

/// 64-bit FNV-1a of the bytes of `values`: equal parameters give equal hashes on every rank.
std::uint64_t hashFloats(std::span<const float> values);
/// Collective: throws DivergedRanksError naming every rank whose `hash` differs from rank 0's,
/// and `what` (e.g. "the parameters after step 200").
void requireSameHash(Communicator& comm, std::uint64_t hash, const std::string& what);

}  // namespace rnnwb::dist

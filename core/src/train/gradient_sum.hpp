#pragma once
// Private to rnnwb_train: one update's gradient summed over the ranks of a data-parallel run in
// buckets, each started as soon as the backend reports its entries final, so that the sums travel
// while the backward pass goes on through the earlier nodes (docs/distributed.md). Without
// overlap the same buckets start, in the same order, after the backward pass: the sums, and so
// the floats, are the same either way. The update's small figures ride along with the last
// buckets, so that the ranks meet once per update.
#include <cstdint>
#include <span>
#include <vector>

#include "rnnwb/core/dist/communicator.hpp"
#include "rnnwb/core/engine/backend.hpp"

namespace rnnwb::train {

class GradientSum final : public GradientListener {
 public:
  /// What the sums of a run did, for its log.
  struct Counts {
    std::int64_t updates = 0;
    std::int64_t buckets = 0;
    std::int64_t startedEarly = 0;             // while the backward pass still had nodes to go
    std::int64_t floats = 0, floatsEarly = 0;  // summed, and in the buckets started early
    double waitSeconds = 0.0;  // in finish(): the sums' time not hidden by the backward
  };

  GradientSum(dist::Communicator& world, bool overlap);

  /// Before the backward pass of the update whose gradient buffer is `gradients`.
  void begin(std::span<float> gradients);
  bool pending() const { return m_pending; }
  /// From the backend, during the backward pass.
  void gradientsFinal(std::span<const GradientRange> ranges) override;
  /// Starts the buckets not started yet (all of them without overlap, and what the backend did
  /// not report) and then the sum of `alongside` (the update's loss, frames and stop slots, host
  /// doubles), and waits for every one: the gradient and `alongside` are then summed over the
  /// ranks, in the one meeting the ranks have per update.
  void finish(std::span<double> alongside = {});

  bool overlaps() const { return m_overlap; }
  const Counts& counts() const { return m_counts; }

 private:
  /// Starts `range` in buckets of at most the communicator's bucketFloats(); returns how many.
  int start(GradientRange range);
  /// The ranges of `reported` merged where adjacent, in increasing order.
  static std::vector<GradientRange> merged(std::vector<GradientRange> reported);
  /// The entries of the gradient not in `reported` (which must not overlap).
  std::vector<GradientRange> unreported() const;

  dist::Communicator& m_world;
  bool m_overlap;
  std::span<float> m_gradients;
  bool m_pending = false;
  std::vector<GradientRange> m_reported;  // every range reported in this update
  std::vector<GradientRange> m_deferred;  // reported, to start in finish() (no overlap)
  int m_lastReportBuckets = 0;  // started by the latest report: the backward may be ending
  std::int64_t m_lastReportFloats = 0;
  Counts m_counts;
};

}  // namespace rnnwb::train

#pragma once
// Private to rnnwb_train: opt-in timestamps of every update's phases on this rank, to find where
// the time of a data-parallel update goes (docs/distributed.md, "Where an update's time goes").
// RNNWB_UPDATE_TIMES=PREFIX makes each rank write PREFIX.rank<R>.tsv, one line per update of a
// sequence learner, in microseconds of the steady clock (CLOCK_MONOTONIC: one clock for every
// process of a host, so the ranks' lines can be laid side by side):
//   begin        the learner starts the update's forward pass (its chunk is read)
//   first_final  the backend's first report of final gradient entries (the backward is under way)
//   last_final   its last report (the backward pass has ended)
//   sum_start    the rank enters the update's meeting, after the backward pass
//   sum_done     the meeting is over: gradient, loss, frames and stop summed over the ranks
// The next line's begin ends what the rank does alone after the sum (clipping, the optimizer
// step, checks, reports) and the reading of the next chunk. A mark an update did not have (one
// rank has no sum; a backend that reports nothing) is -1.
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>

#include "rnnwb/core/engine/backend.hpp"

namespace rnnwb::train {

class UpdateTimeline final : public GradientListener {
 public:
  enum Mark { kBegin, kFirstFinal, kLastFinal, kSumStart, kSumDone, kMarks };

  /// Null unless RNNWB_UPDATE_TIMES is set (and not empty).
  static std::unique_ptr<UpdateTimeline> fromEnvironment(int rank);
  /// Throws std::runtime_error naming `file` when it cannot be written.
  explicit UpdateTimeline(const std::filesystem::path& file);
  ~UpdateTimeline() override;  // writes the last update's line
  UpdateTimeline(const UpdateTimeline&) = delete;
  UpdateTimeline& operator=(const UpdateTimeline&) = delete;

  /// Now, for the current update; kBegin starts the next update (and writes the previous one).
  void mark(Mark which);
  /// The backend's reports go on to `next` (the gradient sum; may be null) after being marked.
  void forwardTo(GradientListener* next) { m_next = next; }
  void gradientsFinal(std::span<const GradientRange> ranges) override;

 private:
  void writeLine();

  std::FILE* m_file;
  std::int64_t m_update = 0;  // 0 until the first kBegin
  std::array<std::int64_t, kMarks> m_at{};
  GradientListener* m_next = nullptr;
};

}  // namespace rnnwb::train

#pragma once
// The per-stream state of a data-parallel run between its ranks' shares and the whole N streams
// a checkpoint holds (so that a run resumes under any R that divides N). Gathering is an
// all-reduce of zero-padded shares: exact (x + 0 = x), and the only collective it needs.
#include "rnnwb/core/dist/communicator.hpp"
#include "rnnwb/core/dist/sharding.hpp"
#include "rnnwb/core/engine/stream_state.hpp"
#include "rnnwb/core/safetensors.hpp"

namespace rnnwb::dist {

/// Collective: the state of all `streams` streams, `mine` being this rank's (streams
/// [share.first, share.first + share.count)). Every rank gets the whole; an empty state (every
/// rank's, at the start of an epoch) stays empty.
StreamState gatherStreams(Communicator& comm, const CompiledPlan& plan, const StreamState& mine,
                          StreamShare share, int streams);

/// Collective: tensors whose first axis is the stream ([count, ...], RTRL's Ĵ) made whole
/// ([streams, ...]) from every rank's rows. Every rank must hold the same keys.
TensorMap gatherStreamRows(Communicator& comm, const TensorMap& mine, StreamShare share,
                           int streams);

/// This rank's rows [share.first, share.first + share.count) of tensors whose first axis is the
/// stream (what gatherStreamRows made whole). Throws std::runtime_error naming a key whose first
/// axis is shorter.
TensorMap streamRowsOf(const TensorMap& whole, StreamShare share);

}  // namespace rnnwb::dist

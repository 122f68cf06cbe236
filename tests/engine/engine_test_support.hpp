#pragma once
// Random parameters, batches and states for the engine tests, and graphs built from JSON text.
#include <cstdint>
#include <string_view>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/engine/sequence_batch.hpp"
#include "rnnwb/core/engine/stream_state.hpp"

namespace rnnwb::testing {

/// A graph from file text; throws GraphError when it is not valid.
Graph graphFromJson(std::string_view json);
/// The same graph with every layer of the given size (keeps every size rule satisfied).
Graph withLayerSize(Graph graph, int size);

/// Every parameter U(-scale, scale) from the seed, masks applied.
void randomizeParameters(ParameterSet& params, std::uint64_t seed, double scale = 0.8);
/// Inputs U(-1, 1); class targets uniform; mse targets U(-1, 1).
SequenceBatch randomBatch(const CompiledPlan& plan, int frames, int streams, std::uint64_t seed);
/// A state of U(-1, 1) values, as if streams were in the middle of a sequence.
StreamState randomState(const CompiledPlan& plan, int streams, std::uint64_t seed);
/// Frames [first, first + count) of a batch (same streams).
SequenceBatch sliceFrames(const SequenceBatch& batch, int first, int count);
/// Only the given stream of a batch.
SequenceBatch selectStream(const SequenceBatch& batch, int stream);

}  // namespace rnnwb::testing

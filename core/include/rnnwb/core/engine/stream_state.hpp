#pragma once
// What a stream carries from one chunk into the next (graph-format.md, "Meaning"): for every
// layer k with a delayed connection leaving it, the last d_max(k) frames of y_k, per stream.
// Everything else a chunk needs is recomputed from its own frames.
#include <span>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/safetensors.hpp"

namespace rnnwb {

class StreamState {
 public:
  /// No state: every stream starts at the beginning of a sequence (y = 0 before frame 0).
  /// Backends accept an empty state for any number of streams.
  StreamState() = default;
  /// Zeros for `streams` streams: the same meaning as an empty state, with storage.
  StreamState(const CompiledPlan& plan, int streams);

  bool empty() const { return m_streams == 0; }
  int streams() const { return m_streams; }
  int layerCount() const { return static_cast<int>(m_frames.size()); }
  /// d_max of the layer (plan.maxDelayFrom), the number of frames kept; 0 when none.
  int framesOf(int layer) const { return m_frames[layer]; }
  int sizeOf(int layer) const { return m_sizes[layer]; }

  /// y of the layer over its last framesOf(layer) frames: [frames, streams, size] row-major,
  /// oldest frame first (the last element row is y(t-1) of the next chunk's frame t = 0).
  /// Empty when the layer keeps no frames.
  std::span<float> layerFrames(int layer) { return m_values[layer]; }
  std::span<const float> layerFrames(int layer) const { return m_values[layer]; }

  /// Zeros the frames of one stream: it starts a new sequence at the next chunk.
  void resetStream(int stream);
  /// The state of the given streams only, in that order (an empty state stays empty).
  StreamState selectStreams(const std::vector<int>& streams) const;

  /// For checkpoints: one tensor "prefix + <layer id>" per layer that keeps frames,
  /// F32 [frames, streams, size]. An empty state gives no tensors.
  TensorMap toTensors(const CompiledPlan& plan, const std::string& prefix) const;
  /// The inverse of toTensors for `streams` streams; each key must be there with the right
  /// shape (errors name the file and key).
  static StreamState fromTensors(const CompiledPlan& plan, const TensorFile& file,
                                 const std::string& prefix, int streams);

  bool operator==(const StreamState&) const = default;

 private:
  int m_streams = 0;
  std::vector<int> m_frames, m_sizes;
  std::vector<std::vector<float>> m_values;
};

}  // namespace rnnwb

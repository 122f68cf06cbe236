#include "rnnwb/core/engine/stream_state.hpp"

#include <algorithm>
#include <optional>

#include "rnnwb/core/check.hpp"
#include "rnnwb/core/memory_size.hpp"

namespace rnnwb {

StreamState::StreamState(const CompiledPlan& plan, int streams) : m_streams(streams) {
  WB_CHECK(streams >= 1, "a stream state needs at least one stream");
  const auto& layers = plan.graph().layers;
  // The carried frames of a delay of 10^9 cannot exist: say so with the bytes, before allocating.
  std::optional<std::uint64_t> bytes = 0;
  for (int l = 0; l < static_cast<int>(layers.size()) && bytes; ++l) {
    const auto layer = checkedProduct({static_cast<std::uint64_t>(plan.maxDelayFrom(l)),
                                       static_cast<std::uint64_t>(streams),
                                       static_cast<std::uint64_t>(layers[l].size), 4});
    if (!layer || __builtin_add_overflow(*bytes, *layer, &*bytes)) bytes = std::nullopt;
  }
  requireMemory(bytes, "the carried state of " + std::to_string(streams) +
                           " stream(s) (each layer's frames back to its longest delay)");
  for (int l = 0; l < static_cast<int>(layers.size()); ++l) {
    m_frames.push_back(plan.maxDelayFrom(l));
    m_sizes.push_back(layers[l].size);
    m_values.emplace_back(static_cast<std::size_t>(m_frames.back()) * streams * layers[l].size,
                          0.0f);
  }
}

void StreamState::resetStream(int stream) {
  if (empty()) return;
  WB_CHECK(stream >= 0 && stream < m_streams,
           "stream " + std::to_string(stream) + " of " + std::to_string(m_streams));
  for (std::size_t l = 0; l < m_values.size(); ++l) {
    const std::size_t size = m_sizes[l];
    for (int f = 0; f < m_frames[l]; ++f) {
      auto row = m_values[l].begin() + (static_cast<std::size_t>(f) * m_streams + stream) * size;
      std::fill(row, row + size, 0.0f);
    }
  }
}

StreamState StreamState::selectStreams(const std::vector<int>& streams) const {
  if (empty()) return {};
  StreamState out;
  out.m_streams = static_cast<int>(streams.size());
  out.m_frames = m_frames;
  out.m_sizes = m_sizes;
  for (std::size_t l = 0; l < m_values.size(); ++l) {
    const std::size_t size = m_sizes[l];
    std::vector<float> values;
    values.reserve(static_cast<std::size_t>(m_frames[l]) * streams.size() * size);
    for (int f = 0; f < m_frames[l]; ++f) {
      for (int s : streams) {
        WB_CHECK(s >= 0 && s < m_streams,
                 "stream " + std::to_string(s) + " of " + std::to_string(m_streams));
        auto row = m_values[l].begin() + (static_cast<std::size_t>(f) * m_streams + s) * size;
        values.insert(values.end(), row, row + size);
      }
    }
    out.m_values.push_back(std::move(values));
  }
  return out;
}

TensorMap StreamState::toTensors(const CompiledPlan& plan, const std::string& prefix) const {
  TensorMap tensors;
  if (empty()) return tensors;
  for (std::size_t l = 0; l < m_values.size(); ++l) {
    if (m_frames[l] == 0) continue;
    tensors[prefix + plan.graph().layers[l].id] =
        Tensor::fromF32({m_frames[l], m_streams, m_sizes[l]}, m_values[l]);
  }
  return tensors;
}

StreamState StreamState::fromTensors(const CompiledPlan& plan, const TensorFile& file,
                                     const std::string& prefix, int streams) {
  StreamState state(plan, streams);
  for (std::size_t l = 0; l < state.m_values.size(); ++l) {
    if (state.m_frames[l] == 0) continue;
    const auto values = file.require(prefix + plan.graph().layers[l].id, DType::F32,
                                     {state.m_frames[l], streams, state.m_sizes[l]})
                            .f32();
    state.m_values[l].assign(values.begin(), values.end());
  }
  return state;
}

}  // namespace rnnwb

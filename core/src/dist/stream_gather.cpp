#include "rnnwb/core/dist/stream_gather.hpp"

#include <algorithm>
#include <stdexcept>

namespace rnnwb::dist {

StreamState gatherStreams(Communicator& comm, const CompiledPlan& plan, const StreamState& mine,
                          StreamShare share, int streams) {
  if (mine.empty()) return {};
  StreamState whole(plan, streams);
  for (int layer = 0; layer < whole.layerCount(); ++layer) {
    const std::span<const float> part = mine.layerFrames(layer);
    const std::span<float> all = whole.layerFrames(layer);
    const std::size_t size = static_cast<std::size_t>(whole.sizeOf(layer));
    const std::size_t rowFloats = static_cast<std::size_t>(share.count) * size;
    for (int f = 0; f < whole.framesOf(layer); ++f)  // [frames, streams, size]
      std::copy_n(part.begin() + static_cast<std::ptrdiff_t>(f * rowFloats), rowFloats,
                  all.begin() + static_cast<std::ptrdiff_t>(
                                    (static_cast<std::size_t>(f) * streams + share.first) * size));
    comm.allreduceSum(all);
  }
  return whole;
}

TensorMap gatherStreamRows(Communicator& comm, const TensorMap& mine, StreamShare share,
                           int streams) {
  TensorMap whole;
  for (const auto& [key, part] : mine) {
    Shape shape = part.shape();
    const std::int64_t rowFloats = part.elements() / std::max<std::int64_t>(1, shape.at(0));
    shape[0] = streams;
    std::vector<float> values(static_cast<std::size_t>(rowFloats * streams), 0.0f);
    const std::span<const float> rows = part.f32();
    std::copy(rows.begin(), rows.end(), values.begin() + share.first * rowFloats);
    comm.allreduceSum(values);
    whole.emplace(key, Tensor::fromF32(shape, std::move(values)));
  }
  return whole;
}

TensorMap streamRowsOf(const TensorMap& whole, StreamShare share) {
  TensorMap mine;
  for (const auto& [key, all] : whole) {
    Shape shape = all.shape();
    if (shape.empty() || shape[0] < share.first + share.count)
      throw std::runtime_error("'" + key + "' holds no rows for streams " +
                               std::to_string(share.first) + ".." +
                               std::to_string(share.first + share.count - 1));
    const std::int64_t rowFloats = all.elements() / shape[0];
    const std::span<const float> values = all.f32();
    shape[0] = share.count;
    mine.emplace(
        key, Tensor::fromF32(shape, {values.begin() + share.first * rowFloats,
                                     values.begin() + (share.first + share.count) * rowFloats}));
  }
  return mine;
}

}  // namespace rnnwb::dist

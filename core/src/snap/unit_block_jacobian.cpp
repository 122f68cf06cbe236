#include "rnnwb/core/snap/unit_block_jacobian.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace rnnwb::snap {
namespace {

// The pass over Ĵ takes each segment's rows a tile of kTile columns at a time, advances the tile
// through every queued frame in order (Ĵ and the gradient stay in registers / L1 meanwhile), and
// stores it back. The whole pass is one target_clones function (AVX-512, AVX2 or baseline chosen
// at run time on a portable build) with the kernels inlined, so a segment of a few columns (a
// bias, the input row of a gate) costs no dispatch.
constexpr int kTile = 64;
constexpr int kFrames = UnitBlockJacobian::kFramesPerPass;

/// One queued frame as one segment sees it.
struct FrameCoefficients {
  const float* d;  // its |R| x |R| block of D_t
  const float* x;  // the tile's source values
  float a[kUnitBlockMaxRows];
  float g[kUnitBlockMaxRows];
  bool readOut;
};

/// v: k rows of kTile floats (the tile of Ĵ); gradient: the tile's read-out sums. K = 0: any k.
template <int K>
[[gnu::always_inline]] inline void advanceTile(float* __restrict v, float* __restrict gradient,
                                               int m, int k, const FrameCoefficients* frames,
                                               int count, float* __restrict scratch) {
  for (int b = 0; b < count; ++b) {
    const FrameCoefficients& f = frames[b];
    const float* __restrict x = f.x;
    if constexpr (K == 1) {
      const float d = f.d[0], a = f.a[0], g = f.g[0];
      if (f.readOut)
        for (int i = 0; i < m; ++i) {
          const float t = d * v[i] + a * x[i];
          v[i] = t;
          gradient[i] += g * t;
        }
      else
        for (int i = 0; i < m; ++i) v[i] = d * v[i] + a * x[i];
    } else if constexpr (K == 2) {
      const float d00 = f.d[0], d01 = f.d[1], d10 = f.d[2], d11 = f.d[3];
      const float a0 = f.a[0], a1 = f.a[1], g0 = f.g[0], g1 = f.g[1];
      float* __restrict v0 = v;
      float* __restrict v1 = v + kTile;
      for (int i = 0; i < m; ++i) {
        const float t0 = d00 * v0[i] + d01 * v1[i] + a0 * x[i];
        const float t1 = d10 * v0[i] + d11 * v1[i] + a1 * x[i];
        v0[i] = t0;
        v1[i] = t1;
      }
      if (f.readOut)
        for (int i = 0; i < m; ++i) gradient[i] += g0 * v0[i] + g1 * v1[i];
    } else {
      for (int r = 0; r < k; ++r) {
        float* out = scratch + r * kTile;
        for (int i = 0; i < m; ++i) out[i] = f.a[r] * x[i];
        for (int q = 0; q < k; ++q) {
          const float dq = f.d[r * k + q];
          if (dq != 0.0f)
            for (int i = 0; i < m; ++i) out[i] += dq * v[q * kTile + i];
        }
      }
      std::copy(scratch, scratch + k * kTile, v);
      if (f.readOut)
        for (int r = 0; r < k; ++r)
          for (int i = 0; i < m; ++i) gradient[i] += f.g[r] * v[r * kTile + i];
    }
  }
}

// Full tiles of 16·U columns for one or two rows: GCC's vector types (lowered to AVX-512, AVX2
// or SSE by the clone) keep the tile and its read-out sums in registers through all the frames.
typedef float Vec __attribute__((vector_size(64)));

// By reference: a 64-byte vector passed or returned by value would change the ABI per clone.
[[gnu::always_inline]] inline void loadVec(Vec& v, const float* p) { std::memcpy(&v, p, sizeof v); }
[[gnu::always_inline]] inline void storeVec(float* p, const Vec& v) {
  std::memcpy(p, &v, sizeof v);
}

template <int K, int U>
[[gnu::always_inline]] inline void advanceRegisterTile(float* j, std::int64_t stride,
                                                       float* gradient,
                                                       const FrameCoefficients* frames,
                                                       const float* const* x, int count) {
  constexpr int L = 16;
  Vec v0[U], v1[U], sums[U];
#pragma GCC unroll 4
  for (int u = 0; u < U; ++u) {
    loadVec(v0[u], j + u * L);
    if constexpr (K == 2) loadVec(v1[u], j + stride + u * L);
    sums[u] = Vec{};
    if (gradient) loadVec(sums[u], gradient + u * L);
  }
  for (int b = 0; b < count; ++b) {
    const FrameCoefficients& f = frames[b];
    const float* xb = x[b];
    if constexpr (K == 1) {
      const float d = f.d[0], a = f.a[0], g = f.g[0];
#pragma GCC unroll 4
      for (int u = 0; u < U; ++u) {
        Vec xv;
        loadVec(xv, xb + u * L);
        v0[u] = d * v0[u] + a * xv;
        if (f.readOut) sums[u] += g * v0[u];
      }
    } else {
      const float d00 = f.d[0], d01 = f.d[1], d10 = f.d[2], d11 = f.d[3];
      const float a0 = f.a[0], a1 = f.a[1], g0 = f.g[0], g1 = f.g[1];
#pragma GCC unroll 4
      for (int u = 0; u < U; ++u) {
        Vec xv;
        loadVec(xv, xb + u * L);
        const Vec t0 = d00 * v0[u] + d01 * v1[u] + a0 * xv;
        const Vec t1 = d10 * v0[u] + d11 * v1[u] + a1 * xv;
        v0[u] = t0;
        v1[u] = t1;
        if (f.readOut) sums[u] += g0 * t0 + g1 * t1;
      }
    }
  }
#pragma GCC unroll 4
  for (int u = 0; u < U; ++u) {
    storeVec(j + u * L, v0[u]);
    if constexpr (K == 2) storeVec(j + stride + u * L, v1[u]);
    if (gradient) storeVec(gradient + u * L, sums[u]);
  }
}

/// What one pass reads besides the layout.
struct Pass {
  const UnitBlockLayout* layout;
  const UnitBlockJacobian::Stream::Frame* frames;
  int count;
  const std::int64_t* sourceOffset;
  float* gradient;  // null when no queued frame reads out
  float* values;
};

const float kOnes[kTile] = {1.0f};  // only element 0 is read: a bias has one column

/// The tiles of one segment through every queued frame. `frames` holds the segment's
/// coefficients except x, which is per tile.
template <int K>
[[gnu::always_inline]] inline void advanceSegment(const Pass& pass, const UnitBlockSegment& segment,
                                                  FrameCoefficients* frames, bool readOut) {
  const UnitBlockLayout& layout = *pass.layout;
  const int k = segment.size, n = segment.count;
  const std::int32_t* columns =
      segment.columns < 0 ? nullptr : layout.columnIndex.data() + segment.columns;
  float v[kUnitBlockMaxRows * kTile], sums[kTile], scratch[kUnitBlockMaxRows * kTile];
  float gathered[kFrames][kTile];
  float* j = pass.values + segment.values;
  float* gradient = readOut ? pass.gradient + segment.gradient : nullptr;
  int i0 = 0;
  if constexpr (K == 1 || K == 2) {
    if (!columns) {
      const float* x[kFrames];
      for (int b = 0; b < pass.count; ++b)
        x[b] = segment.source < 0 ? kOnes
                                  : pass.frames[b].sources.data() +
                                        pass.sourceOffset[segment.source] + segment.first;
      auto tile = [&](auto width) {
        constexpr int U = decltype(width)::value;
        for (; i0 + 16 * U <= n; i0 += 16 * U) {
          advanceRegisterTile<K, U>(j + i0, n, gradient ? gradient + i0 : nullptr, frames, x,
                                    pass.count);
          for (int b = 0; b < pass.count; ++b) x[b] += 16 * U;
        }
      };
      tile(std::integral_constant<int, 4>{});
      tile(std::integral_constant<int, 1>{});
    }
  }
  for (; i0 < n; i0 += kTile) {
    const int m = std::min(kTile, n - i0);
    for (int r = 0; r < k; ++r) std::copy_n(j + std::int64_t{r} * n + i0, m, v + r * kTile);
    for (int b = 0; b < pass.count; ++b) {
      const float* x = segment.source < 0
                           ? kOnes
                           : pass.frames[b].sources.data() + pass.sourceOffset[segment.source] +
                                 segment.first;
      if (columns) {
        for (int i = 0; i < m; ++i) gathered[b][i] = x[columns[i0 + i]];
        frames[b].x = gathered[b];
      } else {
        frames[b].x = x + i0;
      }
    }
    if (gradient) {
      if (columns) for (int i = 0; i < m; ++i) sums[i] = gradient[columns[i0 + i]];
      else std::copy_n(gradient + i0, m, sums);
    }
    advanceTile<K>(v, sums, m, k, frames, pass.count, scratch);
    for (int r = 0; r < k; ++r) std::copy_n(v + r * kTile, m, j + std::int64_t{r} * n + i0);
    if (gradient) {
      if (columns) for (int i = 0; i < m; ++i) gradient[columns[i0 + i]] = sums[i];
      else std::copy_n(sums, m, gradient + i0);
    }
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void advanceAll(const Pass& pass) {
  const UnitBlockLayout& layout = *pass.layout;
  FrameCoefficients frames[kFrames];
  for (const UnitBlockSegment& segment : layout.segments) {
    const int k = segment.size;
    if (k == 0) continue;
    const std::int32_t* index = layout.factorIndex.data() + segment.factors;
    const std::int32_t* rows = layout.rows.data() + segment.rows;
    bool readOut = false;
    for (int b = 0; b < pass.count; ++b) {
      const UnitBlockJacobian::Stream::Frame& frame = pass.frames[b];
      FrameCoefficients& f = frames[b];
      f.d = frame.d.data() + segment.dStart;
      f.readOut = frame.readOut;
      readOut = readOut || frame.readOut;
      for (int r = 0; r < k; ++r) {
        f.a[r] = index[r] < 0 ? 0.0f : frame.exports[index[r]];
        f.g[r] = frame.readOut ? frame.g[rows[r]] : 0.0f;
      }
    }
    if (k == 1) advanceSegment<1>(pass, segment, frames, readOut);
    else if (k == 2) advanceSegment<2>(pass, segment, frames, readOut);
    else advanceSegment<0>(pass, segment, frames, readOut);
  }
}

}  // namespace

UnitBlockJacobian::UnitBlockJacobian(UnitBlockLayout layout, const NodeStep& step)
    : m_layout(std::move(layout)), m_step(step) {
  const RowColouring& colouring = m_layout.colouring;
  m_seeds.assign(static_cast<std::size_t>(colouring.colours),
                 std::vector<float>(static_cast<std::size_t>(m_layout.unitCount), 0.0f));
  // Seed of colour c: 1 on the y of every state unit of colour c (state layers are in file
  // order, so each one's rows end where the next one's begin).
  const auto& stateLayers = step.stateLayers();
  for (std::size_t k = 0; k < stateLayers.size(); ++k) {
    const int first = step.stateOffset(stateLayers[k]);
    const int end = k + 1 < stateLayers.size() ? step.stateOffset(stateLayers[k + 1])
                                               : m_layout.stateSize;
    for (int s = first; s < end; ++s)
      m_seeds[colouring.colourOfRow[s]][step.unitOffset(stateLayers[k]) + s - first] = 1.0f;
  }
  m_pairs.resize(m_layout.termStart.empty() ? 0 : m_layout.termStart.size() - 1);
  for (const UnitBlockSource& source : m_layout.sources) {
    m_sourceOffset.push_back(m_sourceFloats);
    m_sourceFloats += source.size;
  }
}

UnitBlockJacobian::Stream UnitBlockJacobian::makeStream() const {
  Stream stream;
  stream.values.assign(static_cast<std::size_t>(nnz()), 0.0f);
  Stream::Frame frame;
  frame.exports.resize(static_cast<std::size_t>(m_layout.colouring.colours) *
                       m_layout.exportSize);
  frame.d.resize(static_cast<std::size_t>(m_layout.dSize));
  frame.g.resize(static_cast<std::size_t>(m_layout.stateSize));
  frame.sources.resize(static_cast<std::size_t>(m_sourceFloats));
  stream.frames.assign(kFramesPerPass, frame);
  return stream;
}

void UnitBlockJacobian::prepare(Stream& stream, const ParameterSet& params,
                                std::span<const float* const> external,
                                std::span<const float> prevState, const NodeStep::Tape& tape) {
  Stream::Frame& frame = stream.frames[stream.queued];
  std::fill(frame.exports.begin(), frame.exports.end(), 0.0f);
  const auto units = static_cast<std::size_t>(m_layout.unitCount);
  const std::size_t products = static_cast<std::size_t>(m_layout.exportSize) - units;
  for (std::size_t c = 0; c < m_seeds.size(); ++c) {
    float* exported = frame.exports.data() + c * m_layout.exportSize;
    const NodeStep::Cotangents out{.sums = {exported, units},
                                   .products = {exported + units, products}};
    m_step.vjp(params, external, prevState, tape, m_seeds[c], out, m_scratch);
  }
  const float* theta = params.values().data();
  for (std::size_t p = 0; p < m_pairs.size(); ++p) {
    float sum = 0.0f;
    for (std::int32_t t = m_layout.termStart[p]; t < m_layout.termStart[p + 1]; ++t) {
      const std::int64_t w = m_layout.termWeight[t];
      sum += frame.exports[m_layout.termExport[t]] * (w < 0 ? 1.0f : theta[w]);
    }
    m_pairs[p] = sum;
  }
  for (std::size_t e = 0; e < frame.d.size(); ++e) {
    const std::int32_t pair = m_layout.pairOfEntry[e];
    frame.d[e] = pair < 0 ? 0.0f : m_pairs[pair];
  }
  // The sources are overwritten by the next frame: the pass reads copies.
  for (std::size_t k = 0; k < m_layout.sources.size(); ++k) {
    const UnitBlockSource& source = m_layout.sources[k];
    const float* from = source.kind == UnitBlockSource::Kind::External ? external[source.index]
                        : source.kind == UnitBlockSource::Kind::PreviousState
                            ? prevState.data() + source.index
                            : tape.y.data() + source.index;
    std::copy_n(from, source.size, frame.sources.data() + m_sourceOffset[k]);
  }
}

void UnitBlockJacobian::commit(Stream& stream, std::span<const float> dLossDState,
                               std::span<float> gradient) {
  const bool readOut = !dLossDState.empty();
  if (readOut && static_cast<int>(dLossDState.size()) != m_layout.stateSize)
    throw std::invalid_argument("unit-block Jacobian: got " + std::to_string(dLossDState.size()) +
                                " state cotangents, expected " +
                                std::to_string(m_layout.stateSize));
  if (readOut && stream.gradient && stream.gradient != gradient.data()) {
    // The queued frames read out elsewhere: apply them, then queue this one alone.
    runPass(stream, stream.queued);
    std::swap(stream.frames[0], stream.frames[stream.queued]);
    stream.queued = 0;
    stream.gradient = nullptr;
  }
  Stream::Frame& frame = stream.frames[stream.queued];
  frame.readOut = readOut;
  if (readOut) {
    std::copy(dLossDState.begin(), dLossDState.end(), frame.g.begin());
    stream.gradient = gradient.data();
  }
  if (++stream.queued == kFramesPerPass) finish(stream);
}

void UnitBlockJacobian::finish(Stream& stream) const {
  runPass(stream, stream.queued);
  stream.queued = 0;
  stream.gradient = nullptr;
}

void UnitBlockJacobian::runPass(Stream& stream, int frames) const {
  if (frames == 0) return;
  const Pass pass{&m_layout, stream.frames.data(), frames, m_sourceOffset.data(), stream.gradient,
                  stream.values.data()};
  advanceAll(pass);
}

std::vector<float> UnitBlockJacobian::toByParameter(const Stream& stream) const {
  if (stream.queued > 0)
    throw std::logic_error("unit-block Jacobian: " + std::to_string(stream.queued) +
                           " frames are queued; finish() them first");
  std::vector<float> out(static_cast<std::size_t>(nnz()));
  std::int64_t position = 0;  // segments are in θ_R order, rows of R ascending: CSR order
  for (const UnitBlockSegment& segment : m_layout.segments)
    for (int p = 0; p < segment.count; ++p)
      for (int r = 0; r < segment.size; ++r)
        out[position++] = stream.values[segment.values + std::int64_t{r} * segment.count + p];
  return out;
}

void UnitBlockJacobian::fromByParameter(std::span<const float> byParameter,
                                        Stream& stream) const {
  if (stream.queued > 0)
    throw std::logic_error("unit-block Jacobian: " + std::to_string(stream.queued) +
                           " frames are queued; finish() them first");
  if (static_cast<std::int64_t>(byParameter.size()) != nnz())
    throw std::invalid_argument("unit-block Jacobian: got " + std::to_string(byParameter.size()) +
                                " values by parameter, expected " + std::to_string(nnz()));
  std::int64_t position = 0;
  for (const UnitBlockSegment& segment : m_layout.segments)
    for (int p = 0; p < segment.count; ++p)
      for (int r = 0; r < segment.size; ++r)
        stream.values[segment.values + std::int64_t{r} * segment.count + p] =
            byParameter[position++];
}

}  // namespace rnnwb::snap

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

// Segments of one or two contiguous rows fold the queued frames (below) and run over 16 columns
// at a time in GCC's vector type, lowered to AVX-512, AVX2 or SSE by the clone; its values are
// never passed or returned by value (that would change the ABI per clone).
typedef float Vec __attribute__((vector_size(64)));

/// The queued frames of one segment of k <= 2 rows folded into one step. Over frames
/// b = 0 .. B-1 a column advances as v_b = D_b v_{b-1} + a_b x_b and reads out g_bᵀ v_b, so
///   v_{B-1} = Φ v_{-1} + Σ_b c_b x_b,   Σ_b g_bᵀ v_b = wᵀ v_{-1} + Σ_b e_b x_b,
/// with Φ = D_{B-1}···D_0, c_b = D_{B-1}···D_{b+1} a_b, w = Σ_b (D_b···D_0)ᵀ g_b and
/// e_b = λ_bᵀ a_b, λ_b = g_b + D_{b+1}ᵀ λ_{b+1}: the same sums re-associated, computed once per
/// segment, so a column costs k² + k + (k + 1)·B multiply-adds per pass instead of
/// (k² + 2k)·B. (g_b = 0 for a frame without read-out.)
struct FoldedFrames {
  float phi[2][2] = {};
  float w[2] = {};
  float c[kFrames][2] = {};
  float e[kFrames] = {};
};

}  // namespace

/// The part of the folded frames a block of k <= 2 rows shares with all its segments: Φ, w, and
/// per frame Ψ_b = D_{B-1}···D_{b+1} and λ_b; a segment's c_b = Ψ_b a_b and e_b = λ_bᵀ a_b.
struct UnitBlockJacobian::FoldedBlock {
  float phi[2][2] = {};
  float w[2] = {};
  float psi[kFramesPerPass][2][2] = {};
  float lambda[kFramesPerPass][2] = {};
};

namespace {

using FoldedBlock = UnitBlockJacobian::FoldedBlock;

template <int K>
void foldBlock(const UnitBlockJacobian::Stream::Frame* frames, int count, const UnitBlockRows& block,
               const std::int32_t* rows, FoldedBlock& out) {
  float p[K][K] = {}, psi[K][K] = {}, lambda[K] = {}, g[kFrames][K] = {};
  for (int r = 0; r < K; ++r) p[r][r] = psi[r][r] = 1.0f;
  for (int b = 0; b < count; ++b)
    if (frames[b].readOut)
      for (int r = 0; r < K; ++r) g[b][r] = frames[b].g[rows[r]];
  for (int q = 0; q < K; ++q) out.w[q] = 0.0f;
  for (int b = 0; b < count; ++b) {  // P_b = D_b P_{b-1}; w += P_bᵀ g_b
    const float* d = frames[b].d.data() + block.dStart;
    float next[K][K] = {};
    for (int r = 0; r < K; ++r)
      for (int q = 0; q < K; ++q)
        for (int m = 0; m < K; ++m) next[r][q] += d[r * K + m] * p[m][q];
    std::copy(&next[0][0], &next[0][0] + K * K, &p[0][0]);
    for (int q = 0; q < K; ++q)
      for (int r = 0; r < K; ++r) out.w[q] += p[r][q] * g[b][r];
  }
  for (int r = 0; r < K; ++r)
    for (int q = 0; q < K; ++q) out.phi[r][q] = p[r][q];
  for (int b = count - 1; b >= 0; --b) {
    if (b < count - 1) {  // λ_b = g_b + D_{b+1}ᵀ λ_{b+1}
      const float* d = frames[b + 1].d.data() + block.dStart;
      float next[K] = {};
      for (int q = 0; q < K; ++q)
        for (int r = 0; r < K; ++r) next[q] += d[r * K + q] * lambda[r];
      std::copy(next, next + K, lambda);
    }
    for (int r = 0; r < K; ++r) {
      lambda[r] += g[b][r];
      out.lambda[b][r] = lambda[r];
      for (int q = 0; q < K; ++q) out.psi[b][r][q] = psi[r][q];
    }
    const float* d = frames[b].d.data() + block.dStart;
    float next[K][K] = {};  // Ψ_{b-1} = Ψ_b D_b
    for (int r = 0; r < K; ++r)
      for (int q = 0; q < K; ++q)
        for (int m = 0; m < K; ++m) next[r][q] += psi[r][m] * d[m * K + q];
    std::copy(&next[0][0], &next[0][0] + K * K, &psi[0][0]);
  }
}

/// A segment's folded frames from its block's and its factors a_b.
template <int K>
[[gnu::always_inline]] inline void foldSegment(const FoldedBlock& block, const float (*a)[2],
                                               int count, FoldedFrames& out) {
  for (int r = 0; r < K; ++r) {
    out.w[r] = block.w[r];
    for (int q = 0; q < K; ++q) out.phi[r][q] = block.phi[r][q];
  }
  for (int b = 0; b < count; ++b) {
    out.e[b] = 0.0f;
    for (int r = 0; r < K; ++r) {
      out.e[b] += block.lambda[b][r] * a[b][r];
      out.c[b][r] = 0.0f;
      for (int q = 0; q < K; ++q) out.c[b][r] += block.psi[b][r][q] * a[b][q];
    }
  }
}

/// Columns [i0, i0 + width) of a contiguous segment through the folded frames; T is a vector
/// of 16 floats (width 16·U) or a float (width U). `gradient` null: no read-out.
template <int K, int U, class T>
[[gnu::always_inline]] inline void advanceFolded(float* j, std::int64_t stride, float* gradient,
                                                 const FoldedFrames& f, const float* const* x,
                                                 int count, int i0) {
  constexpr int L = sizeof(T) / sizeof(float);
  T v[K][U], next[K][U], sums[U];
#pragma GCC unroll 4
  for (int u = 0; u < U; ++u) {
    for (int r = 0; r < K; ++r) std::memcpy(&v[r][u], j + r * stride + i0 + u * L, sizeof(T));
    sums[u] = T{};
    if (gradient) std::memcpy(&sums[u], gradient + i0 + u * L, sizeof(T));
    for (int r = 0; r < K; ++r) {
      next[r][u] = f.phi[r][0] * v[0][u];
      if constexpr (K == 2) next[r][u] += f.phi[r][1] * v[1][u];
      if (gradient) sums[u] += f.w[r] * v[r][u];
    }
  }
  for (int b = 0; b < count; ++b) {
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
      T xv;
      std::memcpy(&xv, x[b] + i0 + u * L, sizeof(T));
      for (int r = 0; r < K; ++r) next[r][u] += f.c[b][r] * xv;
      if (gradient) sums[u] += f.e[b] * xv;
    }
  }
#pragma GCC unroll 4
  for (int u = 0; u < U; ++u) {
    for (int r = 0; r < K; ++r) std::memcpy(j + r * stride + i0 + u * L, &next[r][u], sizeof(T));
    if (gradient) std::memcpy(gradient + i0 + u * L, &sums[u], sizeof(T));
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
  const FoldedBlock* folded;  // per block of 1 or 2 rows
};

const float kOnes[kTile] = {1.0f};  // only element 0 is read: a bias has one column

const float* sourceOf(const Pass& pass, const UnitBlockSegment& segment, int b) {
  if (segment.source < 0) return kOnes;
  return pass.frames[b].sources.data() + pass.sourceOffset[segment.source] + segment.first;
}

/// A contiguous segment of K = 1 or 2 rows through the folded frames: 64 columns at a time,
/// then 16, then one.
template <int K>
[[gnu::always_inline]] inline void advanceFoldedSegment(const Pass& pass,
                                                        const UnitBlockSegment& segment,
                                                        bool readOut) {
  const UnitBlockLayout& layout = *pass.layout;
  const std::int32_t* index = layout.factorIndex.data() + segment.factors;
  float a[kFrames][2] = {};
  const float* x[kFrames];
  for (int b = 0; b < pass.count; ++b) {
    for (int r = 0; r < K; ++r) a[b][r] = index[r] < 0 ? 0.0f : pass.frames[b].exports[index[r]];
    x[b] = sourceOf(pass, segment, b);
  }
  FoldedFrames folded;
  foldSegment<K>(pass.folded[segment.block], a, pass.count, folded);
  float* j = pass.values + segment.values;
  float* gradient = readOut ? pass.gradient + segment.gradient : nullptr;
  const int n = segment.count;
  int i0 = 0;
  for (; i0 + 64 <= n; i0 += 64)
    advanceFolded<K, 4, Vec>(j, n, gradient, folded, x, pass.count, i0);
  for (; i0 + 16 <= n; i0 += 16)
    advanceFolded<K, 1, Vec>(j, n, gradient, folded, x, pass.count, i0);
  for (; i0 < n; ++i0) advanceFolded<K, 1, float>(j, n, gradient, folded, x, pass.count, i0);
}

/// Any segment (a masked row, a wider block) frame by frame, kTile columns at a time.
template <int K>
[[gnu::always_inline]] inline void advanceFrameByFrame(const Pass& pass,
                                                       const UnitBlockSegment& segment,
                                                       bool readOut) {
  const UnitBlockLayout& layout = *pass.layout;
  const int k = segment.size, n = segment.count;
  const std::int32_t* index = layout.factorIndex.data() + segment.factors;
  const std::int32_t* rows = layout.rows.data() + segment.rows;
  FrameCoefficients frames[kFrames];
  for (int b = 0; b < pass.count; ++b) {
    const UnitBlockJacobian::Stream::Frame& frame = pass.frames[b];
    FrameCoefficients& f = frames[b];
    f.d = frame.d.data() + segment.dStart;
    f.readOut = frame.readOut;
    for (int r = 0; r < k; ++r) {
      f.a[r] = index[r] < 0 ? 0.0f : frame.exports[index[r]];
      f.g[r] = frame.readOut ? frame.g[rows[r]] : 0.0f;
    }
  }
  const std::int32_t* columns =
      segment.columns < 0 ? nullptr : layout.columnIndex.data() + segment.columns;
  float v[kUnitBlockMaxRows * kTile], sums[kTile], scratch[kUnitBlockMaxRows * kTile];
  float gathered[kFrames][kTile];
  float* j = pass.values + segment.values;
  float* gradient = readOut ? pass.gradient + segment.gradient : nullptr;
  for (int i0 = 0; i0 < n; i0 += kTile) {
    const int m = std::min(kTile, n - i0);
    for (int r = 0; r < k; ++r) std::copy_n(j + std::int64_t{r} * n + i0, m, v + r * kTile);
    for (int b = 0; b < pass.count; ++b) {
      const float* x = sourceOf(pass, segment, b);
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
  bool readOut = false;
  for (int b = 0; b < pass.count; ++b) readOut = readOut || pass.frames[b].readOut;
  for (const UnitBlockSegment& segment : layout.segments) {
    const int k = segment.size;
    if (k == 0) continue;
    if (segment.columns < 0 && k == 1) advanceFoldedSegment<1>(pass, segment, readOut);
    else if (segment.columns < 0 && k == 2) advanceFoldedSegment<2>(pass, segment, readOut);
    else if (k == 1) advanceFrameByFrame<1>(pass, segment, readOut);
    else if (k == 2) advanceFrameByFrame<2>(pass, segment, readOut);
    else advanceFrameByFrame<0>(pass, segment, readOut);
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
  m_folded.resize(m_layout.blocks.size());
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

void UnitBlockJacobian::finish(Stream& stream) {
  runPass(stream, stream.queued);
  stream.queued = 0;
  stream.gradient = nullptr;
}

void UnitBlockJacobian::runPass(Stream& stream, int frames) {
  if (frames == 0) return;
  for (std::size_t k = 0; k < m_layout.blocks.size(); ++k) {
    const UnitBlockRows& block = m_layout.blocks[k];
    const std::int32_t* rows = m_layout.rows.data() + block.rowStart;
    if (block.size == 1) foldBlock<1>(stream.frames.data(), frames, block, rows, m_folded[k]);
    if (block.size == 2) foldBlock<2>(stream.frames.data(), frames, block, rows, m_folded[k]);
  }
  const Pass pass{&m_layout,       stream.frames.data(), frames,         m_sourceOffset.data(),
                  stream.gradient, stream.values.data(), m_folded.data()};
  advanceAll(pass);
}

UnitBlockJacobian::~UnitBlockJacobian() = default;

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

// The pass of UnitBlockJacobian over Ĵ (unit_block_jacobian.hpp): every queued frame applied to
// every segment, one tile of columns at a time.
#include "unit_block_pass.hpp"

#include <algorithm>
#include <cstring>

#include "simd_clones.hpp"

namespace rnnwb::snap::detail {
namespace {

// Each segment's rows are read and written once per pass: a contiguous segment of one or two rows
// through the frames folded per block (FoldedFrames), any other one frame by frame, a tile of
// kTile columns at a time (Ĵ and its read-out sums stay in L1 meanwhile). The whole pass is one
// target_clones function (AVX-512, AVX2 or baseline chosen at run time on a portable build) with
// the kernels inlined, so a segment of a few columns (a bias, the input row of a gate) costs no
// dispatch.
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

template <int K>
void foldBlock(const UnitBlockJacobian::Stream::Frame* frames, int count,
               const UnitBlockRows& block, const std::int32_t* rows, FoldedBlock& out) {
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
      if (columns)
        for (int i = 0; i < m; ++i) sums[i] = gradient[columns[i0 + i]];
      else
        std::copy_n(gradient + i0, m, sums);
    }
    advanceTile<K>(v, sums, m, k, frames, pass.count, scratch);
    for (int r = 0; r < k; ++r) std::copy_n(v + r * kTile, m, j + std::int64_t{r} * n + i0);
    if (gradient) {
      if (columns)
        for (int i = 0; i < m; ++i) gradient[columns[i0 + i]] = sums[i];
      else
        std::copy_n(sums, m, gradient + i0);
    }
  }
}

// The clones have internal linkage (see simd_clones.hpp): an exported one is resolved while the
// loader relocates the library, and the sanitizer trees' resolver then called an unrelocated PLT
// entry; clang 14 also drops the clones silently when the header's declaration lacks them.
RNNWB_SIMD_CLONES void advanceAllSegments(const Pass& pass) {
  const UnitBlockLayout& layout = *pass.layout;
  bool readOut = false;
  for (int b = 0; b < pass.count; ++b) readOut = readOut || pass.frames[b].readOut;
  for (const UnitBlockSegment& segment : layout.segments) {
    const int k = segment.size;
    if (k == 0) continue;
    if (segment.columns < 0 && k == 1)
      advanceFoldedSegment<1>(pass, segment, readOut);
    else if (segment.columns < 0 && k == 2)
      advanceFoldedSegment<2>(pass, segment, readOut);
    else if (k == 1)
      advanceFrameByFrame<1>(pass, segment, readOut);
    else if (k == 2)
      advanceFrameByFrame<2>(pass, segment, readOut);
    else
      advanceFrameByFrame<0>(pass, segment, readOut);
  }
}

}  // namespace

void foldBlocks(const UnitBlockLayout& layout, const UnitBlockJacobian::Stream::Frame* frames,
                int count, FoldedBlock* folded) {
  for (std::size_t k = 0; k < layout.blocks.size(); ++k) {
    const UnitBlockRows& block = layout.blocks[k];
    const std::int32_t* rows = layout.rows.data() + block.rowStart;
    if (block.size == 1) foldBlock<1>(frames, count, block, rows, folded[k]);
    if (block.size == 2) foldBlock<2>(frames, count, block, rows, folded[k]);
  }
}

void advanceQueuedFrames(const Pass& pass) { advanceAllSegments(pass); }

}  // namespace rnnwb::snap::detail

#include "host_step_runner.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "rnnwb/core/engine/activation_math.hpp"
#include "step_math.hpp"

namespace rnnwb::testing {

using gpu::LaunchStep;
using gpu::StepKind;

namespace {

// Every offset a step addresses must lie in the arena: a lowering error shows here, not as a
// silent overwrite.
void requireInside(std::size_t arena, std::int64_t offset, std::int64_t count, const char* what) {
  if (offset < 0 || count < 0 || static_cast<std::size_t>(offset + count) > arena)
    throw std::out_of_range(std::string("step operand out of its arena: ") + what);
}

// The device runs a step's elements in parallel (and cuBLAS forbids C overlapping A or B), so an
// operand that shares some but not all of its elements with the output gives another result there
// than in this sequential interpreter: refuse it here, where it can be found.
void requireNoPartialOverlap(std::int64_t out, std::int64_t outCount, std::int64_t in,
                             std::int64_t inCount, bool sameAllowed, const char* what) {
  if (outCount <= 0 || inCount <= 0) return;
  const bool disjoint = out + outCount <= in || in + inCount <= out;
  if (disjoint || (sameAllowed && out == in && outCount == inCount)) return;
  throw std::logic_error(std::string("step output overlaps its operand ") + what + ": [" +
                         std::to_string(out) + ", +" + std::to_string(outCount) + ") and [" +
                         std::to_string(in) + ", +" + std::to_string(inCount) + ")");
}

}  // namespace

void HostStepRunner::reserve(std::size_t floats, std::size_t ints, std::size_t doubles) {
  // NaN, not 0: a step reading what nobody wrote shows in the results.
  m_floats.assign(std::max(floats, m_floats.size()), std::numeric_limits<float>::quiet_NaN());
  m_ints.assign(std::max(ints, m_ints.size()), -1);
  m_doubles.assign(std::max(doubles, m_doubles.size()), std::numeric_limits<double>::quiet_NaN());
}

void HostStepRunner::uploadFloats(std::int64_t offset, const float* values, std::size_t count) {
  requireInside(m_floats.size(), offset, count, "upload");
  std::copy_n(values, count, m_floats.begin() + offset);
}
void HostStepRunner::uploadInts(std::int64_t offset, const std::int32_t* values,
                                std::size_t count) {
  requireInside(m_ints.size(), offset, count, "upload ints");
  std::copy_n(values, count, m_ints.begin() + offset);
}
void HostStepRunner::downloadFloats(std::int64_t offset, float* values, std::size_t count) {
  requireInside(m_floats.size(), offset, count, "download");
  std::copy_n(m_floats.begin() + offset, count, values);
}
void HostStepRunner::downloadDoubles(std::int64_t offset, double* values, std::size_t count) {
  requireInside(m_doubles.size(), offset, count, "download doubles");
  std::copy_n(m_doubles.begin() + offset, count, values);
}

namespace {

/// The floats a row operand spans: `rows` rows of `width` at distance ld (0: one row for all).
std::int64_t rowSpan(int rows, int width, int ld) {
  return ld == 0 ? width : std::int64_t(rows - 1) * ld + width;
}

}  // namespace

HostStepRunner::Output HostStepRunner::outputOf(const LaunchStep& st) {
  if (gpu::isProduct(st.kind)) return {st.dst, std::int64_t(st.m - 1) * st.ldc + st.n, false};
  if (gpu::isRowOperation(st.kind)) return {st.dst, rowSpan(st.rows, st.width, st.dstLd), false};
  switch (st.kind) {
    case StepKind::ColumnSum:
    case StepKind::ColumnDot:
      return {st.dst, st.width, false};
    case StepKind::CrossEntropyLoss:
    case StepKind::MseLoss:
      return {st.lossRow, st.rows, true};
    default:
      return {st.dst, st.count > 0 ? st.count : std::int64_t(st.rows) * st.width, false};
  }
}

void HostStepRunner::execute(const gpu::LaunchSchedule& schedule, std::uint64_t key) {
  keys.push_back(key);
  stepsRun = schedule.steps.size();
  for (const LaunchStep& step : schedule.steps) run(step);
}

void HostStepRunner::gemm(const LaunchStep& st) {
  float* f = m_floats.data();
  const std::int64_t aRows = st.transA ? st.k : st.m, bRows = st.transB ? st.n : st.k;
  requireInside(m_floats.size(), st.src, (aRows - 1) * st.lda + (st.transA ? st.m : st.k), "A");
  requireInside(m_floats.size(), st.aux, (bRows - 1) * st.ldb + (st.transB ? st.k : st.n), "B");
  requireInside(m_floats.size(), st.dst, std::int64_t(st.m - 1) * st.ldc + st.n, "C");
  const std::int64_t cSpan = std::int64_t(st.m - 1) * st.ldc + st.n;
  requireNoPartialOverlap(st.dst, cSpan, st.src, (aRows - 1) * st.lda + (st.transA ? st.m : st.k),
                          false, "A of a product");
  requireNoPartialOverlap(st.dst, cSpan, st.aux, (bRows - 1) * st.ldb + (st.transB ? st.k : st.n),
                          false, "B of a product");
  for (int i = 0; i < st.m; ++i)
    for (int j = 0; j < st.n; ++j) {
      double sum = 0.0;
      for (int p = 0; p < st.k; ++p) {
        const float a = st.transA ? f[st.src + std::int64_t(p) * st.lda + i]
                                  : f[st.src + std::int64_t(i) * st.lda + p];
        const float b = st.transB ? f[st.aux + std::int64_t(j) * st.ldb + p]
                                  : f[st.aux + std::int64_t(p) * st.ldb + j];
        sum += double(a) * b;
      }
      float& c = f[st.dst + std::int64_t(i) * st.ldc + j];
      c = static_cast<float>(sum + (st.beta == 0.0f ? 0.0 : double(st.beta) * c));
    }
}

void HostStepRunner::rowOperation(const LaunchStep& st) {
  float* f = m_floats.data();
  const std::int64_t written = rowSpan(st.rows, st.width, st.dstLd);
  requireInside(m_floats.size(), st.dst, written, "dst");
  const float* a = nullptr;
  const float* b = nullptr;
  const float* w = nullptr;
  if (st.src >= 0) {
    const std::int64_t read = rowSpan(st.rows, st.width, st.srcLd);
    requireInside(m_floats.size(), st.src, read, "a (src)");
    requireNoPartialOverlap(st.dst, written, st.src, read, true, "a (src)");
    a = f + st.src;
  }
  if (st.aux >= 0) {
    const std::int64_t read = rowSpan(st.rows, st.width, st.auxLd);
    requireInside(m_floats.size(), st.aux, read, "b (aux)");
    requireNoPartialOverlap(st.dst, written, st.aux, read, true, "b (aux)");
    b = f + st.aux;
  }
  if (st.weights >= 0) {
    requireInside(m_floats.size(), st.weights, st.width, "weights");
    requireNoPartialOverlap(st.dst, written, st.weights, st.width, false, "weights");
    w = f + st.weights;
  }
  const int width = st.width;
  float* dst = f + st.dst;
  for (int r = 0; r < st.rows; ++r) {
    float* out = dst + std::int64_t(r) * st.dstLd;
    const float* ra = a ? a + std::int64_t(r) * st.srcLd : nullptr;
    const float* rb = b ? b + std::int64_t(r) * st.auxLd : nullptr;
    if (st.activation == Activation::Softmax && st.kind == StepKind::Activate) {
      math::softmax(ra, out, width);
      continue;
    }
    if (st.activation == Activation::Softmax && st.kind == StepKind::ActivateBackward) {
      math::softmaxBackward(ra, rb, out, width);
      continue;
    }
    for (int i = 0; i < width; ++i)
      out[i] = gpu::step::rowElement(st.kind, st.activation, out[i], ra ? ra[i] : 0.0f,
                                     rb ? rb[i] : 0.0f, w ? w[i] : 1.0f);
  }
}

void HostStepRunner::run(const LaunchStep& st) {
  if (gpu::isProduct(st.kind)) return gemm(st);
  if (gpu::isRowOperation(st.kind)) return rowOperation(st);
  float* f = m_floats.data();
  const std::int64_t cells = std::int64_t(st.rows) * st.width;
  const std::int64_t span = st.count > 0 ? st.count : cells;
  std::int64_t written = span;
  if (st.kind == StepKind::ColumnSum || st.kind == StepKind::ColumnDot) written = st.width;
  if (st.kind == StepKind::CrossEntropyLoss || st.kind == StepKind::MseLoss) {
    written = 0;
    requireInside(m_doubles.size(), st.lossRow, st.rows, "loss");
  }
  requireInside(m_floats.size(), st.dst, written, "dst");
  if (st.kind != StepKind::Zero) {
    requireInside(m_floats.size(), st.src, span, "src");
    if (st.kind != StepKind::CrossEntropyLoss && st.kind != StepKind::MseLoss)
      requireNoPartialOverlap(st.dst, written, st.src, span, true, "src");
  }
  if (st.kind == StepKind::ColumnDot || st.kind == StepKind::MseGrad ||
      st.kind == StepKind::MseLoss)
    requireInside(m_floats.size(), st.aux, span, "aux");
  float* dst = f + st.dst;
  const float* src = f + st.src;
  const float* aux = f + st.aux;
  const int w = st.width;
  switch (st.kind) {
    case StepKind::Zero:
      std::fill_n(dst, st.count, 0.0f);
      break;
    case StepKind::Mask:
      for (std::int64_t i = 0; i < st.count; ++i) dst[i] *= src[i];
      break;
    case StepKind::CrossEntropyGrad:
      for (int r = st.firstRow; r < st.rows; ++r) {
        for (int i = 0; i < w; ++i) dst[r * w + i] += src[r * w + i];
        dst[r * w + m_ints.at(st.classes + r)] -= 1.0f;
      }
      break;
    case StepKind::MseGrad:
      for (std::int64_t i = 0; i < st.count; ++i) dst[i] = src[i] - aux[i];
      break;
    case StepKind::ColumnSum:
    case StepKind::ColumnDot:
      for (int i = 0; i < w; ++i) {
        float sum = 0.0f;
        for (int r = 0; r < st.rows; ++r)
          sum += src[r * w + i] * (st.kind == StepKind::ColumnDot ? aux[r * w + i] : 1.0f);
        dst[i] += sum;
      }
      break;
    case StepKind::CrossEntropyLoss:
      for (int r = 0; r < st.rows; ++r)
        m_doubles.at(st.lossRow + r) =
            math::crossEntropyFromLogits(src + r * w, w, m_ints.at(st.classes + r));
      break;
    case StepKind::MseLoss:
      for (int r = 0; r < st.rows; ++r) {
        double sum = 0.0;
        for (int i = 0; i < w; ++i) {
          const double diff = double(src[r * w + i]) - aux[r * w + i];
          sum += 0.5 * diff * diff;
        }
        m_doubles.at(st.lossRow + r) = sum;
      }
      break;
    default:
      throw std::logic_error(std::string("host step runner: no rule for step ") +
                             gpu::toString(st.kind));
  }
}

}  // namespace rnnwb::testing

#include "rnnwb/core/mdlstm/mdlstm_layer.hpp"

#include <algorithm>
#include <stdexcept>

#include "blas.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/mdlstm/leaky_lp_cell.hpp"

namespace rnnwb::mdlstm {
namespace {

constexpr int G = kGateCount;

void zeroMaskedCells(const FeatureMap& mask, int x, int n, float* a, float* b) {
  const float* m = mask.column(x);
  for (int y = 0; y < mask.height; ++y)
    if (m[y] == 0.0f) {
      std::fill_n(a + static_cast<std::ptrdiff_t>(y) * n, n, 0.0f);
      std::fill_n(b + static_cast<std::ptrdiff_t>(y) * n, n, 0.0f);
    }
}

// Recurrent input of column x from column x - 1: left (same row) and up (row above).
void addRecurrentInput(const Mdlstm2dParameters& p, const float* hPrev, int height, float* g) {
  const int n = p.units;
  gemm(false, true, height, G * n, n, 1.0f, hPrev, n, p.leftWeights.data(), n, 1.0f, g, G * n);
  gemm(false, true, height - 1, G * n, n, 1.0f, hPrev, n, p.upWeights.data(), n, 1.0f, g + G * n,
       G * n);
}

}  // namespace

Mdlstm2dParameters::Mdlstm2dParameters(int in, int n)
    : inputs(in),
      units(n),
      inputWeights(static_cast<std::size_t>(G) * n * in, 0.0f),
      leftWeights(static_cast<std::size_t>(G) * n * n, 0.0f),
      upWeights(static_cast<std::size_t>(G) * n * n, 0.0f),
      bias(static_cast<std::size_t>(G) * n, 0.0f) {}

void Mdlstm2dParameters::initialize(std::uint64_t seed) {
  SplitMix64 random(seed);  // one stream through the three weights: every gate has all three
  for (std::vector<float>* t : {&inputWeights, &leftWeights, &upWeights})
    fillUniformFanIn(*t, static_cast<double>(inputs + 2 * units), random);
  std::fill(bias.begin(), bias.end(), 0.0f);
}

std::vector<std::vector<float>*> Mdlstm2dParameters::tensors() {
  return {&inputWeights, &leftWeights, &upWeights, &bias};
}

Mdlstm2dTape mdlstmForward(const Mdlstm2dParameters& p, FeatureMap input, FeatureMap mask) {
  if (input.channels != p.inputs || mask.height != input.height || mask.width != input.width)
    throw std::invalid_argument("mdlstmForward: input " + std::to_string(input.height) + " x " +
                                std::to_string(input.width) + " x " +
                                std::to_string(input.channels) + " does not fit a layer of " +
                                std::to_string(p.inputs) + " inputs or its mask");
  const int H = input.height, W = input.width, n = p.units;
  Mdlstm2dTape t{std::move(input), std::move(mask), FeatureMap(H, W, G * n), FeatureMap(H, W, n),
                 FeatureMap(H, W, n)};
  const int cells = H * W;
  gemm(false, true, cells, G * n, p.inputs, 1.0f, t.input.data.data(), p.inputs,
       p.inputWeights.data(), p.inputs, 0.0f, t.gates.data.data(), G * n);
  for (int k = 0; k < cells; ++k)
    for (int j = 0; j < G * n; ++j)
      t.gates.data[static_cast<std::size_t>(k) * G * n + j] += p.bias[j];
  for (int x = 0; x < W; ++x) {
    float* g = t.gates.column(x);
    const float* cPrev = x > 0 ? t.cells.column(x - 1) : nullptr;
    if (x > 0) addRecurrentInput(p, t.output.column(x - 1), H, g);
    float* c = t.cells.column(x);
    float* h = t.output.column(x);
    leakyLpForward(1, n, g, cPrev, nullptr, c, h);
    leakyLpForward(H - 1, n, g + G * n, cPrev ? cPrev + n : nullptr, cPrev, c + n, h + n);
    zeroMaskedCells(t.mask, x, n, c, h);
  }
  return t;
}

FeatureMap mdlstmBackward(const Mdlstm2dParameters& p, const Mdlstm2dTape& t,
                          const FeatureMap& dOutput, Mdlstm2dParameters& grads) {
  const int H = t.input.height, W = t.input.width, n = p.units;
  if (dOutput.height != H || dOutput.width != W || dOutput.channels != n)
    throw std::invalid_argument("mdlstmBackward: the output gradient has the wrong shape");
  FeatureMap dh = dOutput, dc(H, W, n), dPre(H, W, G * n);
  for (int x = W - 1; x >= 0; --x) {
    float* dhx = dh.column(x);
    float* dcx = dc.column(x);
    zeroMaskedCells(t.mask, x, n, dhx, dcx);
    const float* g = t.gates.column(x);
    const float* c = t.cells.column(x);
    const float* cPrev = x > 0 ? t.cells.column(x - 1) : nullptr;
    float* dcPrev = x > 0 ? dc.column(x - 1) : nullptr;
    float* dp = dPre.column(x);
    leakyLpBackward(1, n, g, cPrev, nullptr, c, dhx, dcx, dp, dcPrev, nullptr);
    leakyLpBackward(H - 1, n, g + G * n, cPrev ? cPrev + n : nullptr, cPrev, c + n, dhx + n,
                    dcx + n, dp + G * n, dcPrev ? dcPrev + n : nullptr, dcPrev);
    if (x == 0) break;
    const float* hPrev = t.output.column(x - 1);
    float* dhPrev = dh.column(x - 1);
    gemm(false, false, H, n, G * n, 1.0f, dp, G * n, p.leftWeights.data(), n, 1.0f, dhPrev, n);
    gemm(false, false, H - 1, n, G * n, 1.0f, dp + G * n, G * n, p.upWeights.data(), n, 1.0f,
         dhPrev, n);
    gemm(true, false, G * n, n, H, 1.0f, dp, G * n, hPrev, n, 1.0f, grads.leftWeights.data(), n);
    gemm(true, false, G * n, n, H - 1, 1.0f, dp + G * n, G * n, hPrev, n, 1.0f,
         grads.upWeights.data(), n);
  }
  const int cells = H * W;
  gemm(true, false, G * n, p.inputs, cells, 1.0f, dPre.data.data(), G * n, t.input.data.data(),
       p.inputs, 1.0f, grads.inputWeights.data(), p.inputs);
  for (int k = 0; k < cells; ++k)
    for (int j = 0; j < G * n; ++j)
      grads.bias[j] += dPre.data[static_cast<std::size_t>(k) * G * n + j];
  FeatureMap dInput(H, W, p.inputs);
  gemm(false, false, cells, p.inputs, G * n, 1.0f, dPre.data.data(), G * n, p.inputWeights.data(),
       p.inputs, 0.0f, dInput.data.data(), p.inputs);
  return dInput;
}

FeatureMap mdlstmForwardPacked(const Mdlstm2dParameters& p, const PackedLayout& layout,
                               const FeatureMap& packed, ScanDirection direction,
                               Mdlstm2dTape& tape) {
  using namespace packing;
  FeatureMap input = skew(layout, flip(layout, packed, direction));
  FeatureMap mask = skewedMask(layout, direction);
  tape = mdlstmForward(p, std::move(input), std::move(mask));
  return flip(layout, unskew(layout, tape.output), direction);
}

FeatureMap mdlstmBackwardPacked(const Mdlstm2dParameters& p, const PackedLayout& layout,
                                ScanDirection direction, const Mdlstm2dTape& tape,
                                const FeatureMap& dOutput, Mdlstm2dParameters& grads) {
  using namespace packing;
  const FeatureMap dSkewed = skew(layout, flip(layout, dOutput, direction));
  return flip(layout, unskew(layout, mdlstmBackward(p, tape, dSkewed, grads)), direction);
}

}  // namespace rnnwb::mdlstm

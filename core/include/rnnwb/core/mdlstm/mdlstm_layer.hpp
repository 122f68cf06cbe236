#pragma once
// One 2-D LSTM layer (Leaky LP cell, one scan direction) over a packed, skewed batch: column by
// column, every cell of a column in one batched GEMM (OpenBLAS), the mask stopping state and
// gradient at separators and padding.
#include <cstdint>
#include <vector>

#include "rnnwb/core/packing/feature_map.hpp"
#include "rnnwb/core/packing/packed_layout.hpp"
#include "rnnwb/core/packing/packing_ops.hpp"

namespace rnnwb::mdlstm {

using packing::FeatureMap;
using packing::PackedLayout;
using packing::ScanDirection;

/// The weights of one layer; also used for their gradients (same shapes). Row-major.
struct Mdlstm2dParameters {
  int inputs = 0;
  int units = 0;
  std::vector<float> inputWeights;  // 5n x inputs
  std::vector<float> leftWeights;   // 5n x n, from the cell on the left
  std::vector<float> upWeights;     // 5n x n, from the cell above
  std::vector<float> bias;          // 5n

  Mdlstm2dParameters() = default;
  Mdlstm2dParameters(int inputs, int units);  // all zero
  /// Uniform in +-1/sqrt(inputs + 2n), from SplitMix64(seed); biases zero.
  void initialize(std::uint64_t seed);
  /// Every tensor, in a fixed order (for optimizers and gradient checks).
  std::vector<std::vector<float>*> tensors();
};

/// What backward needs from forward. All maps are H x Ws (skewed).
struct Mdlstm2dTape {
  FeatureMap input;   // inputs channels
  FeatureMap mask;    // 1 channel
  FeatureMap gates;   // 5n activations
  FeatureMap cells;   // n
  FeatureMap output;  // n: h, zero where the mask is 0
};

/// Scans a skewed batch from the top left: cell (y, x) reads the cells (y, x-1) and (y-1, x-1)
/// of the skewed grid, i.e. its left and upper neighbours before skewing. Cells where mask == 0
/// have c = h = 0, so no state crosses a separator or comes out of padding.
Mdlstm2dTape mdlstmForward(const Mdlstm2dParameters& p, FeatureMap input, FeatureMap mask);

/// Gradient of the loss with respect to the input (H x Ws x inputs) given dOutput
/// (H x Ws x n); adds the weights' gradients to `grads` (shaped like p).
FeatureMap mdlstmBackward(const Mdlstm2dParameters& p, const Mdlstm2dTape& tape,
                          const FeatureMap& dOutput, Mdlstm2dParameters& grads);

/// The packed route: flip the packed H x Wp batch for `direction`, skew, scan, unskew, flip
/// back. Returns H x Wp x n (zero outside examples); `tape` receives what backward needs.
FeatureMap mdlstmForwardPacked(const Mdlstm2dParameters& p, const PackedLayout& layout,
                               const FeatureMap& packed, ScanDirection direction,
                               Mdlstm2dTape& tape);

/// Backward of mdlstmForwardPacked: dOutput and the result are H x Wp.
FeatureMap mdlstmBackwardPacked(const Mdlstm2dParameters& p, const PackedLayout& layout,
                                ScanDirection direction, const Mdlstm2dTape& tape,
                                const FeatureMap& dOutput, Mdlstm2dParameters& grads);

}  // namespace rnnwb::mdlstm

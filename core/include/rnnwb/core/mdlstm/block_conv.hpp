#pragma once
// Block-strided convolution (kernel = stride = one bh x bw block) with a tanh, over a list of
// variable-size examples: the blocks of all examples are stacked on the batch dimension
// (packing::chunkBlocks) and one GEMM computes the layer for the whole list.
#include <cstdint>
#include <vector>

#include "rnnwb/core/packing/block_chunking.hpp"

namespace rnnwb::mdlstm {

using packing::FeatureMap;

struct BlockConvParameters {
  int inputs = 0;
  int outputs = 0;
  int blockHeight = 1;
  int blockWidth = 1;
  std::vector<float> weights;  // outputs x (bh * bw * inputs), block cells in chunk order
  std::vector<float> bias;     // outputs

  BlockConvParameters() = default;
  BlockConvParameters(int inputs, int outputs, int blockHeight, int blockWidth);  // all zero
  void initialize(std::uint64_t seed);  // uniform +-1/sqrt(fan-in)
  std::vector<std::vector<float>*> tensors();
};

struct BlockConvTape {
  packing::BlockChunks chunks;  // the input, cut into blocks
  std::vector<float> output;    // blocks x outputs, after tanh
};

/// Example e of size h x w becomes ceil(h / bh) x ceil(w / bw) x outputs (edges zero-padded).
std::vector<FeatureMap> blockConvForward(const BlockConvParameters& p,
                                         const std::vector<FeatureMap>& inputs,
                                         BlockConvTape& tape);

/// Input gradients, one per example; adds the weights' gradients to `grads`.
std::vector<FeatureMap> blockConvBackward(const BlockConvParameters& p, const BlockConvTape& tape,
                                          const std::vector<FeatureMap>& dOutputs,
                                          BlockConvParameters& grads);

}  // namespace rnnwb::mdlstm

#include "rnnwb/core/mdlstm/block_conv.hpp"

#include <algorithm>
#include <stdexcept>

#include "blas.hpp"
#include "rnnwb/core/engine/activation_math.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"

namespace rnnwb::mdlstm {

BlockConvParameters::BlockConvParameters(int in, int out, int bh, int bw)
    : inputs(in),
      outputs(out),
      blockHeight(bh),
      blockWidth(bw),
      weights(static_cast<std::size_t>(out) * bh * bw * in, 0.0f),
      bias(out, 0.0f) {}

void BlockConvParameters::initialize(std::uint64_t seed) {
  SplitMix64 random(seed);
  fillUniformFanIn(weights, static_cast<double>(blockHeight * blockWidth * inputs), random);
  std::fill(bias.begin(), bias.end(), 0.0f);
}

std::vector<std::vector<float>*> BlockConvParameters::tensors() { return {&weights, &bias}; }

std::vector<FeatureMap> blockConvForward(const BlockConvParameters& p,
                                         const std::vector<FeatureMap>& inputs,
                                         BlockConvTape& tape) {
  for (std::size_t e = 0; e < inputs.size(); ++e)
    if (inputs[e].channels != p.inputs)
      throw std::invalid_argument("block convolution: example " + std::to_string(e) + " has " +
                                  std::to_string(inputs[e].channels) + " channels, the layer " +
                                  std::to_string(p.inputs));
  tape.chunks = packing::chunkBlocks(inputs, p.blockHeight, p.blockWidth);
  const int blocks = tape.chunks.blockCount(), k = tape.chunks.rowSize();
  tape.output.assign(static_cast<std::size_t>(blocks) * p.outputs, 0.0f);
  for (int b = 0; b < blocks; ++b)
    std::copy(p.bias.begin(), p.bias.end(), tape.output.begin() + std::size_t(b) * p.outputs);
  gemm(false, true, blocks, p.outputs, k, 1.0f, tape.chunks.rows.data(), k, p.weights.data(), k,
       1.0f, tape.output.data(), p.outputs);
  for (float& v : tape.output) v = math::tanhApprox(v);  // the engine's tanh
  return packing::dechunkRows(tape.output, p.outputs, tape.chunks.grids);
}

std::vector<FeatureMap> blockConvBackward(const BlockConvParameters& p, const BlockConvTape& tape,
                                          const std::vector<FeatureMap>& dOutputs,
                                          BlockConvParameters& grads) {
  std::vector<float> dPre = packing::chunkRows(dOutputs);
  if (dPre.size() != tape.output.size())
    throw std::invalid_argument("block convolution: output gradients of the wrong size");
  for (std::size_t i = 0; i < dPre.size(); ++i)
    dPre[i] *= math::derivativeFromOutput(Activation::Tanh, tape.output[i]);
  const int blocks = tape.chunks.blockCount(), k = tape.chunks.rowSize();
  gemm(true, false, p.outputs, k, blocks, 1.0f, dPre.data(), p.outputs, tape.chunks.rows.data(), k,
       1.0f, grads.weights.data(), k);
  for (int b = 0; b < blocks; ++b)
    for (int o = 0; o < p.outputs; ++o) grads.bias[o] += dPre[std::size_t(b) * p.outputs + o];
  packing::BlockChunks dIn = tape.chunks;
  gemm(false, false, blocks, k, p.outputs, 1.0f, dPre.data(), p.outputs, p.weights.data(), k, 0.0f,
       dIn.rows.data(), k);
  return packing::unchunkBlocks(dIn);
}

}  // namespace rnnwb::mdlstm

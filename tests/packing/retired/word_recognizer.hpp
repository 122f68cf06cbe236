#pragma once
// RETIRED from the product: the fixed word recogniser that `rnnwb train --task words` ran before
// the recogniser became a graph (`rnnwb new mdlstm`, core/include/rnnwb/core/recognizer_graph.hpp).
// Kept here, in the tests only, as the oracle that the graph built with the same cell
// (examples/leaky-lp-2d-one-output-gate.rnn.json) and sizes computes the same numbers.
// Block-strided convolutions and 2-D LSTM layers (four directions, on packed batches) from a
// RecognizerConfig, columns summed over the height, a fully connected layer and CTC.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "recognizer_config.hpp"
#include "rnnwb/core/mdlstm/block_conv.hpp"
#include "rnnwb/core/mdlstm/mdlstm_layer.hpp"
#include "rnnwb/core/mdlstm/word_data.hpp"
#include "rnnwb/core/packing/image_io.hpp"

namespace rnnwb::mdlstm {

struct RecognizerReport {
  double loss = 0.0;         // mean CTC loss over the examples that have an alignment
  double cer = 0.0;          // character error rate of greedy decoding: edits / characters
  long long edits = 0;       // edit distance of greedy decoding, summed over the examples
  long long characters = 0;  // characters of the transcriptions
  int examples = 0;
  int skipped = 0;            // too few frames for their transcription (no CTC alignment)
  double gradNorm = 0.0;      // before clipping (trainStep only)
  long long mdlstmCells = 0;  // skewed cells the 2-D LSTM layers computed (one direction)
};

class WordRecognizer {
 public:
  /// Weights drawn from SplitMix64(seed), so a run can be repeated exactly.
  explicit WordRecognizer(RecognizerConfig config, std::uint64_t seed = 1);

  /// Forward, backward and one step of the trainer's Adam at config.learningRate, the gradient
  /// clipped to a global norm of config.gradientClip first (gradients() then hold the clipped one).
  RecognizerReport trainStep(const std::vector<WordExample>& batch);
  /// Forward only.
  RecognizerReport evaluate(const std::vector<WordExample>& batch);
  /// Greedy CTC decoding of one image.
  std::string recognize(const packing::Image& image);

  /// Sets gradients() to d mean loss / d parameters for the batch (no update).
  RecognizerReport computeGradients(const std::vector<WordExample>& batch);
  /// Every parameter tensor, and its gradient in the same order.
  std::vector<std::vector<float>*> parameters();
  std::vector<std::vector<float>*> gradients();
  /// A name per parameter tensor, in the order of parameters() ("layers.3.scan2.left_weight",
  /// "output.bias"): the keys of a checkpoint.
  std::vector<std::string> parameterNames() const;
  std::size_t parameterCount();
  const RecognizerConfig& config() const { return m_config; }

  /// Classes of `text` (alphabet index + 1); throws naming example `index` and the character.
  std::vector<int> encode(const std::string& text, int index) const;

 private:
  struct Stage {
    RecognizerLayerConfig config;
    BlockConvParameters conv, convGrad;
    std::array<Mdlstm2dParameters, 4> scans, scanGrads;  // one per ScanDirection
  };
  struct Tape;

  RecognizerReport run(const std::vector<WordExample>& batch, bool backward);
  std::vector<FeatureMap> forward(std::vector<FeatureMap> x, Tape& tape, long long& cells);
  void backward(std::vector<FeatureMap> dx, Tape& tape);
  /// The output layer: frames x classes logits of a frames x features sequence, and its backward
  /// (adds the output layer's gradients; returns the gradient of the pre-collapse map).
  std::vector<float> logitsOf(const std::vector<float>& sequence, int frames) const;
  FeatureMap outputBackward(const FeatureMap& features, const std::vector<float>& sequence,
                            const std::vector<float>& dLogits);
  /// Clips the gradients to config.gradientClip and runs one update of train::adamUpdate on
  /// every tensor with its own moments.
  void adamStep(double gradNorm);

  RecognizerConfig m_config;
  std::vector<Stage> m_stages;
  int m_features = 0;  // channels reaching the output layer
  std::vector<float> m_outWeights, m_outBias, m_outWeightsGrad, m_outBiasGrad;
  std::vector<std::vector<float>> m_adamM, m_adamV;  // Adam's moments, one per parameter tensor
  std::int64_t m_steps = 0;                          // Adam's updates
};

}  // namespace rnnwb::mdlstm

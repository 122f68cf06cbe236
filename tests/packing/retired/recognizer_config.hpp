#pragma once
// The architecture of a word recogniser, read from a small JSON model config (examples/
// words-model.json), not from a graph file: 2-D recurrence is not drawable as a graph yet.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rnnwb::mdlstm {

struct RecognizerLayerConfig {
  enum class Kind { BlockConv, Mdlstm } kind = Kind::Mdlstm;
  int units = 0;        // mdlstm: units per scan direction (4 directions, concatenated)
  int outputs = 0;      // block_conv: output channels
  int blockHeight = 1;  // block_conv: the block (= kernel = stride)
  int blockWidth = 1;
};

struct RecognizerConfig {
  std::string name;
  std::string alphabet;          // class k + 1 is alphabet[k]; class 0 is the CTC blank
  std::string packer = "shelf";  // how 2-D LSTM layers pack their batch (see packers.hpp)
  double learningRate = 1e-3;    // Adam
  double gradientClip = 5.0;     // global gradient norm
  std::vector<RecognizerLayerConfig> layers;
};

/// {"name", "alphabet", "packer"?, "optimizer"?: {"learning_rate", "gradient_clip"},
///  "layers": [{"type": "mdlstm", "units": N} | {"type": "block_conv", "block": [H, W],
///  "outputs": N}, ...]}. Throws std::runtime_error naming `source` and the offending key.
RecognizerConfig parseRecognizerConfig(const nlohmann::json& json, const std::string& source);

/// Reads and parses a model config file (errors name the file).
RecognizerConfig readRecognizerConfig(const std::filesystem::path& file);

}  // namespace rnnwb::mdlstm

#include "recognizer_config.hpp"

#include <fstream>
#include <stdexcept>

#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/packing/packers.hpp"

namespace rnnwb::mdlstm {
namespace {

int positiveInt(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<int>() <= 0)
    throw std::runtime_error(where + ": '" + key + "' must be a positive integer");
  return j[key].get<int>();
}

RecognizerLayerConfig parseLayer(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
    throw std::runtime_error(where + ": a layer needs a \"type\"");
  RecognizerLayerConfig layer;
  const std::string type = j["type"];
  if (type == "mdlstm") {
    layer.kind = RecognizerLayerConfig::Kind::Mdlstm;
    layer.units = positiveInt(j, "units", where);
  } else if (type == "block_conv") {
    layer.kind = RecognizerLayerConfig::Kind::BlockConv;
    layer.outputs = positiveInt(j, "outputs", where);
    const auto& block = j.contains("block") ? j["block"] : nlohmann::json();
    if (!block.is_array() || block.size() != 2 || !block[0].is_number_integer() ||
        !block[1].is_number_integer() || block[0].get<int>() <= 0 || block[1].get<int>() <= 0)
      throw std::runtime_error(where + ": 'block' must be [height, width], positive integers");
    layer.blockHeight = block[0];
    layer.blockWidth = block[1];
  } else {
    throw std::runtime_error(where + ": unknown layer type '" + type +
                             "' (known: mdlstm, block_conv)");
  }
  return layer;
}

}  // namespace

RecognizerConfig parseRecognizerConfig(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object()) throw std::runtime_error(source + ": a model config is a JSON object");
  RecognizerConfig c;
  c.name = json.value("name", std::string("recognizer"));
  if (!json.contains("alphabet") || !json["alphabet"].is_string() ||
      json["alphabet"].get<std::string>().empty())
    throw std::runtime_error(source + ": 'alphabet' must be a non-empty string");
  c.alphabet = json["alphabet"];
  c.packer = json.value("packer", c.packer);
  if (c.packer != "none")                // "none": last-minute batch padding (packing::padBatch)
    packing::packWith(c.packer, {}, 0);  // unknown names fail here, naming the known ones
  if (json.contains("optimizer")) {
    const auto& o = json["optimizer"];
    c.learningRate = o.value("learning_rate", c.learningRate);
    c.gradientClip = o.value("gradient_clip", c.gradientClip);
  }
  if (!json.contains("layers") || !json["layers"].is_array() || json["layers"].empty())
    throw std::runtime_error(source + ": 'layers' must be a non-empty array");
  for (std::size_t i = 0; i < json["layers"].size(); ++i)
    c.layers.push_back(
        parseLayer(json["layers"][i], source + ": layers[" + std::to_string(i) + "]"));
  return c;
}

RecognizerConfig readRecognizerConfig(const std::filesystem::path& file) {
  const std::string text = readFileBounded(file, kConfigFileLimit, "the model file");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
  return parseRecognizerConfig(json, file.string());
}

}  // namespace rnnwb::mdlstm

#include "mask_computation.hpp"

#include <cstring>
#include <exception>
#include <stdexcept>

#include "mask_hover.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/connection_mask.hpp"

namespace rnnwb::ui {
namespace {

QStringList idsOf(const Graph& graph, const std::vector<int>& layers) {
  QStringList ids;
  for (int layer : layers) ids << QString::fromStdString(graph.layers[layer].id);
  return ids;
}

void computeNode(const MaskRequest& request, MaskResult& result) {
  const auto shared = std::make_shared<const CompiledPlan>(request.graph);
  const CompiledPlan& plan = *shared;
  const std::vector<int> recurrent = snap::recurrentNodes(plan.nodes());
  if (request.recurrentIndex >= int(recurrent.size()))
    throw std::out_of_range("recurrent node " + std::to_string(request.recurrentIndex + 1) +
                            ": the graph has " + std::to_string(recurrent.size()) +
                            " recurrent node(s)");
  const int node = recurrent[request.recurrentIndex];
  result.summary =
      snap::summarizeNode(plan, node, snap::reportedLevels(request.level), request.bpttLength);
  result.layerIds = idsOf(plan.graph(), result.summary->layers);
  result.stateLayerIds = idsOf(plan.graph(), result.summary->stateLayers);
  if (!result.summary->refusal) {
    auto hover = std::make_shared<const PatternHover>(shared, node, request.level);
    result.patterns = hover->draw();
    result.hover = std::move(hover);
  }
}

}  // namespace

QImage toQImage(const snap::RgbImage& image) {
  QImage out(image.width, image.height, QImage::Format_RGB888);
  for (int y = 0; y < image.height; ++y)
    std::memcpy(out.scanLine(y), image.pixels.data() + std::size_t(y) * image.width * 3,
                std::size_t(image.width) * 3);
  return out;
}

WeightMaskPicture drawWeightMask(const Graph& graph, int connection) {
  const Connection& c = graph.connections.at(connection);
  const auto index = layerIndexById(graph);
  const auto from = index.find(c.from), to = index.find(c.to);
  if (from == index.end() || to == index.end())
    throw std::invalid_argument("connection '" + c.id + "' joins a layer that does not exist");
  WeightMaskPicture picture;
  picture.rows = graph.layers[to->second].size;
  picture.columns = graph.layers[from->second].size;
  const std::vector<std::uint8_t> mask = connectionMask(c, picture.rows, picture.columns);
  picture.image = QImage(picture.columns, picture.rows, QImage::Format_RGB888);
  for (int r = 0; r < picture.rows; ++r) {
    uchar* line = picture.image.scanLine(r);
    for (int k = 0; k < picture.columns; ++k) {
      const bool exists = mask[std::size_t(r) * picture.columns + k] != 0;
      picture.existing += exists;
      const uchar grey = exists ? 0x30 : 0xFF;
      line[3 * k] = line[3 * k + 1] = line[3 * k + 2] = grey;
    }
  }
  return picture;
}

MaskResult computeMasks(const MaskRequest& request) {
  MaskResult result;
  try {
    if (request.recurrentIndex >= 0) computeNode(request, result);
    if (request.weightConnection >= 0)
      result.weightMask = drawWeightMask(request.graph, request.weightConnection);
  } catch (const std::exception& e) {
    result = MaskResult{};
    result.error = QString::fromStdString(e.what());
  }
  return result;
}

}  // namespace rnnwb::ui

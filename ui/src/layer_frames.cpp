#include "rnnwb/ui/layer_frames.hpp"

#include <algorithm>
#include <array>

namespace rnnwb::ui {

std::vector<LayerFrame> readFrames(const nlohmann::json& ui) {
  std::vector<LayerFrame> frames;
  const auto found = ui.find("frames");
  if (found == ui.end() || !found->is_array()) return frames;
  for (const nlohmann::json& entry : *found) {
    if (!entry.is_object()) continue;
    LayerFrame frame;
    if (const auto name = entry.find("name"); name != entry.end() && name->is_string())
      frame.name = name->get<std::string>();
    if (const auto colour = entry.find("colour"); colour != entry.end() && colour->is_string())
      frame.colour = QColor(QString::fromStdString(colour->get<std::string>()));
    if (!frame.colour.isValid()) frame.colour = frameColour(frames.size());
    if (const auto layers = entry.find("layers"); layers != entry.end() && layers->is_array())
      for (const nlohmann::json& id : *layers)
        if (id.is_string()) frame.layers.push_back(id.get<std::string>());
    if (const auto collapsed = entry.find("collapsed");
        collapsed != entry.end() && collapsed->is_boolean())
      frame.collapsed = collapsed->get<bool>();
    frames.push_back(std::move(frame));
  }
  return frames;
}

void writeFrames(nlohmann::json& ui, const std::vector<LayerFrame>& frames) {
  if (frames.empty()) {
    ui.erase("frames");
    return;
  }
  nlohmann::json list = nlohmann::json::array();
  for (const LayerFrame& frame : frames) {
    nlohmann::json entry = {{"name", frame.name},
                            {"colour", frame.colour.name().toStdString()},
                            {"layers", frame.layers}};
    if (frame.collapsed) entry["collapsed"] = true;
    list.push_back(std::move(entry));
  }
  ui["frames"] = std::move(list);
}

QColor frameColour(std::size_t n) {
  // Tableau 10's first six: apart from each other and from the boxes' own blue and orange fills.
  static const std::array<const char*, 6> kColours = {"#4e79a7", "#59a14f", "#e15759",
                                                      "#b07aa1", "#edc948", "#76b7b2"};
  return QColor(kColours[n % kColours.size()]);
}

std::string uniqueFrameName(const std::vector<LayerFrame>& frames, const std::string& base) {
  auto taken = [&frames](const std::string& name) {
    return std::any_of(frames.begin(), frames.end(),
                       [&name](const LayerFrame& f) { return f.name == name; });
  };
  if (!taken(base)) return base;
  for (int n = 2;; ++n)
    if (!taken(base + " " + std::to_string(n))) return base + " " + std::to_string(n);
}

}  // namespace rnnwb::ui

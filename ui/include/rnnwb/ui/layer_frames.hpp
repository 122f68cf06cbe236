#pragma once
// Frames around groups of layers (Blender's frame node, QtNodes' groups): a name, a colour and
// the ids of the layers inside. The canvas draws a frame behind its layers, fitted to them, so it
// moves and resizes with them. They live in the graph file's free-form `ui` object
// (spec/graph-format.md: editor data that engines ignore and keep), as
//   "ui": {"frames": [{"name": "encoder", "colour": "#4e79a7", "layers": ["i", "f"]}]}
// A frame collapsed into one box (a node editor's group) also says "collapsed": true.
// An entry that is not of that shape is left out when read; a layer id a frame lists that the
// graph no longer has is kept (an undo may bring the layer back) and not drawn.
#include <string>
#include <vector>

#include <QColor>
#include <nlohmann/json.hpp>

namespace rnnwb::ui {

struct LayerFrame {
  std::string name;
  QColor colour;
  std::vector<std::string> layers;
  bool collapsed = false;  // drawn as one box in the expanded view, its layers inside it
  bool operator==(const LayerFrame&) const = default;
};

/// The frames of a graph's `ui` object (its "frames" key); none when it has no such key.
std::vector<LayerFrame> readFrames(const nlohmann::json& ui);
/// Writes them as ui["frames"] (removes the key when there are none), the rest of `ui` kept.
void writeFrames(nlohmann::json& ui, const std::vector<LayerFrame>& frames);
/// The colour the n-th new frame gets (a qualitative palette, repeating).
QColor frameColour(std::size_t n);
/// `base` when no frame has that name, else "base 2", "base 3", ...
std::string uniqueFrameName(const std::vector<LayerFrame>& frames, const std::string& base);

}  // namespace rnnwb::ui

#pragma once
// What the canvas tests share: example paths and finding items of a GraphScene. The including
// test defines RNNWB_EXAMPLES_DIR and has ui/src on its include path (LayerItem is private).
#include <string>

#include <QGraphicsItem>
#include <QString>

#include "layer_item.hpp"
#include "rnnwb/ui/graph_scene.hpp"

namespace rnnwb::ui::testing {

inline QString example(const char* name) { return QStringLiteral(RNNWB_EXAMPLES_DIR "/") + name; }

/// The box of layer `id`, or null.
inline LayerItem* layerItem(GraphScene& scene, const std::string& id) {
  for (QGraphicsItem* item : scene.items())
    if (auto* layer = qgraphicsitem_cast<LayerItem*>(item); layer && layer->layerId() == id)
      return layer;
  return nullptr;
}

/// Items of one QGraphicsItem type in the scene.
inline int countItems(GraphScene& scene, int type) {
  int n = 0;
  for (QGraphicsItem* item : scene.items()) n += item->type() == type;
  return n;
}

}  // namespace rnnwb::ui::testing

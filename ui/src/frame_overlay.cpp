#include "frame_overlay.hpp"

#include <algorithm>
#include <cmath>

#include <QApplication>
#include <QColorDialog>
#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsView>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QUndoStack>

#include "frame_item.hpp"
#include "rnnwb/ui/graph_commands.hpp"
#include "rnnwb/ui/graph_scene.hpp"

namespace rnnwb::ui {

FrameOverlay::FrameOverlay(GraphScene* scene) : QObject(scene), m_scene(scene) {
  GraphDocument* document = scene->document();
  connect(document, &GraphDocument::framesChanged, this, [this, document] {
    rebuild();
    // The wires of collapsed frames end at their boxes. Within an edit (a layer renamed), the
    // scene folds again once the structure is whole (syncStructure).
    if (!document->isEditing()) m_scene->refreshFolding();
  });
  connect(document, &GraphDocument::structureChanged, this, [this] {
    // After the scene's own sync, which folded with the frames as they were (another file
    // opened): again, when a frame is or was collapsed.
    const auto anyCollapsed = [](const std::vector<LayerFrame>& frames) {
      return std::any_of(frames.begin(), frames.end(),
                         [](const LayerFrame& f) { return f.collapsed; });
    };
    const bool before = anyCollapsed(m_shownFrames);
    rebuild();
    if (before || anyCollapsed(m_shownFrames)) m_scene->refreshFolding();
  });
  connect(document, &GraphDocument::positionsChanged, this, &FrameOverlay::fit);
  // Boxes also move without the document (a drag in progress, the collapse animation).
  connect(scene, &QGraphicsScene::changed, this, &FrameOverlay::fit);
  scene->installEventFilter(this);
  rebuild();
}

FrameOverlay::~FrameOverlay() {
  for (FrameItem* item : m_items) delete item;
}

void FrameOverlay::rebuild() {
  const std::vector<LayerFrame> frames = m_scene->document()->frames();
  while (m_items.size() > frames.size()) {
    delete m_items.back();
    m_items.pop_back();
  }
  while (m_items.size() < frames.size()) {
    m_items.push_back(new FrameItem(this, int(m_items.size())));
    m_scene->addItem(m_items.back());
  }
  for (std::size_t i = 0; i < frames.size(); ++i) m_items[i]->setFrame(frames[i]);
  m_shownFrames = frames;
  fit();
}

void FrameOverlay::fit() {
  const std::vector<LayerFrame> frames = m_scene->document()->frames();
  for (std::size_t i = 0; i < frames.size() && i < m_items.size(); ++i) {
    QRectF around;
    if (frames[i].collapsed && !m_scene->isCollapsed()) {
      for (const std::string& id : frames[i].layers) around |= m_scene->layerBox(id);
      m_items[i]->foldAround(around);
      continue;
    }
    for (const std::string& id : frames[i].layers)
      if (m_scene->isLayerShown(id)) around |= m_scene->layerBox(id);
    m_items[i]->fitAround(around);
  }
}

FrameItem* FrameOverlay::collapsedFrameOf(const std::string& layerId) const {
  if (m_scene->isCollapsed()) return nullptr;
  const std::vector<LayerFrame>& frames = m_shownFrames;
  for (std::size_t i = 0; i < frames.size() && i < m_items.size(); ++i)
    if (frames[i].collapsed &&
        std::count(frames[i].layers.begin(), frames[i].layers.end(), layerId))
      return m_items[i];
  return nullptr;
}

std::vector<QRectF> FrameOverlay::frameRects() const {
  std::vector<QRectF> rects;
  for (const FrameItem* item : m_items)
    rects.push_back(item->isVisible() ? item->frameRect() : QRectF());
  return rects;
}

void FrameOverlay::replaceFrames(std::vector<LayerFrame> frames, const QString& text) {
  GraphDocument* document = m_scene->document();
  document->undoStack()->push(
      new SetFramesCommand(document, document->frames(), std::move(frames), text));
}

bool FrameOverlay::frameSelection(const QString& name) {
  const std::set<std::string> selected = m_scene->selectedLayerIds();
  if (selected.empty()) return false;
  std::vector<LayerFrame> frames = m_scene->document()->frames();
  for (LayerFrame& frame : frames)  // a layer sits in one frame at most
    std::erase_if(frame.layers, [&](const std::string& id) { return selected.count(id) > 0; });
  std::erase_if(frames, [](const LayerFrame& frame) { return frame.layers.empty(); });
  LayerFrame frame;
  frame.name = name.isEmpty() ? uniqueFrameName(frames, "frame") : name.toStdString();
  frame.colour = frameColour(frames.size());
  frame.layers.assign(selected.begin(), selected.end());
  frames.push_back(frame);
  replaceFrames(frames, QStringLiteral("Frame selection"));
  return true;
}

void FrameOverlay::renameFrame(int index, const QString& name) {
  std::vector<LayerFrame> frames = m_scene->document()->frames();
  if (index < 0 || index >= int(frames.size()) || name.toStdString() == frames[index].name) return;
  frames[index].name = name.toStdString();
  replaceFrames(frames, QStringLiteral("Rename frame"));
}

void FrameOverlay::setFrameColour(int index, const QColor& colour) {
  std::vector<LayerFrame> frames = m_scene->document()->frames();
  if (index < 0 || index >= int(frames.size()) || !colour.isValid()) return;
  frames[index].colour = colour;
  replaceFrames(frames, QStringLiteral("Frame colour"));
}

void FrameOverlay::deleteFrame(int index) {
  std::vector<LayerFrame> frames = m_scene->document()->frames();
  if (index < 0 || index >= int(frames.size())) return;
  frames.erase(frames.begin() + index);
  replaceFrames(frames, QStringLiteral("Delete frame"));
}

void FrameOverlay::setFrameCollapsed(int index, bool collapsed) {
  std::vector<LayerFrame> frames = m_scene->document()->frames();
  if (index < 0 || index >= int(frames.size()) || frames[index].collapsed == collapsed) return;
  frames[index].collapsed = collapsed;
  replaceFrames(frames,
                collapsed ? QStringLiteral("Collapse frame") : QStringLiteral("Open frame"));
}

void FrameOverlay::selectFrameLayers(int index) {
  const std::vector<LayerFrame> frames = m_scene->document()->frames();
  if (index < 0 || index >= int(frames.size())) return;
  std::vector<int> layers;
  for (const std::string& id : frames[index].layers)
    if (const int layer = m_scene->document()->layerIndex(id); layer >= 0) layers.push_back(layer);
  m_scene->selectItems(layers, {});
}

void FrameOverlay::beginDrag(int index) {
  ++m_dragId;
  m_dragBefore.clear();
  const std::vector<LayerFrame> frames = m_scene->document()->frames();
  if (index < 0 || index >= int(frames.size())) return;
  for (const std::string& id : frames[index].layers)
    if (m_scene->document()->layerIndex(id) >= 0)
      m_dragBefore[id] = m_scene->document()->position(id);
}

void FrameOverlay::dragTo(int, QPointF delta) {
  if (m_dragBefore.empty()) return;
  if (m_scene->snapsToGrid())  // by whole grid steps: layers on the grid stay on it
    delta = QPointF(std::round(delta.x() / GraphScene::kGrid) * GraphScene::kGrid,
                    std::round(delta.y() / GraphScene::kGrid) * GraphScene::kGrid);
  PositionMap after;
  for (const auto& [id, p] : m_dragBefore) after[id] = p + delta;
  GraphDocument* document = m_scene->document();
  document->undoStack()->push(
      new MoveLayersCommand(document, m_dragBefore, after, m_dragId, QStringLiteral("Move frame")));
}

void FrameOverlay::renameWithDialog(int index) {
  const std::vector<LayerFrame> frames = m_scene->document()->frames();
  if (index < 0 || index >= int(frames.size())) return;
  QInputDialog dialog(m_scene->views().value(0));
  const QString title = QStringLiteral("Rename frame");
  dialog.setWindowTitle(title);
  dialog.setLabelText(QStringLiteral("Name:"));
  // Wide enough that the window manager need not cut the title ("Renam…frame"), its buttons
  // taking room too. (QInputDialog's layout fixes its width to what its fields need: the field
  // is what grows.)
  const QFontMetrics titleFont(QApplication::font("QMdiSubWindowTitleBar"));
  dialog.setInputMode(QInputDialog::TextInput);
  if (auto* field = dialog.findChild<QLineEdit*>())
    field->setMinimumWidth(std::max(280, titleFont.horizontalAdvance(title) + 180));
  dialog.setTextValue(QString::fromStdString(frames[index].name));
  if (dialog.exec() != QDialog::Accepted) return;
  const QString name = dialog.textValue().trimmed();
  if (!name.isEmpty()) renameFrame(index, name);
}

void FrameOverlay::showFrameMenu(int index, QPoint screenPos) {
  const std::vector<LayerFrame> frames = m_scene->document()->frames();
  if (index < 0 || index >= int(frames.size())) return;
  QMenu menu;
  menu.addAction(QStringLiteral("Rename frame…"), [this, index] { renameWithDialog(index); });
  menu.addAction(QStringLiteral("Frame colour…"), [this, index, frames] {
    const QColor colour = QColorDialog::getColor(frames[index].colour, m_scene->views().value(0),
                                                 QStringLiteral("Frame colour"));
    setFrameColour(index, colour);
  });
  const bool collapsed = frames[index].collapsed;
  QAction* fold = menu.addAction(
      collapsed ? QStringLiteral("Open frame") : QStringLiteral("Collapse into one box"),
      [this, index, collapsed] { setFrameCollapsed(index, !collapsed); });
  if (m_scene->isCollapsed()) {  // the recurrent nodes' view draws frames open
    fold->setEnabled(false);
    fold->setText(fold->text() + QStringLiteral(" (in the expanded view)"));
  }
  menu.addAction(QStringLiteral("Select its layers"), [this, index] { selectFrameLayers(index); });
  menu.addSeparator();
  menu.addAction(QStringLiteral("Delete frame (keep its layers)"),
                 [this, index] { deleteFrame(index); });
  menu.exec(screenPos);
}

bool FrameOverlay::eventFilter(QObject* watched, QEvent* event) {
  if (watched != m_scene || event->type() != QEvent::GraphicsSceneContextMenu ||
      m_canvasActions.isEmpty())
    return QObject::eventFilter(watched, event);
  auto* menuEvent = static_cast<QGraphicsSceneContextMenuEvent*>(event);
  for (QGraphicsItem* item : m_scene->items(menuEvent->scenePos()))
    if (item->type() == FrameItem::Type && item->shape().contains(menuEvent->scenePos()))
      return false;  // the frame's own menu
  QMenu menu;
  menu.addActions(m_canvasActions);
  menu.exec(menuEvent->screenPos());
  return true;
}

}  // namespace rnnwb::ui

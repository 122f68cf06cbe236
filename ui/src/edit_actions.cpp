#include "rnnwb/ui/edit_actions.hpp"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QCursor>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGraphicsItem>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSpinBox>
#include <QToolTip>
#include <QUndoStack>

#include "frame_overlay.hpp"
#include "rnnwb/ui/auto_layout.hpp"
#include "rnnwb/ui/free_placement.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/graph_view.hpp"

namespace rnnwb::ui {
namespace {

// Where a clicked cell template starts: one column right of the layer that feeds it.
const QPointF kBesideInput(200, 0);

// "Zoom In (Ctrl++)": what a toolbar button or menu entry does, and its key.
void showShortcutInToolTip(QAction* action) {
  QString tip = action->toolTip();
  const int keys = tip.indexOf(QStringLiteral(" ("));
  if (keys >= 0 && tip.endsWith(QLatin1Char(')'))) tip.truncate(keys);
  if (!action->shortcut().isEmpty())
    tip += QStringLiteral(" (%1)").arg(action->shortcut().toString(QKeySequence::NativeText));
  action->setToolTip(tip);
}

QAction* makeAction(QObject* parent, const QString& text, const QKeySequence& shortcut,
                    const QString& tip) {
  auto* action = new QAction(text, parent);
  action->setShortcut(shortcut);
  action->setStatusTip(tip);
  return action;
}

}  // namespace

EditActions::EditActions(GraphDocument* document, GraphScene* scene, GraphView* view,
                         QWidget* dialogParent)
    : QObject(dialogParent),
      m_document(document),
      m_scene(scene),
      m_view(view),
      m_dialogParent(dialogParent) {
  createActions();
  connect(m_scene, &GraphScene::wireDroppedOnCanvas, this, &EditActions::offerLayerForWire);
}

void EditActions::createActions() {
  // Plain "Undo" / "Redo": the command's name goes to the tooltip, so the toolbar keeps its
  // width after every edit.
  QUndoStack* stack = m_document->undoStack();
  undo = makeAction(this, QStringLiteral("&Undo"), QKeySequence::Undo, {});
  redo = makeAction(this, QStringLiteral("&Redo"), QKeySequence::Redo, {});
  // Both common redo keys, whatever the platform's own is.
  QList<QKeySequence> redoKeys = redo->shortcuts();
  for (const QKeySequence& key :
       {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)})
    if (!redoKeys.contains(key)) redoKeys << key;
  redo->setShortcuts(redoKeys);
  connect(undo, &QAction::triggered, stack, &QUndoStack::undo);
  connect(redo, &QAction::triggered, stack, &QUndoStack::redo);
  connect(stack, &QUndoStack::canUndoChanged, this, &EditActions::updateUndoActions);
  connect(stack, &QUndoStack::canRedoChanged, this, &EditActions::updateUndoActions);
  connect(stack, &QUndoStack::indexChanged, this, &EditActions::updateUndoActions);
  cut = makeAction(this, QStringLiteral("Cu&t"), QKeySequence::Cut,
                   QStringLiteral("Cut the selected layers"));
  copy = makeAction(this, QStringLiteral("&Copy"), QKeySequence::Copy,
                    QStringLiteral("Copy the selected layers and the connections among them"));
  paste = makeAction(this, QStringLiteral("&Paste"), QKeySequence::Paste,
                     QStringLiteral("Paste layers"));
  duplicate = makeAction(this, QStringLiteral("D&uplicate"), QKeySequence(Qt::CTRL | Qt::Key_D),
                         QStringLiteral("Copy the selected layers beside them"));
  remove = makeAction(this, QStringLiteral("&Delete"), QKeySequence::Delete,
                      QStringLiteral("Delete the selection (and the connections of deleted "
                                     "layers)"));
  selectAll = makeAction(this, QStringLiteral("Select &All"), QKeySequence::SelectAll, {});
  autoLayout = makeAction(this, QStringLiteral("Auto-&layout"), QKeySequence(Qt::CTRL | Qt::Key_L),
                          QStringLiteral("Lay the graph out left to right in schedule order"));
  // Ctrl+J as Blender's "Join in New Frame".
  frameSelection =
      makeAction(this, QStringLiteral("&Frame Selection"), QKeySequence(Qt::CTRL | Qt::Key_J),
                 QStringLiteral("Put the selected layers in a named, coloured frame"));
  zoomIn = makeAction(this, QStringLiteral("Zoom &In"), QKeySequence::ZoomIn, {});
  // Ctrl+= is Ctrl++ without Shift on most keyboards.
  if (!zoomIn->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Equal)))
    zoomIn->setShortcuts(zoomIn->shortcuts() << QKeySequence(Qt::CTRL | Qt::Key_Equal));
  zoomOut = makeAction(this, QStringLiteral("Zoom &Out"), QKeySequence::ZoomOut, {});
  resetZoom =
      makeAction(this, QStringLiteral("Actual &Size"), QKeySequence(Qt::CTRL | Qt::Key_0), {});
  // Ctrl+F is Find (as everywhere); Fit takes Ctrl+Shift+F.
  fitToWindow = makeAction(this, QStringLiteral("&Fit to Window"),
                           QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F),
                           QStringLiteral("Show the whole graph"));
  find = makeAction(this, QStringLiteral("&Find Layer…"), QKeySequence::Find,
                    QStringLiteral("Find a layer by its id and show it"));
  collapse = makeAction(this, QStringLiteral("&Collapse Recurrent Nodes"),
                        QKeySequence(Qt::CTRL | Qt::Key_R),
                        QStringLiteral("Fold each strongly connected component into one box"));
  collapse->setCheckable(true);
  minimap = makeAction(this, QStringLiteral("&Minimap"), QKeySequence(Qt::CTRL | Qt::Key_M),
                       QStringLiteral("The whole graph in the canvas' corner while it does not "
                                      "fit in the view"));
  minimap->setCheckable(true);
  minimap->setChecked(true);
  connect(minimap, &QAction::toggled, m_view, &GraphView::setMinimapShown);
  snapToGrid = makeAction(this, QStringLiteral("Snap to &Grid"), {},
                          QStringLiteral("Dragged boxes land on a 20-unit grid"));
  snapToGrid->setCheckable(true);
  snapToGrid->setChecked(m_scene->snapsToGrid());
  connect(snapToGrid, &QAction::toggled, m_scene, &GraphScene::setSnapToGrid);
  connect(cut, &QAction::triggered, this, [this] {
    copySelection();
    deleteSelection();
  });
  connect(copy, &QAction::triggered, this, &EditActions::copySelection);
  connect(paste, &QAction::triggered, this, &EditActions::pasteClipboard);
  connect(duplicate, &QAction::triggered, this, &EditActions::duplicateSelection);
  connect(remove, &QAction::triggered, this, &EditActions::deleteSelection);
  connect(selectAll, &QAction::triggered, this, [this] {
    for (QGraphicsItem* item : m_scene->items())
      if (item->isVisible() && (item->flags() & QGraphicsItem::ItemIsSelectable))
        item->setSelected(true);
  });
  connect(autoLayout, &QAction::triggered, this, &EditActions::applyAutoLayout);
  connect(frameSelection, &QAction::triggered, m_scene, [this] {
    if (!m_scene->frames()->frameSelection())
      QToolTip::showText(QCursor::pos(), QStringLiteral("Select the layers to frame first."));
  });
  m_scene->frames()->setCanvasActions({frameSelection, paste, selectAll, autoLayout});
  connect(zoomIn, &QAction::triggered, m_view, &GraphView::zoomIn);
  connect(zoomOut, &QAction::triggered, m_view, &GraphView::zoomOut);
  connect(resetZoom, &QAction::triggered, m_view, &GraphView::resetZoom);
  connect(fitToWindow, &QAction::triggered, m_view, &GraphView::fitToWindow);
  connect(collapse, &QAction::toggled, m_scene, [this](bool on) { m_scene->setCollapsed(on); });
  connect(m_scene, &GraphScene::collapsedChanged, collapse, &QAction::setChecked);
  for (QAction* action :
       {cut, copy, paste, duplicate, remove, selectAll, autoLayout, frameSelection, zoomIn, zoomOut,
        resetZoom, fitToWindow, find, collapse, minimap})
    showShortcutInToolTip(action);
  updateUndoActions();
  // Undo and redo work from every widget of the window: see eventFilter.
  qApp->installEventFilter(this);
}

void EditActions::updateUndoActions() {
  const QUndoStack* stack = m_document->undoStack();
  undo->setEnabled(stack->canUndo());
  redo->setEnabled(stack->canRedo());
  undo->setToolTip(stack->canUndo() ? QStringLiteral("Undo %1").arg(stack->undoText())
                                    : QStringLiteral("Nothing to undo"));
  redo->setToolTip(stack->canRedo() ? QStringLiteral("Redo %1").arg(stack->redoText())
                                    : QStringLiteral("Nothing to redo"));
  showShortcutInToolTip(undo);
  showShortcutInToolTip(redo);
}

bool EditActions::eventFilter(QObject* watched, QEvent* event) {
  // A text field takes Ctrl+Z for its own undo even when it has nothing to undo, and focus
  // stays in the Properties field after every edit. When the field has nothing of its own to
  // undo (or redo), the key goes to the document's stack instead.
  if (event->type() != QEvent::ShortcutOverride) return false;
  auto* widget = qobject_cast<QWidget*>(watched);
  if (!widget || !m_dialogParent || widget->window() != m_dialogParent->window()) return false;
  const auto* key = static_cast<QKeyEvent*>(event);
  const QKeySequence pressed(key->keyCombination());
  const bool isUndo = undo->shortcuts().contains(pressed);
  const bool isRedo = redo->shortcuts().contains(pressed);
  if (!isUndo && !isRedo) return false;
  auto* edit = qobject_cast<QLineEdit*>(widget);
  if (auto* spin = qobject_cast<QAbstractSpinBox*>(widget)) edit = spin->findChild<QLineEdit*>();
  if (!edit) return false;
  const bool ownHistory =
      !edit->isReadOnly() && (isUndo ? edit->isUndoAvailable() : edit->isRedoAvailable());
  return !ownHistory;  // swallowed, the override is not accepted: the window's shortcut runs
}

void EditActions::offerLayerForWire(const std::string& layerId, bool fromOutput, QPointF scenePos) {
  QMenu menu(m_dialogParent);
  menu.addSection(
      fromOutput ? QStringLiteral("New layer fed by %1").arg(QString::fromStdString(layerId))
                 : QStringLiteral("New layer feeding %1").arg(QString::fromStdString(layerId)));
  struct Entry {
    const char* key;
    const char* text;
  };
  for (const Entry& e :
       {Entry{"additive", "Additive layer  Σ"}, Entry{"multiplicative", "Multiplicative layer  ⊙"},
        Entry{"output", "Output layer (softmax)"}, Entry{"input", "Input layer"}}) {
    const QString key = QString::fromLatin1(e.key);
    // An input layer takes no connection in; an output layer is an end, fed, not feeding.
    if ((key == QLatin1String("input") && fromOutput) ||
        (key == QLatin1String("output") && !fromOutput))
      continue;
    connect(menu.addAction(QString::fromUtf8(e.text)), &QAction::triggered, this,
            [=, this] { addConnectedLayer(key, layerId, fromOutput, scenePos); });
  }
  menu.exec(QCursor::pos());
}

void EditActions::addConnectedLayer(const QString& key, const std::string& layerId, bool fromOutput,
                                    QPointF scenePos) {
  if (m_document->layerIndex(layerId) < 0) return;
  const LayerKind kind = key == QLatin1String("input")            ? LayerKind::Input
                         : key == QLatin1String("multiplicative") ? LayerKind::Multiplicative
                                                                  : LayerKind::Additive;
  const Layer layer = makeLayer(*m_document, kind, key == QLatin1String("output"));
  QUndoStack* stack = m_document->undoStack();
  stack->beginMacro(QStringLiteral("Add %1 connected to %2")
                        .arg(QString::fromStdString(layer.id), QString::fromStdString(layerId)));
  stack->push(new AddLayerCommand(m_document, layer,
                                  freeSpotForWire(*m_document, scenePos, layerId, fromOutput)));
  const std::string& from = fromOutput ? layerId : layer.id;
  const std::string& to = fromOutput ? layer.id : layerId;
  stack->push(new AddConnectionCommand(m_document, makeConnection(*m_document, from, to)));
  stack->endMacro();
  selectLastLayers(1);
  m_view->revealClearOfMinimap(m_scene->layerBox(layer.id));
}

void EditActions::addPaletteEntry(const QString& key, std::optional<QPointF> scenePos) {
  if (const std::optional<CellTemplate> chosenTemplate = templateFromKey(key)) {
    const CellTemplate cell = *chosenTemplate;
    QDialog dialog(m_dialogParent);
    const QString title = QStringLiteral("Insert %1").arg(templateName(cell));
    dialog.setWindowTitle(title);
    // Wide enough that the window manager need not cut the title (its buttons take room too).
    const QFontMetrics titleFont(QApplication::font("QMdiSubWindowTitleBar"));
    dialog.setMinimumWidth(std::max(380, titleFont.horizontalAdvance(title) + 200));
    auto* layout = new QFormLayout(&dialog);
    QString cellName = templateWithArticle(cell);
    cellName[0] = cellName[0].toUpper();
    QString whatText = QStringLiteral(
                           "%1 of new layers, fed by a layer of the graph; "
                           "connect its last layer onward.")
                           .arg(cellName);
    if (cell == CellTemplate::FourDirectionLeakyLp)
      whatText = QStringLiteral(
                     "%1: four Leaky LP cells, one scanning from each corner, fed by "
                     "a layer of the graph; connect their outputs (the four h layers) "
                     "onward.")
                     .arg(cellName);
    if (isTwoDTemplate(cell) && m_document->graph().dimensions != 2)
      whatText += QStringLiteral(" The graph becomes 2-D.");
    auto* what = new QLabel(whatText, &dialog);
    what->setWordWrap(true);
    layout->addRow(what);
    // The feeding layer: the one selected, else the first input layer.
    auto* input = new QComboBox(&dialog);
    const auto selected = m_scene->selectedLayerIds();
    int chosen = -1;
    for (const Layer& layer : m_document->graph().layers) {
      input->addItem(QString::fromStdString(layer.id));
      if (selected.size() == 1 && selected.count(layer.id)) chosen = input->count() - 1;
      if (layer.isInput() && chosen < 0) chosen = input->count() - 1;
    }
    input->setCurrentIndex(std::max(chosen, 0));
    auto* size = new QSpinBox(&dialog);
    size->setRange(1, 1 << 20);
    size->setValue(templateDefaultSize(cell));
    size->setObjectName(QStringLiteral("templateUnits"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    layout->addRow(QStringLiteral("wired to layer"), input);
    layout->addRow(QStringLiteral("units"), size);
    layout->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (input->count() == 0 || dialog.exec() != QDialog::Accepted) return;
    insertTemplate(cell, input->currentText().toStdString(), size->value(), scenePos);
    return;
  }
  const LayerKind kind = key == QLatin1String("input")            ? LayerKind::Input
                         : key == QLatin1String("multiplicative") ? LayerKind::Multiplicative
                                                                  : LayerKind::Additive;
  const Layer layer = makeLayer(*m_document, kind, key == QLatin1String("output"));
  const QPointF wanted = scenePos ? *scenePos : m_view->visibleCentre();
  m_document->undoStack()->push(
      new AddLayerCommand(m_document, layer, freeSpotNear(*m_document, wanted)));
  selectLastLayers(1);
}

bool EditActions::insertTemplate(CellTemplate cell, const std::string& inputId, int size,
                                 std::optional<QPointF> origin, std::vector<std::string>* outputs) {
  if (m_document->layerIndex(inputId) < 0) return false;
  // By default beside the layer that feeds it: the cell reads left to right from there.
  const QPointF start = origin ? *origin : m_document->position(inputId) + kBesideInput;
  GraphFragment fragment = makeCellTemplate(*m_document, cell, inputId, size, start, outputs);
  moveToFreeSpace(*m_document, fragment);
  const int count = static_cast<int>(fragment.layers.size());
  const QString text = QStringLiteral("Insert %1").arg(templateName(cell));
  QUndoStack* stack = m_document->undoStack();
  // A 2-D cell makes the graph 2-D, in the same undo step.
  const bool makeTwoD = isTwoDTemplate(cell) && m_document->graph().dimensions != 2;
  if (makeTwoD) {
    stack->beginMacro(text);
    stack->push(new SetDimensionsCommand(m_document, 2));
  }
  stack->push(new InsertFragmentCommand(m_document, std::move(fragment), text));
  if (makeTwoD) stack->endMacro();
  selectLastLayers(count);
  return true;
}

bool EditActions::newFromTemplate(CellTemplate cell) {
  if (!m_document->graph().layers.empty()) return false;
  QUndoStack* stack = m_document->undoStack();
  stack->beginMacro(QStringLiteral("New from %1").arg(templateName(cell)));
  // A 2-D cell reads a grey image (1 channel) and ends, as the word recogniser, in a ctc layer
  // over the row sums of its output states; a 1-D cell reads 8 features into a softmax of 8.
  const bool twoD = isTwoDTemplate(cell);
  Layer input = makeLayer(*m_document, LayerKind::Input);
  input.size = twoD ? 1 : 8;
  stack->push(new AddLayerCommand(m_document, input, QPointF(0, 0)));
  std::vector<std::string> cellOutputs;
  const std::string inputId = input.id;
  insertTemplate(cell, inputId, templateDefaultSize(cell), std::nullopt, &cellOutputs);
  Layer output = makeLayer(*m_document, LayerKind::Additive, true);
  output.size = twoD ? 5 : 8;
  if (twoD) output.loss = LossKind::Ctc;
  QPointF rightmost = m_document->position(cellOutputs.front());
  for (const std::string& id : cellOutputs)
    if (m_document->position(id).x() > rightmost.x()) rightmost = m_document->position(id);
  stack->push(
      new AddLayerCommand(m_document, output, freeSpotNear(*m_document, rightmost + kBesideInput)));
  for (const std::string& id : cellOutputs) {
    Connection c = makeConnection(*m_document, id, output.id);
    if (twoD) c.reduce = ReduceAxis::Y;
    stack->push(new AddConnectionCommand(m_document, c));
  }
  stack->endMacro();
  m_scene->selectItems({}, {});
  m_view->fitToWindow();
  return true;
}

void EditActions::selectLastLayers(int count) {
  const Graph& graph = m_document->graph();
  const int total = static_cast<int>(graph.layers.size());
  std::vector<int> layers;
  QRectF area;
  for (int i = std::max(0, total - count); i < total; ++i) {
    layers.push_back(i);
    area |= m_scene->layerBox(graph.layers[i].id);
  }
  m_scene->selectItems(layers, {});
  // What was just added is in view (a template may land beside the visible part).
  m_view->ensureVisible(area, 30, 30);
}

void EditActions::deleteSelection() {
  auto* command = new RemoveItemsCommand(m_document, m_scene->selectedLayerIds(),
                                         m_scene->selectedConnections());
  if (command->isEmpty()) {
    delete command;
    return;
  }
  m_document->undoStack()->push(command);
}

void EditActions::copySelection() {
  const auto layers = m_scene->selectedLayerIds();
  if (layers.empty()) return;
  QApplication::clipboard()->setText(
      QString::fromStdString(fragmentToText(copyFragment(*m_document, layers))));
  m_pasteCount = 0;
}

void EditActions::pasteClipboard() {
  const auto fragment = fragmentFromText(QApplication::clipboard()->text().toStdString());
  if (!fragment || fragment->layers.empty()) return;
  const double shift = 40.0 * ++m_pasteCount;
  GraphFragment prepared = prepareForInsert(*m_document, *fragment, QPointF(shift, shift));
  moveToFreeSpace(*m_document, prepared);
  const int count = static_cast<int>(prepared.layers.size());
  m_document->undoStack()->push(
      new InsertFragmentCommand(m_document, std::move(prepared), QStringLiteral("Paste")));
  selectLastLayers(count);
}

void EditActions::duplicateSelection() {
  const auto layers = m_scene->selectedLayerIds();
  if (layers.empty()) return;
  GraphFragment prepared =
      prepareForInsert(*m_document, copyFragment(*m_document, layers), QPointF(40, 40));
  moveToFreeSpace(*m_document, prepared);
  const int count = static_cast<int>(prepared.layers.size());
  m_document->undoStack()->push(
      new InsertFragmentCommand(m_document, std::move(prepared), QStringLiteral("Duplicate")));
  selectLastLayers(count);
}

void EditActions::applyAutoLayout() {
  m_document->undoStack()->push(new MoveLayersCommand(m_document, m_document->positions(),
                                                      rnnwb::ui::autoLayout(m_document->graph()),
                                                      -1, QStringLiteral("Auto-layout")));
  m_view->fitToWindow();
}

}  // namespace rnnwb::ui

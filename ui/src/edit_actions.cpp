#include "rnnwb/ui/edit_actions.hpp"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGraphicsItem>
#include <QSpinBox>
#include <QUndoStack>

#include "rnnwb/ui/auto_layout.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/graph_view.hpp"

namespace rnnwb::ui {
namespace {

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
}

void EditActions::createActions() {
  undo = m_document->undoStack()->createUndoAction(this, QStringLiteral("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  redo = m_document->undoStack()->createRedoAction(this, QStringLiteral("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  cut = makeAction(this, QStringLiteral("Cu&t"), QKeySequence::Cut,
                   QStringLiteral("Cut the selected layers"));
  copy = makeAction(this, QStringLiteral("&Copy"), QKeySequence::Copy,
                    QStringLiteral("Copy the selected layers and the connections among them"));
  paste = makeAction(this, QStringLiteral("&Paste"), QKeySequence::Paste,
                     QStringLiteral("Paste layers"));
  remove = makeAction(this, QStringLiteral("&Delete"), QKeySequence::Delete,
                      QStringLiteral("Delete the selection (and the connections of deleted "
                                     "layers)"));
  selectAll = makeAction(this, QStringLiteral("Select &All"), QKeySequence::SelectAll, {});
  autoLayout = makeAction(this, QStringLiteral("Auto-&layout"), QKeySequence(Qt::CTRL | Qt::Key_L),
                          QStringLiteral("Lay the graph out left to right in schedule order"));
  zoomIn = makeAction(this, QStringLiteral("Zoom &In"), QKeySequence::ZoomIn, {});
  zoomOut = makeAction(this, QStringLiteral("Zoom &Out"), QKeySequence::ZoomOut, {});
  resetZoom =
      makeAction(this, QStringLiteral("Actual &Size"), QKeySequence(Qt::CTRL | Qt::Key_0), {});
  fitToWindow =
      makeAction(this, QStringLiteral("&Fit to Window"), QKeySequence(Qt::CTRL | Qt::Key_F),
                 QStringLiteral("Show the whole graph"));
  collapse = makeAction(this, QStringLiteral("&Collapse Recurrent Nodes"),
                        QKeySequence(Qt::CTRL | Qt::Key_R),
                        QStringLiteral("Fold each strongly connected component into one box"));
  collapse->setCheckable(true);
  connect(cut, &QAction::triggered, this, [this] {
    copySelection();
    deleteSelection();
  });
  connect(copy, &QAction::triggered, this, &EditActions::copySelection);
  connect(paste, &QAction::triggered, this, &EditActions::pasteClipboard);
  connect(remove, &QAction::triggered, this, &EditActions::deleteSelection);
  connect(selectAll, &QAction::triggered, this, [this] {
    for (QGraphicsItem* item : m_scene->items())
      if (item->isVisible() && (item->flags() & QGraphicsItem::ItemIsSelectable))
        item->setSelected(true);
  });
  connect(autoLayout, &QAction::triggered, this, &EditActions::applyAutoLayout);
  connect(zoomIn, &QAction::triggered, m_view, &GraphView::zoomIn);
  connect(zoomOut, &QAction::triggered, m_view, &GraphView::zoomOut);
  connect(resetZoom, &QAction::triggered, m_view, &GraphView::resetZoom);
  connect(fitToWindow, &QAction::triggered, m_view, &GraphView::fitToWindow);
  connect(collapse, &QAction::toggled, m_scene, [this](bool on) { m_scene->setCollapsed(on); });
  connect(m_scene, &GraphScene::collapsedChanged, collapse, &QAction::setChecked);
}

void EditActions::addPaletteEntry(const QString& key, QPointF scenePos) {
  if (key == QLatin1String("lstm") || key == QLatin1String("gru") ||
      key == QLatin1String("elman")) {
    const CellTemplate cell = key == QLatin1String("lstm")  ? CellTemplate::Lstm
                              : key == QLatin1String("gru") ? CellTemplate::Gru
                                                            : CellTemplate::Elman;
    QDialog dialog(m_dialogParent);
    dialog.setWindowTitle(QStringLiteral("Insert %1").arg(templateName(cell)));
    auto* layout = new QFormLayout(&dialog);
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
    size->setValue(32);
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
  m_document->undoStack()->push(new AddLayerCommand(m_document, layer, scenePos));
  selectLastLayers(1);
}

bool EditActions::insertTemplate(CellTemplate cell, const std::string& inputId, int size,
                                 QPointF origin) {
  if (m_document->layerIndex(inputId) < 0) return false;
  GraphFragment fragment = makeCellTemplate(*m_document, cell, inputId, size, origin);
  const int count = static_cast<int>(fragment.layers.size());
  m_document->undoStack()->push(new InsertFragmentCommand(
      m_document, std::move(fragment), QStringLiteral("Insert %1").arg(templateName(cell))));
  selectLastLayers(count);
  return true;
}

void EditActions::selectLastLayers(int count) {
  const int total = static_cast<int>(m_document->graph().layers.size());
  std::vector<int> layers;
  for (int i = std::max(0, total - count); i < total; ++i) layers.push_back(i);
  m_scene->selectItems(layers, {});
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
  const int count = static_cast<int>(prepared.layers.size());
  m_document->undoStack()->push(
      new InsertFragmentCommand(m_document, std::move(prepared), QStringLiteral("Paste")));
  selectLastLayers(count);
}

void EditActions::applyAutoLayout() {
  m_document->undoStack()->push(new MoveLayersCommand(m_document, m_document->positions(),
                                                      rnnwb::ui::autoLayout(m_document->graph()),
                                                      -1, QStringLiteral("Auto-layout")));
  m_view->fitToWindow();
}

}  // namespace rnnwb::ui

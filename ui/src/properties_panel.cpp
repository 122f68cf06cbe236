#include "rnnwb/ui/properties_panel.hpp"

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QStackedWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include "parameter_count.hpp"
#include "properties_fields.hpp"
#include "rnnwb/ui/graph_commands.hpp"
#include "rnnwb/ui/graph_scene.hpp"

namespace rnnwb::ui {

using namespace properties;

PropertiesPanel::PropertiesPanel(GraphDocument* document, GraphScene* scene, QWidget* parent)
    : QWidget(parent), m_document(document), m_scene(scene), m_stack(new QStackedWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  m_stack->addWidget(createGraphForm());
  m_stack->addWidget(createLayerForm());
  m_stack->addWidget(createConnectionForm());
  layout->addWidget(m_stack);
  layout->addStretch();
  // A field's least width would be that of its widest content (a size's range of +-2^30,
  // "cross_entropy"): the forms then outgrew the 190 px dock, which scrolled sideways. The
  // fields grow with the dock; their content scrolls inside them when it is narrow.
  for (QWidget* field : m_stack->findChildren<QWidget*>())
    if (qobject_cast<QLineEdit*>(field) || qobject_cast<QAbstractSpinBox*>(field) ||
        qobject_cast<QComboBox*>(field))
      field->setMinimumWidth(56);
  connect(scene, &GraphScene::selectedIdsChanged, this, &PropertiesPanel::refresh);
  connect(document, &GraphDocument::structureChanged, this, &PropertiesPanel::refresh);
  refresh();
}

PropertiesPanel::~PropertiesPanel() {
  // ~QWidget hides the fields, and a field losing focus emits editingFinished: its commit slot
  // would run on a panel already destroyed down to QWidget (UBSan, in the ASan suite's
  // tst_propertiespanel). A panel being destroyed commits nothing.
  for (QObject* child : findChildren<QObject*>()) child->disconnect(this);
}

QWidget* PropertiesPanel::createLayerForm() {
  auto* form = new QWidget(this);
  auto* layout = new QFormLayout(form);
  m_layerId = new QLineEdit(form);
  m_layerId->setObjectName(QStringLiteral("layerId"));
  m_kind = comboOf(form, {"input", "additive", "multiplicative"});
  m_kind->setObjectName(QStringLiteral("layerKind"));
  m_size = new QSpinBox(form);
  m_size->setObjectName(QStringLiteral("layerSize"));
  m_size->setRange(-(1 << 30), 1 << 30);
  m_activation = comboOf(form, {"identity", "sigmoid", "tanh", "relu", "softmax"});
  m_activation->setObjectName(QStringLiteral("layerActivation"));
  m_bias = new QCheckBox(QStringLiteral("bias"), form);
  m_bias->setObjectName(QStringLiteral("layerBias"));
  m_loss = comboOf(form, {"none", "cross_entropy", "mse", "ctc"});
  m_loss->setObjectName(QStringLiteral("layerLoss"));
  layout->addRow(QStringLiteral("id"), m_layerId);
  m_layerMessage = messageRow(form, layout, QStringLiteral("layerMessage"));
  layout->addRow(QStringLiteral("kind"), m_kind);
  layout->addRow(QStringLiteral("size"), m_size);
  layout->addRow(QStringLiteral("activation"), m_activation);
  layout->addRow(QString(), m_bias);
  layout->addRow(QStringLiteral("loss"), m_loss);
  connect(m_layerId, &QLineEdit::editingFinished, this, &PropertiesPanel::commitLayer);
  connect(m_kind, &QComboBox::activated, this, &PropertiesPanel::commitLayer);
  connect(m_size, &QSpinBox::editingFinished, this, &PropertiesPanel::commitLayer);
  connect(m_activation, &QComboBox::activated, this, &PropertiesPanel::commitLayer);
  connect(m_bias, &QCheckBox::clicked, this, &PropertiesPanel::commitLayer);
  connect(m_loss, &QComboBox::activated, this, &PropertiesPanel::commitLayer);
  return form;
}

QWidget* PropertiesPanel::createGraphForm() {
  auto* form = new QWidget(this);
  auto* layout = new QFormLayout(form);
  m_name = new QLineEdit(form);
  m_name->setObjectName(QStringLiteral("graphName"));
  m_graphSummary = new QLabel(form);
  m_graphSummary->setWordWrap(true);
  m_dimensions = comboOf(form, {"1: sequences", "2: images"});
  m_dimensions->setObjectName(QStringLiteral("graphDimensions"));
  m_dimensions->setToolTip(QStringLiteral(
      "1: positions are frames t. 2: positions are pixels (x, y); delays are [dx, dy] "
      "(graph format version 2)"));
  layout->addRow(QStringLiteral("graph name"), m_name);
  layout->addRow(QStringLiteral("dimensions"), m_dimensions);
  layout->addRow(m_graphSummary);
  connect(m_name, &QLineEdit::editingFinished, this, &PropertiesPanel::commitGraph);
  connect(m_dimensions, &QComboBox::activated, this, &PropertiesPanel::commitGraph);
  return form;
}

void PropertiesPanel::refresh() {
  m_refreshing = true;
  m_layerMessage->hide();
  m_connectionMessage->hide();
  const Graph& graph = m_document->graph();
  const auto layers = m_scene->selectedLayerIds();
  const auto connections = m_scene->selectedConnections();
  m_layer =
      layers.size() == 1 && connections.empty() ? m_document->layerIndex(*layers.begin()) : -1;
  m_connection = layers.empty() && connections.size() == 1 ? *connections.begin() : -1;
  if (m_layer >= 0) {
    const Layer& l = graph.layers[m_layer];
    m_layerId->setText(q(l.id));
    m_kind->setCurrentText(q(toString(l.kind)));
    m_size->setValue(l.size);
    m_activation->setCurrentText(q(toString(l.activation)));
    m_bias->setChecked(l.bias);
    m_loss->setCurrentText(q(toString(l.loss)));
    m_stack->setCurrentIndex(1);
  } else if (m_connection >= 0 && m_connection < int(graph.connections.size())) {
    refreshConnection(graph.connections[m_connection]);
    m_stack->setCurrentIndex(2);
  } else {
    m_connection = -1;
    m_name->setText(q(graph.name));
    m_dimensions->setCurrentIndex(graph.dimensions == 2 ? 1 : 0);
    std::int64_t parameters = 0;
    for (const Layer& layer : graph.layers) parameters += layer.bias ? std::max(layer.size, 0) : 0;
    for (int i = 0; i < int(graph.connections.size()); ++i)
      parameters += connectionParameters(graph, i).value_or(0);
    m_graphSummary->setText(QStringLiteral("%1 layers, %2 connections, %3 parameters.\nSelect "
                                           "one layer or connection to edit it.")
                                .arg(graph.layers.size())
                                .arg(graph.connections.size())
                                .arg(groupedCount(parameters)));
    m_stack->setCurrentIndex(0);
  }
  forgetTyping();
  m_refreshing = false;
}

void PropertiesPanel::forgetTyping() {
  // What was typed is committed (or refused and reset): a field's own Ctrl+Z must not bring
  // it back, so that the key reaches the document's undo (EditActions::eventFilter).
  for (QLineEdit* edit : findChildren<QLineEdit*>()) {
    if (edit->isUndoAvailable() || edit->isRedoAvailable()) edit->setText(edit->text());
    // A narrow dock shows the start of a long id or name, not its end.
    if (!edit->hasFocus()) edit->setCursorPosition(0);
  }
}

bool PropertiesPanel::acceptId(QLineEdit* edit, const std::string& current, bool layer) {
  const std::string id = edit->text().trimmed().toStdString();
  if (id == current) return true;
  bool taken = false;
  if (layer)
    taken = m_document->layerIndex(id) >= 0;
  else
    for (const Connection& c : m_document->graph().connections) taken = taken || c.id == id;
  const bool valid = layer ? isValidLayerId(id) : isValidConnectionId(id);
  if (valid && !taken) return true;
  QLabel* message = layer ? m_layerMessage : m_connectionMessage;
  message->setText(id.empty() ? QStringLiteral("An id cannot be empty; kept '%1'.").arg(q(current))
                   : taken    ? QStringLiteral("The id '%1' is taken.").arg(edit->text())
                   : layer    ? QStringLiteral("A layer id holds only letters, digits, _ and -.")
                              : QStringLiteral("A connection id holds no '.' and no spaces."));
  message->show();
  edit->setText(q(current));
  return false;
}

void PropertiesPanel::commitLayer() {
  if (m_refreshing || m_layer < 0) return;
  m_layerMessage->hide();
  const Layer& before = m_document->graph().layers[m_layer];
  if (!acceptId(m_layerId, before.id, true)) return;
  Layer after = before;
  after.id = m_layerId->text().trimmed().toStdString();
  after.kind = *layerKindFromString(m_kind->currentText().toStdString());
  after.size = m_size->value();
  after.activation = *activationFromString(m_activation->currentText().toStdString());
  after.bias = m_bias->isChecked();
  const std::string loss = m_loss->currentText().toStdString();
  after.loss = loss == "none" ? LossKind::None : *lossFromString(loss);
  if (after.kind != before.kind) {
    // A bias left at its default follows the kind; an input layer has no activation or loss.
    if (before.bias == defaultBias(before.kind)) after.bias = defaultBias(after.kind);
    if (after.isInput()) {
      after.activation = Activation::Identity;
      after.loss = LossKind::None;
    }
  }
  if (after == before) return forgetTyping();
  m_document->undoStack()->push(new EditLayerCommand(m_document, m_layer, after));
}

void PropertiesPanel::commitGraph() {
  if (m_refreshing) return;
  const int dimensions = m_dimensions->currentIndex() + 1;
  if (dimensions != m_document->graph().dimensions)
    return m_document->undoStack()->push(new SetDimensionsCommand(m_document, dimensions));
  const std::string name = m_name->text().toStdString();
  if (name == m_document->graph().name) return forgetTyping();
  m_document->undoStack()->push(new RenameGraphCommand(m_document, name));
}

}  // namespace rnnwb::ui

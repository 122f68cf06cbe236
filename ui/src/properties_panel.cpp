#include "rnnwb/ui/properties_panel.hpp"

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

#include "rnnwb/ui/graph_commands.hpp"
#include "rnnwb/ui/graph_scene.hpp"

namespace rnnwb::ui {
namespace {

QString q(std::string_view text) { return QString::fromUtf8(text.data(), qsizetype(text.size())); }

QComboBox* comboOf(QWidget* parent, const QStringList& items) {
  auto* combo = new QComboBox(parent);
  combo->addItems(items);
  return combo;
}

}  // namespace

PropertiesPanel::PropertiesPanel(GraphDocument* document, GraphScene* scene, QWidget* parent)
    : QWidget(parent),
      m_document(document),
      m_scene(scene),
      m_stack(new QStackedWidget(this)),
      m_message(new QLabel(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  m_stack->addWidget(createGraphForm());
  m_stack->addWidget(createLayerForm());
  m_stack->addWidget(createConnectionForm());
  layout->addWidget(m_stack);
  m_message->setObjectName(QStringLiteral("message"));
  m_message->setWordWrap(true);
  m_message->setStyleSheet(QStringLiteral("color: #b00020"));
  layout->addWidget(m_message);
  layout->addStretch();
  connect(scene, &GraphScene::selectedIdsChanged, this, &PropertiesPanel::refresh);
  connect(document, &GraphDocument::structureChanged, this, &PropertiesPanel::refresh);
  refresh();
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
  m_size->setRange(1, 1 << 20);
  m_activation = comboOf(form, {"identity", "sigmoid", "tanh", "relu", "softmax"});
  m_activation->setObjectName(QStringLiteral("layerActivation"));
  m_bias = new QCheckBox(QStringLiteral("bias"), form);
  m_bias->setObjectName(QStringLiteral("layerBias"));
  m_loss = comboOf(form, {"none", "cross_entropy", "mse"});
  m_loss->setObjectName(QStringLiteral("layerLoss"));
  layout->addRow(QStringLiteral("id"), m_layerId);
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

QWidget* PropertiesPanel::createConnectionForm() {
  auto* form = new QWidget(this);
  auto* layout = new QFormLayout(form);
  m_connectionId = new QLineEdit(form);
  m_connectionId->setObjectName(QStringLiteral("connectionId"));
  m_ends = new QLabel(form);
  m_type = comboOf(form, {"full", "diagonal", "identity"});
  m_type->setObjectName(QStringLiteral("connectionType"));
  m_delay = new QSpinBox(form);
  m_delay->setObjectName(QStringLiteral("connectionDelay"));
  m_delay->setRange(0, 100000);
  m_density = new QDoubleSpinBox(form);
  m_density->setObjectName(QStringLiteral("connectionDensity"));
  m_density->setDecimals(4);
  m_density->setRange(0.0001, 1.0);
  m_density->setSingleStep(0.05);
  m_seed = new QLineEdit(form);
  m_seed->setObjectName(QStringLiteral("connectionSeed"));
  m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-9]{1,19}"), m_seed));
  layout->addRow(QStringLiteral("id"), m_connectionId);
  layout->addRow(QStringLiteral("from → to"), m_ends);
  layout->addRow(QStringLiteral("type"), m_type);
  layout->addRow(QStringLiteral("delay"), m_delay);
  layout->addRow(QStringLiteral("density"), m_density);
  layout->addRow(QStringLiteral("seed"), m_seed);
  connect(m_connectionId, &QLineEdit::editingFinished, this, &PropertiesPanel::commitConnection);
  connect(m_type, &QComboBox::activated, this, &PropertiesPanel::commitConnection);
  connect(m_delay, &QSpinBox::editingFinished, this, &PropertiesPanel::commitConnection);
  connect(m_density, &QDoubleSpinBox::editingFinished, this, &PropertiesPanel::commitConnection);
  connect(m_seed, &QLineEdit::editingFinished, this, &PropertiesPanel::commitConnection);
  return form;
}

QWidget* PropertiesPanel::createGraphForm() {
  auto* form = new QWidget(this);
  auto* layout = new QFormLayout(form);
  m_name = new QLineEdit(form);
  m_name->setObjectName(QStringLiteral("graphName"));
  m_graphSummary = new QLabel(form);
  m_graphSummary->setWordWrap(true);
  layout->addRow(QStringLiteral("graph name"), m_name);
  layout->addRow(m_graphSummary);
  connect(m_name, &QLineEdit::editingFinished, this, &PropertiesPanel::commitGraph);
  return form;
}

void PropertiesPanel::refresh() {
  m_refreshing = true;
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
    const Connection& c = graph.connections[m_connection];
    m_connectionId->setText(q(c.id));
    m_ends->setText(q(c.from) + QStringLiteral(" → ") + q(c.to));
    m_type->setCurrentText(q(toString(c.type)));
    m_delay->setValue(c.delay);
    m_density->setValue(c.density);
    m_density->setEnabled(c.type == ConnectionType::Full);
    m_seed->setText(QString::number(c.seed));
    m_seed->setEnabled(c.type == ConnectionType::Full);
    m_stack->setCurrentIndex(2);
  } else {
    m_connection = -1;
    m_name->setText(q(graph.name));
    m_graphSummary->setText(
        QStringLiteral("%1 layers, %2 connections.\nSelect one layer or connection to edit it.")
            .arg(graph.layers.size())
            .arg(graph.connections.size()));
    m_stack->setCurrentIndex(0);
  }
  m_refreshing = false;
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
  m_message->setText(taken   ? QStringLiteral("The id '%1' is taken.").arg(edit->text())
                     : layer ? QStringLiteral("A layer id holds only letters, digits, _ and -.")
                             : QStringLiteral("A connection id holds no '.' and no spaces."));
  edit->setText(q(current));
  return false;
}

void PropertiesPanel::commitLayer() {
  if (m_refreshing || m_layer < 0) return;
  m_message->clear();
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
  if (after == before) return;
  m_document->undoStack()->push(new EditLayerCommand(m_document, m_layer, after));
}

void PropertiesPanel::commitConnection() {
  if (m_refreshing || m_connection < 0) return;
  m_message->clear();
  const Connection& before = m_document->graph().connections[m_connection];
  if (!acceptId(m_connectionId, before.id, false)) return;
  Connection after = before;
  after.id = m_connectionId->text().trimmed().toStdString();
  after.type = *connectionTypeFromString(m_type->currentText().toStdString());
  after.delay = m_delay->value();
  after.density = after.type == ConnectionType::Full ? m_density->value() : 1.0;
  after.seed = m_seed->text().toULongLong();
  if (after == before) return;
  m_document->undoStack()->push(new EditConnectionCommand(m_document, m_connection, after));
}

void PropertiesPanel::commitGraph() {
  if (m_refreshing) return;
  const std::string name = m_name->text().toStdString();
  if (name == m_document->graph().name) return;
  m_document->undoStack()->push(new RenameGraphCommand(m_document, name));
}

}  // namespace rnnwb::ui

// The properties panel's connection form: version 1's fields and version 2's (a 2-D delay's dy,
// block, reduce, trainable, init). Rows a connection cannot use are hidden rather than disabled,
// so that a 1-D graph's form reads as before: dy and reduce show in a 2-D graph (or where the
// connection holds one already), block where the type is block, trainable and init where the
// connection has a weight.
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QDoubleValidator>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QUndoStack>

#include "properties_fields.hpp"
#include "rnnwb/ui/graph_commands.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/properties_panel.hpp"

namespace rnnwb::ui {

using namespace properties;

namespace {

// Wide ranges: a value the file holds is shown as it is, even one the Problems panel refuses
// (a delay of -2 in version 1, a block of 0), never clamped.
QSpinBox* wideSpinBox(QWidget* parent, const QString& name) {
  auto* box = new QSpinBox(parent);
  box->setObjectName(name);
  box->setRange(-1000000, 1000000);
  return box;
}

}  // namespace

QWidget* PropertiesPanel::createConnectionForm() {
  auto* form = new QWidget(this);
  auto* layout = new QFormLayout(form);
  m_connectionLayout = layout;
  m_connectionId = new QLineEdit(form);
  m_connectionId->setObjectName(QStringLiteral("connectionId"));
  // Editable, so that a connection naming a missing layer can be pointed at one that exists.
  m_from = new QComboBox(form);
  m_from->setObjectName(QStringLiteral("connectionFrom"));
  m_from->setEditable(true);
  m_to = new QComboBox(form);
  m_to->setObjectName(QStringLiteral("connectionTo"));
  m_to->setEditable(true);
  m_from->setInsertPolicy(QComboBox::NoInsert);
  m_to->setInsertPolicy(QComboBox::NoInsert);
  m_type = comboOf(form, {"full", "diagonal", "identity", "complement", "block"});
  m_type->setObjectName(QStringLiteral("connectionType"));
  m_type->setToolTip(QStringLiteral(
      "complement: 1 \u2212 source, no weight (version 2)\nblock: a Conv2d with kernel = stride "
      "= [bx, by] over the source's grid (version 2)"));
  m_delay = wideSpinBox(form, QStringLiteral("connectionDelay"));
  m_delayY = wideSpinBox(form, QStringLiteral("connectionDelayY"));
  m_delay->setToolTip(QStringLiteral("dx: reads the source x \u2212 dx (any sign in version 2)"));
  m_delayY->setToolTip(QStringLiteral("dy: reads the source y \u2212 dy"));
  m_blockX = wideSpinBox(form, QStringLiteral("connectionBlockX"));
  m_blockY = wideSpinBox(form, QStringLiteral("connectionBlockY"));
  m_reduce = comboOf(form, {"none", "y"});
  m_reduce->setObjectName(QStringLiteral("connectionReduce"));
  m_reduce->setToolTip(QStringLiteral("y: sums a 2-D source over its rows into a 1-D layer"));
  m_trainable = new QCheckBox(QStringLiteral("trainable"), form);
  m_trainable->setObjectName(QStringLiteral("connectionTrainable"));
  m_init = new QLineEdit(form);
  m_init->setObjectName(QStringLiteral("connectionInit"));
  m_init->setPlaceholderText(QStringLiteral("drawn at random"));
  m_init->setValidator(new QDoubleValidator(m_init));
  m_density = new QDoubleSpinBox(form);
  m_density->setObjectName(QStringLiteral("connectionDensity"));
  m_density->setDecimals(4);
  m_density->setRange(-1000.0, 1000.0);
  m_density->setSingleStep(0.05);
  m_seed = new QLineEdit(form);
  m_seed->setObjectName(QStringLiteral("connectionSeed"));
  m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-9]{1,19}"), m_seed));
  layout->addRow(QStringLiteral("id"), m_connectionId);
  m_connectionMessage = messageRow(form, layout, QStringLiteral("connectionMessage"));
  layout->addRow(QStringLiteral("from"), m_from);
  layout->addRow(QStringLiteral("to"), m_to);
  layout->addRow(QStringLiteral("type"), m_type);
  layout->addRow(QStringLiteral("delay"), m_delay);
  layout->addRow(QStringLiteral("delay dy"), m_delayY);
  // One row a component, as the delay's: two spin boxes side by side outgrow the 190 px dock.
  layout->addRow(QStringLiteral("block bx"), m_blockX);
  layout->addRow(QStringLiteral("block by"), m_blockY);
  layout->addRow(QStringLiteral("reduce"), m_reduce);
  layout->addRow(QString(), m_trainable);
  layout->addRow(QStringLiteral("init"), m_init);
  layout->addRow(QStringLiteral("density"), m_density);
  layout->addRow(QStringLiteral("seed"), m_seed);
  for (QLineEdit* edit : {m_connectionId, m_from->lineEdit(), m_to->lineEdit(), m_seed, m_init})
    connect(edit, &QLineEdit::editingFinished, this, &PropertiesPanel::commitConnection);
  for (QComboBox* combo : {m_from, m_to, m_type, m_reduce})
    connect(combo, &QComboBox::activated, this, &PropertiesPanel::commitConnection);
  for (QSpinBox* box : {m_delay, m_delayY, m_blockX, m_blockY})
    connect(box, &QSpinBox::editingFinished, this, &PropertiesPanel::commitConnection);
  connect(m_density, &QDoubleSpinBox::editingFinished, this, &PropertiesPanel::commitConnection);
  connect(m_trainable, &QCheckBox::clicked, this, &PropertiesPanel::commitConnection);
  return form;
}

void PropertiesPanel::refreshConnection(const Connection& c) {
  const Graph& graph = m_document->graph();
  m_connectionId->setText(q(c.id));
  for (QComboBox* end : {m_from, m_to}) {
    end->clear();
    for (const Layer& layer : graph.layers) end->addItem(q(layer.id));
  }
  m_from->setCurrentText(q(c.from));
  m_to->setCurrentText(q(c.to));
  m_type->setCurrentText(q(toString(c.type)));
  const bool twoD = graph.dimensions == 2 || c.delayY != 0 || c.reduce != ReduceAxis::None;
  m_delay->setValue(c.delay);
  m_delayY->setValue(c.delayY);
  if (auto* label = qobject_cast<QLabel*>(m_connectionLayout->labelForField(m_delay)))
    label->setText(twoD ? QStringLiteral("delay dx") : QStringLiteral("delay"));
  m_connectionLayout->setRowVisible(m_delayY, twoD);
  const bool block = c.type == ConnectionType::Block;
  // A connection turned into a block one starts from a 2 x 2 block, not from the 0 x 0 it held.
  m_blockX->setValue(block || c.block[0] != 0 ? c.block[0] : 2);
  m_blockY->setValue(block || c.block[1] != 0 ? c.block[1] : 2);
  m_connectionLayout->setRowVisible(m_blockX, block);
  m_connectionLayout->setRowVisible(m_blockY, block);
  m_reduce->setCurrentText(q(toString(c.reduce)));
  m_connectionLayout->setRowVisible(m_reduce, twoD);
  const bool weighted = c.hasWeight();
  m_trainable->setChecked(c.trainable);
  m_init->setText(c.init ? QString::number(*c.init, 'g', 17) : QString());
  m_connectionLayout->setRowVisible(m_trainable, weighted || !c.trainable);
  m_connectionLayout->setRowVisible(m_init, weighted || c.init);
  m_density->setValue(c.density);
  m_density->setEnabled(c.type == ConnectionType::Full);
  m_seed->setText(QString::number(c.seed));
  m_seed->setEnabled(c.type == ConnectionType::Full);
}

void PropertiesPanel::commitConnection() {
  if (m_refreshing || m_connection < 0) return;
  m_connectionMessage->hide();
  const Connection& before = m_document->graph().connections[m_connection];
  if (!acceptId(m_connectionId, before.id, false)) return;
  Connection after = before;
  after.id = m_connectionId->text().trimmed().toStdString();
  after.from = m_from->currentText().trimmed().toStdString();
  after.to = m_to->currentText().trimmed().toStdString();
  after.type = *connectionTypeFromString(m_type->currentText().toStdString());
  after.delay = m_delay->value();
  after.delayY = m_delayY->value();
  after.block = after.type == ConnectionType::Block
                    ? std::array<int, 2>{m_blockX->value(), m_blockY->value()}
                    : std::array<int, 2>{0, 0};
  after.reduce = m_reduce->currentText() == QLatin1String("y") ? ReduceAxis::Y : ReduceAxis::None;
  after.trainable = m_trainable->isChecked();
  bool parsed = false;
  const double init = QLocale().toDouble(m_init->text().trimmed(), &parsed);
  after.init = parsed ? std::optional<double>(init) : std::nullopt;
  after.density = after.type == ConnectionType::Full ? m_density->value() : 1.0;
  after.seed = m_seed->text().toULongLong();
  if (after == before) return forgetTyping();
  m_document->undoStack()->push(new EditConnectionCommand(m_document, m_connection, after));
}

}  // namespace rnnwb::ui

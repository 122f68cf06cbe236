#include "rnnwb/ui/train_form.hpp"

#include <limits>
#include <map>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include "rnnwb/core/train/learner.hpp"

namespace rnnwb::ui {

namespace {

using nlohmann::json;
using train::Setting;
using train::SettingType;

/// The group a setting shows in. Settings the groups do not name go to "Run", so a new row of
/// the spec always shows somewhere.
QString groupOf(const std::string& key) {
  if (key.rfind("task.", 0) == 0) return QStringLiteral("Task");
  if (key == "algo" || key == "streams" || key == "h" || key == "h_prime")
    return QStringLiteral("Gradients");
  if (key.rfind("optimizer.", 0) == 0 || key == "clip_norm" || key == "halve_lr_when_worse")
    return QStringLiteral("Optimizer");
  return QStringLiteral("Run");
}

/// "task.valid_fraction" -> "valid fraction".
QString labelOf(const Setting& s) {
  const auto dot = s.key.rfind('.');
  QString leaf = QString::fromStdString(dot == std::string::npos ? s.key : s.key.substr(dot + 1));
  return leaf.replace(QLatin1Char('_'), QLatin1Char(' '));
}

QString tipOf(const Setting& s) {
  QString tip = QString::fromStdString(s.help);
  if (!tip.isEmpty()) tip[0] = tip[0].toUpper();
  return tip;
}

constexpr std::int64_t kProposedSteps = 1000;

bool fitsSpinBox(const Setting& s) {
  return s.type == SettingType::Integer && s.min >= std::numeric_limits<int>::min() &&
         s.max <= std::numeric_limits<int>::max();
}

/// A value as the command line writes it: numbers in their shortest exact form.
QString textOf(const json& value) {
  if (value.is_string()) return QString::fromStdString(value.get<std::string>());
  if (value.is_number_float())
    return QLocale::c().toString(value.get<double>(), 'g', QLocale::FloatingPointShortest);
  return QString::fromStdString(value.dump());
}

}  // namespace

TrainForm::TrainForm(QWidget* parent) : QWidget(parent) {
  addFields();
  setConfig(train::TrainConfig{});
}

void TrainForm::addFields() {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  std::map<QString, QFormLayout*> groups;
  for (const QString& name : {QStringLiteral("Task"), QStringLiteral("Gradients"),
                              QStringLiteral("Optimizer"), QStringLiteral("Run")}) {
    auto* box = new QGroupBox(name);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setContentsMargins(6, 4, 6, 4);
    groups[name] = form;
    layout->addWidget(box);
  }
  for (const Setting& s : train::runSpec()) {
    if (s.key == "graph") continue;  // the document being edited
    QWidget* editor = createEditor(s);
    editor->setToolTip(tipOf(s));
    auto* row = new QWidget;
    auto* rowLayout = new QHBoxLayout(row);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    auto* label = new QLabel(labelOf(s));
    label->setMinimumWidth(110);
    label->setToolTip(QString::fromStdString(s.flag.empty() ? s.key : s.flag));
    rowLayout->addWidget(label);
    rowLayout->addWidget(editor, 1);
    groups[groupOf(s.key)]->addRow(row);
    m_fields.push_back({&s, editor, row});
  }
  m_runDir = new QLineEdit;
  m_runDir->setPlaceholderText(QStringLiteral("a new folder"));
  m_runDir->setToolTip(QStringLiteral("The run folder (--run-dir)"));
  auto* browse = new QToolButton;
  browse->setText(QStringLiteral("…"));
  connect(browse, &QToolButton::clicked, this, [this] {
    const QString dir =
        QFileDialog::getExistingDirectory(this, QStringLiteral("Run folder"), m_runDir->text());
    if (!dir.isEmpty()) m_runDir->setText(dir);
  });
  auto* dir = new QHBoxLayout;
  dir->addWidget(m_runDir, 1);
  dir->addWidget(browse);
  groups[QStringLiteral("Run")]->addRow(QStringLiteral("run folder"), dir);
  connect(m_runDir, &QLineEdit::textChanged, this, &TrainForm::changed);
  layout->addStretch(1);
}

QWidget* TrainForm::createEditor(const Setting& s) {
  auto edited = [this, &s] { onEdited(s); };
  if (s.type == SettingType::Flag) {
    auto* box = new QCheckBox;
    connect(box, &QCheckBox::toggled, this, edited);
    return box;
  }
  if (fitsSpinBox(s)) {
    auto* box = new QSpinBox;
    box->setRange(static_cast<int>(s.min), static_cast<int>(s.max));
    if (!s.defaultText.empty() && s.min == 0)  // 0 means "the default" (h: 2 h')
      box->setSpecialValueText(QString::fromStdString(s.defaultText));
    connect(box, &QSpinBox::valueChanged, this, edited);
    return box;
  }
  if (!s.choices.empty()) {
    auto* box = new QComboBox;
    const std::string fallback = s.get(train::TrainConfig{}).get<std::string>();
    if (std::find(s.choices.begin(), s.choices.end(), fallback) == s.choices.end())
      box->addItem(QString::fromStdString(s.defaultText), QString::fromStdString(fallback));
    for (const std::string& choice : s.choices)
      box->addItem(QString::fromStdString(choice), QString::fromStdString(choice));
    connect(box, &QComboBox::currentIndexChanged, this, edited);
    return box;
  }
  auto* edit = new QLineEdit;
  if (!s.defaultText.empty()) edit->setPlaceholderText(QString::fromStdString(s.defaultText));
  connect(edit, &QLineEdit::textChanged, this, edited);
  if (s.type != SettingType::Path) return edit;
  auto* browse = new QToolButton;
  browse->setText(QStringLiteral("…"));
  connect(browse, &QToolButton::clicked, this, [this, edit, &s] {
    const QString file = QFileDialog::getOpenFileName(this, labelOf(s), edit->text());
    if (!file.isEmpty()) edit->setText(file);
  });
  auto* holder = new QWidget;
  auto* row = new QHBoxLayout(holder);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(edit, 1);
  row->addWidget(browse);
  holder->setFocusProxy(edit);
  return holder;
}

void TrainForm::showValue(const Field& field, const json& value) {
  QWidget* editor = field.editor;
  if (auto* box = qobject_cast<QCheckBox*>(editor)) {
    box->setChecked(value.get<bool>());
  } else if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
    spin->setValue(static_cast<int>(value.get<std::int64_t>()));
  } else if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    const QString text = textOf(value);
    if (combo->findData(text) < 0) combo->addItem(text, text);  // snap5 from a config file
    combo->setCurrentIndex(combo->findData(text));
  } else {
    editor->findChild<QLineEdit*>() ? editor->findChild<QLineEdit*>()->setText(textOf(value))
                                    : qobject_cast<QLineEdit*>(editor)->setText(textOf(value));
  }
}

std::optional<json> TrainForm::valueOf(const Field& field, QString* problem) const {
  const Setting& s = *field.setting;
  QWidget* editor = field.editor;
  if (auto* box = qobject_cast<QCheckBox*>(editor)) return json(box->isChecked());
  if (auto* spin = qobject_cast<QSpinBox*>(editor)) return json(std::int64_t{spin->value()});
  QString text;
  if (auto* combo = qobject_cast<QComboBox*>(editor))
    text = combo->currentData().toString();
  else if (auto* edit = qobject_cast<QLineEdit*>(editor))
    text = edit->text().trimmed();
  else
    text = editor->findChild<QLineEdit*>()->text().trimmed();
  try {
    return train::valueFromText(s, text.toStdString());
  } catch (const std::invalid_argument& e) {
    if (problem) *problem = QString::fromUtf8(e.what());
    return std::nullopt;
  }
}

train::TrainConfig TrainForm::readFields() const {
  train::TrainConfig c = m_base;
  for (const Field& field : m_fields)
    if (const auto value = valueOf(field, nullptr)) field.setting->set(c, *value);
  return c;
}

train::TrainConfig TrainForm::config() const { return train::withLearnerRules(readFields()); }

void TrainForm::setConfig(const train::TrainConfig& config) {
  train::TrainConfig c = config;
  // A config that says nothing of the length (a new form) gets one to edit rather than an error.
  if (c.steps == 0 && c.epochs == 0.0) c.steps = kProposedSteps;
  m_base = c;
  m_showing = true;
  for (const Field& field : m_fields) showValue(field, field.setting->get(c));
  m_showing = false;
  updateShown();
}

QString TrainForm::runDir() const { return m_runDir->text().trimmed(); }
void TrainForm::setRunDir(const QString& dir) { m_runDir->setText(dir); }

QStringList TrainForm::problems() const {
  QStringList found;
  const train::TrainConfig c = config();
  for (const Field& field : m_fields) {
    QString problem;
    if (train::appliesTo(*field.setting, c) && !valueOf(field, &problem)) found << problem;
  }
  if (!found.isEmpty()) return found;  // the whole is judged once its parts read
  try {
    train::TrainConfig checked = c;
    checked.backend = "cpu";  // the trainer's to judge: the rnnwb executable may have CUDA
    train::validateTrainConfig(checked);
  } catch (const std::exception& e) {
    found << QString::fromUtf8(e.what());
  }
  return found;
}

QStringList TrainForm::shownKeys() const {
  QStringList keys;
  for (const Field& field : m_fields)
    if (!field.row->isHidden()) keys << QString::fromStdString(field.setting->key);
  return keys;
}

QWidget* TrainForm::editorOf(const QString& key) const {
  for (const Field& field : m_fields)
    if (field.setting->key == key.toStdString()) return field.editor;
  return nullptr;
}

void TrainForm::onEdited(const Setting& s) {
  if (m_showing) return;
  // A setting that replaces another (steps over epochs) resets it, as on the command line.
  if (!s.replaces.empty()) {
    for (const Field& field : m_fields) {
      if (field.setting->key != s.replaces) continue;
      const auto value = valueOf(*std::find_if(m_fields.begin(), m_fields.end(),
                                               [&](const Field& f) { return f.setting == &s; }),
                                 nullptr);
      const bool given = value && *value != s.get(train::TrainConfig{});
      m_showing = true;
      if (given) showValue(field, field.setting->get(train::TrainConfig{}));
      m_showing = false;
    }
  }
  updateShown();
  emit changed();
}

void TrainForm::updateShown() {
  const train::TrainConfig c = config();
  const std::vector<std::string> fixed = train::keysFixedByLearner(c);
  m_showing = true;
  for (const Field& field : m_fields) {
    field.row->setVisible(train::appliesTo(*field.setting, c));
    const bool isFixed = std::find(fixed.begin(), fixed.end(), field.setting->key) != fixed.end();
    field.editor->setEnabled(!isFixed);
    if (isFixed) showValue(field, field.setting->get(c));  // what the learner runs with
    QString problem;
    field.editor->setStyleSheet(valueOf(field, &problem) ? QString()
                                                         : QStringLiteral("background: #fbe3e3;"));
  }
  m_showing = false;
}

}  // namespace rnnwb::ui

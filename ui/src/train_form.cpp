#include "rnnwb/ui/train_form.hpp"

#include <limits>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace rnnwb::ui {

namespace {

constexpr int kCharLm = 0, kAdding = 1, kCopy = 2;
const char* const kTaskKinds[] = {"char-lm", "adding", "copy"};
constexpr int kIntMax = std::numeric_limits<int>::max();

QSpinBox* intBox(int min, int max, const QString& tip) {
  auto* box = new QSpinBox;
  box->setRange(min, max);
  box->setToolTip(tip);
  return box;
}

QDoubleSpinBox* realBox(double min, double max, int decimals, double step, const QString& tip) {
  auto* box = new QDoubleSpinBox;
  box->setRange(min, max);
  box->setDecimals(decimals);
  box->setSingleStep(step);
  box->setToolTip(tip);
  return box;
}

QFormLayout* compactForm(QWidget* owner) {
  auto* form = new QFormLayout(owner);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setContentsMargins(6, 4, 6, 4);
  return form;
}

int clampToInt(std::int64_t value) {
  return static_cast<int>(std::min<std::int64_t>(value, kIntMax));
}

}  // namespace

TrainForm::TrainForm(QWidget* parent)
    : QWidget(parent), m_task(new QComboBox), m_taskPages(new QStackedWidget) {
  for (const char* kind : kTaskKinds) m_task->addItem(QString::fromLatin1(kind));
  m_task->setToolTip(
      QStringLiteral("char-lm: predict the next character of a text; adding and "
                     "copy: the generated memory benchmarks"));
  for (int kind = kCharLm; kind <= kCopy; ++kind) m_taskPages->addWidget(createTaskPage(kind));
  auto* task = new QGroupBox(QStringLiteral("Task"));
  auto* taskLayout = new QVBoxLayout(task);
  taskLayout->setContentsMargins(0, 2, 0, 2);
  taskLayout->addWidget(m_task);
  taskLayout->addWidget(m_taskPages);
  connect(m_task, &QComboBox::currentIndexChanged, m_taskPages, &QStackedWidget::setCurrentIndex);
  connect(m_task, &QComboBox::currentIndexChanged, this, &TrainForm::updateEnabled);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(task);
  layout->addWidget(createRunGroup());
  layout->addWidget(createOptimizerGroup());
  layout->addWidget(createScheduleGroup());
  layout->addStretch(1);
  setConfig(train::TrainConfig{});
  // Any edit is a change (the panel clears a stale error on it).
  for (QSpinBox* box : findChildren<QSpinBox*>())
    connect(box, &QSpinBox::valueChanged, this, &TrainForm::changed);
  for (QDoubleSpinBox* box : findChildren<QDoubleSpinBox*>())
    connect(box, &QDoubleSpinBox::valueChanged, this, &TrainForm::changed);
  for (QComboBox* box : findChildren<QComboBox*>())
    connect(box, &QComboBox::currentIndexChanged, this, &TrainForm::changed);
  for (QLineEdit* edit : findChildren<QLineEdit*>())
    connect(edit, &QLineEdit::textChanged, this, &TrainForm::changed);
}

QWidget* TrainForm::createTaskPage(int kind) {
  auto* page = new QWidget;
  QFormLayout* form = compactForm(page);
  if (kind == kCharLm) {
    m_text = new QLineEdit;
    m_text->setPlaceholderText(QStringLiteral("a UTF-8 text file"));
    auto* browse = new QToolButton;
    browse->setText(QStringLiteral("…"));
    connect(browse, &QToolButton::clicked, this, &TrainForm::browseText);
    auto* row = new QHBoxLayout;
    row->addWidget(m_text);
    row->addWidget(browse);
    form->addRow(QStringLiteral("Text"), row);
    m_validFraction = realBox(0.001, 0.999, 3, 0.01,
                              QStringLiteral("Share of the text (its end) "
                                             "kept for validation"));
    form->addRow(QStringLiteral("Valid fraction"), m_validFraction);
  } else if (kind == kAdding) {
    m_sequenceLength = intBox(2, 1000000, QStringLiteral("T, frames per sequence (h' ≥ T)"));
    form->addRow(QStringLiteral("Sequence length T"), m_sequenceLength);
  } else {
    m_length = intBox(1, 100000, QStringLiteral("L, symbols to remember"));
    m_delay = intBox(1, 1000000, QStringLiteral("Frames from the last symbol to the delimiter"));
    m_alphabet = intBox(2, 10000, QStringLiteral("K, the number of symbols"));
    form->addRow(QStringLiteral("Length L"), m_length);
    form->addRow(QStringLiteral("Delay"), m_delay);
    form->addRow(QStringLiteral("Alphabet K"), m_alphabet);
  }
  if (kind != kCharLm) {
    QSpinBox*& valid = m_validSequences[kind == kAdding ? 0 : 1];
    valid = intBox(1, 10000000, QStringLiteral("Sequences in the validation set"));
    form->addRow(QStringLiteral("Valid sequences"), valid);
  }
  return page;
}

QWidget* TrainForm::createRunGroup() {
  auto* group = new QGroupBox(QStringLiteral("Gradients"));
  QFormLayout* form = compactForm(group);
  m_algo = new QComboBox;
  m_algo->addItem(QStringLiteral("truncated BPTT(h; h′)"), QStringLiteral("bptt"));
  for (int n = 1; n <= 3; ++n)
    m_algo->addItem(QStringLiteral("SnAp-%1").arg(n), QStringLiteral("snap%1").arg(n));
  m_algo->addItem(QStringLiteral("exact RTRL"), QStringLiteral("rtrl"));
  m_algo->setToolTip(QStringLiteral(
      "How gradients are computed. RTRL and SnAp-n update online every h′ frames on the cpu; "
      "exact RTRL and SnAp-2 of a dense network carry |h|·|θ| floats per stream (Sparsity "
      "view, or rnnwb mask)"));
  connect(m_algo, &QComboBox::currentIndexChanged, this, &TrainForm::updateEnabled);
  m_streams = intBox(1, 1000000, QStringLiteral("N, streams trained side by side"));
  m_h = intBox(0, 1000000, QStringLiteral("Frames back-propagated per update (h ≥ h')"));
  m_h->setSpecialValueText(QStringLiteral("2 h′"));
  m_hPrime = intBox(1, 1000000, QStringLiteral("New frames per update"));
  // RTRL never back-propagates through time: h is h′, shown but not editable.
  connect(m_hPrime, &QSpinBox::valueChanged, this, [this](int hPrime) {
    if (isOnline()) m_h->setValue(hPrime);
  });
  form->addRow(QStringLiteral("Algorithm"), m_algo);
  form->addRow(QStringLiteral("Streams N"), m_streams);
  form->addRow(QStringLiteral("h"), m_h);
  form->addRow(QStringLiteral("h′"), m_hPrime);
  return group;
}

QWidget* TrainForm::createOptimizerGroup() {
  auto* group = new QGroupBox(QStringLiteral("Optimizer"));
  QFormLayout* form = compactForm(group);
  m_optimizer = new QComboBox;
  m_optimizer->addItems({QStringLiteral("adam"), QStringLiteral("sgd")});
  m_lr = realBox(1e-7, 100.0, 6, 1e-4, QStringLiteral("Learning rate"));
  m_momentum = realBox(0.0, 0.999, 3, 0.05, QStringLiteral("sgd: momentum"));
  m_clip = realBox(0.0, 1e6, 3, 0.5, QStringLiteral("Largest gradient norm"));
  m_clip->setSpecialValueText(QStringLiteral("off"));
  m_halving = new QCheckBox(QStringLiteral("Halve lr when validation worsens"));
  form->addRow(QStringLiteral("Kind"), m_optimizer);
  form->addRow(QStringLiteral("Learning rate"), m_lr);
  form->addRow(QStringLiteral("Momentum"), m_momentum);
  form->addRow(QStringLiteral("Clip norm"), m_clip);
  form->addRow(m_halving);
  connect(m_optimizer, &QComboBox::currentIndexChanged, this, &TrainForm::updateEnabled);
  return group;
}

QWidget* TrainForm::createScheduleGroup() {
  auto* group = new QGroupBox(QStringLiteral("Run"));
  QFormLayout* form = compactForm(group);
  m_lengthUnit = new QComboBox;
  m_lengthUnit->addItems({QStringLiteral("steps"), QStringLiteral("epochs")});
  m_steps = intBox(1, kIntMax, QStringLiteral("Updates to run"));
  m_epochs = realBox(0.01, 1e6, 2, 1.0, QStringLiteral("Passes over the training text"));
  auto* length = new QHBoxLayout;
  length->addWidget(m_steps, 1);
  length->addWidget(m_epochs, 1);
  length->addWidget(m_lengthUnit);
  connect(m_lengthUnit, &QComboBox::currentIndexChanged, this, &TrainForm::updateEnabled);
  m_validEvery = intBox(0, kIntMax, QStringLiteral("Updates between validations"));
  m_validEvery->setSpecialValueText(QStringLiteral("at the end"));
  m_checkpointEvery = intBox(0, kIntMax, QStringLiteral("Updates between checkpoints"));
  m_checkpointEvery->setSpecialValueText(QStringLiteral("at the end"));
  m_reportEvery = intBox(1, kIntMax, QStringLiteral("Updates between lines of metrics.jsonl"));
  m_seed = new QLineEdit;
  m_seed->setValidator(
      new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{1,19}")), m_seed));
  m_seed->setToolTip(QStringLiteral("Seed of the initial weights and the generated data"));
  m_backend = new QComboBox;
  m_backend->addItems({QStringLiteral("cpu"), QStringLiteral("cuda")});
  m_threads = intBox(0, 1024, QStringLiteral("BLAS threads of the cpu backend"));
  m_threads->setSpecialValueText(QStringLiteral("all cores"));
  m_runDir = new QLineEdit;
  m_runDir->setPlaceholderText(QStringLiteral("a new folder"));
  auto* browse = new QToolButton;
  browse->setText(QStringLiteral("…"));
  connect(browse, &QToolButton::clicked, this, &TrainForm::browseRunDir);
  auto* dir = new QHBoxLayout;
  dir->addWidget(m_runDir);
  dir->addWidget(browse);
  form->addRow(QStringLiteral("Length"), length);
  form->addRow(QStringLiteral("Validate every"), m_validEvery);
  form->addRow(QStringLiteral("Checkpoint every"), m_checkpointEvery);
  form->addRow(QStringLiteral("Report every"), m_reportEvery);
  form->addRow(QStringLiteral("Seed"), m_seed);
  form->addRow(QStringLiteral("Backend"), m_backend);
  form->addRow(QStringLiteral("Threads"), m_threads);
  form->addRow(QStringLiteral("Run folder"), dir);
  return group;
}

train::TrainConfig TrainForm::config() const {
  train::TrainConfig c = m_hidden;
  c.task.kind = kTaskKinds[m_task->currentIndex()];
  c.task.text = m_text->text().trimmed().toStdString();
  c.task.validFraction = m_validFraction->value();
  c.task.sequenceLength = m_sequenceLength->value();
  c.task.length = m_length->value();
  c.task.delay = m_delay->value();
  c.task.alphabet = m_alphabet->value();
  // Each generated task has its own box; the one of the chosen task counts.
  c.task.validSequences = m_validSequences[m_task->currentIndex() == kCopy ? 1 : 0]->value();
  c.algo = m_algo->currentData().toString().toStdString();
  c.streams = m_streams->value();
  c.hPrime = m_hPrime->value();
  c.h = isOnline() ? c.hPrime : m_h->value();
  c.optimizer.kind =
      m_optimizer->currentIndex() == 0 ? train::OptimizerKind::Adam : train::OptimizerKind::Sgd;
  c.optimizer.learningRate = m_lr->value();
  c.optimizer.momentum = m_momentum->value();
  c.clipNorm = m_clip->value();
  c.halveLrWhenWorse = m_halving->isChecked();
  const bool epochs = m_lengthUnit->currentIndex() == 1;
  c.steps = epochs ? 0 : m_steps->value();
  c.epochs = epochs ? m_epochs->value() : 0.0;
  c.validEvery = m_validEvery->value();
  c.checkpointEvery = m_checkpointEvery->value();
  c.reportEvery = m_reportEvery->value();
  c.seed = m_seed->text().toULongLong();
  c.backend = isOnline() ? "cpu" : m_backend->currentText().toStdString();
  c.threads = m_threads->value();
  return c;
}

void TrainForm::setConfig(const train::TrainConfig& c) {
  m_hidden = c;
  const int kind = c.task.kind == "adding" ? kAdding : c.task.kind == "copy" ? kCopy : kCharLm;
  m_task->setCurrentIndex(kind);
  m_text->setText(QString::fromStdString(c.task.text));
  m_validFraction->setValue(c.task.validFraction);
  m_sequenceLength->setValue(c.task.sequenceLength);
  m_length->setValue(c.task.length);
  m_delay->setValue(c.task.delay);
  m_alphabet->setValue(c.task.alphabet);
  for (QSpinBox* valid : m_validSequences) valid->setValue(c.task.validSequences);
  const QString algo = QString::fromStdString(c.algo);
  if (m_algo->findData(algo) < 0) m_algo->addItem(algo, algo);  // snap5 from a config file
  m_algo->setCurrentIndex(m_algo->findData(algo));
  m_streams->setValue(c.streams);
  m_hPrime->setValue(c.hPrime);
  m_h->setValue(c.h);
  m_optimizer->setCurrentIndex(c.optimizer.kind == train::OptimizerKind::Adam ? 0 : 1);
  m_lr->setValue(c.optimizer.learningRate);
  m_momentum->setValue(c.optimizer.momentum);
  m_clip->setValue(c.clipNorm);
  m_halving->setChecked(c.halveLrWhenWorse);
  const bool epochs = c.steps == 0 && c.epochs > 0;
  m_lengthUnit->setCurrentIndex(epochs ? 1 : 0);
  m_steps->setValue(c.steps > 0 ? clampToInt(c.steps) : 1000);
  m_epochs->setValue(c.epochs > 0 ? c.epochs : 1.0);
  m_validEvery->setValue(clampToInt(c.validEvery));
  m_checkpointEvery->setValue(clampToInt(c.checkpointEvery));
  m_reportEvery->setValue(clampToInt(c.reportEvery));
  m_seed->setText(QString::number(c.seed));
  const int backend = m_backend->findText(QString::fromStdString(c.backend));
  m_backend->setCurrentIndex(backend < 0 ? 0 : backend);
  m_threads->setValue(c.threads);
  updateEnabled();
}

QString TrainForm::runDir() const { return m_runDir->text().trimmed(); }
void TrainForm::setRunDir(const QString& dir) { m_runDir->setText(dir); }

void TrainForm::browseText() {
  const QString file =
      QFileDialog::getOpenFileName(this, QStringLiteral("Training text"), m_text->text());
  if (!file.isEmpty()) m_text->setText(file);
}

void TrainForm::browseRunDir() {
  const QString dir =
      QFileDialog::getExistingDirectory(this, QStringLiteral("Run folder"), m_runDir->text());
  if (!dir.isEmpty()) m_runDir->setText(dir);
}

void TrainForm::updateEnabled() {
  // The task box is as tall as the chosen task's options, not as the longest page.
  for (int page = 0; page < m_taskPages->count(); ++page)
    m_taskPages->widget(page)->setSizePolicy(QSizePolicy::Preferred, page == m_task->currentIndex()
                                                                         ? QSizePolicy::Preferred
                                                                         : QSizePolicy::Ignored);
  m_taskPages->adjustSize();
  const bool epochs = m_lengthUnit->currentIndex() == 1;
  m_steps->setVisible(!epochs);
  m_epochs->setVisible(epochs);
  m_momentum->setEnabled(m_optimizer->currentIndex() == 1);
  const bool online = isOnline();
  m_h->setEnabled(!online);
  if (online) m_h->setValue(m_hPrime->value());
  m_backend->setEnabled(!online);
  if (online) m_backend->setCurrentIndex(0);  // the RTRL family runs on the cpu
}

bool TrainForm::isOnline() const { return m_algo->currentData().toString() != "bptt"; }

}  // namespace rnnwb::ui

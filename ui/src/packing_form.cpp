#include "rnnwb/ui/packing_form.hpp"

#include <algorithm>

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

#include "rnnwb/core/packing/packers.hpp"

namespace rnnwb::ui {
namespace {

using Kind = PackingSource::Kind;
constexpr int kMaxSeed = 2147483647;  // QSpinBox holds an int

QSpinBox* spinBox(const QString& name, int lo, int hi, const QString& tip) {
  auto* box = new QSpinBox;
  box->setObjectName(name);
  box->setRange(lo, hi);
  box->setToolTip(tip);
  box->setKeyboardTracking(false);  // one change when the typing is done, not one per digit
  return box;
}

QLabel* labelFor(const QString& text, QWidget* buddy) {
  auto* label = new QLabel(text);
  label->setBuddy(buddy);
  return label;
}

}  // namespace

PackingForm::PackingForm(QWidget* parent)
    : QWidget(parent),
      m_sourceKind(new QComboBox),
      m_path(new QLineEdit),
      m_browse(new QPushButton(QStringLiteral("Browse…"))),
      m_packer(new QComboBox) {
  m_sourceKind->setObjectName(QStringLiteral("sourceKind"));
  m_sourceKind->addItems({QStringLiteral("Synthetic words"),
                          QStringLiteral("Image folder (PNG or IAM)"),
                          QStringLiteral("Sizes file")});
  m_wordCount = spinBox(QStringLiteral("wordCount"), 1, 100000,
                        QStringLiteral("How many words to render (wamerican, installed fonts)"));
  m_seed = spinBox(QStringLiteral("seed"), 0, kMaxSeed,
                   QStringLiteral("The generator's seed: the same seed, the same words"));
  m_path->setObjectName(QStringLiteral("path"));
  m_packer->setObjectName(QStringLiteral("packer"));
  for (const std::string& name : packing::packerNames())
    m_packer->addItem(QString::fromStdString(name));
  m_packer->setToolTip(QStringLiteral("The packer drawn; the table shows every packer"));
  m_batchSize = spinBox(QStringLiteral("batchSize"), 1, 100000,
                        QStringLiteral("Examples per batch (consecutive)"));
  m_rowWidth = spinBox(QStringLiteral("rowWidth"), 0, 1000000,
                       QStringLiteral("Row width W for every batch (spec/packing.md)"));
  m_rowWidth->setSpecialValueText(QStringLiteral("widest of each batch"));
  m_wordCountLabel = labelFor(QStringLiteral("&Words:"), m_wordCount);
  m_seedLabel = labelFor(QStringLiteral("S&eed:"), m_seed);

  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(labelFor(QStringLiteral("&Source:"), m_sourceKind));
  row->addWidget(m_sourceKind);
  row->addWidget(m_wordCountLabel);
  row->addWidget(m_wordCount);
  row->addWidget(m_seedLabel);
  row->addWidget(m_seed);
  row->addWidget(m_path, 1);
  row->addWidget(m_browse);
  row->addSpacing(12);
  row->addWidget(labelFor(QStringLiteral("&Packer:"), m_packer));
  row->addWidget(m_packer);
  row->addWidget(labelFor(QStringLiteral("&Batch size:"), m_batchSize));
  row->addWidget(m_batchSize);
  row->addWidget(labelFor(QStringLiteral("Row &width:"), m_rowWidth));
  row->addWidget(m_rowWidth);
  row->addStretch();
  setSettings(m_settings);
  connectWidgets();
}

void PackingForm::connectWidgets() {
  connect(m_sourceKind, &QComboBox::currentIndexChanged, this, [this] {
    readWidgets();
    updateSourceWidgets();
    emit settingsEdited(false);
  });
  for (QSpinBox* box : {m_wordCount, m_seed, m_batchSize, m_rowWidth})
    connect(box, &QSpinBox::valueChanged, this, [this] {
      readWidgets();
      emit settingsEdited(true);
    });
  connect(m_packer, &QComboBox::currentIndexChanged, this, [this] {
    readWidgets();
    emit settingsEdited(true);
  });
  connect(m_path, &QLineEdit::editingFinished, this, [this] {
    if (m_path->text() == m_settings.source.path) return;
    readWidgets();
    emit settingsEdited(false);
  });
  connect(m_browse, &QPushButton::clicked, this, &PackingForm::browse);
}

void PackingForm::setSettings(const PackingSettings& settings) {
  m_settings = settings;
  const QSignalBlocker blockers[] = {QSignalBlocker(m_sourceKind), QSignalBlocker(m_wordCount),
                                     QSignalBlocker(m_seed),       QSignalBlocker(m_path),
                                     QSignalBlocker(m_packer),     QSignalBlocker(m_batchSize),
                                     QSignalBlocker(m_rowWidth)};
  const PackingSource& source = settings.source;
  m_sourceKind->setCurrentIndex(static_cast<int>(source.kind));
  m_wordCount->setValue(source.wordCount);
  m_seed->setValue(static_cast<int>(std::min<quint64>(source.seed, kMaxSeed)));
  m_path->setText(source.path);
  m_packer->setCurrentText(settings.packer);
  m_batchSize->setValue(settings.batchSize);
  m_rowWidth->setValue(settings.rowWidth);
  updateSourceWidgets();
}

void PackingForm::readWidgets() {
  PackingSource& source = m_settings.source;
  const Kind kind = static_cast<Kind>(m_sourceKind->currentIndex());
  if (kind != source.kind) m_path->clear();  // a folder is no sizes file, and back
  source.kind = kind;
  source.wordCount = m_wordCount->value();
  source.seed = static_cast<quint64>(m_seed->value());
  source.path = m_path->text();
  m_settings.packer = m_packer->currentText();
  m_settings.batchSize = m_batchSize->value();
  m_settings.rowWidth = m_rowWidth->value();
}

void PackingForm::updateSourceWidgets() {
  const Kind kind = m_settings.source.kind;
  const bool words = kind == Kind::SyntheticWords;
  for (QWidget* w :
       std::initializer_list<QWidget*>{m_wordCount, m_seed, m_wordCountLabel, m_seedLabel})
    w->setVisible(words);
  m_path->setVisible(!words);
  m_browse->setVisible(!words);
  m_path->setPlaceholderText(kind == Kind::SizesFile
                                 ? QStringLiteral("a file of 'height width' lines")
                                 : QStringLiteral("a folder of PNGs, or an IAM folder"));
}

void PackingForm::browse() {
  const bool folder = m_settings.source.kind == Kind::ImageFolder;
  const QString path =
      folder
          ? QFileDialog::getExistingDirectory(this, QStringLiteral("Image folder"), m_path->text())
          : QFileDialog::getOpenFileName(this, QStringLiteral("Sizes file"), m_path->text(),
                                         QStringLiteral("Sizes (*.txt);;All files (*)"));
  if (path.isEmpty()) return;
  m_path->setText(path);
  readWidgets();
  emit settingsEdited(false);
}

}  // namespace rnnwb::ui

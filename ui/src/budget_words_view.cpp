#include "budget_words_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>

#include "rnnwb/core/memory_size.hpp"

namespace rnnwb::ui {
namespace {

QString bytesText(std::uint64_t bytes) { return QString::fromStdString(formatBytes(bytes)); }

void addRow(QTableWidget* table, const QString& part, const QString& typical, const QString& worst,
            const QString& tip = {}) {
  const int r = table->rowCount();
  table->insertRow(r);
  const QStringList cells = {part, typical, worst};
  for (int c = 0; c < cells.size(); ++c) {
    auto* item = new QTableWidgetItem(cells[c]);
    if (!tip.isEmpty()) item->setToolTip(tip);
    if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table->setItem(r, c, item);
  }
}

}  // namespace

WordsBudgetControls::WordsBudgetControls(QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  const train::TaskConfig defaults;
  m_batch = new QSpinBox(this);
  m_batch->setRange(1, 4096);
  m_batch->setValue(defaults.batch);
  m_batch->setToolTip(tr("Words per update (task.batch)"));
  m_words = new QSpinBox(this);
  m_words->setRange(1, 1 << 20);
  m_words->setValue(defaults.syntheticWords);
  m_words->setToolTip(
      tr("Synthetic training words (task.synthetic_words); their sizes size "
         "the batches"));
  m_packer = new QComboBox(this);
  m_packer->addItems({QStringLiteral("shelf"), QStringLiteral("baseline"), QStringLiteral("none")});
  m_packer->setToolTip(tr("How a batch is packed (task.packer); none pads every word alone"));
  const auto label = [this, row](const QString& text, QWidget* field) {
    row->addWidget(new QLabel(text, this));
    row->addWidget(field);
    row->addSpacing(8);
  };
  label(tr("Batch"), m_batch);
  label(tr("Words"), m_words);
  label(tr("Packer"), m_packer);
  row->addStretch(1);
  connect(m_batch, &QSpinBox::valueChanged, this, &WordsBudgetControls::changed);
  connect(m_words, &QSpinBox::valueChanged, this, &WordsBudgetControls::changed);
  connect(m_packer, &QComboBox::currentIndexChanged, this, &WordsBudgetControls::changed);
}

train::TaskConfig WordsBudgetControls::task() const {
  train::TaskConfig task = m_base;
  task.kind = "words";
  task.batch = m_batch->value();
  task.syntheticWords = m_words->value();
  task.packer = m_packer->currentText().toStdString();
  return task;
}

void WordsBudgetControls::setBase(const train::TaskConfig& task) {
  if (task == m_base) return;
  m_base = task;
  {
    const QSignalBlocker quiet[] = {QSignalBlocker(m_batch), QSignalBlocker(m_words),
                                    QSignalBlocker(m_packer)};
    m_batch->setValue(task.batch);
    m_words->setValue(task.syntheticWords);
    m_packer->setCurrentText(task.packer.empty() ? QStringLiteral("shelf")
                                                 : QString::fromStdString(task.packer));
  }
  emit changed();
}

void WordsBudgetControls::setBatch(int batch) { m_batch->setValue(batch); }
void WordsBudgetControls::setSyntheticWords(int words) { m_words->setValue(words); }

void showWordsBudget(const train::WordsBudget& b, QTableWidget* table, QLabel* message,
                     QLabel* footer) {
  table->setRowCount(0);
  table->setColumnCount(3);
  table->setHorizontalHeaderLabels(
      {QObject::tr("Part"), QObject::tr("Largest batch, epoch 1"), QObject::tr("Worst case")});
  const auto& typical = b.largestOfFirstEpoch;
  const auto& worst = b.worstCase;
  addRow(table, QObject::tr("parameters, gradient, optimizer"), bytesText(b.sharedBytes),
         bytesText(b.sharedBytes), QString::fromStdString(b.sharedText));
  addRow(table, QObject::tr("word images"), bytesText(b.dataBytes), bytesText(b.dataBytes),
         QObject::tr("%1 training and %2 validation words, a byte a pixel")
             .arg(b.trainWords)
             .arg(b.validWords));
  addRow(table, QObject::tr("batch: ink and labels"), bytesText(typical.tensorBytes),
         bytesText(worst.tensorBytes),
         QObject::tr("%1 and %2 pixels").arg(typical.positions).arg(worst.positions));
  for (std::size_t p = 0; p < typical.engine.parts.size(); ++p) {
    if (worst.engine.parts[p].bytes == 0) continue;
    addRow(table,
           QObject::tr("engine: %1").arg(QString::fromStdString(typical.engine.parts[p].name)),
           bytesText(typical.engine.parts[p].bytes), bytesText(worst.engine.parts[p].bytes));
  }
  addRow(table, QObject::tr("total"), bytesText(b.typicalTotal()), bytesText(b.worstTotal()));
  QFont bold = table->font();
  bold.setBold(true);
  for (int c = 0; c < 3; ++c) table->item(table->rowCount() - 1, c)->setFont(bold);
  table->resizeColumnsToContents();
  message->setText(
      QObject::tr("A words run of %1 in batches of %2 (%3 updates an epoch), packed by %4: %5 "
                  "the budget of %6.")
          .arg(QString::fromStdString(b.source))
          .arg(b.batch)
          .arg(b.stepsPerEpoch)
          .arg(QString::fromStdString(b.packer))
          .arg(b.fits() ? QObject::tr("the worst case fits")
                        : QObject::tr("the worst case exceeds"))
          .arg(bytesText(b.budgetBytes)));
  footer->setText(QObject::tr("The worst case is the %1 largest words in one batch; `rnnwb "
                              "budget` prints the same table.")
                      .arg(b.batch));
}

}  // namespace rnnwb::ui

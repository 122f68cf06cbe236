#include "rnnwb/ui/budget_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>

#include "budget_words_view.hpp"
#include "latest_only_runner.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/packing/example_source.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/node_heat.hpp"

namespace rnnwb::ui {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Off the UI thread: a copy of the graph and the query go in, nothing touches a widget.
BudgetResult computeBudget(const Graph& graph, const snap::BudgetQuery& query, bool measure,
                           double maxSampleSeconds, const train::TaskConfig& words,
                           std::stop_token stop) {
  BudgetResult result;
  try {
    if (graph.dimensions == 2) {
      train::TrainConfig config;
      config.graph = graph.name.empty() ? std::string("the graph") : graph.name;
      config.task = words;
      config.optimizer.kind =
          query.optimizerSlots == 2 ? train::OptimizerKind::Adam : train::OptimizerKind::Sgd;
      try {
        result.words = train::estimateWordsBudget(config, {query.budgetBytes, 0, stop}, &graph);
      } catch (const packing::LoadCancelled&) {  // the panel hid or closed while words were drawn
        result.stopped = true;
      }
      result.stopped = result.stopped || stop.stop_requested();
      return result;
    }
    const CompiledPlan plan(graph);
    std::vector<std::string> unmeasured;  // not shown: the "~" of a modelled time says it
    const double rate =
        measure ? snap::measureEngineRateIfItFits(plan, query, 1, unmeasured, stop) : 0;
    snap::BudgetTable table = snap::estimateAlgorithms(plan, query, rate);
    if (measure)
      result.stopped = !snap::measureAlgorithms(plan, query, table, 1, 4, {stop, maxSampleSeconds});
    result.stopped = result.stopped || stop.stop_requested();
    result.table = std::move(table);
  } catch (const std::exception& e) {
    result.error = QString::fromStdString(e.what());
  }
  return result;
}

QString timeText(const snap::AlgorithmEstimate& row) {
  if (row.secondsPerFrame <= 0) return QStringLiteral("–");
  const QString value = secondsText(row.secondsPerFrame);
  return row.measured ? value : QStringLiteral("~") + value;
}

}  // namespace

BudgetPanel::BudgetPanel(GraphDocument* document, QWidget* parent)
    : QWidget(parent),
      m_document(document),
      m_runner(new LatestOnlyRunner(this, [this] { startComputation(); })),
      m_watcher(new QFutureWatcher<BudgetResult>(this)) {
  m_runner->setActiveWhen([this] { return isVisible() && m_onScreen; });
  connect(m_watcher, &QFutureWatcher<BudgetResult>::finished, this,
          &BudgetPanel::computationFinished);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(buildControls());
  m_message = new QLabel(this);
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_message);
  m_rows = new QTableWidget(0, 4, this);
  m_rows->setHorizontalHeaderLabels(
      {tr("Algorithm"), tr("Memory"), tr("Time per frame"), tr("Fits")});
  m_rows->verticalHeader()->hide();
  m_rows->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);  // five rows fit
  m_rows->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_rows->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_rows->setSelectionMode(QAbstractItemView::SingleSelection);
  m_rows->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(m_rows, 1);
  // The shared bytes and the button on one line under the table.
  auto* footer = new QHBoxLayout;
  m_shared = new QLabel(this);
  m_shared->setWordWrap(true);
  footer->addWidget(m_shared, 1);
  m_use = new QPushButton(tr("Use in Training form"), this);
  m_use->setToolTip(tr("Fill the Training form with the chosen algorithm, streams, h and h'"));
  footer->addWidget(m_use);
  layout->addLayout(footer);
  connect(m_rows, &QTableWidget::itemSelectionChanged, this, &BudgetPanel::updateUseButton);
  connect(m_rows, &QTableWidget::cellDoubleClicked, this, [this] { m_use->click(); });
  connect(m_use, &QPushButton::clicked, this, [this] {
    const int r = m_rows->currentRow();
    if (!m_table || r < 0 || r >= int(m_table->rows.size()) || !m_table->rows[r].fits) return;
    const snap::BudgetQuery q = query();
    const bool bptt = m_table->rows[r].algorithm == "bptt";
    // RTRL steps online: h follows h' (the trainer requires it).
    emit useAlgorithm(QString::fromStdString(m_table->rows[r].algorithm), q.streams,
                      bptt ? q.window : q.newFrames, q.newFrames);
  });
  const auto documentChanged = [this] {
    showControlsForDocument();
    scheduleUpdate(kDebounceMs);
  };
  connect(document, &GraphDocument::structureChanged, this, documentChanged);
  connect(document, &GraphDocument::problemsChanged, this, documentChanged);
  showControlsForDocument();
  updateUseButton();
}

void BudgetPanel::showControlsForDocument() {
  const bool twoD = m_document->graph().dimensions == 2;
  m_sequenceControls->setVisible(!twoD);
  m_wordsControls->setVisible(twoD);
  m_use->setVisible(!twoD);
  m_measure->setEnabled(!twoD);
  if (twoD != (m_rows->columnCount() == 3)) {
    m_rows->setRowCount(0);
    m_rows->setColumnCount(twoD ? 3 : 4);
    m_rows->horizontalHeader()->setStretchLastSection(!twoD);  // the bytes beside their part
    m_rows->setHorizontalHeaderLabels(
        twoD ? QStringList{tr("Part"), tr("Largest batch, epoch 1"), tr("Worst case")}
             : QStringList{tr("Algorithm"), tr("Memory"), tr("Time per frame"), tr("Fits")});
  }
  m_measure->setToolTip(twoD ? tr("A 2-D graph's update is not timed here: `rnnwb budget GRAPH` "
                                  "times two, or train a few steps in the Training dock")
                             : tr("Time a short run of each algorithm that fits on this machine"));
}

BudgetPanel::~BudgetPanel() {
  // Quitting waits for no measurement: it stops before its next sample run.
  m_stop.request_stop();
  m_watcher->waitForFinished();
}

QWidget* BudgetPanel::buildControls() {
  // One row of controls, so that the table keeps the dock's height at 720 px.
  auto* box = new QWidget(this);
  auto* row = new QHBoxLayout(box);
  row->setContentsMargins(0, 0, 0, 0);
  const auto spin = [box](int value, const QString& tip) {
    auto* field = new QSpinBox(box);
    field->setRange(1, 1 << 20);
    field->setValue(value);
    field->setToolTip(tip);
    return field;
  };
  m_streams = spin(32, tr("Streams N trained side by side"));
  m_window = spin(64, tr("h: the frames BPTT backpropagates through"));
  m_newFrames = spin(64, tr("h′: the frames each update advances (RTRL: h = h′)"));
  m_budget = new QDoubleSpinBox(box);
  m_budget->setRange(0.001, 1 << 20);
  m_budget->setDecimals(3);
  m_budget->setSuffix(QStringLiteral(" GiB"));
  const std::uint64_t memory = physicalMemoryBytes();
  m_budget->setValue(memory > 0 ? memory / kGiB : 8.0);
  m_budget->setToolTip(tr("The memory a run may hold (default: this machine's memory)"));
  m_optimizer = new QComboBox(box);
  m_optimizer->addItems({QStringLiteral("adam"), QStringLiteral("sgd")});
  m_optimizer->setToolTip(tr("Whose state counts: Adam keeps two moments, SGD one"));
  m_measure = new QCheckBox(tr("Measure what fits"), box);
  m_measure->setChecked(true);
  m_measure->setToolTip(tr("Time a short run of each algorithm that fits on this machine"));
  m_sequenceControls = new QWidget(box);
  auto* sequenceRow = new QHBoxLayout(m_sequenceControls);
  sequenceRow->setContentsMargins(0, 0, 0, 0);
  const auto labelIn = [](QHBoxLayout* in, QWidget* parent, const QString& text, QWidget* field) {
    in->addWidget(new QLabel(text, parent));
    in->addWidget(field);
    in->addSpacing(8);
  };
  labelIn(sequenceRow, m_sequenceControls, tr("Streams N"), m_streams);
  labelIn(sequenceRow, m_sequenceControls, QStringLiteral("h"), m_window);
  labelIn(sequenceRow, m_sequenceControls, QStringLiteral("h′"), m_newFrames);
  row->addWidget(m_sequenceControls);
  m_wordsControls = new WordsBudgetControls(box);
  row->addWidget(m_wordsControls);
  const auto label = [box, row, labelIn](const QString& text, QWidget* field) {
    labelIn(row, box, text, field);
  };
  label(tr("Budget"), m_budget);
  label(tr("Optimizer"), m_optimizer);
  row->addWidget(m_measure);
  row->addStretch(1);
  const auto changed = [this] { scheduleUpdate(kDebounceMs / 2); };
  connect(m_streams, &QSpinBox::valueChanged, this, changed);
  connect(m_window, &QSpinBox::valueChanged, this, changed);
  connect(m_newFrames, &QSpinBox::valueChanged, this, changed);
  connect(m_budget, &QDoubleSpinBox::valueChanged, this, [this, changed] {
    m_exactBudget.reset();
    changed();
  });
  connect(m_optimizer, &QComboBox::currentIndexChanged, this, changed);
  connect(m_wordsControls, &WordsBudgetControls::changed, this, changed);
  connect(m_measure, &QCheckBox::toggled, this, changed);
  return box;
}

void BudgetPanel::setStreams(int streams) { m_streams->setValue(streams); }
void BudgetPanel::setWindow(int h, int hPrime) {
  m_window->setValue(h);
  m_newFrames->setValue(hPrime);
}
void BudgetPanel::setBudgetBytes(std::uint64_t bytes) {
  {
    const QSignalBlocker quiet(m_budget);
    m_budget->setValue(bytes / kGiB);
  }
  m_exactBudget = bytes;  // the spin box rounds to its decimals: the query keeps every byte
  scheduleUpdate(kDebounceMs / 2);
}
void BudgetPanel::setWordsTask(const train::TaskConfig& task) { m_wordsControls->setBase(task); }
void BudgetPanel::setMeasuring(bool measure) { m_measure->setChecked(measure); }

void BudgetPanel::setMaxSampleSeconds(double seconds) {
  m_maxSampleSeconds = seconds;
  scheduleUpdate(0);
}

QString BudgetPanel::message() const { return m_message->text(); }

bool BudgetPanel::isUpToDate() const { return m_runner->isUpToDate(); }

bool BudgetPanel::isComputing() const { return m_watcher->isRunning(); }

void BudgetPanel::setOnScreen(bool onScreen) {
  if (onScreen == m_onScreen) return;
  m_onScreen = onScreen;
  if (onScreen)
    m_runner->ownerShown();
  else
    stopComputation();
}

bool BudgetPanel::selectAlgorithm(const QString& algorithm) {
  if (!m_table) return false;
  for (int r = 0; r < int(m_table->rows.size()); ++r)
    if (QString::fromStdString(m_table->rows[r].algorithm) == algorithm) {
      m_rows->selectRow(r);
      return true;
    }
  return false;
}

snap::BudgetQuery BudgetPanel::query() const {
  snap::BudgetQuery q;
  q.streams = m_streams->value();
  q.window = m_window->value();
  q.newFrames = m_newFrames->value();
  q.optimizerSlots = m_optimizer->currentText() == QStringLiteral("adam") ? 2 : 1;
  q.budgetBytes = m_exactBudget.value_or(static_cast<std::uint64_t>(m_budget->value() * kGiB));
  return q;
}

void BudgetPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  m_runner->ownerShown();
}

void BudgetPanel::hideEvent(QHideEvent* event) {
  QWidget::hideEvent(event);
  stopComputation();
}

void BudgetPanel::stopComputation() {
  // What runs is outdated: the runner computes again once the panel is back on screen.
  if (!m_runner->isRunning() && !m_runner->isWaiting()) return;
  m_stop.request_stop();
  m_runner->ownerHidden();
}

void BudgetPanel::scheduleUpdate(int delayMs) { m_runner->schedule(delayMs); }

void BudgetPanel::startComputation() {
  if (!m_document->problems().empty()) {
    m_table.reset();
    m_rows->setRowCount(0);
    m_shared->clear();
    m_message->setText(tr("Fix the problems first: %1")
                           .arg(QString::fromStdString(m_document->problems().front().message)));
    updateUseButton();
    emit updated();
    return;
  }
  m_runner->started();
  m_message->setText(m_measure->isChecked() ? tr("measuring…") : tr("computing…"));
  m_stop = std::stop_source();
  m_watcher->setFuture(QtConcurrent::run(computeBudget, m_document->graph(), query(),
                                         m_measure->isChecked(), m_maxSampleSeconds,
                                         m_wordsControls->task(), m_stop.get_token()));
}

void BudgetPanel::computationFinished() {
  // A stopped result is outdated too (ownerHidden): the runner drops it.
  if (m_runner->finished() && !m_watcher->result().stopped) display(m_watcher->result());
}

void BudgetPanel::display(const BudgetResult& result) {
  const QString selected =
      m_table && m_rows->currentRow() >= 0 && m_rows->currentRow() < int(m_table->rows.size())
          ? QString::fromStdString(m_table->rows[m_rows->currentRow()].algorithm)
          : QString();
  m_table = result.table;
  m_words = result.words;
  m_rows->setRowCount(0);
  if (m_words) {
    displayWords(*m_words);
    return;
  }
  if (!m_table) {
    m_message->setText(result.error);
    m_shared->clear();
    updateUseButton();
    emit updated();
    return;
  }
  m_message->setText(tr("Memory and time per frame of all %1 streams; ~ marks an estimate "
                        "(not measured: it does not fit, or a sample run would be long).")
                         .arg(m_streams->value()));
  const QColor dim = palette().color(QPalette::Disabled, QPalette::Text);
  for (const snap::AlgorithmEstimate& row : m_table->rows) {
    const int r = m_rows->rowCount();
    m_rows->insertRow(r);
    const QString fits = row.refusal ? tr("no: %1").arg(QString::fromStdString(*row.refusal))
                         : row.fits  ? tr("yes")
                                     : tr("no");
    const QStringList cells = {QString::fromStdString(row.label), bytesText(row.totalBytes),
                               timeText(row), fits};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      item->setToolTip(tr("%1 of its own + %2 shared; %3 GFLOP per frame")
                           .arg(bytesText(row.ownBytes), bytesText(m_table->sharedBytes))
                           .arg(row.flopsPerFrame / 1e9, 0, 'g', 3));
      if (!row.fits) item->setForeground(dim);
      m_rows->setItem(r, c, item);
    }
  }
  m_rows->resizeColumnsToContents();
  m_shared->setText(tr("Shared by all: parameters, gradient and optimizer state, %1 (%2 "
                       "parameters).")
                        .arg(bytesText(m_table->sharedBytes))
                        .arg(m_table->parameters));
  if (!selected.isEmpty()) selectAlgorithm(selected);
  updateUseButton();
  emit updated();
}

void BudgetPanel::displayWords(const train::WordsBudget& words) {
  showWordsBudget(words, m_rows, m_message, m_shared);
  updateUseButton();
  emit updated();
}

void BudgetPanel::updateUseButton() {
  const int r = m_rows->currentRow();
  m_use->setEnabled(m_table && r >= 0 && r < int(m_table->rows.size()) && m_table->rows[r].fits &&
                    m_rows->selectionModel()->hasSelection());
}

}  // namespace rnnwb::ui

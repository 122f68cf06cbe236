#include "rnnwb/ui/mask_panel.hpp"

#include <algorithm>

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "latest_only_runner.hpp"
#include "mask_computation.hpp"
#include "mask_figures.hpp"
#include "mask_hover.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/pixel_image_view.hpp"

namespace rnnwb::ui {
namespace {

constexpr int kMaxIdsInLabel = 5;

/// "2: c, h, i, … (9 layers)": numbered as `rnnwb analyze` numbers recurrent nodes.
QString nodeLabel(const Graph& graph, const SccNode& node, int number) {
  std::vector<int> layers = node.layers;
  std::sort(layers.begin(), layers.end());
  QStringList ids;
  for (std::size_t k = 0; k < layers.size() && k < kMaxIdsInLabel; ++k)
    ids << QString::fromStdString(graph.layers[layers[k]].id);
  QString label = QStringLiteral("%1: %2").arg(number).arg(ids.join(QStringLiteral(", ")));
  if (layers.size() > kMaxIdsInLabel) label += QStringLiteral(", … (%1 layers)").arg(layers.size());
  return label;
}

QTableWidget* makeTable(QWidget* parent, const QStringList& headers, const QString& name) {
  auto* table = new QTableWidget(0, static_cast<int>(headers.size()), parent);
  table->setObjectName(name);
  table->setHorizontalHeaderLabels(headers);
  table->verticalHeader()->hide();
  table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
  table->horizontalHeader()->setStretchLastSection(true);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSelectionMode(QAbstractItemView::ContiguousSelection);
  return table;
}

}  // namespace

MaskPanel::MaskPanel(GraphDocument* document, QWidget* parent)
    : QWidget(parent),
      m_document(document),
      m_runner(new LatestOnlyRunner(this, [this] { startComputation(); })),
      m_watcher(new QFutureWatcher<MaskResult>(this)) {
  buildControls();
  connect(m_watcher, &QFutureWatcher<MaskResult>::finished, this, &MaskPanel::computationFinished);
  auto documentChanged = [this] {
    refreshNodeList();
    refreshWeightList();
    scheduleUpdate(kDebounceMs);
  };
  connect(document, &GraphDocument::structureChanged, this, documentChanged);
  connect(document, &GraphDocument::problemsChanged, this, documentChanged);
  refreshNodeList();
  refreshWeightList();
}

// The running computation holds its own copy of the graph; the watcher is only told nothing
// more (it is deleted with the panel), so a pending result goes nowhere.
MaskPanel::~MaskPanel() = default;

void MaskPanel::buildControls() {
  m_node = new QComboBox(this);
  m_node->setObjectName(QStringLiteral("node"));
  m_node->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_level = new QSpinBox(this);
  m_level->setObjectName(QStringLiteral("snapLevel"));
  m_level->setRange(0, 1 << 20);
  m_level->setPrefix(QStringLiteral("SnAp-"));
  m_level->setSpecialValueText(QStringLiteral("exact (M_∞)"));
  m_level->setToolTip(
      QStringLiteral("The mask drawn, and a table row beside 1, 2, 3 and the "
                     "exact mask"));
  m_bptt = new QSpinBox(this);
  m_bptt->setObjectName(QStringLiteral("bpttLength"));
  m_bptt->setRange(1, 1 << 24);
  m_bptt->setValue(100);
  m_bptt->setSuffix(QStringLiteral(" frames"));
  m_message = new QLabel(this);
  m_message->setObjectName(QStringLiteral("message"));
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_figures = makeTable(this, {QStringLiteral("figure"), QStringLiteral("value")},
                        QStringLiteral("figures"));
  m_levels = makeTable(this,
                       {QStringLiteral("mask"), QStringLiteral("nnz"), QStringLiteral("density"),
                        QStringLiteral("Ĵ in COO"), QStringLiteral("Ĵ in CSR")},
                       QStringLiteral("levels"));
  // A handful of rows: shown whole, the figures above take the rest of the height.
  m_levels->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  m_levels->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);

  auto* form = new QFormLayout;
  form->addRow(QStringLiteral("Recurrent node"), m_node);
  form->addRow(QStringLiteral("Mask"), m_level);
  form->addRow(QStringLiteral("BPTT over"), m_bptt);
  auto* left = new QWidget(this);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addLayout(form);
  leftLayout->addWidget(m_message);
  leftLayout->addWidget(m_figures, 1);
  leftLayout->addWidget(m_levels);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(left);
  splitter->addWidget(buildPictures());
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({420, 800});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(splitter);

  connect(m_node, &QComboBox::currentIndexChanged, this, [this](int index) {
    m_chosenNode = index;
    scheduleUpdate(0);
  });
  connect(m_level, &QSpinBox::valueChanged, this, [this] { scheduleUpdate(kDebounceMs / 3); });
  connect(m_bptt, &QSpinBox::valueChanged, this, [this] { scheduleUpdate(kDebounceMs / 3); });
}

QWidget* MaskPanel::buildPictures() {
  auto withToolBar = [this](PixelImageView* view, QWidget* below, QWidget* above) {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QToolBar(page);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    if (above) bar->addWidget(above);
    bar->addActions(view->actions());
    layout->addWidget(bar);
    layout->addWidget(view, 1);
    if (below) layout->addWidget(below);
    return page;
  };
  m_patternView = new PixelImageView(this);
  m_patternView->setObjectName(QStringLiteral("patternView"));
  m_legend = new QLabel(this);
  m_legend->setObjectName(QStringLiteral("legend"));
  m_legend->setWordWrap(true);
  m_weightView = new PixelImageView(this);
  m_weightView->setObjectName(QStringLiteral("weightMaskView"));
  m_weightConnection = new QComboBox(this);
  m_weightConnection->setObjectName(QStringLiteral("weightConnection"));
  m_weightConnection->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_weightInfo = new QLabel(this);
  m_weightInfo->setObjectName(QStringLiteral("weightInfo"));
  m_weightInfo->setWordWrap(true);
  connect(m_weightConnection, &QComboBox::currentIndexChanged, this, [this] { scheduleUpdate(0); });
  m_tabs = new QTabWidget(this);
  m_tabs->addTab(withToolBar(m_patternView, m_legend, nullptr), QStringLiteral("I | D | M_n"));
  m_tabs->addTab(withToolBar(m_weightView, m_weightInfo, m_weightConnection),
                 QStringLiteral("Weight masks"));
  return m_tabs;
}

void MaskPanel::refreshNodeList() {
  QStringList labels;
  if (const auto& analysis = m_document->analysis()) {
    const std::vector<int> recurrent = snap::recurrentNodes(analysis->nodes);
    for (std::size_t k = 0; k < recurrent.size(); ++k)
      labels << nodeLabel(m_document->graph(), analysis->nodes[recurrent[k]], int(k) + 1);
  }
  QStringList current;
  for (int i = 0; i < m_node->count(); ++i) current << m_node->itemText(i);
  if (labels == current) return;
  const QSignalBlocker blocker(m_node);
  m_node->clear();
  m_node->addItems(labels);
  // The node chosen last stays chosen by its number, also across a spell of invalid graph.
  m_node->setCurrentIndex(labels.isEmpty() ? -1
                                           : std::clamp(m_chosenNode, 0, int(labels.size()) - 1));
}

void MaskPanel::refreshWeightList() {
  const Graph& graph = m_document->graph();
  QStringList ids;
  for (const Connection& c : graph.connections)
    if (c.isSparse()) ids << QString::fromStdString(c.id);
  QStringList current;
  for (int i = 0; i < m_weightConnection->count(); ++i) current << m_weightConnection->itemText(i);
  if (ids != current) {
    const QString previous = m_weightConnection->currentText();
    const QSignalBlocker blocker(m_weightConnection);
    m_weightConnection->clear();
    m_weightConnection->addItems(ids);
    m_weightConnection->setCurrentIndex(std::max(0, int(ids.indexOf(previous))));
  }
  m_tabs->setTabText(1, QStringLiteral("Weight masks (%1)").arg(ids.size()));
  if (ids.isEmpty()) {
    m_weightView->setImage(QImage());
    m_weightInfo->setText(
        QStringLiteral("No connection of this graph has a sparse mask (a "
                       "full connection with density < 1)."));
  }
}

bool MaskPanel::setCurrentNode(int index) {
  if (index < 0 || index >= m_node->count()) return false;
  m_node->setCurrentIndex(index);
  return true;
}

int MaskPanel::currentNode() const { return m_node->currentIndex(); }
int MaskPanel::recurrentNodeCount() const { return m_node->count(); }
void MaskPanel::setSnapLevel(int n) { m_level->setValue(n); }
void MaskPanel::setBpttLength(int frames) { m_bptt->setValue(frames); }
QString MaskPanel::message() const { return m_message->text(); }
bool MaskPanel::isComputing() const { return m_runner->isRunning(); }

bool MaskPanel::isUpToDate() const { return m_runner->isUpToDate(); }

void MaskPanel::scheduleUpdate(int delayMs) { m_runner->schedule(delayMs); }

void MaskPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  m_runner->ownerShown();
}

void MaskPanel::startComputation() {
  const auto& problems = m_document->problems();
  if (!problems.empty()) {
    QString text = QStringLiteral("Fix the problems first: %1")
                       .arg(QString::fromStdString(problems.front().message));
    if (problems.size() > 1) text += QStringLiteral(" (and %1 more)").arg(problems.size() - 1);
    showMessageOnly(text);
    m_weightView->setImage(QImage());
    emit updated();
    return;
  }
  MaskRequest request;
  request.graph = m_document->graph();
  request.recurrentIndex = m_node->currentIndex();
  request.level = m_level->value();
  request.bpttLength = m_bptt->value();
  if (m_weightConnection->count() > 0) {
    const std::string id = m_weightConnection->currentText().toStdString();
    const auto& connections = request.graph.connections;
    const auto found = std::find_if(connections.begin(), connections.end(),
                                    [&](const Connection& c) { return c.id == id; });
    if (found != connections.end()) request.weightConnection = int(found - connections.begin());
  }
  m_runner->started();
  m_message->setText(QStringLiteral("computing…"));
  m_watcher->setFuture(QtConcurrent::run(computeMasks, std::move(request)));
}

void MaskPanel::computationFinished() {
  if (m_runner->finished()) display(m_watcher->result());
}

void MaskPanel::showMessageOnly(const QString& text) {
  m_summary.reset();
  m_message->setText(text);
  m_figures->setRowCount(0);
  m_levels->setRowCount(0);
  m_figures->hide();
  m_levels->hide();
  m_patternView->setImage(QImage());
  m_legend->clear();
}

void MaskPanel::display(const MaskResult& result) {
  if (!result.error.isEmpty()) {
    showMessageOnly(result.error);
    emit updated();
    return;
  }
  if (!result.weightMask.image.isNull()) {
    const WeightMaskPicture& w = result.weightMask;
    m_weightView->setExportName(QStringLiteral("mask-") + m_weightConnection->currentText());
    m_weightView->setImage(w.image);
    m_weightInfo->setText(
        QStringLiteral("%1: %2 rows (to) × %3 columns (from); %4 of %5 weights "
                       "exist (density %6). Dark: the weight exists.")
            .arg(m_weightConnection->currentText())
            .arg(w.rows)
            .arg(w.columns)
            .arg(w.existing)
            .arg(qint64(w.rows) * w.columns)
            .arg(double(w.existing) / std::max(1.0, double(w.rows) * w.columns), 0, 'f', 4));
  }
  if (!result.summary || result.summary->refusal) {
    showMessageOnly(result.summary
                        ? QString::fromStdString(*result.summary->refusal)  // names it
                        : QStringLiteral("No recurrent node: the graph has no cycle, so RTRL "
                                         "carries nothing."));
    m_summary = result.summary;
    emit updated();
    return;
  }
  m_summary = result.summary;
  m_message->setText(QStringLiteral("Recurrent node %1 of %2.")
                         .arg(m_node->currentIndex() + 1)
                         .arg(m_node->count()));
  fillFigureTable(m_figures, result);
  fillLevelTable(m_levels, result);
  m_figures->show();
  m_levels->show();
  m_patternView->setExportName(QStringLiteral("snap-node%1").arg(m_node->currentIndex() + 1));
  m_patternView->setImage(result.patterns);
  m_patternView->setDescriber(
      [hover = result.hover](QPoint pixel) { return hover ? hover->describe(pixel) : QString(); });
  m_legend->setText(patternLegend(result, m_level->value()));
  emit updated();
}

}  // namespace rnnwb::ui

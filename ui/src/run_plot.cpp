#include "rnnwb/ui/run_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMap>
#include <QResizeEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include "rnnwb/core/train/metric_table.hpp"
#include "rnnwb/ui/metric_card.hpp"
#include "rnnwb/ui/metric_group.hpp"

namespace rnnwb::ui {

namespace {

// Tableau's ten colours: distinct on screen and in print, on light and dark backgrounds.
QColor runColorAt(int index) {
  static const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return QColor(QLatin1String(kColors[index % 10]));
}

/// A stable hash of a run's name (FNV-1a of its UTF-8), the same in every session: qHash is
/// seeded per process.
std::uint32_t nameHash(const QString& name) {
  std::uint32_t hash = 2166136261u;
  for (const char byte : name.toUtf8())
    hash = (hash ^ static_cast<unsigned char>(byte)) * 16777619u;
  return hash;
}

const QStringList& ownMetricOrder() {
  static const QStringList kOrder = {
      QStringLiteral("train_loss"), QStringLiteral("valid_loss"), QStringLiteral("train_bpc"),
      QStringLiteral("valid_bpc"),  QStringLiteral("cer"),        QStringLiteral("wer"),
      QStringLiteral("grad_norm"),  QStringLiteral("lr"),         QStringLiteral("frames_per_s")};
  return kOrder;
}

/// Sorts metrics as the cards show them: the trainer's own first, in its order, then by name.
bool shownBefore(const QString& a, const QString& b) {
  const auto rank = [](const QString& m) {
    const int own = static_cast<int>(ownMetricOrder().indexOf(m));
    return own < 0 ? 100 : own;
  };
  return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
}

int groupRank(const QString& group) {
  static const QStringList kGroups = {QStringLiteral("Loss"), QStringLiteral("Error rates"),
                                      QStringLiteral("Optimizer"), QStringLiteral("Speed")};
  const int own = static_cast<int>(kGroups.indexOf(group));
  return own < 0 ? (group == QStringLiteral("Other") ? 1000 : 100) : own;
}

constexpr int kCardWidth = 420;  // a column per this many pixels of width

}  // namespace

QString metricGroupName(const QString& metric) {
  // Named, not by place in ownMetricOrder(): cer and wer once pushed lr into Speed.
  static const QMap<QString, QString> kOwnGroup = {
      {QStringLiteral("train_loss"), QStringLiteral("Loss")},
      {QStringLiteral("valid_loss"), QStringLiteral("Loss")},
      {QStringLiteral("train_bpc"), QStringLiteral("Loss")},
      {QStringLiteral("valid_bpc"), QStringLiteral("Loss")},
      {QStringLiteral("cer"), QStringLiteral("Error rates")},
      {QStringLiteral("wer"), QStringLiteral("Error rates")},
      {QStringLiteral("grad_norm"), QStringLiteral("Optimizer")},
      {QStringLiteral("lr"), QStringLiteral("Optimizer")},
      {QStringLiteral("frames_per_s"), QStringLiteral("Speed")}};
  if (const auto own = kOwnGroup.find(metric); own != kOwnGroup.end()) return *own;
  const int slash = static_cast<int>(metric.indexOf(QLatin1Char('/')));
  return slash > 0 ? metric.left(slash) : QStringLiteral("Other");
}

RunPlot::RunPlot(QWidget* parent) : QWidget(parent) {
  m_legend = new QLabel;
  m_legend->setWordWrap(true);
  m_legend->setTextFormat(Qt::RichText);
  m_content = new QWidget;
  m_groupsLayout = new QVBoxLayout(m_content);
  m_groupsLayout->setContentsMargins(0, 0, 0, 0);
  m_groupsLayout->addStretch(1);
  m_scroll = new QScrollArea;
  m_scroll->setWidget(m_content);
  m_scroll->setWidgetResizable(true);
  m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_scroll->setFrameShape(QFrame::NoFrame);
  // The readout is a window of its own beside the cursor: cards scrolled under a still mouse
  // leave it describing a point no longer there (the next mouse move shows the new one).
  connect(m_scroll->verticalScrollBar(), &QScrollBar::valueChanged, this, [this] {
    for (const auto& [id, card] : m_cards) card->hideHover();
  });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(createControls());
  layout->addWidget(m_scroll, 1);
  // The legend scrolls with the cards: at 1280×720 every line of the dock's height goes to them.
  m_groupsLayout->insertWidget(0, m_legend);
  setMinimumSize(360, 150);
  updateLegend();
}

RunPlot::~RunPlot() = default;

QWidget* RunPlot::createControls() {
  m_smoothing = new QSlider(Qt::Horizontal);
  m_smoothing->setRange(0, 999);
  m_smoothing->setValue(600);
  m_smoothing->setToolTip(
      QStringLiteral("Smoothing: TensorBoard's exponential moving average "
                     "(debiased); the raw curve is drawn faint behind"));
  m_smoothingValue = new QDoubleSpinBox;
  m_smoothingValue->setRange(0.0, 0.999);
  m_smoothingValue->setDecimals(3);
  m_smoothingValue->setSingleStep(0.05);
  m_smoothingValue->setValue(0.6);
  // Taken on Enter (or leaving the box), not per keystroke: setSmoothing writes the value back,
  // which would reformat a half-typed "0." into "0.000".
  m_smoothingValue->setKeyboardTracking(false);
  connect(m_smoothing, &QSlider::valueChanged, this,
          [this](int value) { setSmoothing(value / 1000.0); });
  connect(m_smoothingValue, &QDoubleSpinBox::valueChanged, this, &RunPlot::setSmoothing);
  m_axisChoice = new QComboBox;
  m_axisChoice->addItems(
      {QStringLiteral("step"), QStringLiteral("relative"), QStringLiteral("wall time")});
  m_axisChoice->setItemData(0, QStringLiteral("The update step"), Qt::ToolTipRole);
  m_axisChoice->setItemData(1,
                            QStringLiteral("The run's training time (wall_s: its sessions' "
                                           "seconds, pauses between them left out)"),
                            Qt::ToolTipRole);
  m_axisChoice->setToolTip(
      QStringLiteral("The x axis of every plot. On a plot, drag or wheel "
                     "moves or zooms x (all plots); a double click follows "
                     "the data again"));
  // Never narrower than "wall time": squeezed by the dock's buttons it read "wall tir".
  m_axisChoice->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_axisChoice->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
  connect(m_axisChoice, &QComboBox::currentIndexChanged, this,
          [this](int index) { setXAxis(static_cast<XAxis>(index)); });
  auto* bar = m_controls = new QWidget;
  auto* layout = new QHBoxLayout(bar);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(QStringLiteral("Smoothing")));
  m_smoothing->setMinimumWidth(80);
  layout->addWidget(m_smoothing, 1);
  layout->addWidget(m_smoothingValue);
  layout->addSpacing(12);
  layout->addWidget(new QLabel(QStringLiteral("x")));
  layout->addWidget(m_axisChoice);
  layout->addStretch(1);
  updateWallChoice();
  return bar;
}

QColor RunPlot::colorFor(const QString& name) const {
  // The name picks the colour, so a run keeps it between sessions; a colour another run shown
  // already has passes to the next free one.
  const int preferred = static_cast<int>(nameHash(name) % 10);
  for (int offset = 0; offset < 10; ++offset) {
    const QColor color = runColorAt(preferred + offset);
    const bool taken = std::any_of(m_runs.begin(), m_runs.end(),
                                   [&](const auto& run) { return run.second.color == color; });
    if (!taken) return color;
  }
  return runColorAt(preferred);
}

QColor RunPlot::addRun(const QString& key, const QString& label) {
  auto found = m_runs.find(key);
  if (found == m_runs.end()) {
    Run run;
    run.color = colorFor(label);
    run.records = std::make_shared<const std::vector<train::MetricsRecord>>();
    found = m_runs.emplace(key, std::move(run)).first;
  }
  found->second.label = label;
  for (auto& [metric, card] : m_cards)
    if (card->hasRun(key)) card->setRun(key, label, found->second.color, found->second.records);
  updateLegend();
  return found->second.color;
}

void RunPlot::removeRun(const QString& key) {
  if (m_runs.erase(key) == 0) return;
  for (auto& [metric, card] : m_cards) card->removeRun(key);
  dropEmptyCards();
  updateLegend();
  updateWallChoice();
  followData();
}

void RunPlot::setRecords(const QString& key, const std::vector<train::MetricsRecord>& records) {
  const auto found = m_runs.find(key);
  if (found == m_runs.end()) return;
  Run& run = found->second;
  // `records` may be the vector run.records held until this line (setRunTask): read the copy.
  run.records = std::make_shared<const std::vector<train::MetricsRecord>>(records);
  QStringList ids;
  for (const std::string& name : train::metricNames(*run.records)) {
    MetricCard* card = ensureCard(QString::fromStdString(name), run.task);
    card->setRun(key, run.label, run.color, run.records);
    card->setRunVisible(key, run.visible);
    ids << card->id();
  }
  // A metric the run no longer has (its file replaced by a resume) leaves its card.
  for (auto& [id, card] : m_cards)
    if (card->hasRun(key) && !ids.contains(id)) card->removeRun(key);
  dropEmptyCards();
  updateWallChoice();
  followData();
}

void RunPlot::setRunTask(const QString& key, const QString& task) {
  const auto found = m_runs.find(key);
  if (found == m_runs.end() || found->second.task == task) return;
  found->second.task = task;
  const auto records = found->second.records;  // kept alive: setRecords replaces the member
  setRecords(key, *records);                   // onto its task's cards (and off the others)
}

MetricCard* RunPlot::ensureCard(const QString& metric, const QString& task) {
  const QString id = MetricCard::cardId(metric, task);
  if (const auto found = m_cards.find(id); found != m_cards.end()) return found->second;
  auto* card = new MetricCard(metric, task);
  card->setFixedHeight(cardHeight());
  card->setSmoothing(m_smoothingWeight);
  card->setXAxis(m_axis);
  m_cards[id] = card;
  connect(card, &MetricCard::xRangeChangedByUser, this, &RunPlot::onUserMovedX);
  connect(card, &MetricCard::followRequested, this, [this] {
    m_follow = true;
    followData();
  });
  const QString name = metricGroupName(metric);
  auto groupAt = std::find_if(m_groups.begin(), m_groups.end(),
                              [&](MetricGroup* g) { return g->name() == name; });
  if (groupAt == m_groups.end()) {
    auto* group = new MetricGroup(name);
    group->setColumns(std::max(1, m_scroll->viewport()->width() / kCardWidth));
    groupAt = std::find_if(m_groups.begin(), m_groups.end(), [&](MetricGroup* g) {
      const int a = groupRank(name), b = groupRank(g->name());
      return a != b ? a < b : name < g->name();
    });
    const int index = static_cast<int>(groupAt - m_groups.begin()) + 1;  // after the legend
    groupAt = m_groups.insert(groupAt, group);
    m_groupsLayout->insertWidget(index, group);
  }
  MetricGroup* group = *groupAt;
  const auto& cards = group->cards();
  const auto before = std::find_if(cards.begin(), cards.end(), [&](MetricCard* other) {
    return other->metric() == metric ? task < other->task() : shownBefore(metric, other->metric());
  });
  group->insertCard(static_cast<int>(before - cards.begin()), card);
  return card;
}

void RunPlot::dropEmptyCards() {
  for (auto it = m_cards.begin(); it != m_cards.end();) {
    if (!it->second->isEmpty()) {
      ++it;
      continue;
    }
    for (MetricGroup* group : m_groups) group->takeCard(it->second);
    delete it->second;
    it = m_cards.erase(it);
  }
  for (auto it = m_groups.begin(); it != m_groups.end();) {
    if (!(*it)->cards().empty()) {
      ++it;
      continue;
    }
    delete *it;
    it = m_groups.erase(it);
  }
}

void RunPlot::followData() {
  if (m_follow) {
    // Each task's cards show the x range of its shown runs (the same on all of them, so that
    // they compare like with like); another task's runs do not stretch them.
    std::map<QString, std::pair<double, double>> ranges;
    for (const auto& [id, card] : m_cards) {
      double low = 0, high = 0;
      if (!card->dataXRange(&low, &high)) continue;
      const auto [at, added] = ranges.emplace(card->task(), std::pair{low, high});
      if (!added) at->second = {std::min(at->second.first, low), std::max(at->second.second, high)};
    }
    for (const auto& [id, card] : m_cards)
      if (const auto range = ranges.find(card->task()); range != ranges.end())
        card->setXRange(range->second.first,
                        std::max(range->second.second, range->second.first + 1));
  }
  for (const auto& [id, card] : m_cards) card->fitY();
  // A card none of whose runs is shown (the filter, the check boxes) leaves the grid.
  for (MetricGroup* group : m_groups) group->refresh();
}

void RunPlot::onUserMovedX(double lower, double upper) {
  m_follow = false;
  for (const auto& [metric, card] : m_cards)
    if (card != sender()) card->setXRange(lower, upper);
}

void RunPlot::setRunVisible(const QString& key, bool visible) {
  const auto found = m_runs.find(key);
  if (found == m_runs.end()) return;
  found->second.visible = visible;
  for (const auto& [metric, card] : m_cards) card->setRunVisible(key, visible);
  updateLegend();
  followData();
}

bool RunPlot::isRunVisible(const QString& key) const {
  const auto found = m_runs.find(key);
  return found != m_runs.end() && found->second.visible;
}

QColor RunPlot::runColor(const QString& key) const {
  const auto found = m_runs.find(key);
  return found == m_runs.end() ? QColor() : found->second.color;
}

bool RunPlot::runHasWallTime(const QString& key) const {
  const auto found = m_runs.find(key);
  return found != m_runs.end() && hasWallTime(*found->second.records);
}

QStringList RunPlot::metrics() const {
  QStringList out;
  for (const MetricGroup* group : m_groups)
    for (const MetricCard* card : group->cards()) out << card->id();
  return out;
}

MetricCard* RunPlot::card(const QString& id) const {
  const auto found = m_cards.find(id);
  return found == m_cards.end() ? nullptr : found->second;
}

MetricGroup* RunPlot::group(const QString& name) const {
  for (MetricGroup* group : m_groups)
    if (group->name() == name) return group;
  return nullptr;
}

QStringList RunPlot::groupNames() const {
  QStringList out;
  for (const MetricGroup* group : m_groups) out << group->name();
  return out;
}

int RunPlot::pointCount(const QString& key, const QString& metric) const {
  const auto run = m_runs.find(key);
  const MetricCard* shown =
      run == m_runs.end() ? nullptr : card(MetricCard::cardId(metric, run->second.task));
  return shown ? shown->pointCount(key) : 0;
}

double RunPlot::lastValue(const QString& key, const QString& metric) const {
  const auto run = m_runs.find(key);
  const MetricCard* shown =
      run == m_runs.end() ? nullptr : card(MetricCard::cardId(metric, run->second.task));
  return shown ? shown->lastValue(key) : std::numeric_limits<double>::quiet_NaN();
}

void RunPlot::setSmoothing(double weight) {
  weight = std::clamp(weight, 0.0, 0.999);
  if (weight == m_smoothingWeight && m_smoothingValue->value() == weight) return;
  m_smoothingWeight = weight;
  {
    const QSignalBlocker a(m_smoothing), b(m_smoothingValue);
    m_smoothing->setValue(static_cast<int>(std::lround(weight * 1000)));
    m_smoothingValue->setValue(weight);
  }
  for (const auto& [metric, card] : m_cards) card->setSmoothing(weight);
  followData();
}

void RunPlot::setXAxis(XAxis axis) {
  if (axis == m_axis && m_axisChoice->currentIndex() == static_cast<int>(axis)) return;
  m_axis = axis;
  {
    const QSignalBlocker blocker(m_axisChoice);
    m_axisChoice->setCurrentIndex(static_cast<int>(axis));
  }
  for (const auto& [metric, card] : m_cards) card->setXAxis(axis);
  m_follow = true;  // another axis: the old range means nothing on it
  followData();
  emit xAxisChanged(axis);
}

}  // namespace rnnwb::ui

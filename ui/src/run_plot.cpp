#include "rnnwb/ui/run_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <QFileInfo>
#include <QSvgGenerator>
#include <QVBoxLayout>

#include <qcustomplot.h>

namespace rnnwb::ui {

namespace {

using Series = RunPlot::Series;

constexpr Series kAllSeries[] = {Series::TrainLoss,    Series::ValidLoss,  Series::GradNorm,
                                 Series::LearningRate, Series::FramesPerS, Series::Cer};

/// The axis a series' values go on: the loss plot's right axis for the CER, else the left one.
QCPAxis* valueAxis(QCPAxisRect* rect, Series series) {
  return rect->axis(series == Series::Cer ? QCPAxis::atRight : QCPAxis::atLeft);
}

// Tableau's ten colours: distinct on screen and in print.
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

/// The value a series plots for one record, NaN when the record has none.
double valueOf(const train::MetricsRecord& r, Series series, RunPlot::LossUnit unit) {
  const double none = std::numeric_limits<double>::quiet_NaN();
  const bool bits = unit == RunPlot::LossUnit::BitsPerChar;
  switch (series) {
    case Series::TrainLoss:
      return bits ? r.trainBpc.value_or(none) : r.trainLoss;
    case Series::ValidLoss:
      return bits ? r.validBpc.value_or(none) : r.validLoss.value_or(none);
    case Series::GradNorm:
      return r.gradNorm;
    case Series::LearningRate:
      return r.lr > 0 ? r.lr : none;
    case Series::FramesPerS:
      return r.framesPerS;
    case Series::Cer:
      return r.cer.value_or(none);
  }
  return none;
}

/// Fits a value axis to its visible graphs with a margin, so that no line runs along the frame
/// (a constant learning rate would); leaves an axis without data alone.
void fitValueAxis(QCPAxis* axis) {
  QCPRange range;
  bool any = false;
  for (QCPGraph* graph : axis->graphs()) {
    bool ok = false;
    const QCPRange r = graph->visible() ? graph->getValueRange(ok) : QCPRange();
    if (!ok) continue;
    range = any ? QCPRange(std::min(range.lower, r.lower), std::max(range.upper, r.upper)) : r;
    any = true;
  }
  if (!any) return;
  if (axis->scaleType() == QCPAxis::stLogarithmic) {
    axis->setRange(range.lower / 1.5, range.upper * 1.5);
    return;
  }
  const double pad = std::max(range.size() * 0.08, std::abs(range.upper) * 0.02 + 1e-9);
  axis->setRange(range.lower - pad, range.upper + pad);
}

}  // namespace

RunPlot::RunPlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot);
  setMinimumSize(360, 260);
  createAxes();
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  connect(m_plot, &QCustomPlot::mousePress, this, [this] { m_follow = false; });
  connect(m_plot, &QCustomPlot::mouseWheel, this, [this] { m_follow = false; });
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] {
    m_follow = true;
    refreshAxes();
  });
}

void RunPlot::createAxes() {
  // The loss gets the default axis rect; the others go in a row below (the legend goes above).
  QCPAxisRect* loss = m_plot->axisRect();
  auto* row = new QCPLayoutGrid;
  m_plot->plotLayout()->addElement(1, 0, row);
  m_plot->plotLayout()->setRowStretchFactors({3.0, 2.0});
  m_rects[Series::TrainLoss] = m_rects[Series::ValidLoss] = m_rects[Series::Cer] = loss;
  QCPAxis* cer = loss->axis(QCPAxis::atRight);
  cer->setLabel(QStringLiteral("CER (valid, dotted)"));
  cer->setVisible(false);  // until a run reports one
  auto* group = new QCPMarginGroup(m_plot);
  loss->setMarginGroup(QCP::msLeft, group);
  const std::pair<Series, QString> small[] = {{Series::GradNorm, QStringLiteral("grad norm")},
                                              {Series::LearningRate, QStringLiteral("lr")},
                                              {Series::FramesPerS, QStringLiteral("frames/s")}};
  int column = 0;
  for (const auto& [series, label] : small) {
    auto* rect = new QCPAxisRect(m_plot);
    row->addElement(0, column, rect);
    rect->axis(QCPAxis::atLeft)->setLabel(label);
    rect->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("step"));
    rect->axis(QCPAxis::atLeft)->ticker()->setTickCount(4);
    rect->axis(QCPAxis::atBottom)->ticker()->setTickCount(3);
    rect->setRangeZoom(Qt::Horizontal);
    rect->setRangeDrag(Qt::Horizontal);
    if (column == 0) rect->setMarginGroup(QCP::msLeft, group);
    m_rects[series] = rect;
    ++column;
  }
  QCPAxis* lr = m_rects[Series::LearningRate]->axis(QCPAxis::atLeft);
  lr->setScaleType(QCPAxis::stLogarithmic);
  lr->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  lr->setNumberFormat(QStringLiteral("g"));
  lr->setNumberPrecision(2);
  loss->axis(QCPAxis::atBottom)->setLabel(QStringLiteral("step"));
  loss->setRangeZoom(Qt::Horizontal);
  loss->setRangeDrag(Qt::Horizontal);
  setLossUnit(LossUnit::Nats);
  // Every step axis shows the same steps, so that a zoom compares like with like.
  for (const auto& [series, rect] : m_rects) {
    QCPAxis* steps = rect->axis(QCPAxis::atBottom);
    connect(steps, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this, steps](const QCPRange& range) {
              for (const auto& [other, otherRect] : m_rects)
                if (otherRect->axis(QCPAxis::atBottom) != steps)
                  otherRect->axis(QCPAxis::atBottom)->setRange(range);
              m_plot->replot(QCustomPlot::rpQueuedReplot);
            });
  }
  // A key to the line styles first, then one entry per run.
  for (const bool valid : {false, true}) {
    QCPGraph* key = m_plot->addGraph(loss->axis(QCPAxis::atBottom), loss->axis(QCPAxis::atLeft));
    key->setName(valid ? QStringLiteral("valid") : QStringLiteral("train"));
    key->setPen(QPen(Qt::darkGray, 1.4, valid ? Qt::DashLine : Qt::SolidLine));
    if (valid) key->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
  }
  m_plot->legend->setVisible(true);
  m_plot->legend->setFont(font());
  // The legend has a row of its own above the plots, its entries side by side and wrapping: it
  // never covers data or tick labels, however many runs there are (issue #14, defect 4).
  m_plot->plotLayout()->insertRow(0);
  m_plot->plotLayout()->addElement(0, 0, m_plot->legend);  // out of the loss axes' inset
  m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  m_plot->legend->setWrap(6);
  m_plot->legend->setMargins(QMargins(6, 2, 6, 2));
  m_plot->plotLayout()->setRowStretchFactors({0.001, 3.0, 2.0});
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
    RunGraphs run;
    run.color = colorFor(label);
    for (Series series : kAllSeries) {
      QCPAxisRect* rect = m_rects.at(series);
      QCPGraph* graph = m_plot->addGraph(rect->axis(QCPAxis::atBottom), valueAxis(rect, series));
      QPen pen(run.color, series == Series::TrainLoss ? 1.6 : 1.2);
      if (series == Series::ValidLoss || series == Series::Cer) {
        pen.setStyle(series == Series::Cer ? Qt::DotLine : Qt::DashLine);
        graph->setScatterStyle(QCPScatterStyle(
            series == Series::Cer ? QCPScatterStyle::ssSquare : QCPScatterStyle::ssDisc, 5));
      }
      graph->setPen(pen);
      if (series != Series::TrainLoss) graph->removeFromLegend();
      run.graphs[series] = graph;
    }
    found = m_runs.emplace(key, std::move(run)).first;
  }
  found->second.graphs.at(Series::TrainLoss)->setName(label);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
  return found->second.color;
}

void RunPlot::removeRun(const QString& key) {
  const auto found = m_runs.find(key);
  if (found == m_runs.end()) return;
  for (const auto& [series, graph] : found->second.graphs) m_plot->removeGraph(graph);
  m_runs.erase(found);
  refreshAxes();
}

void RunPlot::setRecords(const QString& key, const std::vector<train::MetricsRecord>& records) {
  const auto found = m_runs.find(key);
  if (found == m_runs.end()) return;
  const bool hadBpc = anyRunHasBpc();
  found->second.records = records;
  fillGraphs(found->second);
  if (anyRunHasBpc() != hadBpc) emit lossUnitAvailable(!hadBpc);
  refreshAxes();
}

void RunPlot::fillGraphs(RunGraphs& run) {
  for (const auto& [series, graph] : run.graphs) {
    QVector<double> steps, values;
    steps.reserve(static_cast<int>(run.records.size()));
    values.reserve(static_cast<int>(run.records.size()));
    for (const train::MetricsRecord& record : run.records) {
      const double value = valueOf(record, series, m_unit);
      // Missing values are left out rather than drawn as gaps, so that the valid loss, measured
      // every few reports, is one connected line.
      if (std::isnan(value)) continue;
      steps.push_back(static_cast<double>(record.step));
      values.push_back(value);
    }
    graph->setData(steps, values, true);
  }
}

void RunPlot::refreshAxes() {
  if (m_follow) {
    // The step range of the visible runs, the same on every plot.
    QCPRange steps;
    bool any = false;
    for (const auto& [key, run] : m_runs)
      for (const auto& [series, graph] : run.graphs) {
        bool ok = false;
        const QCPRange r = graph->visible() ? graph->getKeyRange(ok) : QCPRange();
        if (!ok) continue;
        steps = any ? QCPRange(std::min(steps.lower, r.lower), std::max(steps.upper, r.upper)) : r;
        any = true;
      }
    for (const auto& [series, rect] : m_rects) {
      if (any)
        rect->axis(QCPAxis::atBottom)
            ->setRange(steps.lower, std::max(steps.upper, steps.lower + 1));
      fitValueAxis(valueAxis(rect, series));
    }
    // An error rate reads against its whole scale: 0 to 1 (more only if insertions take it there).
    QCPAxis* cer = m_rects.at(Series::Cer)->axis(QCPAxis::atRight);
    cer->setRange(0.0, std::max(1.05, cer->range().upper));
  }
  bool anyCer = false;
  for (const auto& [key, run] : m_runs)
    anyCer = anyCer ||
             (run.graphs.at(Series::Cer)->visible() && run.graphs.at(Series::Cer)->dataCount() > 0);
  m_rects.at(Series::Cer)->axis(QCPAxis::atRight)->setVisible(anyCer);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void RunPlot::setRunVisible(const QString& key, bool visible) {
  const auto found = m_runs.find(key);
  if (found == m_runs.end()) return;
  for (const auto& [series, graph] : found->second.graphs) graph->setVisible(visible);
  // A hidden run leaves the legend too, so that the legend says what is drawn.
  QCPGraph* named = found->second.graphs.at(Series::TrainLoss);
  if (visible)
    named->addToLegend();
  else
    named->removeFromLegend();
  refreshAxes();
}

bool RunPlot::isRunVisible(const QString& key) const {
  const auto found = m_runs.find(key);
  return found != m_runs.end() && found->second.graphs.at(Series::TrainLoss)->visible();
}

QColor RunPlot::runColor(const QString& key) const {
  const auto found = m_runs.find(key);
  return found == m_runs.end() ? QColor() : found->second.color;
}

void RunPlot::setLossUnit(LossUnit unit) {
  m_unit = unit;
  m_rects.at(Series::TrainLoss)
      ->axis(QCPAxis::atLeft)
      ->setLabel(unit == LossUnit::Nats ? QStringLiteral("loss (nats per frame)")
                                        : QStringLiteral("loss (bits per char)"));
  for (auto& [key, run] : m_runs) fillGraphs(run);
  refreshAxes();
}

bool RunPlot::anyRunHasBpc() const {
  for (const auto& [key, run] : m_runs)
    for (const train::MetricsRecord& record : run.records)
      if (record.trainBpc) return true;
  return false;
}

QCPGraph* RunPlot::graphFor(const RunGraphs& run, Series series) const {
  return run.graphs.at(series);
}

int RunPlot::pointCount(const QString& key, Series series) const {
  const auto found = m_runs.find(key);
  return found == m_runs.end() ? 0 : graphFor(found->second, series)->dataCount();
}

double RunPlot::lastValue(const QString& key, Series series) const {
  const auto found = m_runs.find(key);
  if (found == m_runs.end()) return std::numeric_limits<double>::quiet_NaN();
  const QCPGraph* graph = graphFor(found->second, series);
  if (graph->dataCount() == 0) return std::numeric_limits<double>::quiet_NaN();
  return (graph->data()->constEnd() - 1)->value;
}

bool RunPlot::exportPng(const QString& path, QString* error) const {
  // The widget's own size (the plot fills it), which holds even while the dock is closed.
  if (m_plot->savePng(path, width(), height(), 2.0)) return true;
  *error = QStringLiteral("Cannot write %1").arg(path);
  return false;
}

bool RunPlot::exportSvg(const QString& path, QString* error) const {
  QFile probe(path);
  if (!probe.open(QIODevice::WriteOnly)) {
    *error = QStringLiteral("Cannot write %1: %2").arg(path, probe.errorString());
    return false;
  }
  probe.close();
  const int width = this->width(), height = this->height();
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(QSize(width, height));
  generator.setViewBox(QRect(0, 0, width, height));
  generator.setTitle(QStringLiteral("RNN Workbench training runs"));
  QCPPainter painter;
  if (!painter.begin(&generator)) {
    *error = QStringLiteral("Cannot write %1").arg(path);
    return false;
  }
  m_plot->toPainter(&painter, width, height);
  painter.end();
  return true;
}

}  // namespace rnnwb::ui

#include "rnnwb/ui/metric_card.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QAbstractScrollArea>
#include <QApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <qcustomplot.h>

#include "wall_ticker.hpp"

namespace rnnwb::ui {

namespace {

QSharedPointer<QCPAxisTicker> xTicker(XAxis axis) {
  if (axis == XAxis::Relative) {
    auto time = QSharedPointer<QCPAxisTickerTime>::create();
    time->setTimeFormat(QStringLiteral("%h:%m:%s"));
    return time;
  }
  if (axis == XAxis::Wall) return QSharedPointer<WallTicker>::create();
  return QSharedPointer<QCPAxisTicker>::create();
}

/// Only the training time's axis is labelled: steps and clock times read as what they are, and a
/// low dock (a 720-pixel screen) keeps the line for the plot.
QString xLabel(XAxis axis) {
  return axis == XAxis::Relative ? QStringLiteral("training time (h:m:s)") : QString();
}

}  // namespace

QString metricTitle(const QString& metric) {
  static const QMap<QString, QString> kMeaning = {
      {QStringLiteral("train_loss"), QStringLiteral("training loss per frame")},
      {QStringLiteral("valid_loss"), QStringLiteral("validation loss per frame")},
      {QStringLiteral("train_bpc"), QStringLiteral("bits per character")},
      {QStringLiteral("valid_bpc"), QStringLiteral("bits per character, validation")},
      {QStringLiteral("cer"), QStringLiteral("character error rate, validation")},
      {QStringLiteral("wer"), QStringLiteral("word error rate, validation")},
      {QStringLiteral("grad_norm"), QStringLiteral("gradient norm before clipping")},
      {QStringLiteral("lr"), QStringLiteral("learning rate")},
      {QStringLiteral("frames_per_s"), QStringLiteral("training throughput")}};
  const QString meaning = kMeaning.value(metric);
  return meaning.isEmpty() ? metric : QStringLiteral("%1 · %2").arg(metric, meaning);
}

QString MetricCard::cardId(const QString& metric, const QString& task) {
  return task.isEmpty() ? metric : metric + QStringLiteral(" · ") + task;
}

QString MetricCard::title() const {
  // A words run's loss is the ctc loss of a word (the mean over a batch's words), not per frame.
  const bool wordLoss =
      m_task == QLatin1String("words") &&
      (m_metric == QLatin1String("train_loss") || m_metric == QLatin1String("valid_loss"));
  const QString title = wordLoss ? QStringLiteral("%1 · %2 ctc loss per word")
                                       .arg(m_metric, m_metric == QLatin1String("train_loss")
                                                          ? QStringLiteral("training")
                                                          : QStringLiteral("validation"))
                                 : metricTitle(m_metric);
  if (m_task.isEmpty()) return title;
  const int dot = static_cast<int>(title.indexOf(QStringLiteral(" · ")));
  return dot < 0 ? QStringLiteral("%1 (%2)").arg(title, m_task)
                 : QStringLiteral("%1 (%2)%3").arg(title.left(dot), m_task, title.mid(dot));
}

MetricCard::MetricCard(const QString& metric, const QString& task, QWidget* parent)
    : QFrame(parent), m_metric(metric), m_task(task), m_plot(new QCustomPlot), m_note(new QLabel) {
  setFrameShape(QFrame::StyledPanel);
  setMinimumSize(300, 150);
  m_plot->setMouseTracking(true);
  m_plot->installEventFilter(this);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
  m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
  m_plot->xAxis->setTicker(xTicker(m_axis));
  m_plot->xAxis->setLabel(xLabel(m_axis));
  m_plot->yAxis->ticker()->setTickCount(5);
  m_readout = new PlotReadout(m_plot);
  m_cursorLine = new QCPItemStraightLine(m_plot);
  m_cursorLine->setLayer(QStringLiteral("overlay"));  // a buffered layer: moving it is cheap
  m_cursorLine->setVisible(false);
  m_note->setWordWrap(true);
  m_note->setForegroundRole(QPalette::PlaceholderText);
  m_note->hide();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  layout->setSpacing(0);
  layout->addWidget(createTitleRow());
  layout->addWidget(m_plot, 1);
  layout->addWidget(m_note);
  styleAxes();
  if (metric == QStringLiteral("lr")) setLogScale(true);  // schedules halve: log reads them
  connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          [this](const QCPRange& range) {
            if (!m_settingRange) emit xRangeChangedByUser(range.lower, range.upper);
          });
  connect(m_plot, &QCustomPlot::mouseMove, this,
          [this](QMouseEvent* event) { hoverAt(event->pos()); });
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { emit followRequested(); });
}

QWidget* MetricCard::createTitleRow() {
  auto* title = new QLabel(QStringLiteral("<b>%1</b>").arg(this->title().toHtmlEscaped()));
  title->setToolTip(QStringLiteral("metrics.jsonl key %1").arg(m_metric));
  m_log = new QToolButton;
  m_log->setText(QStringLiteral("log y"));
  m_log->setCheckable(true);
  m_log->setToolTip(QStringLiteral("Logarithmic y axis (values <= 0 are left out)"));
  connect(m_log, &QToolButton::toggled, this, &MetricCard::setLogScale);
  auto* csv = new QToolButton;
  csv->setText(QStringLiteral("CSV…"));
  csv->setObjectName(QStringLiteral("csvButton"));
  csv->setToolTip(
      QStringLiteral("Save the shown runs' raw values as CSV (step, a column per run, "
                     "wall times)"));
  auto* row = new QWidget;
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(2, 0, 2, 0);
  layout->addWidget(title, 1);
  layout->addWidget(m_log);
  layout->addWidget(csv);
  connect(csv, &QToolButton::clicked, this, [this] {
    const QString path = csvPathFromUser();
    QString error;
    if (!path.isEmpty() && !exportCsv(path, &error)) showCsvError(error);
  });
  return row;
}

void MetricCard::styleAxes() {
  // From the palette, so that a dark theme gives dark plots.
  const QPalette p = palette();
  m_plot->setBackground(p.brush(QPalette::Base));
  const QColor text = p.color(QPalette::Text);
  QColor grid = p.color(QPalette::Mid);
  grid.setAlpha(110);
  for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
    axis->setBasePen(QPen(text, 1));
    axis->setTickPen(QPen(text, 1));
    axis->setSubTickPen(QPen(text, 1));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
  }
  QColor line = text;
  line.setAlpha(150);
  m_cursorLine->setPen(QPen(line, 1, Qt::DashLine));
  for (auto& [key, run] : m_runs) applyColours(run);  // the faint curves mix in the background
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MetricCard::setRun(const QString& key, const QString& label, const QColor& color,
                        SharedRecords records) {
  auto found = m_runs.find(key);
  if (found == m_runs.end()) {
    RunCurves run;
    run.raw = m_plot->addGraph();
    run.smoothed = m_plot->addGraph();
    found = m_runs.emplace(key, std::move(run)).first;
  }
  RunCurves& run = found->second;
  run.label = label;
  run.color = color;
  run.records = std::move(records);
  rebuild(run);
  applyColours(run);
  updateNote();
}

void MetricCard::applyColours(RunCurves& run) {
  // TensorBoard draws the raw curve faint behind the smoothed one. Faint by mixing the colour
  // into the background, not by transparency: a translucent pen makes QPainter stroke a long
  // zigzag as one self-intersecting path, seconds for a few thousand points.
  const QColor base = palette().color(QPalette::Base);
  const auto mix = [&](int c, int b) { return (c * 35 + b * 65) / 100; };
  const QColor faint(mix(run.color.red(), base.red()), mix(run.color.green(), base.green()),
                     mix(run.color.blue(), base.blue()));
  run.raw->setPen(QPen(faint, 1.0));
  // A pen wider than one pixel makes Qt stroke the whole polyline as one outline: 10 s for 20,000
  // points (8 curves); one-pixel lines take 25 ms. Long series get the fast pen.
  run.smoothed->setPen(QPen(run.color, run.series.size() > 1500 ? 1.0 : 1.5));
}

void MetricCard::rebuild(RunCurves& run) {
  run.series = buildSeries(*run.records, m_metric.toStdString(), m_axis, m_smoothing);
  const bool log = logScale();
  QVector<double> rawX, rawY, smoothX, smoothY;
  run.dropped = 0;
  for (std::size_t i = 0; i < run.series.size(); ++i) {
    const double x = run.series.x[i], raw = run.series.raw[i], smooth = run.series.smoothed[i];
    if (!log || raw > 0) {
      rawX.push_back(x);
      rawY.push_back(raw);
    } else {
      ++run.dropped;
    }
    if (!log || smooth > 0) {
      smoothX.push_back(x);
      smoothY.push_back(smooth);
    }
  }
  run.raw->setData(rawX, rawY);
  run.smoothed->setData(smoothX, smoothY);
  // Sparse series (a validation every few reports) get dots, so each measurement shows: on the
  // raw values, as TensorBoard puts them (the smoothed curve is no measurement).
  const QCPScatterStyle dots(QCPScatterStyle::ssDisc, run.color, run.color, 4);
  const bool sparse = run.series.size() <= 30;
  const bool onRaw = m_smoothing > 0;
  run.raw->setScatterStyle(sparse && onRaw ? dots : QCPScatterStyle());
  run.smoothed->setScatterStyle(sparse && !onRaw ? dots : QCPScatterStyle());
  run.raw->setVisible(run.visible && m_smoothing > 0);
  run.smoothed->setVisible(run.visible);
}

void MetricCard::removeRun(const QString& key) {
  const auto found = m_runs.find(key);
  if (found == m_runs.end()) return;
  m_plot->removeGraph(found->second.raw);
  m_plot->removeGraph(found->second.smoothed);
  m_runs.erase(found);
  updateNote();
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MetricCard::setRunVisible(const QString& key, bool visible) {
  const auto found = m_runs.find(key);
  if (found == m_runs.end()) return;
  found->second.visible = visible;
  found->second.raw->setVisible(visible && m_smoothing > 0);
  found->second.smoothed->setVisible(visible);
  updateNote();
}

void MetricCard::setSmoothing(double weight) {
  m_smoothing = std::clamp(weight, 0.0, 0.999);
  for (auto& [key, run] : m_runs) rebuild(run);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MetricCard::setXAxis(XAxis axis) {
  m_axis = axis;
  m_plot->xAxis->setTicker(xTicker(axis));
  m_plot->xAxis->setLabel(xLabel(axis));
  hideHover();
  for (auto& [key, run] : m_runs) rebuild(run);
  updateNote();
}

void MetricCard::setLogScale(bool on) {
  if (m_log->isChecked() != on) {
    m_log->setChecked(on);  // comes back here through toggled
    return;
  }
  m_plot->yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (on) {
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    m_plot->yAxis->setNumberFormat(QStringLiteral("gb"));
  } else {
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    m_plot->yAxis->setNumberFormat(QStringLiteral("gbd"));
  }
  m_plot->yAxis->ticker()->setTickCount(5);
  for (auto& [key, run] : m_runs) rebuild(run);
  updateNote();
  fitY();
}

bool MetricCard::logScale() const { return m_log->isChecked(); }

void MetricCard::updateNote() {
  QStringList parts;
  int dropped = 0;
  for (const auto& [key, run] : m_runs) {
    if (!run.visible) continue;
    dropped += run.dropped;
    if (m_axis == XAxis::Wall && !hasWallTime(*run.records))
      parts << QStringLiteral(
                   "%1 has no wall_time (written by an older rnnwb): not shown against "
                   "wall time")
                   .arg(run.label);
  }
  if (dropped > 0)
    parts.prepend(QStringLiteral("%1 value(s) <= 0 not drawn on the log scale").arg(dropped));
  m_note->setText(parts.join(QStringLiteral("; ")));
  m_note->setVisible(!parts.isEmpty());
}

bool MetricCard::showsAnyRun() const {
  return std::any_of(m_runs.begin(), m_runs.end(), [](const auto& run) {
    return run.second.visible && !run.second.series.x.empty();
  });
}

QString MetricCard::note() const { return m_note->isHidden() ? QString() : m_note->text(); }

int MetricCard::pointCount(const QString& key) const {
  const auto found = m_runs.find(key);
  return found == m_runs.end() ? 0 : found->second.raw->dataCount();
}

double MetricCard::lastValue(const QString& key) const {
  const auto found = m_runs.find(key);
  if (found == m_runs.end() || found->second.series.raw.empty())
    return std::numeric_limits<double>::quiet_NaN();
  return found->second.series.raw.back();
}

const RunSeries* MetricCard::series(const QString& key) const {
  const auto found = m_runs.find(key);
  return found == m_runs.end() ? nullptr : &found->second.series;
}

bool MetricCard::dataXRange(double* lower, double* upper) const {
  bool any = false;
  for (const auto& [key, run] : m_runs) {
    if (!run.visible || run.series.x.empty()) continue;
    const auto [low, high] = std::minmax_element(run.series.x.begin(), run.series.x.end());
    *lower = any ? std::min(*lower, *low) : *low;
    *upper = any ? std::max(*upper, *high) : *high;
    any = true;
  }
  return any;
}

void MetricCard::setXRange(double lower, double upper) {
  m_settingRange = true;
  m_plot->xAxis->setRange(lower, upper);
  m_settingRange = false;
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MetricCard::fitY() {
  QCPRange range;
  bool any = false;
  for (const auto& [key, run] : m_runs)
    for (QCPGraph* graph : {run.raw, run.smoothed}) {
      bool ok = false;
      const QCPRange r = graph->visible() ? graph->getValueRange(ok) : QCPRange();
      if (!ok) continue;
      range = any ? QCPRange(std::min(range.lower, r.lower), std::max(range.upper, r.upper)) : r;
      any = true;
    }
  if (any) {
    // A margin, so that no line runs along the frame (a constant learning rate would).
    if (logScale()) {
      m_plot->yAxis->setRange(range.lower / 1.5, range.upper * 1.5);
    } else {
      const double pad = std::max(range.size() * 0.08, std::abs(range.upper) * 0.02 + 1e-9);
      m_plot->yAxis->setRange(range.lower - pad, range.upper + pad);
    }
  }
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

bool MetricCard::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_plot && event->type() == QEvent::Wheel &&
      !(static_cast<QWheelEvent*>(event)->modifiers() & Qt::ControlModifier)) {
    // The wheel scrolls the cards, as a page does; Ctrl+wheel zooms x (the plot's own handling).
    for (QWidget* up = parentWidget(); up; up = up->parentWidget())
      if (auto* area = qobject_cast<QAbstractScrollArea*>(up)) {
        QApplication::sendEvent(area->verticalScrollBar(), event);
        return true;
      }
    return false;
  }
  if (watched == m_plot && event->type() == QEvent::Leave) hideHover();
  if (watched == m_plot && event->type() == QEvent::PaletteChange) styleAxes();
  return QFrame::eventFilter(watched, event);
}

}  // namespace rnnwb::ui

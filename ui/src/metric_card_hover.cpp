// MetricCard's hover readout (with the vertical line at the cursor) and its CSV export.
#include <cmath>
#include <limits>

#include <QDateTime>
#include <QFileDialog>
#include <QMessageBox>
#include <QSaveFile>
#include <QScreen>

#include <qcustomplot.h>

#include "rnnwb/core/train/metric_table.hpp"
#include "rnnwb/ui/metric_card.hpp"

namespace rnnwb::ui {

std::vector<ReadoutRow> MetricCard::readoutAt(double x) const {
  std::vector<ReadoutRow> rows;
  for (const auto& [key, run] : m_runs) {
    if (!run.visible) continue;
    const int i = nearestIndex(run.series.x, x);
    if (i < 0) continue;
    const auto at = static_cast<std::size_t>(i);
    rows.push_back({run.label, run.color, run.series.smoothed[at], run.series.raw[at],
                    run.series.steps[at], run.series.relative[at], run.series.wall[at]});
  }
  return rows;
}

void MetricCard::hoverAt(QPoint pixel) {
  const QRect axes = m_plot->axisRect()->rect();
  if (!axes.contains(pixel)) return hideHover();
  const double x = m_plot->xAxis->pixelToCoord(pixel.x());
  const std::vector<ReadoutRow> rows = readoutAt(x);
  if (rows.empty()) return hideHover();
  QString header;
  switch (m_axis) {
    case XAxis::Step:
      header = QStringLiteral("%1 at step %2").arg(m_metric).arg(std::llround(x));
      break;
    case XAxis::Relative:
      header = QStringLiteral("%1 at %2 of training").arg(m_metric, durationText(x));
      break;
    case XAxis::Wall:
      header = QStringLiteral("%1 at %2")
                   .arg(m_metric, QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(x * 1000.0))
                                      .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
      break;
  }
  m_cursorLine->point1->setCoords(x, 0.0);
  m_cursorLine->point2->setCoords(x, 1.0);
  m_cursorLine->setVisible(true);
  m_plot->layer(QStringLiteral("overlay"))->replot();
  m_readout->setRows(header, rows);
  // Beside the cursor, on the screen: it never sits on the line where its points are.
  const QScreen* screen = m_plot->screen();
  m_readout->showNear(m_plot->mapToGlobal(pixel),
                      screen ? screen->availableGeometry() : m_plot->window()->geometry());
}

void MetricCard::hideHover() {
  m_readout->hide();
  if (m_cursorLine->visible()) {
    m_cursorLine->setVisible(false);
    m_plot->layer(QStringLiteral("overlay"))->replot();
  }
}

double MetricCard::hoverX() const {
  return m_cursorLine->visible() ? m_cursorLine->point1->coords().x()
                                 : std::numeric_limits<double>::quiet_NaN();
}

QString MetricCard::csv() const {
  std::vector<train::MetricsCsvRun> runs;
  for (const auto& [key, run] : m_runs)
    if (run.visible) runs.push_back({run.label.toStdString(), run.records.get()});
  return QString::fromStdString(train::metricsCsv(runs, m_metric.toStdString()));
}

bool MetricCard::exportCsv(const QString& path, QString* error) const {
  QSaveFile file(path);  // all or nothing: an old file stays whole when writing fails
  if (!file.open(QIODevice::WriteOnly) || file.write(csv().toUtf8()) < 0 || !file.commit()) {
    *error = QStringLiteral("Cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

QString MetricCard::csvPathFromUser() {
  return QFileDialog::getSaveFileName(this, QStringLiteral("Export %1 as CSV").arg(m_metric),
                                      m_metric + QStringLiteral(".csv"),
                                      QStringLiteral("CSV (*.csv);;All files (*)"));
}

void MetricCard::showCsvError(const QString& error) {
  QMessageBox::warning(this, QStringLiteral("CSV export"), error);
}

}  // namespace rnnwb::ui

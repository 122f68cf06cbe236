// RunPlot's legend, the wall-time choice, the grid's columns and the PNG / SVG export.
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollArea>
#include <QStandardItemModel>
#include <QSvgGenerator>

#include <qcustomplot.h>

#include "rnnwb/ui/metric_card.hpp"
#include "rnnwb/ui/metric_group.hpp"
#include "rnnwb/ui/run_plot.hpp"

namespace rnnwb::ui {

void RunPlot::updateLegend() {
  QStringList entries;
  for (const auto& [key, run] : m_runs)
    if (run.visible)
      entries << QStringLiteral("<span style='color:%1'>■</span>&nbsp;%2")
                     .arg(run.color.name(), run.label.toHtmlEscaped());
  m_legend->setText(entries.isEmpty()
                        ? QStringLiteral("No run shown: train, open a run or a folder of runs.")
                        : entries.join(QStringLiteral(" &nbsp; ")));
}

QString RunPlot::legendText() const {
  QStringList names;
  for (const auto& [key, run] : m_runs)
    if (run.visible) names << run.label;
  return names.join(QStringLiteral(", "));
}

void RunPlot::updateWallChoice() {
  // Wall time needs wall_time in metrics.jsonl, which an older rnnwb did not write.
  bool any = false;
  for (const auto& [key, run] : m_runs) any = any || hasWallTime(*run.records);
  auto* model = qobject_cast<QStandardItemModel*>(m_axisChoice->model());
  QStandardItem* wall = model->item(static_cast<int>(XAxis::Wall));
  wall->setEnabled(any);
  wall->setToolTip(any ? QStringLiteral("The calendar time of each report (wall_time); runs "
                                        "whose file has none are left out, and their cards say so")
                       : QStringLiteral("No run's metrics.jsonl has wall_time (they were written "
                                        "by an older rnnwb): x as wall time is not possible"));
  if (!any && m_axis == XAxis::Wall) setXAxis(XAxis::Step);
}

void RunPlot::addControl(QWidget* widget) { m_controls->layout()->addWidget(widget); }

int RunPlot::cardHeight() const {
  // Less a group's header line, so that a header and a whole card fit.
  const int room = m_scroll->viewport()->height() - fontMetrics().height() - 12;
  return std::clamp(room, 140, 320);
}

void RunPlot::updateColumns() {
  const int columns = std::clamp(m_scroll->viewport()->width() / 420, 1, 4);
  const int height = cardHeight();
  for (MetricGroup* group : m_groups) {
    group->setColumns(columns);
    for (MetricCard* card : group->cards()) card->setFixedHeight(height);
  }
}

void RunPlot::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  updateColumns();
}

bool RunPlot::exportPng(const QString& path, QString* error) const {
  // The legend and every card (also those scrolled out of view), at twice the screen's pixels.
  QImage image(m_content->size() * 2, QImage::Format_ARGB32);
  image.setDevicePixelRatio(2.0);
  image.fill(palette().color(QPalette::Window));
  {
    QPainter painter(&image);
    m_content->render(&painter, QPoint(0, 0), QRegion(), QWidget::DrawChildren);
  }
  if (image.save(path, "PNG")) return true;
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
  const int legendHeight = m_legend->height();  // it heads the content
  const QSize size(std::max(m_content->width(), 1), m_content->height());
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(size);
  generator.setViewBox(QRect(QPoint(0, 0), size));
  generator.setTitle(QStringLiteral("RNN Workbench training runs"));
  QCPPainter painter;
  if (!painter.begin(&generator)) {
    *error = QStringLiteral("Cannot write %1").arg(path);
    return false;
  }
  // Vector throughout: the legend and titles as text, each card's plot by QCustomPlot.
  painter.setPen(palette().color(QPalette::WindowText));
  int x = 4;
  for (const auto& [key, run] : m_runs) {
    if (!run.visible) continue;
    painter.fillRect(QRect(x, legendHeight / 2 - 4, 10, 8), run.color);
    painter.drawText(QPoint(x + 14, legendHeight / 2 + 4), run.label);
    x += 24 + painter.fontMetrics().horizontalAdvance(run.label);
  }
  for (const MetricGroup* group : m_groups) {
    if (group->isCollapsed() || group->isHidden()) continue;
    for (const MetricCard* card : group->cards()) {
      if (card->isHidden()) continue;  // no run of it shown
      const QPoint at = card->mapTo(m_content, QPoint(0, 0));
      painter.drawText(at + QPoint(6, 14), card->title());
      const QPoint plotAt = card->plot()->mapTo(m_content, QPoint(0, 0));
      painter.save();
      painter.translate(plotAt);
      card->plot()->toPainter(&painter, card->plot()->width(), card->plot()->height());
      painter.restore();
    }
  }
  painter.end();
  return true;
}

}  // namespace rnnwb::ui

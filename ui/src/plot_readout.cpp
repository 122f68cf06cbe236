#include "rnnwb/ui/plot_readout.hpp"

#include <cmath>

#include <QDateTime>
#include <QLabel>
#include <QVBoxLayout>

namespace rnnwb::ui {

QPoint readoutPosition(QPoint cursor, QSize size, QRect bounds, int gap) {
  int x = cursor.x() + gap;
  if (x + size.width() > bounds.right()) x = cursor.x() - gap - size.width();
  if (x < bounds.left()) {
    // Too wide for either side: the side with more room, as far from the cursor as it goes.
    const bool right = bounds.right() - cursor.x() >= cursor.x() - bounds.left();
    x = right ? bounds.right() - size.width() : bounds.left();
  }
  int y = cursor.y() - size.height() / 2;
  y = std::max(bounds.top(), std::min(y, bounds.bottom() - size.height()));
  return {x, y};
}

QString durationText(double seconds) {
  if (!std::isfinite(seconds)) return QStringLiteral("–");
  if (seconds < 60) return QStringLiteral("%1 s").arg(seconds, 0, 'f', seconds < 10 ? 2 : 1);
  const auto whole = static_cast<long long>(seconds);
  if (whole < 3600)
    return QStringLiteral("%1m %2s").arg(whole / 60).arg(whole % 60, 2, 10, QLatin1Char('0'));
  return QStringLiteral("%1h %2m").arg(whole / 3600).arg(whole / 60 % 60, 2, 10, QLatin1Char('0'));
}

QString readoutNumber(double value) {
  if (!std::isfinite(value)) return QString::number(value);
  return QString::number(value, 'g', 4);
}

PlotReadout::PlotReadout(QWidget* parent)
    : QFrame(parent, Qt::ToolTip | Qt::FramelessWindowHint), m_label(new QLabel) {
  // A window of its own, as a tool tip: it may reach past the plot (a card is narrower than a
  // readout of several runs), so that it always fits beside the cursor on one side.
  setAttribute(Qt::WA_ShowWithoutActivating);
  // The tooltip colours of the palette, so that a dark theme gives a dark readout.
  setFrameShape(QFrame::Box);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::ToolTipBase);
  setForegroundRole(QPalette::ToolTipText);
  m_label->setForegroundRole(QPalette::ToolTipText);
  m_label->setTextFormat(Qt::RichText);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->addWidget(m_label);
  setAttribute(Qt::WA_TransparentForMouseEvents);  // the plot keeps the mouse
  setPalette(parent->palette());
  hide();
}

void PlotReadout::setRows(const QString& header, const std::vector<ReadoutRow>& rows) {
  m_rows = rows;
  QString html = QStringLiteral(
                     "<b>%1</b><table cellspacing=0 cellpadding=1>"
                     "<tr><th></th><th align=left>Run</th><th align=right>Smoothed</th>"
                     "<th align=right>Value</th><th align=right>Step</th>"
                     "<th align=right>Relative</th><th align=left>Time</th></tr>")
                     .arg(header.toHtmlEscaped());
  for (const ReadoutRow& row : rows) {
    const QString wall =
        std::isnan(row.wall)
            ? QStringLiteral("–")
            : QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(row.wall * 1000.0))
                  .toString(QStringLiteral("HH:mm:ss"));  // the date: in the tool tip
    html += QStringLiteral(
                "<tr><td><span style='color:%1'>■</span></td><td>%2&nbsp;</td>"
                "<td align=right>%3&nbsp;</td><td align=right>%4&nbsp;</td>"
                "<td align=right>%5&nbsp;</td><td align=right>%6&nbsp;</td>"
                "<td>%7</td></tr>")
                .arg(row.color.name(), row.run.toHtmlEscaped(), readoutNumber(row.smoothed),
                     readoutNumber(row.raw), QString::number(row.step), durationText(row.relative),
                     wall);
  }
  m_label->setText(html + QStringLiteral("</table>"));
  adjustSize();
}

QString PlotReadout::text() const { return m_label->text(); }

void PlotReadout::showNear(QPoint cursor, QRect bounds) {
  adjustSize();
  move(readoutPosition(cursor, size(), bounds));
  show();
  raise();
}

}  // namespace rnnwb::ui

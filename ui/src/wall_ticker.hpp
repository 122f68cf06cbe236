#pragma once
// The wall-time axis of a metric card: clock times on one line, as fine as the range needs
// (seconds for a run of a few minutes, which showed the same "HH:mm" on every tick), the day
// added once the range spans days. One line: a second line for the date was cut off in a low
// card.
#include <qcustomplot.h>

namespace rnnwb::ui {

class WallTicker : public QCPAxisTickerDateTime {
 public:
  /// The format for a range of `seconds`.
  static QString formatFor(double seconds) {
    if (seconds < 600) return QStringLiteral("HH:mm:ss");
    if (seconds < 2 * 86400) return QStringLiteral("HH:mm");
    return QStringLiteral("MMM d HH:mm");
  }

 protected:
  double getTickStep(const QCPRange& range) override {
    setDateTimeFormat(formatFor(range.size()));
    return QCPAxisTickerDateTime::getTickStep(range);
  }
};

}  // namespace rnnwb::ui

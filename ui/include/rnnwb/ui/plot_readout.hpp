#pragma once
// The hover readout of a plot card, as TensorBoard's: at the x under the mouse, every shown run's
// point nearest that x, with the run's colour and name, the smoothed and raw value, its step, its
// relative time and its wall time. It sits beside the cursor, never on the vertical line through
// it where the points it describes are, and flips to the cursor's other side near an edge.
#include <cstdint>
#include <vector>

#include <QColor>
#include <QFrame>
#include <QPoint>
#include <QRect>
#include <QString>

class QLabel;

namespace rnnwb::ui {

struct ReadoutRow {
  QString run;
  QColor color;
  double smoothed = 0.0;
  double raw = 0.0;
  std::int64_t step = 0;
  double relative = 0.0;  // seconds of training (wall_s)
  double wall = 0.0;      // Unix seconds; NaN when the run's file has no wall_time
};

/// Where a readout of `size` goes for a cursor at `cursor` within `bounds`: `gap` pixels to the
/// right of the cursor, or to its left when it would pass the right edge; vertically beside the
/// cursor, kept inside the bounds.
QPoint readoutPosition(QPoint cursor, QSize size, QRect bounds, int gap = 16);

/// Seconds as "12.3 s", "4m 05s", "2h 03m".
QString durationText(double seconds);
/// A value with 4 significant digits (6 for small magnitudes' exponents), as readouts show it.
QString readoutNumber(double value);

class PlotReadout : public QFrame {
  Q_OBJECT
 public:
  explicit PlotReadout(QWidget* parent);
  /// Shows these rows under a header naming the x.
  void setRows(const QString& header, const std::vector<ReadoutRow>& rows);
  const std::vector<ReadoutRow>& rows() const { return m_rows; }
  QString text() const;
  /// Moves beside the cursor and shows, within bounds (global coordinates: the readout is a
  /// tool-tip window, so that it may reach past a narrow plot).
  void showNear(QPoint cursor, QRect bounds);

 private:
  QLabel* m_label;
  std::vector<ReadoutRow> m_rows;
};

}  // namespace rnnwb::ui

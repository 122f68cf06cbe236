// The hover readout (TensorBoard's tooltip): at the step under the mouse, every shown run's value,
// smoothed and raw, with its step, relative and wall time and its colour, a vertical line at the
// cursor; beside the cursor, never on the line where its points are. Thousands of points per run
// are drawn decimated, but the readout reads every one.
#include <cmath>

#include <QApplication>
#include <QColor>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QTest>
#include <QWidget>

#include <qcustomplot.h>

#include "rnnwb/ui/metric_card.hpp"
#include "rnnwb/ui/run_plot.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

std::shared_ptr<const std::vector<train::MetricsRecord>> run(int count, double scale,
                                                             bool wall = true) {
  auto records = std::make_shared<std::vector<train::MetricsRecord>>();
  for (int i = 1; i <= count; ++i) {
    train::MetricsRecord r;
    r.step = i * 10;
    r.trainLoss = scale * (1.0 + std::sin(i * 0.7));
    r.wallS = i * 1.5;
    if (wall) r.wallTime = 1764605000.0 + i * 1.5;
    records->push_back(r);
  }
  return records;
}

void moveMouse(QWidget* widget, QPoint pos) {
  QMouseEvent move(QEvent::MouseMove, pos, widget->mapToGlobal(pos), Qt::NoButton, Qt::NoButton,
                   Qt::NoModifier);
  QApplication::sendEvent(widget, &move);
}

}  // namespace

class TestPlotReadout : public QObject {
  Q_OBJECT
 private slots:
  void hoverShowsEveryRunsValueAtTheStep();
  void readoutNeverCoversThePointsItDescribes();
  void thousandsOfPointsStayWholeForTheReadout();
  void readoutGoesWhenTheCardsScroll();
};

// Issue #30: the readout stayed on the screen after the cards scrolled under a still mouse.
void TestPlotReadout::readoutGoesWhenTheCardsScroll() {
  RunPlot plot;
  plot.resize(500, 220);  // shorter than a card: the page scrolls
  plot.show();
  QVERIFY(QTest::qWaitForWindowExposed(&plot));
  plot.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  plot.setRecords(QStringLiteral("/runs/a"), *run(10, 1.0));
  MetricCard* card = plot.card(QStringLiteral("train_loss"));
  QVERIFY(card);
  QTRY_VERIFY(card->isVisible());
  auto* scroll = plot.findChild<QScrollArea*>();
  QTRY_VERIFY(scroll->verticalScrollBar()->maximum() > 0);
  QCustomPlot* custom = card->plot();
  moveMouse(custom, custom->axisRect()->rect().center());
  QVERIFY(card->readout()->isVisible());
  scroll->verticalScrollBar()->setValue(scroll->verticalScrollBar()->maximum());
  QVERIFY(!card->readout()->isVisible());
  QVERIFY(std::isnan(card->hoverX()));
}

void TestPlotReadout::hoverShowsEveryRunsValueAtTheStep() {
  MetricCard card(QStringLiteral("train_loss"));
  card.resize(700, 300);
  card.show();
  QVERIFY(QTest::qWaitForWindowExposed(&card));
  const auto a = run(10, 1.0), b = run(5, 2.0, false);
  card.setRun(QStringLiteral("/runs/a"), QStringLiteral("a"), QColor("#1f77b4"), a);
  card.setRun(QStringLiteral("/runs/b"), QStringLiteral("b"), QColor("#ff7f0e"), b);
  card.setXRange(0, 110);
  card.fitY();
  card.plot()->replot();
  QCustomPlot* plot = card.plot();
  const QPoint at(static_cast<int>(plot->xAxis->coordToPixel(40.0)),
                  plot->axisRect()->rect().center().y());
  moveMouse(plot, at);
  QVERIFY(card.readout()->isVisible());
  QVERIFY(std::abs(card.hoverX() - 40.0) < 1.0);  // the vertical line at the cursor
  const auto& rows = card.readout()->rows();
  QCOMPARE(rows.size(), std::size_t(2));
  QCOMPARE(rows[0].run, QStringLiteral("a"));
  QCOMPARE(rows[0].step, std::int64_t(40));
  QCOMPARE(rows[0].raw, (*a)[3].trainLoss);
  QCOMPARE(rows[0].smoothed, card.series(QStringLiteral("/runs/a"))->smoothed[3]);
  QCOMPARE(rows[0].relative, 6.0);
  QCOMPARE(rows[0].wall, 1764605006.0);
  QCOMPARE(rows[0].color, QColor("#1f77b4"));
  QCOMPARE(rows[1].run, QStringLiteral("b"));
  QVERIFY(std::isnan(rows[1].wall));  // an older file: no wall time, said as "–"
  const QString text = card.readout()->text();
  for (const char* part :
       {"#1f77b4", "#ff7f0e", "Smoothed", "Value", "Step", "Relative", "Time", "6.00 s"})
    QVERIFY2(text.contains(QLatin1String(part)), part);
  // Past b's last step, b shows its nearest (last) point; a hidden run is not shown.
  card.setRunVisible(QStringLiteral("/runs/b"), false);
  moveMouse(plot, at);
  QCOMPARE(card.readout()->rows().size(), std::size_t(1));
  QEvent leave(QEvent::Leave);
  QApplication::sendEvent(plot, &leave);
  QVERIFY(!card.readout()->isVisible());
  QVERIFY(std::isnan(card.hoverX()));
}

void TestPlotReadout::readoutNeverCoversThePointsItDescribes() {
  MetricCard card(QStringLiteral("train_loss"));
  // As wide as the screen: the readout must flip to the cursor's left near the right edge.
  card.setGeometry(card.screen()->availableGeometry().adjusted(0, 0, 0, -300));
  card.show();
  QVERIFY(QTest::qWaitForWindowExposed(&card));
  for (int i = 0; i < 4; ++i)
    card.setRun(QStringLiteral("/runs/run-%1").arg(i), QStringLiteral("run-%1").arg(i),
                QColor::fromHsv(i * 80, 200, 200), run(100, 1.0 + i));
  card.setXRange(0, 1010);
  card.fitY();
  card.plot()->replot();
  QCustomPlot* plot = card.plot();
  const QRect axes = plot->axisRect()->rect();
  int leftOfCursor = 0, rightOfCursor = 0;
  for (int x = axes.left() + 1; x < axes.right(); x += 13)
    for (int y : {axes.top() + 2, axes.center().y(), axes.bottom() - 2}) {
      moveMouse(plot, QPoint(x, y));
      QVERIFY(card.readout()->isVisible());
      const QRect box = card.readout()->geometry();  // a tool-tip window: global coordinates
      const int cursor = plot->mapToGlobal(QPoint(x, y)).x();
      QVERIFY2(box.right() < cursor || box.left() > cursor,
               qPrintable(QStringLiteral("cursor at x=%1 under the readout %2..%3")
                              .arg(cursor)
                              .arg(box.left())
                              .arg(box.right())));
      QVERIFY(plot->screen()->availableGeometry().contains(box));  // whole, on the screen
      (box.right() < cursor ? leftOfCursor : rightOfCursor) += 1;
    }
  QVERIFY(leftOfCursor > 0 && rightOfCursor > 0);  // it flips near the right edge
}

void TestPlotReadout::thousandsOfPointsStayWholeForTheReadout() {
  RunPlot plot;
  plot.resize(1000, 700);
  plot.show();
  QVERIFY(QTest::qWaitForWindowExposed(&plot));
  const int points = 20000;
  QElapsedTimer clock;
  clock.start();
  for (int r = 0; r < 4; ++r) {
    const QString key = QStringLiteral("/runs/%1").arg(r);
    plot.addRun(key, QStringLiteral("run %1").arg(r));
    plot.setRecords(key, *run(points, 1.0 + r));
  }
  const qint64 loading = clock.elapsed();
  MetricCard* card = plot.card(QStringLiteral("train_loss"));
  clock.restart();
  card->plot()->replot(QCustomPlot::rpImmediateRefresh);
  const qint64 drawing = clock.elapsed();
  qInfo("4 runs x %d points: loaded in %lld ms, one card drawn in %lld ms", points, loading,
        drawing);
  QVERIFY2(drawing < 1000, qPrintable(QString::number(drawing)));  // (10 s with wide pens)
  for (int g = 0; g < card->plot()->graphCount(); ++g) {
    QCOMPARE(card->plot()->graph(g)->dataCount(), points);  // every point held
    QVERIFY(card->plot()->graph(g)->adaptiveSampling());    // decimated when drawn
  }
  QCOMPARE(card->pointCount(QStringLiteral("/runs/2")), points);
  // The readout at step 123,450 reads that very record, whatever the drawing kept.
  const auto rows = card->readoutAt(123450.0);
  QCOMPARE(rows.size(), std::size_t(4));
  QCOMPARE(rows[2].step, std::int64_t(123450));
  QCOMPARE(rows[2].raw, 3.0 * (1.0 + std::sin(12345 * 0.7)));
  QVERIFY(card->csv().count(QLatin1Char('\n')) == points + 1);
}

QTEST_MAIN(TestPlotReadout)
#include "tst_plotreadout.moc"

// The plots' axes: y on a log scale per card (values <= 0 are not drawn, and the card says how
// many), x as the step, the run's training time or the wall time; a file written before rnnwb
// wrote wall_time still loads, and x as wall time is then refused for it, with the reason.
#include <QApplication>
#include <QColor>
#include <QComboBox>
#include <QPalette>
#include <QRegularExpression>
#include <QSet>
#include <QStandardItemModel>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>
#include <QVector>

#include <qcustomplot.h>

#include "rnnwb/ui/metric_card.hpp"
#include "rnnwb/ui/run_list.hpp"
#include "rnnwb/ui/run_plot.hpp"
#include "wall_ticker.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

std::vector<train::MetricsRecord> records(int count, bool wall) {
  std::vector<train::MetricsRecord> out;
  for (int i = 1; i <= count; ++i) {
    train::MetricsRecord r;
    r.step = i * 100;
    r.trainLoss = 2.0 - 0.5 * i;  // 1.5, 1.0, 0.5, 0.0, -0.5: two not positive
    r.lr = 0.01;
    r.wallS = 30.0 * i;
    if (wall) r.wallTime = 1764605000.0 + 60.0 * i;
    out.push_back(r);
  }
  return out;
}

}  // namespace

class TestPlotAxes : public QObject {
  Q_OBJECT
 private slots:
  void logScaleLeavesOutNonPositiveValuesAndSaysSo();
  void xAxisIsStepRelativeOrWallTime();
  void wallTimeIsRefusedForFilesWithoutIt();
  void wallTimeTicksReadAsClockTimes();
  void plotsFollowADarkPalette();
};

void TestPlotAxes::logScaleLeavesOutNonPositiveValuesAndSaysSo() {
  RunPlot plot;
  plot.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  plot.setRecords(QStringLiteral("/runs/a"), records(5, true));
  MetricCard* loss = plot.card(QStringLiteral("train_loss"));
  MetricCard* lr = plot.card(QStringLiteral("lr"));
  QVERIFY(!loss->logScale());
  QVERIFY(lr->logScale());  // per card: the learning rate starts on a log scale
  QCOMPARE(loss->pointCount(QStringLiteral("/runs/a")), 5);
  QVERIFY(loss->note().isEmpty());
  // Toggled on the card, as a user does.
  QToolButton* toggle = nullptr;
  for (QToolButton* button : loss->findChildren<QToolButton*>())
    if (button->text() == QStringLiteral("log y")) toggle = button;
  QVERIFY(toggle);
  toggle->click();
  QVERIFY(loss->logScale());
  QCOMPARE(loss->plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
  QCOMPARE(loss->pointCount(QStringLiteral("/runs/a")), 3);
  QVERIFY2(loss->note().contains(QStringLiteral("2 value(s) <= 0 not drawn")),
           qPrintable(loss->note()));
  QVERIFY(loss->plot()->yAxis->range().lower > 0);
  QVERIFY(!lr->note().contains(QStringLiteral("<= 0")));  // the other cards are as they were
  toggle->click();
  QCOMPARE(loss->pointCount(QStringLiteral("/runs/a")), 5);
  QVERIFY(loss->note().isEmpty());
}

void TestPlotAxes::xAxisIsStepRelativeOrWallTime() {
  RunPlot plot;
  plot.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  plot.setRecords(QStringLiteral("/runs/a"), records(3, true));
  MetricCard* loss = plot.card(QStringLiteral("train_loss"));
  QCOMPARE(plot.xAxis(), XAxis::Step);
  QCOMPARE(loss->series(QStringLiteral("/runs/a"))->x, (std::vector<double>{100, 200, 300}));
  auto* choice = plot.findChild<QComboBox*>();
  QVERIFY(choice);
  choice->setCurrentIndex(1);
  QCOMPARE(plot.xAxis(), XAxis::Relative);
  QCOMPARE(loss->series(QStringLiteral("/runs/a"))->x, (std::vector<double>{30, 60, 90}));
  QCOMPARE(loss->plot()->xAxis->range().upper, 90.0);
  QVERIFY(qSharedPointerDynamicCast<QCPAxisTickerTime>(loss->plot()->xAxis->ticker()));
  choice->setCurrentIndex(2);
  QCOMPARE(plot.xAxis(), XAxis::Wall);
  QCOMPARE(loss->series(QStringLiteral("/runs/a"))->x.back(), 1764605180.0);
  QVERIFY(qSharedPointerDynamicCast<QCPAxisTickerDateTime>(loss->plot()->xAxis->ticker()));
  QCOMPARE(loss->plot()->xAxis->range().upper, 1764605180.0);
}

// Issue #30: a run of three minutes showed the same HH:mm on every tick, under it a date line
// that a low card cut off; and the x choice read "wall tir" at 1280x720.
void TestPlotAxes::wallTimeTicksReadAsClockTimes() {
  RunPlot plot;
  plot.resize(700, 320);
  plot.show();
  QVERIFY(QTest::qWaitForWindowExposed(&plot));
  plot.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  plot.setRecords(QStringLiteral("/runs/a"), records(3, true));  // 180 s
  plot.setXAxis(XAxis::Wall);
  MetricCard* loss = plot.card(QStringLiteral("train_loss"));
  loss->plot()->replot();
  const QVector<QString> labels = loss->plot()->xAxis->tickVectorLabels();
  QVERIFY(labels.size() >= 2);
  const QSet<QString> distinct(labels.begin(), labels.end());
  QCOMPARE(distinct.size(), labels.size());
  const QRegularExpression clock(QStringLiteral("^\\d\\d:\\d\\d:\\d\\d$"));
  for (const QString& label : labels) QVERIFY2(clock.match(label).hasMatch(), qPrintable(label));
  QCOMPARE(WallTicker::formatFor(3 * 3600), QStringLiteral("HH:mm"));
  QCOMPARE(WallTicker::formatFor(5 * 86400), QStringLiteral("MMM d HH:mm"));
  // The x choice keeps the width its longest entry needs, however narrow the row.
  auto* choice = plot.findChild<QComboBox*>();
  plot.resize(360, 320);
  QApplication::processEvents();
  QVERIFY2(
      choice->width() >= choice->sizeHint().width(),
      qPrintable(QStringLiteral("%1 < %2").arg(choice->width()).arg(choice->sizeHint().width())));
}

void TestPlotAxes::wallTimeIsRefusedForFilesWithoutIt() {
  RunPlot plot;
  auto* choice = plot.findChild<QComboBox*>();
  auto* model = qobject_cast<QStandardItemModel*>(choice->model());
  plot.addRun(QStringLiteral("/runs/old"), QStringLiteral("old"));
  plot.setRecords(QStringLiteral("/runs/old"), records(3, false));
  QVERIFY(!plot.runHasWallTime(QStringLiteral("/runs/old")));
  // Only old runs: wall time cannot be chosen, and its tool tip says why.
  QVERIFY(!model->item(2)->isEnabled());
  QVERIFY(model->item(2)->toolTip().contains(QStringLiteral("older rnnwb")));
  plot.setXAxis(XAxis::Relative);  // the training time is in every file
  QCOMPARE(plot.card(QStringLiteral("train_loss"))->pointCount(QStringLiteral("/runs/old")), 3);
  // With a new run beside it, wall time shows the new run; the old one is named as left out.
  plot.addRun(QStringLiteral("/runs/new"), QStringLiteral("new"));
  plot.setRecords(QStringLiteral("/runs/new"), records(3, true));
  QVERIFY(model->item(2)->isEnabled());
  plot.setXAxis(XAxis::Wall);
  MetricCard* loss = plot.card(QStringLiteral("train_loss"));
  QCOMPARE(loss->pointCount(QStringLiteral("/runs/old")), 0);
  QCOMPARE(loss->pointCount(QStringLiteral("/runs/new")), 3);
  QVERIFY2(loss->note().contains(QStringLiteral("old has no wall_time")), qPrintable(loss->note()));
  // Without the new run, the plots go back to steps rather than show nothing.
  plot.removeRun(QStringLiteral("/runs/new"));
  QCOMPARE(plot.xAxis(), XAxis::Step);
  // The run list greys such a run with the reason (the panel marks it; see tst_trainingpanel).
  RunList list;
  list.addRun(QStringLiteral("/runs/old"), QStringLiteral("old"), Qt::red);
  list.setUnavailable(QStringLiteral("/runs/old"), QStringLiteral("no wall_time"));
  auto* tree = list.findChild<QTreeWidget*>();
  QVERIFY(tree->topLevelItem(0)->toolTip(0).contains(QStringLiteral("no wall_time")));
}

// A dark desktop theme gives dark plots: background, axes, ticks, grid and the readout come from
// the palette, also when it changes while the plots are shown.
void TestPlotAxes::plotsFollowADarkPalette() {
  const QPalette light = QApplication::palette();
  RunPlot plot;
  plot.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  plot.setRecords(QStringLiteral("/runs/a"), records(3, true));
  MetricCard* card = plot.card(QStringLiteral("train_loss"));
  QPalette dark = light;
  dark.setColor(QPalette::Base, QColor(30, 30, 30));
  dark.setColor(QPalette::Window, QColor(45, 45, 45));
  dark.setColor(QPalette::Text, QColor(220, 220, 220));
  dark.setColor(QPalette::WindowText, QColor(220, 220, 220));
  dark.setColor(QPalette::ToolTipBase, QColor(60, 60, 60));
  QApplication::setPalette(dark);
  QApplication::processEvents();
  QCustomPlot* custom = card->plot();
  QCOMPARE(custom->toPixmap(200, 100).toImage().pixelColor(2, 2), QColor(30, 30, 30));
  QCOMPARE(custom->xAxis->tickLabelColor(), QColor(220, 220, 220));
  QCOMPARE(custom->yAxis->basePen().color(), QColor(220, 220, 220));
  // The faint raw curve mixes the run's colour into the dark background.
  QVERIFY(custom->graph(0)->pen().color().lightness() <
          plot.runColor(QStringLiteral("/runs/a")).lightness());
  QCOMPARE(card->readout()->palette().color(card->readout()->backgroundRole()), QColor(60, 60, 60));
  QApplication::setPalette(light);
}

QTEST_MAIN(TestPlotAxes)
#include "tst_plotaxes.moc"

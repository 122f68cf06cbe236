// Smoothing as TensorBoard does it: its debiased exponential moving average, a slider from 0 to
// 0.999 starting at 0.6, the raw curve drawn faint behind the smoothed one.
#include <cmath>

#include <QColor>
#include <QDoubleSpinBox>
#include <QPalette>
#include <QSlider>
#include <QTest>

#include <qcustomplot.h>

#include "rnnwb/ui/metric_card.hpp"
#include "rnnwb/ui/run_plot.hpp"
#include "rnnwb/ui/smoothing.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

class TestPlotSmoothing : public QObject {
  Q_OBJECT
 private slots:
  void smoothingIsTensorBoardsDebiasedEma();
  void smoothingBoxTakesWhatIsTyped();
  void markersSitOnTheRawValues();
  void sliderRunsFromZeroTo0999StartingAt06();
  void rawCurveIsDrawnFaintBehindTheSmoothedOne();
};

void TestPlotSmoothing::smoothingIsTensorBoardsDebiasedEma() {
  // By hand: w = 0.6; EMA 0.4, 1.04, 1.824 over debiasing 0.4, 0.64, 0.784.
  const std::vector<double> out = smoothedValues({1.0, 2.0, 3.0}, 0.6);
  QCOMPARE(out.size(), std::size_t(3));
  QCOMPARE(out[0], 1.0);  // debiased: the first point is not pulled towards 0
  QVERIFY(std::abs(out[1] - 1.04 / 0.64) < 1e-12);
  QVERIFY(std::abs(out[2] - 1.824 / 0.784) < 1e-12);
  QCOMPARE(smoothedValues({1.0, 2.0, 3.0}, 0.0), (std::vector<double>{1.0, 2.0, 3.0}));
  // A constant series stays as it is; a non-finite value passes and does not enter the mean.
  QCOMPARE(smoothedValues({0.5, 0.5, 0.5}, 0.9), (std::vector<double>{0.5, 0.5, 0.5}));
  const std::vector<double> gap = smoothedValues({1.0, NAN, 1.0, 3.0}, 0.5);
  QVERIFY(std::isnan(gap[1]));
  QCOMPARE(gap[2], 1.0);
  QVERIFY(std::abs(gap[3] - (0.5 * 0.75 + 0.5 * 3.0) / 0.875) < 1e-12);
}

void TestPlotSmoothing::sliderRunsFromZeroTo0999StartingAt06() {
  RunPlot plot;
  QCOMPARE(plot.smoothing(), 0.6);
  auto* slider = plot.findChild<QSlider*>();
  auto* value = plot.findChild<QDoubleSpinBox*>();
  QVERIFY(slider && value);
  QCOMPARE(slider->minimum(), 0);
  QCOMPARE(slider->maximum(), 999);
  QCOMPARE(value->maximum(), 0.999);
  QCOMPARE(value->value(), 0.6);
  slider->setValue(900);
  QCOMPARE(plot.smoothing(), 0.9);
  QCOMPARE(value->value(), 0.9);
  value->setValue(0.25);
  QCOMPARE(slider->value(), 250);
  // The cards take it: their smoothed values are the EMA of the raw ones.
  plot.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  std::vector<train::MetricsRecord> records;
  for (int i = 1; i <= 5; ++i) {
    train::MetricsRecord r;
    r.step = i;
    r.trainLoss = i % 2 ? 1.0 : 3.0;
    records.push_back(r);
  }
  plot.setRecords(QStringLiteral("/runs/a"), records);
  const RunSeries* series =
      plot.card(QStringLiteral("train_loss"))->series(QStringLiteral("/runs/a"));
  QCOMPARE(series->smoothed, smoothedValues(series->raw, 0.25));
  plot.setSmoothing(0.0);
  QCOMPARE(series->smoothed, series->raw);
}

void TestPlotSmoothing::smoothingBoxTakesWhatIsTyped() {
  // Issue #30: the box reformatted its text after every keystroke (0.95 typed over a selection
  // became 0.000, typed into an empty box 0.900). It takes the value when Enter is pressed.
  RunPlot plot;
  plot.show();
  QVERIFY(QTest::qWaitForWindowExposed(&plot));
  auto* value = plot.findChild<QDoubleSpinBox*>();
  QVERIFY(value);
  value->setFocus();
  value->selectAll();
  QTest::keyClicks(value, QStringLiteral("0.95"));
  QTest::keyClick(value, Qt::Key_Return);
  QCOMPARE(value->text(), QStringLiteral("0.950"));
  QCOMPARE(plot.smoothing(), 0.95);
  value->clear();
  QTest::keyClicks(value, QStringLiteral("0.85"));
  QCOMPARE(plot.smoothing(), 0.95);  // nothing taken while typing
  QTest::keyClick(value, Qt::Key_Return);
  QCOMPARE(plot.smoothing(), 0.85);
  QCOMPARE(plot.findChild<QSlider*>()->value(), 850);
}

void TestPlotSmoothing::rawCurveIsDrawnFaintBehindTheSmoothedOne() {
  MetricCard card(QStringLiteral("train_loss"));
  std::vector<train::MetricsRecord> records(50);
  for (int i = 0; i < 50; ++i) records[i].step = i, records[i].trainLoss = 2.0 + std::sin(i);
  card.setRun(QStringLiteral("/runs/a"), QStringLiteral("a"), QColor("#1f77b4"),
              std::make_shared<const std::vector<train::MetricsRecord>>(records));
  QCustomPlot* plot = card.plot();
  QCOMPARE(plot->graphCount(), 2);
  QCPGraph* raw = plot->graph(0);
  QCPGraph* smoothed = plot->graph(1);  // added after: drawn over the raw one
  QVERIFY(raw->visible() && smoothed->visible());
  // Faint: the run's colour two thirds of the way to the background.
  const QColor base = card.palette().color(QPalette::Base);
  const QColor faint = raw->pen().color(), full = smoothed->pen().color();
  QCOMPARE(full, QColor("#1f77b4"));
  for (const auto& [f, c, b] : {std::tuple{faint.red(), full.red(), base.red()},
                                std::tuple{faint.green(), full.green(), base.green()},
                                std::tuple{faint.blue(), full.blue(), base.blue()}})
    QVERIFY2(std::abs(f - (c * 35 + b * 65) / 100) <= 1, qPrintable(faint.name()));
  QVERIFY(faint != full);
  QVERIFY(smoothed->pen().widthF() > raw->pen().widthF());
  QCOMPARE(raw->dataCount(), 50);
  QCOMPARE(smoothed->dataCount(), 50);
  QVERIFY(raw->data()->at(10)->value != smoothed->data()->at(10)->value);
}

// Gap (TensorBoard, issue #30): a sparse series' dots mark the measurements, the raw values,
// not the smoothed curve; without smoothing the one curve carries them.
void TestPlotSmoothing::markersSitOnTheRawValues() {
  MetricCard card(QStringLiteral("valid_loss"));
  std::vector<train::MetricsRecord> records(10);
  for (int i = 0; i < 10; ++i) records[i].step = 100 * i, records[i].validLoss = 3.0 - 0.1 * i;
  card.setRun(QStringLiteral("/runs/a"), QStringLiteral("a"), QColor("#1f77b4"),
              std::make_shared<const std::vector<train::MetricsRecord>>(records));
  QCPGraph* raw = card.plot()->graph(0);
  QCPGraph* smoothed = card.plot()->graph(1);
  card.setSmoothing(0.6);
  QCOMPARE(raw->scatterStyle().shape(), QCPScatterStyle::ssDisc);
  QCOMPARE(raw->scatterStyle().pen().color(), QColor("#1f77b4"));  // full colour, not faint
  QVERIFY(smoothed->scatterStyle().isNone());
  card.setSmoothing(0.0);
  QVERIFY(raw->scatterStyle().isNone() || !raw->visible());
  QCOMPARE(smoothed->scatterStyle().shape(), QCPScatterStyle::ssDisc);
}

QTEST_MAIN(TestPlotSmoothing)
#include "tst_plotsmoothing.moc"

// The training plots' legend (issue #14, defect 4): with many runs it covers no data area of any
// plot; it sits above them and wraps.
#include <QtTest>

#include <qcustomplot.h>

#include "rnnwb/ui/run_plot.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

class TestRunPlotLegend : public QObject {
  Q_OBJECT
 private slots:
  void legendNeverCoversData();
};

void TestRunPlotLegend::legendNeverCoversData() {
  RunPlot plot;
  plot.resize(900, 480);
  plot.show();
  QVERIFY(QTest::qWaitForWindowExposed(&plot));
  for (int run = 0; run < 9; ++run) {
    const QString key = QStringLiteral("/runs/lr-%1").arg(run);
    plot.addRun(key, QStringLiteral("lr-%1").arg(run));
    std::vector<train::MetricsRecord> records;
    for (int i = 1; i <= 40; ++i) {
      train::MetricsRecord r;
      r.step = i * 10;
      r.trainLoss = 3.0 / i + 0.01 * run;
      if (i % 4 == 0) r.validLoss = r.trainLoss + 0.05;
      r.gradNorm = 0.5;
      r.lr = 0.001;
      r.framesPerS = 5000;
      records.push_back(r);
    }
    plot.setRecords(key, records);
  }
  QCustomPlot* custom = plot.plot();
  custom->replot();
  int entries = 0;  // (a wrapped legend's grid also counts its empty cells)
  for (int i = 0; i < custom->legend->itemCount(); ++i)
    entries += qobject_cast<QCPPlottableLegendItem*>(custom->legend->item(i)) != nullptr;
  QCOMPARE(entries, 2 + 9);
  const QRect legend = custom->legend->outerRect();
  QVERIFY(legend.isValid());
  for (QCPAxisRect* rect : custom->axisRects()) {
    QVERIFY2(!legend.intersects(rect->rect()),
             qPrintable(QStringLiteral("legend %1,%2 %3x%4 over a plot")
                            .arg(legend.x())
                            .arg(legend.y())
                            .arg(legend.width())
                            .arg(legend.height())));
    QVERIFY(rect->rect().height() > 40);  // the plots keep room to read
  }
}

QTEST_MAIN(TestRunPlotLegend)
#include "tst_runplotlegend.moc"

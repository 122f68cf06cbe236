// The training plots' legend (issue #14, defect 4): with many runs it covers no plot; it is a
// line of its own above the cards and wraps.
#include <QApplication>
#include <QLabel>
#include <QTest>

#include <qcustomplot.h>

#include "rnnwb/ui/metric_card.hpp"
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
    plot.addRun(key, QStringLiteral("learning-rate-sweep-%1").arg(run));
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
  QApplication::processEvents();
  QLabel* legend = nullptr;
  for (QLabel* label : plot.findChildren<QLabel*>())
    if (label->text().contains(QStringLiteral("learning-rate-sweep-8"))) legend = label;
  QVERIFY(legend);
  QVERIFY(legend->wordWrap());
  const QRect legendRect(legend->mapTo(&plot, QPoint(0, 0)), legend->size());
  QVERIFY(legendRect.height() > legend->fontMetrics().height());  // wrapped onto lines
  for (const QString& metric : plot.metrics()) {
    QCustomPlot* custom = plot.card(metric)->plot();
    if (!custom->isVisible()) continue;
    const QRect axes(custom->mapTo(&plot, custom->axisRect()->rect().topLeft()),
                     custom->axisRect()->rect().size());
    QVERIFY2(!legendRect.intersects(axes), qPrintable(metric));
    QVERIFY(axes.height() > 100);  // the plots keep room to read
  }
}

QTEST_MAIN(TestRunPlotLegend)
#include "tst_runplotlegend.moc"

// RunPlot and RunList: several runs overlaid, each with its colour and legend entry, hidden and
// shown from the run list; the plots export to PNG and SVG, and a file that cannot be written
// is reported by name.
#include <QImage>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>

#include <qcustomplot.h>

#include "rnnwb/ui/run_list.hpp"
#include "rnnwb/ui/run_plot.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;
using Series = RunPlot::Series;

namespace {

std::vector<train::MetricsRecord> records(int count, double start) {
  std::vector<train::MetricsRecord> out;
  for (int i = 1; i <= count; ++i) {
    train::MetricsRecord r;
    r.step = i * 10;
    r.trainLoss = start / i;
    if (i % 3 == 0) r.validLoss = start / i + 0.1;
    if (i % 3 == 0 && start < 2.5) r.cer = 0.5 / i;  // b reports a CER, a does not
    r.gradNorm = 0.5;
    r.lr = i > 5 ? 0.0005 : 0.001;
    r.framesPerS = 5000;
    out.push_back(r);
  }
  return out;
}

}  // namespace

class TestRunPlot : public QObject {
  Q_OBJECT
 private slots:
  void runsOverlayWithLegendAndToggle();
  void exportPngAndSvg();
  void exportToBadPathNamesFile();
};

void TestRunPlot::runsOverlayWithLegendAndToggle() {
  RunPlot plot;
  RunList list;
  QObject::connect(&list, &RunList::visibilityToggled, &plot, &RunPlot::setRunVisible);
  const QColor a = plot.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  const QColor b = plot.addRun(QStringLiteral("/runs/b"), QStringLiteral("b"));
  QVERIFY(a != b);
  list.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"), a);
  list.addRun(QStringLiteral("/runs/b"), QStringLiteral("b"), b);
  QCOMPARE(list.currentRun(), QStringLiteral("/runs/b"));
  plot.setRecords(QStringLiteral("/runs/a"), records(9, 3.0));
  plot.setRecords(QStringLiteral("/runs/b"), records(6, 2.0));
  list.setProgress(QStringLiteral("/runs/a"), records(9, 3.0), 90);
  QCOMPARE(plot.plot()->legend->itemCount(), 2 + 2);  // train/valid key, one entry per run
  QCOMPARE(plot.pointCount(QStringLiteral("/runs/a"), Series::ValidLoss), 3);
  QCOMPARE(plot.pointCount(QStringLiteral("/runs/b"), Series::LearningRate), 6);
  QCOMPARE(plot.pointCount(QStringLiteral("/runs/b"), Series::Cer), 2);
  QCOMPARE(plot.pointCount(QStringLiteral("/runs/a"), Series::Cer), 0);
  QCOMPARE(plot.lastValue(QStringLiteral("/runs/b"), Series::Cer), 0.5 / 6);
  QVERIFY(plot.plot()->axisRect()->axis(QCPAxis::atRight)->visible());
  QCOMPARE(plot.plot()->axisRect()->axis(QCPAxis::atRight)->range().lower, 0.0);  // whole scale
  // No line runs along the frame: a constant rate is drawn inside the axis.
  const QCPRange lr = plot.plot()->axisRects().at(2)->axis(QCPAxis::atLeft)->range();
  QVERIFY2(lr.lower < 0.0005 && lr.upper > 0.001, qPrintable(QString::number(lr.lower)));

  list.setChecked(QStringLiteral("/runs/a"), false);
  QVERIFY(!plot.isRunVisible(QStringLiteral("/runs/a")));
  QVERIFY(plot.isRunVisible(QStringLiteral("/runs/b")));
  QCOMPARE(plot.plot()->legend->itemCount(), 2 + 1);
  // The step axes follow the visible runs only.
  QCOMPARE(plot.plot()->axisRect()->axis(QCPAxis::atBottom)->range().upper, 60.0);
  list.setChecked(QStringLiteral("/runs/a"), true);
  QVERIFY(plot.isRunVisible(QStringLiteral("/runs/a")));
  QCOMPARE(plot.plot()->legend->itemCount(), 2 + 2);
  QCOMPARE(plot.plot()->axisRect()->axis(QCPAxis::atBottom)->range().upper, 90.0);

  plot.removeRun(QStringLiteral("/runs/a"));
  QVERIFY(!plot.hasRun(QStringLiteral("/runs/a")));
  QCOMPARE(plot.plot()->legend->itemCount(), 2 + 1);
  QCOMPARE(plot.plot()->graphCount(), 2 + 6);  // the key's two, b's six series
  plot.removeRun(QStringLiteral("/runs/b"));
  QVERIFY(!plot.plot()->axisRect()->axis(QCPAxis::atRight)->visible());  // no run has a CER
}

void TestRunPlot::exportPngAndSvg() {
  RunPlot plot;
  plot.resize(800, 500);
  plot.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  plot.setRecords(QStringLiteral("/runs/a"), records(12, 3.0));
  QTemporaryDir dir;
  QString error;
  const QString png = dir.filePath(QStringLiteral("plots.png"));
  QVERIFY2(plot.exportPng(png, &error), qPrintable(error));
  const QImage image(png);
  QVERIFY(!image.isNull());
  QVERIFY(image.width() >= 800);
  const QString svg = dir.filePath(QStringLiteral("plots.svg"));
  QVERIFY2(plot.exportSvg(svg, &error), qPrintable(error));
  QSvgRenderer renderer(svg);
  QVERIFY(renderer.isValid());
  QCOMPARE(renderer.viewBox(), QRect(0, 0, 800, 500));
}

void TestRunPlot::exportToBadPathNamesFile() {
  RunPlot plot;
  QString error;
  const QString bad = QStringLiteral("/nonexistent-dir/plots.svg");
  QVERIFY(!plot.exportSvg(bad, &error));
  QVERIFY2(error.contains(bad), qPrintable(error));
  QVERIFY(!plot.exportPng(QStringLiteral("/nonexistent-dir/plots.png"), &error));
  QVERIFY2(error.contains(QStringLiteral("/nonexistent-dir/plots.png")), qPrintable(error));
}

QTEST_MAIN(TestRunPlot)
#include "tst_runplot.moc"

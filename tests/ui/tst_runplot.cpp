// RunPlot and RunList: several runs overlaid on one card per metric, each run in its colour,
// hidden and shown from the run list; runs of different tasks share only the metrics they both
// have; cards sit in collapsible groups; the plots export to PNG and SVG (a file that cannot be
// written is reported by name) and each card's data to CSV.
#include <QAction>
#include <QApplication>
#include <QColor>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QWheelEvent>

#include <qcustomplot.h>

#include "rnnwb/ui/main_window.hpp"
#include "rnnwb/ui/metric_card.hpp"
#include "rnnwb/ui/metric_group.hpp"
#include "rnnwb/ui/run_list.hpp"
#include "rnnwb/ui/run_plot.hpp"
#include "rnnwb/ui/training_panel.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

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
    r.wallS = i * 2.0;
    r.wallTime = 1764605000.0 + i * 2.0;
    out.push_back(r);
  }
  return out;
}

}  // namespace

class TestRunPlot : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void runsOverlayAndToggle();
  void plotsAreGroupedByMetric();
  void errorRatesHaveAGroupOfTheirOwn();
  void groupsCollapse();
  void csvExportReadsBack();
  void exportPngAndSvg();
  void exportToBadPathNamesFile();
  void plotsAreReadableAt1280x720();
  void wheelScrollsTheCardsAndCtrlWheelZooms();
};

void TestRunPlot::runsOverlayAndToggle() {
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
  QCOMPARE(plot.legendText(), QStringLiteral("a, b"));
  QCOMPARE(plot.pointCount(QStringLiteral("/runs/a"), QStringLiteral("valid_loss")), 3);
  QCOMPARE(plot.pointCount(QStringLiteral("/runs/b"), QStringLiteral("lr")), 6);
  QCOMPARE(plot.pointCount(QStringLiteral("/runs/b"), QStringLiteral("cer")), 2);
  QCOMPARE(plot.pointCount(QStringLiteral("/runs/a"), QStringLiteral("cer")), 0);
  QCOMPARE(plot.lastValue(QStringLiteral("/runs/b"), QStringLiteral("cer")), 0.5 / 6);
  // No line runs along the frame: a constant rate is drawn inside the (log) axis.
  QCustomPlot* lr = plot.card(QStringLiteral("lr"))->plot();
  QCOMPARE(lr->yAxis->scaleType(), QCPAxis::stLogarithmic);
  QVERIFY2(lr->yAxis->range().lower < 0.0005 && lr->yAxis->range().upper > 0.001,
           qPrintable(QString::number(lr->yAxis->range().lower)));

  list.setChecked(QStringLiteral("/runs/a"), false);
  QVERIFY(!plot.isRunVisible(QStringLiteral("/runs/a")));
  QVERIFY(plot.isRunVisible(QStringLiteral("/runs/b")));
  QCOMPARE(plot.legendText(), QStringLiteral("b"));
  // The x axes follow the shown runs only, on every card.
  for (const QString& metric : plot.metrics())
    QCOMPARE(plot.card(metric)->plot()->xAxis->range().upper, 60.0);
  list.setChecked(QStringLiteral("/runs/a"), true);
  QVERIFY(plot.isRunVisible(QStringLiteral("/runs/a")));
  QCOMPARE(plot.card(QStringLiteral("train_loss"))->plot()->xAxis->range().upper, 90.0);

  plot.removeRun(QStringLiteral("/runs/a"));
  QVERIFY(!plot.hasRun(QStringLiteral("/runs/a")));
  QCOMPARE(plot.card(QStringLiteral("train_loss"))->plot()->graphCount(), 2);  // b: raw, smoothed
  plot.removeRun(QStringLiteral("/runs/b"));
  QVERIFY(plot.metrics().isEmpty());  // no run, no card
}

// A words run's cer and wer sit together in a group of their own; lr stays with the optimizer
// (cer and wer once pushed it into Speed).
void TestRunPlot::errorRatesHaveAGroupOfTheirOwn() {
  RunPlot plot;
  plot.addRun(QStringLiteral("/runs/words"), QStringLiteral("words"));
  auto words = records(6, 3.0);
  for (auto& r : words) r.cer = 0.5, r.wer = 0.75;
  plot.setRecords(QStringLiteral("/runs/words"), words);
  QCOMPARE(plot.groupNames(), (QStringList{"Loss", "Error rates", "Optimizer", "Speed"}));
  QCOMPARE(metricGroupName(QStringLiteral("lr")), QStringLiteral("Optimizer"));
  QCOMPARE(metricGroupName(QStringLiteral("wer")), QStringLiteral("Error rates"));
  QCOMPARE(plot.pointCount(QStringLiteral("/runs/words"), QStringLiteral("wer")), 6);
}

// One card per metric: a language model's and an adding task's runs share train_loss but not
// bits per character; an extra key is a card of its own, grouped by its prefix.
void TestRunPlot::plotsAreGroupedByMetric() {
  RunPlot plot;
  plot.addRun(QStringLiteral("/runs/lm"), QStringLiteral("lm"));
  plot.addRun(QStringLiteral("/runs/adding"), QStringLiteral("adding"));
  auto lm = records(6, 3.0);
  for (auto& r : lm) r.trainBpc = r.trainLoss / std::log(2.0);
  auto adding = records(6, 3.0);
  for (auto& r : adding) r.extra["eval/accuracy"] = 0.5, r.extra["margin"] = 0.1;
  plot.setRecords(QStringLiteral("/runs/lm"), lm);
  plot.setRecords(QStringLiteral("/runs/adding"), adding);
  QCOMPARE(plot.metrics(), (QStringList{"train_loss", "valid_loss", "train_bpc", "grad_norm", "lr",
                                        "frames_per_s", "eval/accuracy", "margin"}));
  QCOMPARE(plot.groupNames(), (QStringList{"Loss", "Optimizer", "Speed", "eval", "Other"}));
  QVERIFY(plot.card(QStringLiteral("train_loss"))->hasRun(QStringLiteral("/runs/lm")));
  QVERIFY(plot.card(QStringLiteral("train_loss"))->hasRun(QStringLiteral("/runs/adding")));
  QVERIFY(plot.card(QStringLiteral("train_bpc"))->hasRun(QStringLiteral("/runs/lm")));
  QVERIFY(!plot.card(QStringLiteral("train_bpc"))->hasRun(QStringLiteral("/runs/adding")));
  QVERIFY(!plot.card(QStringLiteral("margin"))->hasRun(QStringLiteral("/runs/lm")));
  QCOMPARE(plot.lastValue(QStringLiteral("/runs/adding"), QStringLiteral("eval/accuracy")), 0.5);
  // Told the runs' tasks: a loss card each, never one axis for a language model's cross-entropy
  // and an adding task's squared error.
  plot.setRunTask(QStringLiteral("/runs/lm"), QStringLiteral("char-lm"));
  plot.setRunTask(QStringLiteral("/runs/adding"), QStringLiteral("adding"));
  QVERIFY(!plot.card(QStringLiteral("train_loss")));
  MetricCard* lmLoss = plot.card(QStringLiteral("train_loss · char-lm"));
  MetricCard* addingLoss = plot.card(QStringLiteral("train_loss · adding"));
  QVERIFY(lmLoss && addingLoss);
  QVERIFY(lmLoss->hasRun(QStringLiteral("/runs/lm")));
  QVERIFY(!lmLoss->hasRun(QStringLiteral("/runs/adding")));
  QVERIFY(addingLoss->hasRun(QStringLiteral("/runs/adding")));
  QCOMPARE(addingLoss->title(), QStringLiteral("train_loss (adding) · training loss per frame"));
  QCOMPARE(plot.pointCount(QStringLiteral("/runs/adding"), QStringLiteral("train_loss")), 6);
  // The adding task's card comes first (by task), both in the Loss group.
  QVERIFY(plot.metrics().indexOf(QStringLiteral("train_loss · adding")) <
          plot.metrics().indexOf(QStringLiteral("train_loss · char-lm")));
  // A card none of whose runs is shown leaves the grid (TensorBoard shows no empty card).
  plot.setRunVisible(QStringLiteral("/runs/lm"), false);
  QVERIFY(plot.card(QStringLiteral("train_bpc · char-lm"))->isHidden());
  QVERIFY(!plot.card(QStringLiteral("train_loss · adding"))->isHidden());
  plot.setRunVisible(QStringLiteral("/runs/lm"), true);
  QVERIFY(!plot.card(QStringLiteral("train_bpc · char-lm"))->isHidden());
  // The language model's file replaced by one without bpc: its card goes.
  plot.setRecords(QStringLiteral("/runs/lm"), records(3, 3.0));
  QVERIFY(!plot.card(QStringLiteral("train_bpc · char-lm")));
}

void TestRunPlot::groupsCollapse() {
  RunPlot plot;
  plot.resize(900, 600);
  plot.show();
  QVERIFY(QTest::qWaitForWindowExposed(&plot));
  plot.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  plot.setRecords(QStringLiteral("/runs/a"), records(9, 3.0));
  MetricGroup* loss = plot.group(QStringLiteral("Loss"));
  QVERIFY(loss);
  QCOMPARE(loss->columns(), 2);  // 900 px: two cards a row
  MetricCard* card = plot.card(QStringLiteral("train_loss"));
  QTRY_VERIFY(card->isVisible());
  auto* header = loss->findChild<QToolButton*>();
  QVERIFY(header->text().startsWith(QStringLiteral("Loss (2)")));
  QTest::mouseClick(header, Qt::LeftButton);
  QVERIFY(loss->isCollapsed());
  QVERIFY(!card->isVisible());
  QVERIFY(plot.card(QStringLiteral("lr"))->isVisible());  // other groups stay open
  QTest::mouseClick(header, Qt::LeftButton);
  QVERIFY(card->isVisible());
}

// A card's CSV: step, one column of raw values per shown run, their wall times; read back.
void TestRunPlot::csvExportReadsBack() {
  RunPlot plot;
  plot.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  plot.addRun(QStringLiteral("/runs/b"), QStringLiteral("b"));
  plot.setRecords(QStringLiteral("/runs/a"), records(4, 3.0));
  plot.setRecords(QStringLiteral("/runs/b"), records(2, 2.0));
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("train_loss.csv"));
  QString error;
  QVERIFY2(plot.card(QStringLiteral("train_loss"))->exportCsv(path, &error), qPrintable(error));
  QFile file(path);
  QVERIFY(file.open(QIODevice::ReadOnly));
  const QStringList lines = QString::fromUtf8(file.readAll()).trimmed().split(QLatin1Char('\n'));
  QCOMPARE(lines.size(), 1 + 4);
  QCOMPARE(lines[0], QStringLiteral("step,a,b,a wall_time,b wall_time"));
  QCOMPARE(lines[1], QStringLiteral("10,3,2,1764605002,1764605002"));
  QCOMPARE(lines[3].split(QLatin1Char(','))[1].toDouble(), 1.0);  // raw, not smoothed
  QCOMPARE(lines[4], QStringLiteral("40,0.75,,1764605008,"));
  // A hidden run leaves the CSV as it leaves the plot.
  plot.setRunVisible(QStringLiteral("/runs/b"), false);
  QVERIFY(
      plot.card(QStringLiteral("train_loss"))->csv().startsWith(QStringLiteral("step,a,a wall")));
  QVERIFY(
      !plot.card(QStringLiteral("train_loss"))->exportCsv(QStringLiteral("/no/dir/x.csv"), &error));
  QVERIFY2(error.contains(QStringLiteral("/no/dir/x.csv")), qPrintable(error));
}

void TestRunPlot::exportPngAndSvg() {
  RunPlot plot;
  plot.resize(800, 500);
  plot.show();
  QVERIFY(QTest::qWaitForWindowExposed(&plot));
  plot.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  plot.setRecords(QStringLiteral("/runs/a"), records(12, 3.0));
  QTRY_VERIFY(plot.card(QStringLiteral("lr"))->isVisible());
  QApplication::processEvents();
  QTemporaryDir dir;
  QString error;
  const QString png = dir.filePath(QStringLiteral("plots.png"));
  QVERIFY2(plot.exportPng(png, &error), qPrintable(error));
  const QImage image(png);
  QVERIFY(!image.isNull());
  QVERIFY(image.width() >= 700);
  // Every card, also those scrolled out of view: taller than the widget.
  QVERIFY2(image.height() / 2 > 500, qPrintable(QString::number(image.height())));
  const QString svg = dir.filePath(QStringLiteral("plots.svg"));
  QVERIFY2(plot.exportSvg(svg, &error), qPrintable(error));
  QSvgRenderer renderer(svg);
  QVERIFY(renderer.isValid());
  QVERIFY(renderer.viewBox().height() > 500);
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

// In the first window on a 1280×720 screen, with the Training dock out, the window stays on the
// screen, a whole card shows, and the dock's buttons share the plots' row of controls; Pop out
// gives the plots a window of their own with the screen's height.
void TestRunPlot::plotsAreReadableAt1280x720() {
  MainWindow window;
  const QSize first = MainWindow::initialSize(QRect(0, 0, 1280, 720));
  window.resize(first);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  auto* training = window.findChild<QDockWidget*>(QStringLiteral("Training"));
  training->findChild<QAction*>(QStringLiteral("dockToggle"))->trigger();
  QTRY_VERIFY(training->isVisible());
  RunPlot* plot = window.trainingPanel()->plot();
  plot->addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  plot->setRecords(QStringLiteral("/runs/a"), records(30, 3.0));
  MetricCard* card = plot->card(QStringLiteral("train_loss"));
  QTRY_VERIFY(card->isVisible());
  QTest::qWait(50);
  auto* scroll = plot->findChild<QScrollArea*>();
  scroll->ensureWidgetVisible(card, 0, 0);  // scrolled to, it shows whole
  const QRect shown(card->mapTo(scroll->viewport(), QPoint(0, 0)), card->size());
  QVERIFY2(scroll->viewport()->rect().contains(shown),
           qPrintable(QStringLiteral("card %1 px high in a %2 px view")
                          .arg(shown.height())
                          .arg(scroll->viewport()->height())));
  const QRect axes = card->plot()->axisRect()->rect();
  QVERIFY2(window.height() <= first.height(),  // the dock never makes the window outgrow the screen
           qPrintable(QString::number(window.height())));
  // Docked, the dock takes half the window: a card shows whole, its plot at least 120 pixels high
  // (it was about 80 when the Properties form set the left column's least height).
  QVERIFY2(axes.height() >= 120 && axes.width() >= 300,
           qPrintable(QStringLiteral("%1x%2").arg(axes.width()).arg(axes.height())));
  auto* openFolder = window.trainingPanel()->findChild<QPushButton*>(QStringLiteral("openLogDir"));
  QVERIFY(openFolder && openFolder->isVisible());
  QCOMPARE(openFolder->mapTo(plot, QPoint(0, 0)).y() < card->mapTo(plot, QPoint(0, 0)).y(), true);
  // Popped out as a window of its own, the plots get the screen's height.
  auto* popOut = window.trainingPanel()->findChild<QToolButton*>(QStringLiteral("popOutPlots"));
  QVERIFY(popOut);
  popOut->click();
  QTRY_VERIFY(training->isFloating());
  QTRY_VERIFY(card->plot()->axisRect()->rect().height() >= 200);
  popOut->click();
  QTRY_VERIFY(!training->isFloating());
}

// In a page of cards the wheel scrolls the page, as TensorBoard's does; Ctrl+wheel zooms x.
void TestRunPlot::wheelScrollsTheCardsAndCtrlWheelZooms() {
  RunPlot plot;
  plot.resize(600, 400);
  plot.show();
  QVERIFY(QTest::qWaitForWindowExposed(&plot));
  plot.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"));
  plot.setRecords(QStringLiteral("/runs/a"), records(30, 3.0));
  QApplication::processEvents();
  auto* scroll = plot.findChild<QScrollArea*>();
  QCustomPlot* custom = plot.card(QStringLiteral("train_loss"))->plot();
  const QCPRange before = custom->xAxis->range();
  const auto wheel = [&](Qt::KeyboardModifiers modifiers) {
    const QPointF at = custom->axisRect()->rect().center();
    QWheelEvent event(at, custom->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                      modifiers, Qt::NoScrollPhase, false);
    QApplication::sendEvent(custom, &event);
  };
  QCOMPARE(scroll->verticalScrollBar()->value(), 0);
  wheel(Qt::NoModifier);
  QVERIFY(scroll->verticalScrollBar()->value() > 0);
  QCOMPARE(custom->xAxis->range(), before);
  wheel(Qt::ControlModifier);
  QVERIFY(custom->xAxis->range().size() > before.size());  // zoomed out, on every card
  QCOMPARE(plot.card(QStringLiteral("lr"))->plot()->xAxis->range(), custom->xAxis->range());
}

QTEST_MAIN(TestRunPlot)
#include "tst_runplot.moc"

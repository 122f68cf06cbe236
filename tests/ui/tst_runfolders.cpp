// The runs of the Training dock as TensorBoard users expect them: a regular-expression filter on
// the runs' names hides runs in the list and in the plots (an invalid one turns the field red,
// filters nothing, and opens no dialog); a folder of many runs (the dock's button, or
// rnnwb-gui --logdir) lists every run folder under it, depth-bounded, and new runs appearing in it
// while the window is open; a run of an older rnnwb shown against wall time is greyed with the
// reason.
#include <QApplication>
#include <QColor>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLineEdit>
#include <QPalette>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/log_dir_watcher.hpp"
#include "rnnwb/ui/metric_card.hpp"
#include "rnnwb/ui/run_list.hpp"
#include "rnnwb/ui/run_plot.hpp"
#include "rnnwb/ui/training_panel.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

/// A run folder as rnnwb train leaves it: metrics.jsonl (with or without wall_time).
void makeRun(const QString& dir, bool wallTime = true) {
  QVERIFY(QDir().mkpath(dir));
  QFile metrics(dir + QStringLiteral("/metrics.jsonl"));
  QVERIFY(metrics.open(QIODevice::WriteOnly));
  for (int step = 10; step <= 30; step += 10)
    metrics.write(QStringLiteral("{\"step\": %1, \"train_loss\": %2%3}\n")
                      .arg(step)
                      .arg(3.0 - step / 20.0)
                      .arg(wallTime ? QStringLiteral(", \"wall_time\": %1").arg(1764605000 + step)
                                    : QString())
                      .toUtf8());
}

QStringList rowNames(const RunList& list, bool shownOnly) {
  QStringList names;
  auto* tree = list.findChild<QTreeWidget*>();
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    if (!shownOnly || !tree->topLevelItem(i)->isHidden()) names << tree->topLevelItem(i)->text(0);
  names.sort();
  return names;
}

}  // namespace

class TestRunFolders : public QObject {
  Q_OBJECT
 private slots:
  void runFilterHidesRunsInTheListAndThePlots();
  void invalidRegexTurnsTheFieldRed();
  void folderOfRunsListsEveryRunAndFollowsNewOnes();
  void runsWithoutWallTimeAreGreyedAgainstWallTime();
  void everyColumnShowsInANarrowList();
};

// Issue #30: at 1280x720 the runs list showed only Run and State; a long name took the rest.
void TestRunFolders::everyColumnShowsInANarrowList() {
  RunList list;
  list.resize(280, 200);
  list.show();
  QVERIFY(QTest::qWaitForWindowExposed(&list));
  std::vector<train::MetricsRecord> records(3);
  for (int i = 0; i < 3; ++i) {
    records[i].step = 1000 * (i + 1);
    records[i].trainLoss = 1.2345 + i;
    records[i].validLoss = 2.3456 + i;
  }
  const QString key = QStringLiteral("/runs/lstm-peephole-20261202-1/kjv/lr0.002-long-name");
  list.addRun(key, key.mid(1), Qt::red, true);
  list.setState(key, QStringLiteral("finished"));
  list.setProgress(key, records, 3000);
  QApplication::processEvents();
  auto* tree = list.findChild<QTreeWidget*>();
  QHeaderView* header = tree->header();
  for (int column = 1; column < tree->columnCount(); ++column) {
    const int right = header->sectionViewportPosition(column) + header->sectionSize(column);
    QVERIFY2(right <= tree->viewport()->width(),
             qPrintable(QStringLiteral("column %1 ends at %2 of %3")
                            .arg(column)
                            .arg(right)
                            .arg(tree->viewport()->width())));
    QVERIFY(header->sectionSize(column) >=
            tree->fontMetrics().horizontalAdvance(tree->topLevelItem(0)->text(column)));
  }
  QVERIFY(header->sectionSize(0) >= 40);  // the name, cut in the middle, still reads
}

void TestRunFolders::runFilterHidesRunsInTheListAndThePlots() {
  RunPlot plot;
  RunList list;
  QObject::connect(&list, &RunList::visibilityToggled, &plot, &RunPlot::setRunVisible);
  std::vector<train::MetricsRecord> records(3);
  for (int i = 0; i < 3; ++i) records[i].step = i + 1, records[i].trainLoss = 1.0 + i;
  for (const QString& name :
       {QStringLiteral("lr-0.001"), QStringLiteral("lr-0.01"), QStringLiteral("gru-lr-0.001")}) {
    const QString key = QStringLiteral("/runs/") + name;
    list.addRun(key, name, plot.addRun(key, name));
    plot.setRecords(key, records);
  }
  auto* field = list.findChild<QLineEdit*>(QStringLiteral("runFilter"));
  QVERIFY(field);
  QTest::keyClicks(field, QStringLiteral("^LR-0\\.001$"));  // case-insensitive, as TensorBoard
  QCOMPARE(rowNames(list, true), QStringList{QStringLiteral("lr-0.001")});
  QVERIFY(plot.isRunVisible(QStringLiteral("/runs/lr-0.001")));
  QVERIFY(!plot.isRunVisible(QStringLiteral("/runs/lr-0.01")));
  QVERIFY(!plot.isRunVisible(QStringLiteral("/runs/gru-lr-0.001")));
  QCOMPARE(plot.card(QStringLiteral("train_loss"))->readoutAt(2).size(), std::size_t(1));
  // An unchecked run stays hidden when the filter lets it through again.
  list.setFilter(QStringLiteral("0\\.001"));
  QCOMPARE(rowNames(list, true),
           (QStringList{QStringLiteral("gru-lr-0.001"), QStringLiteral("lr-0.001")}));
  list.setChecked(QStringLiteral("/runs/gru-lr-0.001"), false);
  list.setFilter(QString());
  QCOMPARE(rowNames(list, true).size(), 3);
  QVERIFY(plot.isRunVisible(QStringLiteral("/runs/lr-0.01")));
  QVERIFY(!plot.isRunVisible(QStringLiteral("/runs/gru-lr-0.001")));
  // A run that arrives while a filter is set is filtered at once.
  list.setFilter(QStringLiteral("gru"));
  list.addRun(QStringLiteral("/runs/new"), QStringLiteral("lstm-new"), Qt::red);
  QVERIFY(!list.isShown(QStringLiteral("/runs/new")));
}

void TestRunFolders::invalidRegexTurnsTheFieldRed() {
  RunList list;
  list.addRun(QStringLiteral("/runs/a"), QStringLiteral("a"), Qt::red);
  auto* field = list.findChild<QLineEdit*>(QStringLiteral("runFilter"));
  const QColor normal = field->palette().color(QPalette::Text);
  list.setFilter(QStringLiteral("lr-(0.01"));  // an unclosed group
  QVERIFY(!list.filterIsValid());
  QVERIFY(QApplication::activeModalWidget() == nullptr);  // no dialog
  QVERIFY(field->palette().color(QPalette::Text) != normal);
  QCOMPARE(field->palette().color(QPalette::Text).red(), 0xd6);
  QVERIFY2(field->toolTip().contains(QStringLiteral("Not a regular expression")),
           qPrintable(field->toolTip()));
  QVERIFY(list.isShown(QStringLiteral("/runs/a")));  // nothing filtered meanwhile
  list.setFilter(QStringLiteral("lr-(0.01)"));
  QVERIFY(list.filterIsValid());
  QCOMPARE(field->palette().color(QPalette::Text), normal);
  QVERIFY(!list.isShown(QStringLiteral("/runs/a")));
}

void TestRunFolders::folderOfRunsListsEveryRunAndFollowsNewOnes() {
  QTemporaryDir root;
  makeRun(root.filePath(QStringLiteral("sweep/lr-0.001")));
  makeRun(root.filePath(QStringLiteral("sweep/lr-0.01")));
  makeRun(root.filePath(QStringLiteral("baseline")));
  makeRun(root.filePath(QStringLiteral("a/b/c/d/too-deep")));  // 5 levels down: left out
  // A run's own subfolders hold no runs of their own (launch/ has a config.json).
  makeRun(root.filePath(QStringLiteral("baseline/launch")));
  GraphDocument document;
  TrainingPanel panel(&document);
  QVERIFY(panel.openLogDir(root.path()));
  QCOMPARE(rowNames(*panel.runList(), false),
           (QStringList{QStringLiteral("baseline"), QStringLiteral("sweep/lr-0.001"),
                        QStringLiteral("sweep/lr-0.01")}));
  QVERIFY2(panel.message().contains(QStringLiteral("3 run(s)")), qPrintable(panel.message()));
  QCOMPARE(panel.plot()->pointCount(root.filePath(QStringLiteral("sweep/lr-0.01")),
                                    QStringLiteral("train_loss")),
           3);
  // A run started in the folder while the window is open appears (the watcher, no poll needed:
  // the test waits less than the 2 s timer would take twice).
  makeRun(root.filePath(QStringLiteral("sweep/lr-0.1")));
  QTRY_COMPARE_WITH_TIMEOUT(panel.runList()->count(), 4, 3000);
  QVERIFY(rowNames(*panel.runList(), false).contains(QStringLiteral("sweep/lr-0.1")));
  QTRY_COMPARE_WITH_TIMEOUT(panel.plot()->pointCount(root.filePath(QStringLiteral("sweep/lr-0.1")),
                                                     QStringLiteral("train_loss")),
                            3, 3000);
  // An empty folder made first and filled later (rnnwb train makes the folder, then its files).
  QVERIFY(QDir().mkpath(root.filePath(QStringLiteral("later"))));
  QTest::qWait(400);
  makeRun(root.filePath(QStringLiteral("later")));
  QTRY_COMPARE_WITH_TIMEOUT(panel.runList()->count(), 5, 4000);
  QVERIFY(!panel.openLogDir(root.filePath(QStringLiteral("no-such-folder"))));
  QVERIFY(panel.messageIsError());
}

void TestRunFolders::runsWithoutWallTimeAreGreyedAgainstWallTime() {
  QTemporaryDir root;
  makeRun(root.filePath(QStringLiteral("new")));
  makeRun(root.filePath(QStringLiteral("old")), false);
  GraphDocument document;
  TrainingPanel panel(&document);
  QVERIFY(panel.openLogDir(root.path()));
  auto* tree = panel.runList()->findChild<QTreeWidget*>();
  const auto tipOf = [&](const QString& name) {
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
      if (tree->topLevelItem(i)->text(0) == name) return tree->topLevelItem(i)->toolTip(0);
    return QString();
  };
  QVERIFY(!tipOf(QStringLiteral("old")).contains(QStringLiteral("wall_time")));
  panel.plot()->setXAxis(XAxis::Wall);
  QVERIFY2(tipOf(QStringLiteral("old")).contains(QStringLiteral("no wall_time")),
           qPrintable(tipOf(QStringLiteral("old"))));
  QVERIFY(!tipOf(QStringLiteral("new")).contains(QStringLiteral("wall_time")));
  panel.plot()->setXAxis(XAxis::Step);
  QVERIFY(!tipOf(QStringLiteral("old")).contains(QStringLiteral("wall_time")));
}

QTEST_MAIN(TestRunFolders)
#include "tst_runfolders.moc"

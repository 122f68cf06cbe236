// The runs scatter (HParams' scatter view, issue #30): one metric of the runs table against one
// setting, a dot per run in its colour, categories for text settings, the learning rate on a log
// axis, runs without a value named, hover and click on a dot.
#include <qcustomplot.h>
#include <QColor>
#include <QSignalSpy>
#include <QTest>

#include "rnnwb/ui/runs_scatter.hpp"
#include "rnnwb/ui/runs_table.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

train::TrainConfig config(double lr, const std::string& optimizer, int streams) {
  train::TrainConfig c;
  c.task.kind = "char-lm";
  c.streams = streams;
  c.hPrime = 32;
  c.optimizer.learningRate = lr;
  c.optimizer.kind = optimizer == "sgd" ? train::OptimizerKind::Sgd : train::OptimizerKind::Adam;
  return c;
}

std::vector<train::MetricsRecord> records(double train, std::optional<double> valid) {
  std::vector<train::MetricsRecord> out(2);
  out[0].step = 100;
  out[0].trainLoss = train + 1;
  out[1].step = 200;
  out[1].trainLoss = train;
  out[1].validLoss = valid;
  return out;
}

// Three runs of a learning-rate sweep, one without a validation yet.
void fill(RunsTable& table) {
  table.setRun("/r/a", "a", config(1e-3, "adam", 16), records(2.0, 2.1), Qt::red);
  table.setRun("/r/b", "b", config(1e-2, "sgd", 32), records(1.5, 1.6), Qt::blue);
  table.setRun("/r/c", "c", config(1e-1, "adam", 32), records(3.0, std::nullopt), Qt::green);
}

const RunsScatter::Dot* dotOf(const RunsScatter& scatter, const QString& key) {
  for (const RunsScatter::Dot& dot : scatter.dots())
    if (dot.key == key) return &dot;
  return nullptr;
}

}  // namespace

class TestRunsScatter : public QObject {
  Q_OBJECT
 private slots:
  void bestValidAgainstTheLearningRateOnALogAxis();
  void aTextSettingIsAnAxisOfCategories();
  void followsTheTable();
  void aDotNamesAndSelectsItsRun();
};

void TestRunsScatter::bestValidAgainstTheLearningRateOnALogAxis() {
  RunsTable table;
  fill(table);
  RunsScatter scatter(&table);
  QCOMPARE(scatter.xColumn(), RunsTable::kLr);  // what a sweep varies first
  QCOMPARE(scatter.yColumn(), RunsTable::kValid);
  QVERIFY(scatter.logX());
  QCOMPARE(scatter.plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
  QCOMPARE(scatter.dots().size(), std::size_t(2));
  QCOMPARE(dotOf(scatter, "/r/a")->x, 1e-3);
  QCOMPARE(dotOf(scatter, "/r/a")->y, 2.1);
  QCOMPARE(dotOf(scatter, "/r/b")->y, 1.6);
  QVERIFY2(scatter.note().contains(QStringLiteral("c")) &&
               scatter.note().contains(QStringLiteral("best valid")),
           qPrintable(scatter.note()));
  QCOMPARE(scatter.plot()->graphCount(), 2);
  const int a = int(dotOf(scatter, "/r/a") - scatter.dots().data());  // its graph: in dots' order
  QCOMPARE(scatter.plot()->graph(a)->scatterStyle().brush().color(), QColor(Qt::red));

  // The last training loss against N: every run has one, on a linear axis.
  scatter.setAxes(RunsTable::kStreams, RunsTable::kTrain);
  QVERIFY(!scatter.logX());
  QCOMPARE(scatter.plot()->xAxis->scaleType(), QCPAxis::stLinear);
  QCOMPARE(scatter.dots().size(), std::size_t(3));
  QCOMPARE(dotOf(scatter, "/r/c")->x, 32.0);
  QCOMPARE(dotOf(scatter, "/r/c")->y, 3.0);
  QVERIFY(scatter.note().isEmpty());
  const QCPRange across = scatter.plot()->xAxis->range();
  QVERIFY(across.lower < 16 && across.upper > 32);  // the end dots whole
}

void TestRunsScatter::aTextSettingIsAnAxisOfCategories() {
  RunsTable table;
  fill(table);
  RunsScatter scatter(&table);
  scatter.setAxes(RunsTable::kOptimizer, RunsTable::kTrain);
  QCOMPARE(scatter.categories(), QStringList({QStringLiteral("adam"), QStringLiteral("sgd")}));
  QCOMPARE(dotOf(scatter, "/r/a")->x, 0.0);
  QCOMPARE(dotOf(scatter, "/r/b")->x, 1.0);
  QCOMPARE(dotOf(scatter, "/r/c")->x, 0.0);
  QVERIFY(!scatter.logX());
  auto ticker = scatter.plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
  QVERIFY(ticker);
  QCOMPARE(ticker->ticks().value(1), QStringLiteral("sgd"));
}

void TestRunsScatter::followsTheTable() {
  RunsTable table;
  RunsScatter scatter(&table);
  QVERIFY(scatter.dots().empty());
  fill(table);
  QCOMPARE(scatter.dots().size(), std::size_t(2));
  table.setRun("/r/c", "c", config(1e-1, "adam", 32), records(3.0, 1.2), Qt::green);
  QCOMPARE(scatter.dots().size(), std::size_t(3));  // c reported a validation
  QCOMPARE(dotOf(scatter, "/r/c")->y, 1.2);
  table.removeRun("/r/a");
  QCOMPARE(scatter.dots().size(), std::size_t(2));
  QVERIFY(!dotOf(scatter, "/r/a"));
}

void TestRunsScatter::aDotNamesAndSelectsItsRun() {
  RunsTable table;
  fill(table);
  RunsScatter scatter(&table);
  scatter.resize(500, 300);
  scatter.show();
  QVERIFY(QTest::qWaitForWindowExposed(&scatter));
  scatter.plot()->replot();
  const RunsScatter::Dot* b = dotOf(scatter, "/r/b");
  const QPoint at(int(scatter.plot()->xAxis->coordToPixel(b->x)),
                  int(scatter.plot()->yAxis->coordToPixel(b->y)));
  QCOMPARE(scatter.runAt(at + QPoint(3, -2)), QStringLiteral("/r/b"));
  QCOMPARE(scatter.runAt(at + QPoint(40, 40)), QString());
  QSignalSpy clicked(&scatter, &RunsScatter::runClicked);
  QTest::mouseClick(scatter.plot(), Qt::LeftButton, {}, at);
  QCOMPARE(clicked.count(), 1);
  QCOMPARE(clicked.front().front().toString(), QStringLiteral("/r/b"));
}

QTEST_MAIN(TestRunsScatter)
#include "tst_runsscatter.moc"

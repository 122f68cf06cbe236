// The runs table (TensorBoard's HParams table): a row per run with its settings and final
// metrics, updated in place, sortable by any column with numbers sorted as numbers.
#include <QTableWidget>
#include <QTest>

#include "rnnwb/ui/runs_table.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

train::TrainConfig config(double lr, int streams) {
  train::TrainConfig c;
  c.task.kind = "char-lm";
  c.streams = streams;
  c.hPrime = 32;
  c.optimizer.learningRate = lr;
  return c;
}

std::vector<train::MetricsRecord> records(int count, double loss) {
  std::vector<train::MetricsRecord> out(count);
  for (int i = 0; i < count; ++i) {
    out[i].step = 100 * (i + 1);
    out[i].trainLoss = loss - 0.1 * i;
    if (i % 2) out[i].validLoss = loss + 0.05 - 0.1 * i;
  }
  return out;
}

}  // namespace

class TestRunsTable : public QObject {
  Q_OBJECT
 private slots:
  void rowsShowSettingsAndFinalMetrics();
  void sortsNumbersAsNumbers();
};

void TestRunsTable::rowsShowSettingsAndFinalMetrics() {
  RunsTable table;
  table.setRun(QStringLiteral("/r/a"), QStringLiteral("a"), config(0.002, 16), records(4, 3.0));
  table.setRun(QStringLiteral("/r/old"), QStringLiteral("old"), std::nullopt, records(2, 2.0));
  QCOMPARE(table.table()->rowCount(), 2);
  QCOMPARE(table.text(QStringLiteral("/r/a"), RunsTable::kTask), QStringLiteral("char-lm"));
  QCOMPARE(table.text(QStringLiteral("/r/a"), RunsTable::kAlgo), QStringLiteral("bptt"));
  QCOMPARE(table.text(QStringLiteral("/r/a"), RunsTable::kH), QStringLiteral("64"));  // 2 h'
  QCOMPARE(table.text(QStringLiteral("/r/a"), RunsTable::kOptimizer), QStringLiteral("adam"));
  QCOMPARE(table.text(QStringLiteral("/r/a"), RunsTable::kLr), QStringLiteral("0.002"));
  QCOMPARE(table.text(QStringLiteral("/r/a"), RunsTable::kStep), QStringLiteral("400"));
  QCOMPARE(table.text(QStringLiteral("/r/a"), RunsTable::kTrain), QStringLiteral("2.7"));
  QCOMPARE(table.text(QStringLiteral("/r/a"), RunsTable::kValid), QStringLiteral("2.75"));  // best
  QCOMPARE(table.text(QStringLiteral("/r/old"), RunsTable::kLr), QString());  // no config.json
  QCOMPARE(table.text(QStringLiteral("/r/old"), RunsTable::kStep), QStringLiteral("200"));
  // Updated in place as the run goes on.
  table.setRun(QStringLiteral("/r/a"), QStringLiteral("a"), config(0.002, 16), records(6, 3.0));
  QCOMPARE(table.table()->rowCount(), 2);
  QCOMPARE(table.text(QStringLiteral("/r/a"), RunsTable::kStep), QStringLiteral("600"));
  table.removeRun(QStringLiteral("/r/old"));
  QCOMPARE(table.rowOf(QStringLiteral("/r/old")), -1);
  QCOMPARE(table.table()->rowCount(), 1);
}

void TestRunsTable::sortsNumbersAsNumbers() {
  RunsTable table;
  table.setRun(QStringLiteral("/r/a"), QStringLiteral("a"), config(0.01, 900), records(3, 3.0));
  table.setRun(QStringLiteral("/r/b"), QStringLiteral("b"), config(0.002, 10000), records(9, 2.5));
  table.setRun(QStringLiteral("/r/c"), QStringLiteral("c"), config(0.005, 64), records(5, 4.0));
  table.table()->sortByColumn(RunsTable::kStreams, Qt::AscendingOrder);  // as text: 10000 < 64
  QCOMPARE(table.rowOf(QStringLiteral("/r/c")), 0);
  QCOMPARE(table.rowOf(QStringLiteral("/r/a")), 1);
  QCOMPARE(table.rowOf(QStringLiteral("/r/b")), 2);
  table.table()->sortByColumn(RunsTable::kValid, Qt::AscendingOrder);
  QCOMPARE(table.rowOf(QStringLiteral("/r/b")), 0);  // 2.5 + 0.05 - 0.7 = 1.85
  // An update keeps the order by the column sorted on.
  table.setRun(QStringLiteral("/r/c"), QStringLiteral("c"), config(0.005, 64), records(30, 4.0));
  QCOMPARE(table.rowOf(QStringLiteral("/r/c")), 0);  // its best valid is now the lowest
}

QTEST_MAIN(TestRunsTable)
#include "tst_runstable.moc"

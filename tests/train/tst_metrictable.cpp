// The metrics of runs by name (metric_table.hpp): which metrics runs carry, in the plots' order,
// and one metric over several runs as CSV (what the workbench exports and `rnnwb metrics --csv`
// prints), read back cell by cell.
#include <QTest>

#include <sstream>

#include "rnnwb/core/train/metric_table.hpp"

using namespace rnnwb::train;

namespace {

MetricsRecord record(std::int64_t step, double loss) {
  MetricsRecord r;
  r.step = step;
  r.trainLoss = loss;
  r.lr = 0.001;
  return r;
}

std::vector<std::vector<std::string>> parseCsv(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"')
        cells.back() += '"', ++i;
      else if (c == '"')
        quoted = !quoted;
      else if (c == ',' && !quoted)
        cells.emplace_back();
      else
        cells.back() += c;
    }
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

class TestMetricTable : public QObject {
  Q_OBJECT
 private slots:
  void metricNamesComeInThePlotsOrder();
  void csvHasAColumnPerRunWithRawValues();
};

void TestMetricTable::metricNamesComeInThePlotsOrder() {
  std::vector<MetricsRecord> records = {record(10, 2.0), record(20, 1.5)};
  records[1].validLoss = 1.7;
  records[1].cer = 0.4;
  records[0].extra["zeta"] = 1.0;
  records[1].extra["accuracy"] = 0.5;
  const std::vector<std::string> expected = {"train_loss", "valid_loss",   "cer",      "grad_norm",
                                             "lr",         "frames_per_s", "accuracy", "zeta"};
  QCOMPARE(metricNames(records), expected);
  QVERIFY(metricNames({}).empty());
  QCOMPARE(metricValue(records[1], "accuracy").value(), 0.5);
  QVERIFY(!metricValue(records[0], "accuracy"));
  QVERIFY(!metricValue(records[0], "valid_loss"));
}

void TestMetricTable::csvHasAColumnPerRunWithRawValues() {
  std::vector<MetricsRecord> a = {record(10, 2.0), record(20, 1.0 / 3.0), record(30, 1.25)};
  a[0].wallTime = 1764605000.5;
  a[1].wallTime = 1764605010.25;
  a[2].wallTime = 1764605020.0;
  std::vector<MetricsRecord> b = {record(20, 3.5), record(40, 3.0)};  // an older file: no wall time
  const std::string csv = metricsCsv({{"lr 0.002", &a}, {"b, \"quoted\"", &b}}, "train_loss");
  const auto rows = parseCsv(csv);
  QCOMPARE(rows.size(), std::size_t(1 + 4));  // steps 10, 20, 30, 40
  const std::vector<std::string> header = {"step", "lr 0.002", "b, \"quoted\"",
                                           "lr 0.002 wall_time", "b, \"quoted\" wall_time"};
  QCOMPARE(rows[0], header);
  QCOMPARE(rows[1], (std::vector<std::string>{"10", "2", "", "1764605000.5", ""}));
  QCOMPARE(std::stod(rows[2][1]), 1.0 / 3.0);  // the raw value, bit for bit
  QCOMPARE(rows[2][2], std::string("3.5"));
  QCOMPARE(rows[4], (std::vector<std::string>{"40", "", "3", "", ""}));
  // A metric only some records carry: only its steps.
  a[1].validLoss = 1.5;
  const auto valid = parseCsv(metricsCsv({{"a", &a}}, "valid_loss"));
  QCOMPARE(valid.size(), std::size_t(2));
  QCOMPARE(valid[1], (std::vector<std::string>{"20", "1.5", "1764605010.25"}));
}

QTEST_GUILESS_MAIN(TestMetricTable)
#include "tst_metrictable.moc"

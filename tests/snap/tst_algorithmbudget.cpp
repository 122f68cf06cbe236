// Which algorithm fits a memory budget (algorithm_budget.hpp) and `rnnwb budget`: the bytes each
// algorithm holds, the fit against the budget, refusals, measured times, and the size parser.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "cli_run.hpp"
#include "engine_test_support.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/snap/algorithm_budget.hpp"
#include "rnnwb/core/snap/rtrl_backend.hpp"

using namespace rnnwb;

namespace {

CompiledPlan example(const char* name) {
  return CompiledPlan(loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/" + name));
}

const snap::AlgorithmEstimate& row(const snap::BudgetTable& table, const std::string& algo) {
  for (const auto& r : table.rows)
    if (r.algorithm == algo) return r;
  throw std::logic_error("no row " + algo);
}

}  // namespace

class TestAlgorithmBudget : public QObject {
  Q_OBJECT
 private slots:
  void bpttChunkBytesCountsEveryBuffer();
  void rtrlBytesAreTheLearnersJacobiansAndGradients();
  void memoryGrowsWithStreamsAndWindow();
  void fitsIsTotalAgainstBudget();
  void refusedNodeIsNamed();
  void measurementStopsAndKeepsSampleRunsShort();
  void badQueryNamesTheField();
  void measuresOnlyWhatFits();
  void parsesSizes_data();
  void parsesSizes();
  void rejectsBadSizes();
  void commandPrintsJson();
};

// elman: x (8) -> h (32, delay-1 loop) -> y (8). For T frames and N streams the engine holds:
// x's outputs T·N·8; h's outputs and their gradients over T + 1 frames (its delay reaches one
// back), its pre-activations and their gradients over T, and one carried frame; y's outputs,
// pre-activations and both gradients over T.
void TestAlgorithmBudget::bpttChunkBytesCountsEveryBuffer() {
  const CompiledPlan plan = example("elman.rnn.json");
  const int T = 10, N = 3;
  const std::uint64_t floats = 8 * T * N + (2 * (T + 1) * N + 2 * T * N + N) * 32 + 4 * T * N * 8;
  QCOMPARE(snap::bpttChunkBytes(plan, T, N), floats * 4);
}

void TestAlgorithmBudget::rtrlBytesAreTheLearnersJacobiansAndGradients() {
  const CompiledPlan plan = example("lstm-peephole.rnn.json");
  snap::BudgetQuery query;
  query.streams = 5;
  const snap::BudgetTable table = snap::estimateAlgorithms(plan, query, 0);
  const std::uint64_t parameters = ParameterSet(plan).size();
  QCOMPARE(table.parameters, std::int64_t(parameters));
  QCOMPARE(table.sharedBytes, parameters * 4 * 4);  // values, gradient, Adam's two moments
  for (auto [algo, level] : {std::pair{"snap1", 1}, {"snap2", 2}, {"rtrl", 0}})
    QCOMPARE(row(table, algo).ownBytes,
             snap::rtrlJacobianBytes(plan, level, 5) + 5 * parameters * 4);
  QCOMPARE(row(table, "bptt").ownBytes, snap::bpttChunkBytes(plan, 64, 5));
}

void TestAlgorithmBudget::memoryGrowsWithStreamsAndWindow() {
  const CompiledPlan plan = example("gru.rnn.json");
  snap::BudgetQuery small, more, longer;
  small.streams = 4;
  more.streams = 8;
  longer.streams = 4;
  longer.window = 128;
  const auto a = snap::estimateAlgorithms(plan, small, 0);
  const auto b = snap::estimateAlgorithms(plan, more, 0);
  const auto c = snap::estimateAlgorithms(plan, longer, 0);
  for (const char* algo : {"bptt", "snap1", "rtrl"})
    QVERIFY(row(b, algo).ownBytes > row(a, algo).ownBytes);
  QVERIFY(row(c, "bptt").ownBytes > row(a, "bptt").ownBytes);
  QCOMPARE(row(c, "snap1").ownBytes, row(a, "snap1").ownBytes);  // RTRL keeps no window
  // Twice the overlap, twice the work per new frame.
  snap::BudgetQuery overlap = small;
  overlap.newFrames = 32;
  QCOMPARE(row(snap::estimateAlgorithms(plan, overlap, 0), "bptt").flopsPerFrame,
           2 * row(a, "bptt").flopsPerFrame);
}

void TestAlgorithmBudget::fitsIsTotalAgainstBudget() {
  const CompiledPlan plan = example("elman.rnn.json");
  snap::BudgetQuery query;
  const std::uint64_t need = row(snap::estimateAlgorithms(plan, query, 0), "snap1").totalBytes;
  query.budgetBytes = need;
  QVERIFY(row(snap::estimateAlgorithms(plan, query, 0), "snap1").fits);
  query.budgetBytes = need - 1;
  QVERIFY(!row(snap::estimateAlgorithms(plan, query, 0), "snap1").fits);
}

void TestAlgorithmBudget::refusedNodeIsNamed() {
  const Graph graph =
      testing::graphFromJson(R"({"format": "rnnwb.graph", "version": 1, "name": "d2",
    "layers": [{"id": "x", "kind": "input", "size": 2},
               {"id": "h", "kind": "additive", "size": 3, "activation": "tanh"},
               {"id": "y", "kind": "additive", "size": 2, "loss": "mse"}],
    "connections": [{"from": "x", "to": "h"}, {"from": "h", "to": "h", "delay": 2},
                    {"from": "h", "to": "y"}]})");
  snap::BudgetQuery query;
  query.budgetBytes = std::uint64_t(1) << 40;
  const auto table = snap::estimateAlgorithms(CompiledPlan(graph), query, 0);
  QVERIFY(row(table, "bptt").fits);
  QVERIFY(row(table, "snap1").refusal.has_value());
  QVERIFY2(row(table, "snap1").refusal->find("delay 2") != std::string::npos,
           row(table, "snap1").refusal->c_str());
  QVERIFY(!row(table, "rtrl").fits);
}

void TestAlgorithmBudget::badQueryNamesTheField() {
  const CompiledPlan plan = example("elman.rnn.json");
  snap::BudgetQuery query;
  query.newFrames = 65;  // > h = 64
  try {
    snap::estimateAlgorithms(plan, query, 0);
    QFAIL("h' > h was accepted");
  } catch (const std::invalid_argument& e) {
    QVERIFY2(QString(e.what()).contains("h' must be in [1, h = 64], not 65"), e.what());
  }
}

void TestAlgorithmBudget::measuresOnlyWhatFits() {
  const CompiledPlan plan = example("lstm-peephole.rnn.json");
  snap::BudgetQuery query;
  query.streams = 8;
  query.window = query.newFrames = 16;
  auto table = snap::estimateAlgorithms(plan, query, 1e9);
  query.budgetBytes = row(table, "snap1").totalBytes;  // snap1 and BPTT fit, not the rest
  table = snap::estimateAlgorithms(plan, query, 1e9);
  QVERIFY(row(table, "bptt").fits && !row(table, "rtrl").fits);
  const double modelled = row(table, "rtrl").secondsPerFrame;
  snap::measureAlgorithms(plan, query, table);
  QVERIFY(row(table, "bptt").measured && row(table, "bptt").secondsPerFrame > 0);
  QVERIFY(row(table, "snap1").measured && row(table, "snap1").secondsPerFrame > 0);
  QVERIFY(!row(table, "rtrl").measured);
  QCOMPARE(row(table, "rtrl").secondsPerFrame, modelled);
}

void TestAlgorithmBudget::measurementStopsAndKeepsSampleRunsShort() {
  // Issue #30: the workbench could not stop a measurement, and its window waited minutes on
  // close. A requested stop starts no further sample run; a cap leaves long ones modelled.
  const CompiledPlan plan = example("lstm-peephole.rnn.json");
  snap::BudgetQuery query;
  query.streams = 8;
  query.window = query.newFrames = 16;
  query.budgetBytes = std::uint64_t(1) << 40;
  std::stop_source stop;
  stop.request_stop();
  QCOMPARE(snap::measureEngineRate(plan, 8, 1, stop.get_token()), 0.0);
  auto table = snap::estimateAlgorithms(plan, query, 1e9);
  QVERIFY(!snap::measureAlgorithms(plan, query, table, 1, 4, {stop.get_token(), 0}));
  for (const auto& r : table.rows) QVERIFY2(!r.measured, r.algorithm.c_str());
  // Rows modelled above the cap stay modelled, those below are measured.
  const double bptt = row(table, "bptt").secondsPerFrame / 2 * query.newFrames;
  const double rtrl = row(table, "rtrl").secondsPerFrame / 2 * 16;
  QVERIFY(rtrl > bptt);
  QVERIFY(snap::measureAlgorithms(plan, query, table, 1, 4, {{}, (bptt + rtrl) / 2}));
  QVERIFY(row(table, "bptt").measured);
  QVERIFY(!row(table, "rtrl").measured);
}

void TestAlgorithmBudget::parsesSizes_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<qulonglong>("bytes");
  QTest::newRow("plain") << "512" << 512ull;
  QTest::newRow("KiB") << "64 KiB" << 65536ull;
  QTest::newRow("GiB fraction") << "1.5GiB" << 1610612736ull;
  QTest::newRow("G") << "2G" << 2147483648ull;
  QTest::newRow("MB decimal") << "300 MB" << 300000000ull;
}

void TestAlgorithmBudget::parsesSizes() {
  QFETCH(QString, text);
  QFETCH(qulonglong, bytes);
  QCOMPARE(qulonglong(parseBytes(text.toStdString())), bytes);
}

void TestAlgorithmBudget::rejectsBadSizes() {
  for (const char* text : {"", "lots", "12 parsecs", "-1 GiB", "1e30 TiB", "nan"})
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseBytes(text));
}

void TestAlgorithmBudget::commandPrintsJson() {
  const auto run = testing::runCli({"budget", RNNWB_EXAMPLES_DIR "/gru.rnn.json", "--streams", "4",
                                    "--budget", "1 GiB", "--json"});
  QVERIFY2(run.exitCode == 0, qPrintable(run.err));
  const QJsonObject doc = QJsonDocument::fromJson(run.out.toUtf8()).object();
  QCOMPARE(doc["budget_bytes"].toDouble(), 1073741824.0);
  const QJsonArray rows = doc["algorithms"].toArray();
  QCOMPARE(rows.size(), 5);
  QCOMPARE(rows[0].toObject()["algo"].toString(), QString("bptt"));
  QVERIFY(rows[0].toObject()["fits"].toBool());
  QVERIFY(rows[0].toObject()["measured"].toBool());
  const auto bad = testing::runCli({"budget", RNNWB_EXAMPLES_DIR "/gru.rnn.json", "--budget", "x"});
  QCOMPARE(bad.exitCode, 1);
  QVERIFY2(bad.err.contains("'x' is not a size"), qPrintable(bad.err));
}

QTEST_APPLESS_MAIN(TestAlgorithmBudget)
#include "tst_algorithmbudget.moc"

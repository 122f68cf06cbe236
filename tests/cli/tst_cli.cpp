// The rnnwb command line as a user runs it: exit codes, messages, output shapes.
#include <QFloat16>  // QCOMPARE on a JSON value: QTest's qfloat16 overload needs the type
#include <QProcess>
#include <QTest>

#include "cli_run.hpp"

#include <nlohmann/json.hpp>

namespace {
using Run = rnnwb::testing::CliRun;

Run runRnnwb(const QStringList& args) { return rnnwb::testing::runCli(args); }

QString example(const char* name) { return QString(RNNWB_EXAMPLES_DIR) + "/" + name; }
}  // namespace

class TestCli : public QObject {
  Q_OBJECT
 private slots:
  void validateAcceptsEveryExample();
  void validateReportsEveryProblemPerLine();
  void validateMissingFile();
  void analyzeJsonHasTheContractShape();
  void analyzeTable();
  void validateAndAnalyzeVersion2Examples_data();
  void validateAndAnalyzeVersion2Examples();
  void analyzeShowsScansAndGrids();
  void exportDotHasClustersAndDashedDelays();
  void exportWritesAFile();
  void outputThatCannotBeWrittenIsAnError();
  void helpForEveryCommand_data();
  void helpForEveryCommand();
  void unknownOptionIsAnError();
  void analyzeInvalidGraphFails();
  void metricsCsvReadsBack();
};

void TestCli::validateAcceptsEveryExample() {
  QStringList files = QDir(RNNWB_EXAMPLES_DIR).entryList({"*.rnn.json"});
  QVERIFY(files.size() >= 8);
  for (QString& f : files) f = example(f.toUtf8().constData());
  const Run r = runRnnwb(QStringList{"validate"} + files);
  QCOMPARE(r.exitCode, 0);
  QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
}

void TestCli::validateReportsEveryProblemPerLine() {
  QTemporaryDir dir;
  const QString path = dir.filePath("bad.rnn.json");
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(R"({"format": "rnnwb.graph", "version": 1,
    "layers": [{"id": "x", "kind": "input", "size": 2}, {"id": "h", "kind": "additive", "size": 0},
               {"id": "y", "kind": "additive", "size": 2, "loss": "mse"}],
    "connections": [{"from": "x", "to": "h"}, {"from": "h", "to": "y"}, {"from": "y", "to": "y"}]})");
  f.close();
  const Run r = runRnnwb({"validate", path, example("elman.rnn.json")});
  QCOMPARE(r.exitCode, 1);
  const QStringList lines = r.err.trimmed().split('\n');
  QCOMPARE(lines.size(), 2);
  // FILE:LINE:COLUMN, at the layer or connection concerned, as compilers write it.
  QCOMPARE(lines[0], path + ":2:57: error: layer 'h': size must be >= 1, got 0");
  QCOMPARE(lines[1], path + ":4:73: error: cycle with no delay: y -> y");
  QVERIFY(r.out.contains("elman.rnn.json: valid"));
}

void TestCli::validateMissingFile() {
  const Run r = runRnnwb({"validate", "/no/such/graph.rnn.json"});
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(r.err.startsWith("/no/such/graph.rnn.json: error: cannot read the graph file: "),
           qPrintable(r.err));
}

void TestCli::analyzeJsonHasTheContractShape() {
  const Run r = runRnnwb({"analyze", example("lstm-peephole.rnn.json"), "--json"});
  QCOMPARE(r.exitCode, 0);
  const auto j = nlohmann::json::parse(r.out.toStdString());
  // Version 2 added "dimensions", "layers" (grids), "whole_sequences", "reads_ahead" and, per
  // node, "dimensions", "scan", "scan_order".
  QCOMPARE(j.size(), std::size_t(5));
  QCOMPARE(j["sccs"].size(), std::size_t(3));
  for (const auto& scc : j["sccs"]) {
    QCOMPARE(scc.size(), std::size_t(6));
    QVERIFY(scc["layers"].is_array() && scc["recurrent"].is_boolean() &&
            scc["inner_order"].is_array());
    QCOMPARE(scc["layers"].size(), scc["inner_order"].size());
  }
  QCOMPARE(j["sccs"][0]["layers"], nlohmann::json::array({"x"}));
  QCOMPARE(j["sccs"][1]["recurrent"].get<bool>(), true);
  QCOMPARE(j["sccs"][1]["layers"].size(), std::size_t(9));
  QCOMPARE(j["sccs"][2]["inner_order"], nlohmann::json::array({"y"}));
}

void TestCli::analyzeTable() {
  const Run r = runRnnwb({"analyze", example("two-recurrent-nodes.rnn.json")});
  QCOMPARE(r.exitCode, 0);
  QVERIFY2(r.out.contains("4 nodes, 2 recurrent"), qPrintable(r.out));
  QVERIFY(r.out.contains("frame by frame"));
  QVERIFY(r.out.contains("all frames"));
}

void TestCli::validateAndAnalyzeVersion2Examples_data() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<QString>("scan");
  QTest::newRow("leaky-lp-2d") << "leaky-lp-2d.rnn.json"
                               << "scan: diagonal wavefront: x forward, y forward, σ = (1, 1)";
  QTest::newRow("cells-report") << "leaky-lp-2d-cells-report.rnn.json"
                                << "scan: diagonal wavefront: x forward, y forward, σ = (1, 1)";
  QTest::newRow("one output gate") << "leaky-lp-2d-one-output-gate.rnn.json"
                                   << "scan: diagonal wavefront: x forward, y forward, σ = (1, 1)";
  QTest::newRow("four directions")
      << "leaky-lp-2d-four-directions.rnn.json"
      << "scan: diagonal wavefront: x backward, y backward, σ = (-1, -1)";
  QTest::newRow("bidirectional") << "bidirectional-ctc.rnn.json"
                                 << "scan: backward in time, σ = (-1)";
}

void TestCli::validateAndAnalyzeVersion2Examples() {
  QFETCH(QString, name);
  QFETCH(QString, scan);
  const Run v = runRnnwb({"validate", example(name.toUtf8().constData())});
  QCOMPARE(v.exitCode, 0);
  QVERIFY2(v.out.contains(": valid ("), qPrintable(v.out + v.err));
  const Run a = runRnnwb({"analyze", example(name.toUtf8().constData())});
  QCOMPARE(a.exitCode, 0);
  QVERIFY2(a.out.contains(scan), qPrintable(a.out));
}

void TestCli::analyzeShowsScansAndGrids() {
  const Run r = runRnnwb({"analyze", example("leaky-lp-2d.rnn.json"), "--json"});
  QCOMPARE(r.exitCode, 0);
  const auto j = nlohmann::json::parse(r.out.toStdString());
  QCOMPARE(j["dimensions"].get<int>(), 2);
  QCOMPARE(j["whole_sequences"].get<bool>(), false);
  int recurrent = 0;
  for (const auto& scc : j["sccs"]) {
    if (!scc["recurrent"].get<bool>()) {
      QVERIFY(scc["scan"].is_null());
      continue;
    }
    ++recurrent;
    QCOMPARE(scc["scan"], nlohmann::json::array({1, 1}));
    QCOMPARE(scc["scan_order"].get<std::string>(),
             std::string("diagonal wavefront: x forward, y forward"));
  }
  QCOMPARE(recurrent, 1);
  for (const auto& layer : j["layers"]) {
    const bool output = layer["id"] == "y";
    QCOMPARE(layer["dimensions"].get<int>(), output ? 1 : 2);
    QCOMPARE(layer["grid"].get<std::string>(), std::string(output ? "W" : "H × W"));
  }
  const Run text = runRnnwb({"analyze", example("leaky-lp-2d.rnn.json")});
  QVERIFY2(text.out.contains(QString::fromUtf8("y               1-D   W")), qPrintable(text.out));
  const Run bi = runRnnwb({"analyze", example("bidirectional-ctc.rnn.json"), "--json"});
  const auto b = nlohmann::json::parse(bi.out.toStdString());
  QCOMPARE(b["whole_sequences"].get<bool>(), true);
  QCOMPARE(b["reads_ahead"].get<std::string>(), std::string("bw->bw@-1"));
  const Run biText = runRnnwb({"analyze", example("bidirectional-ctc.rnn.json")});
  QVERIFY2(biText.out.contains("needs whole sequences: connection 'bw->bw@-1' reads ahead"),
           qPrintable(biText.out));
}

void TestCli::exportDotHasClustersAndDashedDelays() {
  const Run r = runRnnwb({"export", example("two-recurrent-nodes.rnn.json"), "--format", "dot"});
  QCOMPARE(r.exitCode, 0);
  QVERIFY(r.out.startsWith("digraph"));
  QCOMPARE(r.out.count("subgraph cluster_"), 2);
  QVERIFY(r.out.contains("\"b\" -> \"b\" [style=dashed, label=\"delay 2\""));
  QVERIFY(r.out.contains("\"x\" -> \"a\" [label=\"\""));
}

void TestCli::exportWritesAFile() {
  QTemporaryDir dir;
  const QString out = dir.filePath("g.dot");
  const Run r = runRnnwb({"export", example("gru.rnn.json"), "--format", "dot", "-o", out});
  QCOMPARE(r.exitCode, 0);
  QVERIFY(QFileInfo(out).size() > 100);
}

void TestCli::outputThatCannotBeWrittenIsAnError() {
  // /dev/full fails every write with ENOSPC, as a full disk does: the command must not exit 0 as
  // though its output were whole.
  for (const QStringList& args :
       {QStringList{"analyze", example("gru.rnn.json")},
        QStringList{"export", example("gru.rnn.json"), "--format", "dot"}}) {
    QProcess p;
    p.setStandardOutputFile("/dev/full");
    p.start(RNNWB_CLI, args);
    QVERIFY(p.waitForFinished(60000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(err.contains("rnnwb " + args.front() +
                          ": error: cannot write the standard output: No space left on device"),
             qPrintable(err));
  }
}

void TestCli::helpForEveryCommand_data() {
  QTest::addColumn<QString>("command");
  for (const char* c : {"validate", "analyze", "export", "import", "format", "mask", "pack", "init",
                        "grad", "train", "metrics"})
    QTest::newRow(c) << c;
}

void TestCli::helpForEveryCommand() {
  QFETCH(QString, command);
  const Run r = runRnnwb({command, "--help"});
  QCOMPARE(r.exitCode, 0);
  QVERIFY(r.out.contains("Usage"));
}

void TestCli::unknownOptionIsAnError() {
  const Run r = runRnnwb({"analyze", example("elman.rnn.json"), "--frobnicate"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("--frobnicate"), qPrintable(r.err));
  const Run missing = runRnnwb({"analyze", "/no/such.rnn.json"});
  QCOMPARE(missing.exitCode, 2);
  QVERIFY2(missing.err.contains("/no/such.rnn.json"), qPrintable(missing.err));
}

void TestCli::analyzeInvalidGraphFails() {
  QTemporaryDir dir;
  const QString path = dir.filePath("cyc.rnn.json");
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(R"({"format": "rnnwb.graph", "version": 1,
    "layers": [{"id": "x", "kind": "input", "size": 2}, {"id": "y", "kind": "additive", "size": 2, "loss": "mse"}],
    "connections": [{"from": "x", "to": "y"}, {"from": "y", "to": "y"}]})");
  f.close();
  const Run r = runRnnwb({"analyze", path});
  QCOMPARE(r.exitCode, 1);
  QCOMPARE(r.err.trimmed(), path + ":3:47: error: cycle with no delay: y -> y");
}

// rnnwb metrics RUN... --csv: one metric of several runs, step and a column per run, raw values;
// the summary names each metric; a metric no run has is an error that says which they have.
void TestCli::metricsCsvReadsBack() {
  QTemporaryDir dir;
  for (const char* run : {"a", "b"}) {
    QVERIFY(QDir(dir.path()).mkdir(run));
    QFile f(dir.filePath(QString(run) + "/metrics.jsonl"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    if (QString(run) == "a")
      f.write(
          "{\"step\": 10, \"train_loss\": 2.5, \"wall_time\": 1764605000.5}\n"
          "{\"step\": 20, \"train_loss\": 0.125, \"valid_loss\": 0.5, "
          "\"wall_time\": 1764605001}\n");
    else
      f.write("{\"step\": 20, \"train_loss\": 3}\n");  // an older file: no wall_time
  }
  const Run r = runRnnwb({"metrics", dir.filePath("a"), dir.filePath("b"), "--csv"});
  QCOMPARE(r.exitCode, 0);
  const QStringList lines = r.out.trimmed().split('\n');
  QCOMPARE(lines, (QStringList{"step,a,b,a wall_time,b wall_time", "10,2.5,,1764605000.5,",
                               "20,0.125,3,1764605001,"}));
  const Run valid = runRnnwb({"metrics", dir.filePath("a"), "--csv", "--metric", "valid_loss"});
  QCOMPARE(valid.out.trimmed(), QString("step,a,a wall_time\n20,0.5,1764605001"));
  const Run summary = runRnnwb({"metrics", dir.filePath("a")});
  QCOMPARE(summary.exitCode, 0);
  QVERIFY2(summary.out.contains("valid_loss: 1 points, last 0.5 at step 20"),
           qPrintable(summary.out));
  const Run none = runRnnwb({"metrics", dir.filePath("a"), "--csv", "--metric", "accuracy"});
  QCOMPARE(none.exitCode, 1);
  QVERIFY2(none.err.contains("no run has metric 'accuracy'") && none.err.contains("valid_loss"),
           qPrintable(none.err));
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"

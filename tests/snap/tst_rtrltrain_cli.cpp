// `rnnwb train --algo snap1|rtrl` as a user runs it: a short SnAp-1 run on a character language
// model whose loss falls, with its metrics and resolved config in the run folder; the errors for
// an overlap RTRL cannot run, for a graph it cannot take and for Jacobians larger than the
// machine's memory; none of them leaves a run folder.
#include <QProcess>
#include <QTest>

#include <fstream>

#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/core/train/text_corpus.hpp"
#include "train_test_support.hpp"

namespace {

struct Run {
  int exitCode;
  QString err;
};

Run runCli(const QStringList& args) {
  QProcess p;
  p.start(RNNWB_CLI, args);
  if (!p.waitForFinished(60000)) return {-1, "timed out"};
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardError())};
}

}  // namespace

class TestRtrlTrainCli : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    const train_test::CharLmFiles files = train_test::writeCharLmFiles(m_dir);
    m_text = files.text, m_graph = files.graph, m_vocabulary = files.vocabulary;
  }

  void snap1LossFalls() {
    const QString runDir = m_dir.filePath("snap1");
    const Run run =
        runCli({"train",         m_graph, "--task",    "char-lm", "--text",         m_text,
                "--algo",        "snap1", "--streams", "4",       "--h-prime",      "4",
                "--steps",       "150",   "--lr",      "0.01",    "--report-every", "15",
                "--valid-every", "150",   "--run-dir", runDir});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const auto records = rnnwb::train::readMetricsFile((runDir + "/metrics.jsonl").toStdString());
    QCOMPARE(records.size(), std::size_t(10));
    QVERIFY2(records.back().trainLoss < records.front().trainLoss - 0.3,
             qPrintable(train_test::describe(records.front()) + " -> " +
                        train_test::describe(records.back())));
    QVERIFY(records.back().validLoss.has_value());
    std::ifstream config((runDir + "/config.json").toStdString());
    const auto json = nlohmann::json::parse(config);
    QCOMPARE(json["algo"].get<std::string>(), std::string("snap1"));
    QCOMPARE(json["h"].get<int>(), 4);  // RTRL's h defaults to h'
    QVERIFY(run.err.contains("backend cpu, snap1"));
    QVERIFY2(
        run.err.contains(QRegularExpression(
            "the Jacobians take [0-9.]+ KiB per stream and its gradient [0-9.]+ KiB: [0-9.]+ KiB "
            "for 4 streams")),
        qPrintable(run.err));
  }

  void errorsAreClear_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("graph");
    QTest::addColumn<QString>("error");
    QTest::newRow("overlap") << QStringList{"--algo", "rtrl", "--h", "8", "--h-prime", "4"} << ""
                             << "algo rtrl updates online every h' frames and never "
                                "back-propagates through time, so h must equal h' (got h = 8, "
                                "h' = 4)";
    QTest::newRow("unknown") << QStringList{"--algo", "snap0"} << ""
                             << "unknown RTRL algorithm 'snap0'";
    QTest::newRow("delay 2 leaving the node") << QStringList{"--algo", "rtrl"} << "late"
                                              << "connection 'h-late' leaves it with delay 2";
    // Exact RTRL of a 2048-unit tanh RNN: 8.8e9 entries of Ĵ per stream, ~10^13 bytes for 100
    // streams; refused from the masks' counts, before anything is allocated.
    QTest::newRow("more than the memory")
        << QStringList{"--algo", "rtrl", "--streams", "100"} << "wide"
        << "algo rtrl would carry up to ";
  }
  void errorsAreClear() {
    QFETCH(QStringList, extra);
    QFETCH(QString, graph);
    QFETCH(QString, error);
    QString graphFile = m_graph;
    if (graph == "late") {
      auto g = nlohmann::json::parse(train_test::elmanGraph(m_vocabulary, 8, m_vocabulary, true));
      g["connections"].push_back({{"id", "h-late"}, {"from", "h"}, {"to", "y"}, {"delay", 2}});
      graphFile = m_dir.filePath("late.rnn.json");
      train_test::writeText(graphFile.toStdString(), g.dump());
    } else if (graph == "wide") {
      graphFile = m_dir.filePath("wide.rnn.json");
      train_test::writeText(graphFile.toStdString(),
                            train_test::elmanGraph(m_vocabulary, 2048, m_vocabulary, true));
    }
    const Run run = runCli(QStringList{"train", graphFile, "--text", m_text, "--steps", "1",
                                       "--run-dir", m_dir.filePath("errors")} +
                           extra);
    QVERIFY(run.exitCode != 0);
    QVERIFY2(run.err.contains(error), qPrintable(run.err));
    QVERIFY2(!QFileInfo::exists(m_dir.filePath("errors")), "a refused run made its folder");
  }

 private:
  QTemporaryDir m_dir;
  QString m_text, m_graph;
  int m_vocabulary = 0;
};

QTEST_APPLESS_MAIN(TestRtrlTrainCli)
#include "tst_rtrltrain_cli.moc"

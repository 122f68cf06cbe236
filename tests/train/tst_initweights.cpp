// `rnnwb train --init-weights FILE`: a run starts from the weights of a safetensors file (what
// rnnwb init and rnnwb import write), keeps its own copy of them, resumes without the original,
// and refuses weights of another graph before its run folder is made.
#include <QTest>

#include "cli_run.hpp"

#include <filesystem>

#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/core/train/text_corpus.hpp"
#include "train_test_support.hpp"

namespace {

using rnnwb::testing::runCli;
namespace fs = std::filesystem;

std::vector<rnnwb::train::MetricsRecord> metricsOf(const QString& run) {
  return rnnwb::train::readMetricsFile((run + "/metrics.jsonl").toStdString());
}

}  // namespace

class TestInitWeights : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void runStartsFromTheGivenWeights();
  void runKeepsItsOwnCopyAndResumesWithoutTheOriginal();
  void weightsOfAnotherGraphAreRefusedBeforeTheFolder();

 private:
  QStringList lmArgs(const QString& runDir) const;
  QString initWeights(const QString& graph, int seed);
  QTemporaryDir m_dir;
  QString m_text, m_graph;
  int m_vocabulary = 0;
};

void TestInitWeights::initTestCase() {
  const train_test::CharLmFiles files = train_test::writeCharLmFiles(m_dir);
  m_text = files.text, m_graph = files.graph, m_vocabulary = files.vocabulary;
}

QStringList TestInitWeights::lmArgs(const QString& runDir) const {
  return {"train",         m_graph, "--task",    "char-lm", "--text",         m_text,
          "--streams",     "4",     "--h-prime", "8",       "--report-every", "5",
          "--valid-every", "0",     "--steps",   "10",      "--seed",         "7",
          "--run-dir",     runDir};
}

QString TestInitWeights::initWeights(const QString& graph, int seed) {
  const QString out = m_dir.filePath(QString("init-%1-%2.safetensors").arg(seed).arg(graph.size()));
  const auto run = runCli({"init", graph, "--seed", QString::number(seed), "-o", out});
  if (run.exitCode != 0) qWarning("%s", qPrintable(run.err));
  return out;
}

void TestInitWeights::runStartsFromTheGivenWeights() {
  // rnnwb init --seed 7 draws the weights rnnwb train --seed 7 draws: the same run.
  const QString drawn = m_dir.filePath("drawn"), given = m_dir.filePath("given"),
                other = m_dir.filePath("other");
  QCOMPARE(runCli(lmArgs(drawn)).exitCode, 0);
  auto run = runCli(lmArgs(given) << "--init-weights" << initWeights(m_graph, 7));
  QVERIFY2(run.exitCode == 0, qPrintable(run.err));
  run = runCli(lmArgs(other) << "--init-weights" << initWeights(m_graph, 3));
  QVERIFY2(run.exitCode == 0, qPrintable(run.err));
  const auto a = metricsOf(drawn), b = metricsOf(given), c = metricsOf(other);
  QCOMPARE(a.size(), std::size_t(2));
  QCOMPARE(b.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    QVERIFY2(train_test::sameLearning(a[i], b[i]),
             qPrintable(train_test::describe(a[i]) + " / " + train_test::describe(b[i])));
  // Only the weights differ (same seed, same data): the other weights give another loss.
  QCOMPARE(c.size(), a.size());
  QVERIFY2(c.front().trainLoss != a.front().trainLoss, qPrintable(train_test::describe(c[0])));
}

void TestInitWeights::runKeepsItsOwnCopyAndResumesWithoutTheOriginal() {
  const QString weights = initWeights(m_graph, 3);
  const QString moved = m_dir.filePath("moved.safetensors");
  QVERIFY(QFile::copy(weights, moved));
  const QString run = m_dir.filePath("kept");
  auto started = runCli(lmArgs(run) << "--init-weights" << moved << "--checkpoint-every"
                                    << "5");
  QVERIFY2(started.exitCode == 0, qPrintable(started.err));
  // The folder's copy holds the file's values, under the name config.json gives it.
  const auto copy = rnnwb::readSafetensors((run + "/init_weights.safetensors").toStdString());
  const auto original = rnnwb::readSafetensors(moved.toStdString());
  QVERIFY(!original.tensors.empty());
  for (const auto& [key, tensor] : original.tensors) {
    QVERIFY2(copy.contains(key), key.c_str());
    QVERIFY2(copy.tensors.at(key) == tensor, key.c_str());
  }
  QFile config(run + "/config.json");
  QVERIFY(config.open(QIODevice::ReadOnly));
  QVERIFY(config.readAll().contains("\"init_weights\": \"init_weights.safetensors\""));
  QFile log(run + "/train.log");
  QVERIFY(log.open(QIODevice::ReadOnly));
  QVERIFY(log.readAll().contains("weights from " + moved.toUtf8()));
  // Without the original, and without a checkpoint (starting over), the copy is read.
  QVERIFY(QFile::remove(moved));
  for (const QString& checkpoint : QDir(run + "/checkpoints").entryList(QDir::Files))
    QVERIFY(QFile::remove(run + "/checkpoints/" + checkpoint));
  const auto resumed = runCli({"train", "--resume", "--run-dir", run});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
  const auto before = metricsOf(m_dir.filePath("other")), after = metricsOf(run);
  QCOMPARE(after.size(), before.size());
  QCOMPARE(after.front().trainLoss, before.front().trainLoss);  // the same weights, seed 3's
}

void TestInitWeights::weightsOfAnotherGraphAreRefusedBeforeTheFolder() {
  const QString wider = m_dir.filePath("wider.rnn.json");
  train_test::writeText(wider.toStdString(),
                        train_test::elmanGraph(m_vocabulary, 24, m_vocabulary, true));
  const QString weights = initWeights(wider, 1);
  const QString run = m_dir.filePath("refused");
  auto refused = runCli(lmArgs(run) << "--init-weights" << weights);
  QCOMPARE(refused.exitCode, 1);
  QVERIFY2(refused.err.contains("init_weights " + weights), qPrintable(refused.err));
  QVERIFY2(refused.err.contains("connections."), qPrintable(refused.err));  // names the key
  QVERIFY(!QFileInfo::exists(run));
  refused = runCli(lmArgs(run) << "--init-weights" << m_dir.filePath("missing.safetensors"));
  QCOMPARE(refused.exitCode, 1);
  QVERIFY2(refused.err.contains("missing.safetensors"), qPrintable(refused.err));
  QVERIFY(!QFileInfo::exists(run));
}

QTEST_GUILESS_MAIN(TestInitWeights)
#include "tst_initweights.moc"

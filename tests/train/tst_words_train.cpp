// `rnnwb train --task words` as a user runs it: a valid run folder, clear errors, a signal that
// stops with a checkpoint and a --resume that continues exactly.
#include <QProcess>
#include <QTest>

#include <csignal>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "rnnwb/core/packing/word_images.hpp"
#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/train/metrics.hpp"
#include "train_test_support.hpp"

namespace {

struct Run {
  int exitCode;
  QString out;
  QString err;
};

Run runCli(const QStringList& args) {
  QProcess p;
  p.start(RNNWB_CLI, args);
  if (!p.waitForFinished(60000)) return {-1, {}, "timed out"};
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

// The cell of a tiny recogniser (rnnwb new mdlstm): small enough that an update on small images
// takes milliseconds.
constexpr const char* kTinyCell = R"({"format": "rnnwb.graph", "version": 2, "name": "tiny-cell",
  "dimensions": 2, "layers": [{"id": "x", "kind": "input", "size": 1},
    {"id": "h", "kind": "additive", "size": 3, "activation": "tanh"},
    {"id": "y", "kind": "additive", "size": 3, "activation": "softmax", "loss": "ctc"}],
  "connections": [{"from": "x", "to": "h"}, {"from": "h", "to": "h", "delay": [1, 0]},
    {"from": "h", "to": "h", "delay": [0, 1]}, {"from": "h", "to": "y", "reduce": "y"}]})";

nlohmann::json readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
}

}  // namespace

class TestWordsTrain : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void runFolderIsValid();
  void configFileGivesTheSameRun();
  void sigtermStopsWithACheckpointAndResumeIsExact();
  void resumeRefusesTensorsTheModelDoesNotRead();
  void errorsAreClear_data();
  void errorsAreClear();
  void nonFiniteNamesTheStep();
  void iamFolderTrains();
  void budgetCountsAWordsRun();

 private:
  QStringList wordsArgs(const QString& runDir) const;
  QTemporaryDir m_dir;
  QString m_model, m_words;
};

void TestWordsTrain::initTestCase() {
  const QString cell = m_dir.filePath("cell.rnn.json");
  train_test::writeText(cell.toStdString(), kTinyCell);
  m_model = m_dir.filePath("tiny.rnn.json");
  const Run made = runCli({"new", "mdlstm", "--cell", cell, "--sizes", "3,4", "--blocks",
                           "2x2:4,1x2:6", "--classes", "27", "--name", "tiny", "-o", m_model});
  QVERIFY2(made.exitCode == 0, qPrintable(made.err));
  m_words = m_dir.filePath("word-list.txt");
  train_test::writeText(m_words.toStdString(), "cat\ndog\nsun\nmap\nink\npen\nbox\nhat\n");
}

QStringList TestWordsTrain::wordsArgs(const QString& runDir) const {
  return {"train",
          m_model,
          "--task",
          "words",
          "--word-list",
          m_words,
          "--min-font-size",
          "12",
          "--max-font-size",
          "16",
          "--synthetic-words",
          "24",
          "--valid-words",
          "8",
          "--batch",
          "4",
          "--report-every",
          "2",
          "--valid-every",
          "3",
          "--checkpoint-every",
          "3",
          "--threads",
          "1",
          "--run-dir",
          runDir};
}

void TestWordsTrain::runFolderIsValid() {
  const QString dir = m_dir.filePath("run");
  const Run r = runCli(wordsArgs(dir) + QStringList{"--steps", "6", "--packer", "baseline"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const nlohmann::json config = readJson(dir + "/config.json");
  QCOMPARE(config["task"]["kind"].get<std::string>(), std::string("words"));
  QCOMPARE(config["graph"].get<std::string>(), std::string("graph.rnn.json"));
  QVERIFY(!config["task"].contains("model"));
  QCOMPARE(config["task"]["packer"].get<std::string>(), std::string("baseline"));
  QCOMPARE(config["task"]["batch"].get<int>(), 4);
  QCOMPARE(readJson(dir + "/graph.rnn.json")["name"].get<std::string>(), std::string("tiny"));

  const auto metrics = rnnwb::train::readMetricsFile((dir + "/metrics.jsonl").toStdString());
  std::vector<std::int64_t> steps;
  for (const auto& m : metrics) {
    steps.push_back(m.step);
    QCOMPARE(m.frames, m.step * 4);  // examples seen
    QVERIFY(std::isfinite(m.trainLoss) && m.trainLoss > 0.0);
    QVERIFY(m.gradNorm > 0.0 && m.lr > 0.0 && m.framesPerS > 0.0 && m.wallS > 0.0);
    QCOMPARE(m.validLoss.has_value(), m.step % 3 == 0);
    QCOMPARE(m.cer.has_value(), m.step % 3 == 0);
    QCOMPARE(m.wer.has_value(), m.step % 3 == 0);
    // Edits per character: above 1 where an untrained recogniser reads more characters than
    // there are.
    if (m.cer) QVERIFY(*m.cer >= 0.0 && std::isfinite(*m.cer));
    if (m.wer) QVERIFY(*m.wer >= 0.0 && *m.wer <= 1.0);
  }
  QCOMPARE(steps, (std::vector<std::int64_t>{2, 3, 4, 6}));
  QFile lines(dir + "/metrics.jsonl");
  QVERIFY(lines.open(QIODevice::ReadOnly));
  const QByteArray all = lines.readAll();
  QVERIFY(all.contains("\"cer\":") && all.contains("\"wer\":"));

  const QStringList saved = QDir(dir + "/checkpoints").entryList({"step-*.safetensors"});
  QCOMPARE(saved, (QStringList{"step-000000003.safetensors", "step-000000006.safetensors"}));
  const rnnwb::TensorFile file =
      rnnwb::readSafetensors((dir + "/checkpoints/" + saved.back()).toStdString());
  QVERIFY(file.contains("layers.out.bias") && file.contains("connections.s2-bb-h->out.weight"));
  QVERIFY(file.contains("optimizer.m.layers.out.bias") &&
          file.contains("optimizer.v.layers.out.bias"));
  QCOMPARE(file.metadata.at("step"), std::string("6"));
  QCOMPARE(file.metadata.at("cursor"), std::string("24"));
  QFile log(dir + "/train.log");
  QVERIFY(log.open(QIODevice::ReadOnly));
  const QByteArray text = log.readAll();
  QVERIFY(text.contains("task words, graph 'tiny'") && text.contains("finished at step 6"));
}

void TestWordsTrain::configFileGivesTheSameRun() {
  const QString direct = m_dir.filePath("direct");
  QCOMPARE(runCli(wordsArgs(direct) + QStringList{"--steps", "3"}).exitCode, 0);
  // The resolved config of one run starts another; its model path names the first run's copy.
  const QString configFile = direct + "/config.json";
  const QString again = m_dir.filePath("again");
  const Run r = runCli({"train", "--config", configFile, "--run-dir", again});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const auto a = rnnwb::train::readMetricsFile((direct + "/metrics.jsonl").toStdString());
  const auto b = rnnwb::train::readMetricsFile((again + "/metrics.jsonl").toStdString());
  QCOMPARE(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) QVERIFY(train_test::sameLearning(a[i], b[i]));
}

void TestWordsTrain::sigtermStopsWithACheckpointAndResumeIsExact() {
  const QString dir = m_dir.filePath("signal");
  QProcess p;
  p.start(RNNWB_CLI, wordsArgs(dir) + QStringList{"--steps", "1000000"});
  QVERIFY(p.waitForStarted());
  const std::string metrics = (dir + "/metrics.jsonl").toStdString();
  QTRY_VERIFY_WITH_TIMEOUT(rnnwb::train::readMetricsFile(metrics).size() >= 2, 30000);
  p.terminate();  // SIGTERM
  QVERIFY(p.waitForFinished(20000));
  QCOMPARE(p.exitCode(), 128 + SIGTERM);
  // The signal lands anywhere from step 3's report on (before the next update, or after a few),
  // so the step of the stop is read from what the run said, not expected from timing.
  const QString err = QString::fromUtf8(p.readAllStandardError());
  const QRegularExpressionMatch stop =
      QRegularExpression("stopped by signal 15 after step (\\d+)").match(err);
  QVERIFY2(stop.hasMatch(), qPrintable(err));
  const qint64 stoppedAt = stop.captured(1).toLongLong();
  QVERIFY(stoppedAt >= 3);
  // The stop's checkpoint is the newest, whether or not a periodic one was due at that step.
  const QStringList saved =
      QDir(dir + "/checkpoints").entryList({"step-*.safetensors"}, QDir::Files, QDir::Name);
  QCOMPARE(saved.back().mid(5, 9).toLongLong(), stoppedAt);

  // Past an epoch (5 updates of 4 from 20 training words), so the reshuffle is resumed too.
  const QString total = QString::number(stoppedAt + 7);
  const Run resumed = runCli({"train", "--resume", "--run-dir", dir, "--steps", total});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
  const QString whole = m_dir.filePath("signal-whole");
  QCOMPARE(runCli(wordsArgs(whole) + QStringList{"--steps", total}).exitCode, 0);
  const auto expected = rnnwb::train::readMetricsFile((whole + "/metrics.jsonl").toStdString());
  const auto got = rnnwb::train::readMetricsFile(metrics);
  QCOMPARE(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    QVERIFY2(train_test::sameLearning(got[i], expected[i]),
             qPrintable(train_test::describe(got[i]) + "\n" + train_test::describe(expected[i])));
}

void TestWordsTrain::resumeRefusesTensorsTheModelDoesNotRead() {
  const QString dir = m_dir.filePath("unread");
  QCOMPARE(runCli(wordsArgs(dir) + QStringList{"--steps", "3"}).exitCode, 0);
  const std::filesystem::path checkpoint =
      (dir + "/checkpoints/step-000000003.safetensors").toStdString();
  rnnwb::TensorFile file = rnnwb::readSafetensors(checkpoint);
  file.tensors.emplace("layers.9.weight", rnnwb::Tensor::fromF32({2}, {1.0f, 2.0f}));
  rnnwb::writeSafetensors(checkpoint, file.tensors, file.metadata);
  const Run r = runCli({"train", "--resume", "--run-dir", dir, "--steps", "6"});
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(r.err.contains("tensor 'layers.9.weight' (F32 [2]) is not part of a checkpoint of "
                          "this graph"),
           qPrintable(r.err));
  // Refused before anything was trained or written.
  QCOMPARE(rnnwb::train::readMetricsFile((dir + "/metrics.jsonl").toStdString()).back().step,
           std::int64_t(3));
  QVERIFY(!QFile::exists(dir + "/checkpoints/step-000000006.safetensors"));
}

void TestWordsTrain::errorsAreClear_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("error");
  const QString dir = m_dir.filePath("errors");
  const QString missing = m_dir.filePath("no-such-folder");
  QTest::newRow("missing IAM folder")
      << QStringList{"train", m_model,   "--task", "words",     "--images",
                     missing, "--steps", "1",      "--run-dir", dir}
      << "rnnwb train: error: --images " + missing + ": no such folder";
  QTest::newRow("not an IAM folder")
      << QStringList{"train",      m_model,   "--task", "words",     "--images",
                     m_dir.path(), "--steps", "1",      "--run-dir", dir}
      << "rnnwb train: error: --images " + m_dir.path() + ": no words.txt or lines.txt";
  // A config of the retired fixed recogniser names the generator that replaces it.
  const QString oldConfig = m_dir.filePath("old-words.json");
  train_test::writeText(oldConfig.toStdString(),
                        R"({"format": "rnnwb.train-config", "version": 1,
                            "task": {"kind": "words", "model": "words-model.json"}, "steps": 1})");
  QTest::newRow("retired model config")
      << QStringList{"train", "--config", oldConfig, "--run-dir", dir}
      << "task.model: the fixed word recogniser and its model configs are retired; make the "
         "recogniser as a graph (rnnwb new mdlstm --cell examples/leaky-lp-2d.rnn.json -o "
         "words.rnn.json)";
  QTest::newRow("a graph without ctc")
      << QStringList{"train",     RNNWB_EXAMPLES_DIR "/elman.rnn.json",
                     "--task",    "words",
                     "--steps",   "1",
                     "--run-dir", dir}
      << "the words task needs a 2-D graph";
  QTest::newRow("alphabet and classes differ")
      << QStringList{"train", m_model,   "--task", "words",     "--word-alphabet",
                     "abc",   "--steps", "1",      "--run-dir", dir}
      << "the alphabet has 3 characters, so the output needs 4 classes (with the blank); the "
         "graph's has 27";
  QTest::newRow("bad packer") << QStringList{"train", m_model,   "--task", "words",     "--packer",
                                             "tight", "--steps", "1",      "--run-dir", dir}
                              << "rnnwb train: error: task.packer: unknown packer 'tight' (use "
                                 "baseline, shelf or none)";
  QTest::newRow("resume changes the data")
      << QStringList{"train", "--resume", "--run-dir", dir, "--batch", "2"}
      << "only --steps, --epochs or --lr may change (got --batch)";
}

void TestWordsTrain::errorsAreClear() {
  QFETCH(QStringList, args);
  QFETCH(QString, error);
  const Run r = runCli(args);
  QVERIFY(r.exitCode != 0);
  QVERIFY2(r.err.contains(error), qPrintable(r.err));
  // A run that could not start leaves no run folder behind.
  QVERIFY(!QFileInfo::exists(m_dir.filePath("errors/config.json")));
}

void TestWordsTrain::nonFiniteNamesTheStep() {
  // A learning rate past float's range makes the first update infinite.
  const QString dir = m_dir.filePath("nan");
  const Run r = runCli(wordsArgs(dir) + QStringList{"--steps", "5", "--optimizer", "sgd", "--lr",
                                                    "1e39", "--clip", "0"});
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(
      r.err.contains(
          "rnnwb train: error: step 1: the update made 'connections.x->s1-block.weight' NaN or "
          "infinite"),
      qPrintable(r.err));
  QVERIFY2(r.err.contains("No checkpoint had been written yet"), qPrintable(r.err));
  QVERIFY(rnnwb::train::readMetricsFile((dir + "/metrics.jsonl").toStdString()).empty());
}

void TestWordsTrain::iamFolderTrains() {
  // An IAM layout (words.txt, images in the a01/a01-000u tree) of 12 synthetic words, one with
  // an "err" segmentation and one with a character outside the alphabet.
  const std::filesystem::path root = m_dir.filePath("iam").toStdString();
  std::filesystem::create_directories(root / "words/a01/a01-000u");
  rnnwb::packing::SyntheticWordOptions options;
  options.wordList = m_words.toStdString();
  options.maxPixelSize = 16;
  const auto words = rnnwb::packing::generateSyntheticWords(12, options);
  std::ofstream txt(root / "words.txt");
  txt << "# a01-000u-00-00 ok 154 1 2 3 4 NN word\n";
  for (int i = 0; i < 12; ++i) {
    const std::string id = "a01-000u-00-" + std::to_string(10 + i);
    rnnwb::packing::writePng(root / "words/a01/a01-000u" / (id + ".png"), words[i].image);
    const std::string text = i == 5 ? words[i].text + "." : words[i].text;
    txt << id << (i == 3 ? " err" : " ok") << " 154 1 2 3 4 NN " << text << "\n";
  }
  txt.close();
  const QString dir = m_dir.filePath("iam-run");
  const Run r = runCli({"train", m_model, "--task", "words", "--images",
                        QString::fromStdString(root.string()), "--valid-words", "2", "--batch", "4",
                        "--steps", "3", "--threads", "1", "--run-dir", dir});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY2(r.err.contains("(10 usable entries, 2 left out), 8 training / 2 validation examples"),
           qPrintable(r.err));
  const auto metrics = rnnwb::train::readMetricsFile((dir + "/metrics.jsonl").toStdString());
  QCOMPARE(metrics.size(), std::size_t(1));
  QVERIFY(metrics.back().cer.has_value());
}

QTEST_GUILESS_MAIN(TestWordsTrain)
void TestWordsTrain::budgetCountsAWordsRun() {
  // The run of wordsArgs, sized before it is trained: what `rnnwb budget` says of a 2-D graph.
  QStringList sizes = wordsArgs({}).mid(1, 15);  // GRAPH --task words ... --batch 4
  sizes.removeAt(1);                             // budget knows the task: no --task words
  sizes.removeAt(1);
  const Run r = runCli(QStringList{"budget"} + sizes);
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY2(r.out.contains("a words run of 24 synthetic words (seed 1), 24 for training and 8 for "
                          "validation, 4 a batch (6 updates an epoch), packed by shelf"),
           qPrintable(r.out));
  QVERIFY2(r.out.contains("the worst case, the largest words in one batch: 4 words"),
           qPrintable(r.out));
  QVERIFY2(r.out.contains("engine: values and their gradients"), qPrintable(r.out));
  QVERIFY2(r.out.contains("time per update: ") && r.out.contains("fits: yes"), qPrintable(r.out));

  const Run j = runCli(QStringList{"budget"} + sizes +
                       QStringList{"--json", "--no-measure", "--budget", "1KiB"});
  QVERIFY2(j.exitCode == 0, qPrintable(j.err));
  const nlohmann::json b = nlohmann::json::parse(j.out.toStdString());
  QCOMPARE(b["fits"].get<bool>(), false);  // 1 KiB holds no run
  QCOMPARE(b["timed_updates"].get<int>(), 0);
  QVERIFY(b["worst_bytes"].get<std::uint64_t>() >= b["typical_bytes"].get<std::uint64_t>());
  const nlohmann::json& worst = b["worst_case"];
  QCOMPARE(worst["words"].get<int>(), 4);
  QCOMPARE(worst["bytes"].get<std::uint64_t>(),
           worst["tensor_bytes"].get<std::uint64_t>() + worst["engine_bytes"].get<std::uint64_t>());
  QCOMPARE(b["worst_bytes"].get<std::uint64_t>(), b["shared_bytes"].get<std::uint64_t>() +
                                                      b["data_bytes"].get<std::uint64_t>() +
                                                      worst["bytes"].get<std::uint64_t>());

  // A run config's optimizer stands (SGD keeps one float a parameter, Adam two).
  const QString config = m_dir.filePath("budget-sgd.json");
  train_test::writeText(config.toStdString(), R"({"optimizer": {"kind": "sgd"}})");
  const Run sgd = runCli(QStringList{"budget"} + sizes +
                         QStringList{"--json", "--no-measure", "--config", config});
  QVERIFY2(sgd.exitCode == 0, qPrintable(sgd.err));
  const nlohmann::json s = nlohmann::json::parse(sgd.out.toStdString());
  QCOMPARE(s["shared_bytes"].get<std::uint64_t>() * 4, b["shared_bytes"].get<std::uint64_t>() * 3);

  // The sizes of the other kind of run are refused by name.
  const Run streams = runCli(QStringList{"budget"} + sizes + QStringList{"--streams", "4"});
  QCOMPARE(streams.exitCode, 1);
  QVERIFY2(streams.err.contains("--streams: these size a 1-D run; ") &&
               streams.err.contains("is 2-D, whose words run is sized by --batch"),
           qPrintable(streams.err));
  const QString oneD = m_dir.filePath("elman.rnn.json");
  train_test::writeText(oneD.toStdString(), train_test::elmanGraph(2, 4, 1, false));
  const Run batch = runCli({"budget", oneD, "--batch", "4", "--no-measure"});
  QCOMPARE(batch.exitCode, 1);
  QVERIFY2(batch.err.contains("--batch: these size the words run of a 2-D graph"),
           qPrintable(batch.err));
}

#include "tst_words_train.moc"

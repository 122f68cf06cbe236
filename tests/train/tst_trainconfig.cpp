// Training configs: JSON round trip, defaults, precise errors.
#include <QFloat16>  // QCOMPARE on a JSON value: QTest's qfloat16 overload needs the type
#include <QTest>

#include "rnnwb/core/train/train_config.hpp"

using namespace rnnwb::train;
using nlohmann::json;

class TestTrainConfig : public QObject {
  Q_OBJECT
 private slots:
  void roundTrip_data();
  void roundTrip();
  void defaultsFillMissingKeys();
  void relativePathsResolveAgainstTheConfigFolder();
  void readErrorsNameTheKey_data();
  void readErrorsNameTheKey();
  void validationErrors_data();
  void validationErrors();
};

void TestTrainConfig::roundTrip_data() {
  QTest::addColumn<QString>("task");
  QTest::addColumn<bool>("sgd");
  QTest::newRow("char-lm adam") << "char-lm" << false;
  QTest::newRow("adding sgd") << "adding" << true;
  QTest::newRow("copy adam") << "copy" << false;
}

void TestTrainConfig::roundTrip() {
  QFETCH(QString, task);
  QFETCH(bool, sgd);
  TrainConfig c;
  c.graph = "/abs/g.rnn.json";
  c.task.kind = task.toStdString();
  if (task == "char-lm") c.task.text = "/abs/t.txt", c.task.validFraction = 0.125;
  if (task == "adding") c.task.sequenceLength = 50;
  if (task == "copy") c.task.length = 7, c.task.delay = 33, c.task.alphabet = 5;
  if (task != "char-lm") c.task.validSequences = 99;
  c.streams = 3;
  c.h = 40;
  c.hPrime = 20;
  c.optimizer.kind = sgd ? OptimizerKind::Sgd : OptimizerKind::Adam;
  c.optimizer.learningRate = 0.1 / 3;  // not a short decimal: must still read back exactly
  if (sgd)
    c.optimizer.momentum = 0.5;
  else
    c.optimizer.beta2 = 0.98;
  c.clipNorm = 0.0;
  c.halveLrWhenWorse = false;
  c.steps = 1234;
  c.validEvery = 7;
  c.checkpointEvery = 11;
  c.reportEvery = 3;
  c.keepCheckpoints = 5;
  c.seed = 0xFFFFFFFFFFFFull;
  c.threads = 2;
  validateTrainConfig(c);
  const json j = json::parse(toJson(c).dump());
  QCOMPARE(j["format"], "rnnwb.train-config");
  QCOMPARE(trainConfigFromJson(j, "c.json"), c);
}

void TestTrainConfig::defaultsFillMissingKeys() {
  const TrainConfig c = trainConfigFromJson(json::parse(R"({"graph": "/g.rnn.json",
      "task": {"kind": "adding"}, "steps": 10})"),
                                            "c.json");
  TrainConfig expected;
  expected.graph = "/g.rnn.json";
  expected.task.kind = "adding";
  expected.steps = 10;
  QCOMPARE(c, expected);
  QCOMPARE(c.effectiveH(), 2 * c.hPrime);
}

void TestTrainConfig::relativePathsResolveAgainstTheConfigFolder() {
  const TrainConfig c = trainConfigFromJson(
      json::parse(R"({"graph": "g.rnn.json", "task": {"text": "data/t.txt"}, "steps": 1})"),
      "c.json", "/runs/a");
  QCOMPARE(c.graph, std::string("/runs/a/g.rnn.json"));
  QCOMPARE(c.task.text, std::string("/runs/a/data/t.txt"));
}

void TestTrainConfig::readErrorsNameTheKey_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("message");
  QTest::newRow("unknown") << R"({"stepz": 3})"
                           << "c.json: unknown key 'stepz'";
  QTest::newRow("unknown in task") << R"({"task": {"kind": "copy", "delai": 3}})"
                                   << "c.json: task: unknown key 'delai'";
  QTest::newRow("type") << R"({"streams": "many"})"
                        << "c.json: 'streams' has the wrong type: \"many\"";
  QTest::newRow("optimizer") << R"({"optimizer": {"kind": "rmsprop"}})"
                             << "c.json: optimizer: unknown optimizer 'rmsprop' (use sgd or adam)";
  QTest::newRow("format") << R"({"format": "rnnwb.graph"})"
                          << "c.json: 'format' must be \"rnnwb.train-config\", got \"rnnwb.graph\"";
  QTest::newRow("version") << R"({"version": 2})"
                           << "c.json: unknown config version 2 (this rnnwb reads 1)";
  QTest::newRow("not an object") << "[1]"
                                 << "c.json: a config must be a JSON object";
}

void TestTrainConfig::readErrorsNameTheKey() {
  QFETCH(QString, text);
  QFETCH(QString, message);
  try {
    trainConfigFromJson(json::parse(text.toStdString()), "c.json");
    QFAIL("expected an error");
  } catch (const std::invalid_argument& e) {
    QCOMPARE(QString(e.what()), message);
  }
}

void TestTrainConfig::validationErrors_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("message");
  const QString lm = R"("task": {"kind": "char-lm", "text": "t.txt"})";
  QTest::newRow("h < h'") << "{" + lm + R"(, "h": 8, "h_prime": 16, "steps": 1})"
                          << "h must be >= h' (got h = 8, h' = 16)";
  QTest::newRow("no length") << "{" + lm + "}"
                             << "say how long to train: steps or epochs (--steps N or --epochs E)";
  QTest::newRow("both") << "{" + lm + R"(, "steps": 3, "epochs": 1})"
                        << "give steps or epochs, not both";
  QTest::newRow("epochs of endless data")
      << R"({"task": {"kind": "copy"}, "epochs": 2})"
      << "the copy task generates data without end, so it has no epochs: give --steps";
  QTest::newRow("no text") << R"({"task": {"kind": "char-lm"}, "steps": 2})"
                           << "the char-lm task needs a text file (--text FILE; the project "
                              "ships examples/data/kjv-genesis-2samuel.txt, 1.26 MB of the KJV)";
  QTest::newRow("task") << R"({"task": {"kind": "sorting"}, "steps": 2})"
                        << "unknown task 'sorting' (use char-lm, adding, copy or words)";
  QTest::newRow("backend") << "{" + lm + R"(, "steps": 1, "backend": "tpu"})"
                           << "unknown backend 'tpu' (this build has: cpu)";
  QTest::newRow("momentum") << "{" + lm + R"(, "steps": 1, "optimizer": {"kind": "sgd",
                               "momentum": 1.5}})"
                            << "momentum must be in [0, 1), got 1.500000";
}

void TestTrainConfig::validationErrors() {
  QFETCH(QString, text);
  QFETCH(QString, message);
  try {
    validateTrainConfig(trainConfigFromJson(json::parse(text.toStdString()), "c.json"));
    QFAIL("expected an error");
  } catch (const std::invalid_argument& e) {
    QCOMPARE(QString(e.what()), message);
  }
}

QTEST_GUILESS_MAIN(TestTrainConfig)
#include "tst_trainconfig.moc"

// TrainForm: what the form shows is a TrainConfig, and the config it gives round-trips through
// the core writer and reader (toJson / loadTrainConfig) unchanged, for every task and option.
#include <QTemporaryDir>
#include <QtTest>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/train/train_config.hpp"
#include "rnnwb/ui/train_form.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

Q_DECLARE_METATYPE(rnnwb::train::TrainConfig)

class TestTrainForm : public QObject {
  Q_OBJECT
 private slots:
  void roundTrip_data();
  void roundTrip();
  void runDirIsSeparate();
};

void TestTrainForm::roundTrip_data() {
  QTest::addColumn<train::TrainConfig>("config");
  train::TrainConfig charLm;
  charLm.graph = RNNWB_EXAMPLES_DIR "/char-lstm.rnn.json";
  charLm.task.text = RNNWB_EXAMPLES_DIR "/data/kjv-genesis-2samuel.txt";
  charLm.task.validFraction = 0.125;
  charLm.epochs = 1.5;
  charLm.streams = 32;
  charLm.hPrime = 32;
  charLm.optimizer.learningRate = 0.002;
  QTest::newRow("char-lm, epochs, default h") << charLm;

  train::TrainConfig adding;
  adding.graph = RNNWB_EXAMPLES_DIR "/adding-lstm.rnn.json";
  adding.task.kind = "adding";
  adding.task.sequenceLength = 50;
  adding.task.validSequences = 64;
  adding.h = 120;
  adding.hPrime = 50;
  adding.steps = 2500;
  adding.validEvery = 0;
  adding.checkpointEvery = 250;
  adding.reportEvery = 5;
  adding.clipNorm = 0.0;
  adding.seed = 12345678901234ULL;
  adding.threads = 2;
  adding.backend = "cuda";
  adding.optimizer.beta2 = 0.98;  // no field in the form: kept as it was
  adding.keepCheckpoints = 5;
  QTest::newRow("adding, explicit h, no clipping, cuda") << adding;

  train::TrainConfig copy;
  copy.graph = RNNWB_EXAMPLES_DIR "/copy-lstm.rnn.json";
  copy.task.kind = "copy";
  copy.task.length = 5;
  copy.task.delay = 7;
  copy.task.alphabet = 4;
  copy.task.validSequences = 33;
  copy.optimizer.kind = train::OptimizerKind::Sgd;
  copy.optimizer.learningRate = 0.05;
  copy.optimizer.momentum = 0.5;
  copy.halveLrWhenWorse = false;
  copy.steps = 77;
  QTest::newRow("copy, sgd, no halving") << copy;
}

void TestTrainForm::roundTrip() {
  QFETCH(train::TrainConfig, config);
  TrainForm form;
  form.setConfig(config);
  train::TrainConfig shown = form.config();
  QVERIFY(shown == config);

  // What the panel writes is read back by the trainer as the same run (h with its default
  // applied, which the writer spells out).
  QTemporaryDir dir;
  const std::filesystem::path file = dir.filePath(QStringLiteral("config.json")).toStdString();
  writeFileAtomically(file, train::toJson(shown).dump(2));
  const train::TrainConfig read = train::loadTrainConfig(file);
  train::TrainConfig expected = shown;
  expected.h = shown.effectiveH();
  QVERIFY(read == expected);
  QVERIFY(read.effectiveH() == config.effectiveH());

  // And a run's resolved config shown in the form gives that config again.
  form.setConfig(read);
  QVERIFY(form.config() == read);
}

void TestTrainForm::runDirIsSeparate() {
  TrainForm form;
  QSignalSpy changed(&form, &TrainForm::changed);
  form.setRunDir(QStringLiteral("  runs/kjv "));
  QCOMPARE(form.runDir(), QStringLiteral("runs/kjv"));
  QVERIFY(changed.count() > 0);
  QCOMPARE(form.config().graph, std::string());
}

QTEST_MAIN(TestTrainForm)
#include "tst_trainform.moc"

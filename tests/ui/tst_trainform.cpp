// TrainForm: what the form shows is a TrainConfig, and the config it gives round-trips through
// the core writer and reader (toJson / loadTrainConfig) unchanged, for every task and option.
#include <QComboBox>
#include <QSpinBox>
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
  void onlineAlgorithmsFixHAndBackend();
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

  // The RTRL family: h is h' (as the trainer resolves it) and the backend the cpu.
  train::TrainConfig snap = charLm;
  snap.algo = "snap2";
  snap.h = snap.hPrime = 8;
  QTest::newRow("char-lm, SnAp-2") << snap;
  train::TrainConfig rtrl = adding;
  rtrl.algo = "rtrl";
  rtrl.backend = "cpu";
  rtrl.h = rtrl.hPrime;
  QTest::newRow("adding, exact RTRL") << rtrl;
  train::TrainConfig snap5 = copy;  // a level the list does not offer, from a config file
  snap5.algo = "snap5";
  snap5.h = snap5.hPrime;
  QTest::newRow("copy, SnAp-5") << snap5;
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

// Choosing RTRL or SnAp-n makes h follow h' and the backend the cpu, as the trainer requires;
// going back to BPTT frees them again.
void TestTrainForm::onlineAlgorithmsFixHAndBackend() {
  TrainForm form;
  train::TrainConfig c;
  c.task.text = RNNWB_EXAMPLES_DIR "/data/kjv-genesis-2samuel.txt";
  c.h = 64;
  c.hPrime = 16;
  c.backend = "cuda";
  form.setConfig(c);
  QComboBox* algo = nullptr;
  for (QComboBox* box : form.findChildren<QComboBox*>())
    if (box->findData(QStringLiteral("snap1")) >= 0) algo = box;
  QVERIFY(algo);
  algo->setCurrentIndex(algo->findData(QStringLiteral("snap1")));
  train::TrainConfig shown = form.config();
  QCOMPARE(shown.algo, std::string("snap1"));
  QCOMPARE(shown.h, 16);
  QCOMPARE(shown.backend, std::string("cpu"));
  QVERIFY_THROWS_NO_EXCEPTION(train::validateTrainConfig(shown));
  QSpinBox* hPrime = nullptr;
  for (QSpinBox* box : form.findChildren<QSpinBox*>())
    if (box->toolTip() == QStringLiteral("New frames per update")) hPrime = box;
  QVERIFY(hPrime);
  hPrime->setValue(24);
  QCOMPARE(form.config().h, 24);
  algo->setCurrentIndex(algo->findData(QStringLiteral("bptt")));
  QCOMPARE(form.config().algo, std::string("bptt"));
  QVERIFY(form.config().h >= form.config().hPrime);
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

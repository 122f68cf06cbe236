// TrainForm: what the form shows is a TrainConfig, and the config it gives round-trips through
// the core writer and reader (toJson / loadTrainConfig) unchanged, for every task and option.
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/train/run_spec.hpp"
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
  void fieldsAreTheSpecsRows_data();
  void fieldsAreTheSpecsRows();
  void everyProblemAtOnce();
  void wordsTaskHasItsFields();
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

// The form shows exactly the run spec's rows that apply to the task and optimizer chosen (the
// graph aside: the panel fills it in); every row has an editor, so a row added to the spec shows
// with no form code.
void TestTrainForm::fieldsAreTheSpecsRows_data() {
  QTest::addColumn<QString>("task");
  QTest::addColumn<QString>("optimizer");
  for (const char* task : {"char-lm", "adding", "copy", "words"})
    for (const char* optimizer : {"adam", "sgd"})
      QTest::newRow(qPrintable(QStringLiteral("%1, %2").arg(task, optimizer)))
          << QString(task) << QString(optimizer);
}

void TestTrainForm::fieldsAreTheSpecsRows() {
  QFETCH(QString, task);
  QFETCH(QString, optimizer);
  train::TrainConfig c;
  c.task.kind = task.toStdString();
  c.optimizer.kind = *train::optimizerKindFromString(optimizer.toStdString());
  TrainForm form;
  form.setConfig(c);
  QStringList expected;
  for (const train::Setting& s : train::runSpec()) {
    if (s.key == "graph") continue;
    QVERIFY2(form.editorOf(QString::fromStdString(s.key)), s.key.c_str());
    if (train::appliesTo(s, c)) expected << QString::fromStdString(s.key);
  }
  QCOMPARE(form.shownKeys(), expected);
  // Choosing another task in the form shows that task's fields.
  auto* kind = qobject_cast<QComboBox*>(form.editorOf(QStringLiteral("task.kind")));
  QVERIFY(kind);
  kind->setCurrentIndex(kind->findData(QStringLiteral("copy")));
  QVERIFY(form.shownKeys().contains(QStringLiteral("task.delay")));
  QVERIFY(!form.shownKeys().contains(QStringLiteral("task.text")));
}

// Each field is read as the command line reads it, and every bad one is named at once.
void TestTrainForm::everyProblemAtOnce() {
  TrainForm form;
  train::TrainConfig c;
  c.task.text = RNNWB_EXAMPLES_DIR "/data/kjv-genesis-2samuel.txt";
  c.steps = 10;
  form.setConfig(c);
  QVERIFY2(form.problems().isEmpty(), qPrintable(form.problems().join('\n')));
  auto* lr = form.editorOf(QStringLiteral("optimizer.learning_rate"))->findChild<QLineEdit*>();
  if (!lr) lr = qobject_cast<QLineEdit*>(form.editorOf(QStringLiteral("optimizer.learning_rate")));
  auto* epochs = qobject_cast<QLineEdit*>(form.editorOf(QStringLiteral("epochs")));
  auto* seed = qobject_cast<QLineEdit*>(form.editorOf(QStringLiteral("seed")));
  QVERIFY(lr && epochs && seed);
  lr->setText(QStringLiteral("fast"));
  epochs->setText(QStringLiteral("1e300"));
  seed->setText(QStringLiteral("-1"));
  const QStringList problems = form.problems();
  QCOMPARE(problems.size(), 3);
  QVERIFY2(problems.join('\n').contains(QStringLiteral("--lr must be a finite number, got fast")),
           qPrintable(problems.join('\n')));
  QVERIFY(problems.join('\n').contains(QStringLiteral("--epochs must be a number")));
  QVERIFY(problems.join('\n').contains(QStringLiteral("--seed must be a whole number")));
}

void TestTrainForm::wordsTaskHasItsFields() {
  TrainForm form;
  train::TrainConfig c;
  c.task.kind = "words";
  c.graph = RNNWB_EXAMPLES_DIR "/mdlstm-words-small.rnn.json";
  c.task.batch = 8;
  c.task.packer = "shelf";
  c.backend = "cuda";  // the words learner runs on the cpu only: the form shows it fixed
  c.steps = 5;
  form.setConfig(c);
  const train::TrainConfig shown = form.config();
  QCOMPARE(shown.task.batch, 8);
  QCOMPARE(shown.task.packer, std::string("shelf"));
  QCOMPARE(shown.backend, std::string("cpu"));
  QVERIFY(!form.editorOf(QStringLiteral("backend"))->isEnabled());
  QVERIFY(!form.shownKeys().contains(QStringLiteral("streams")));
}

QTEST_MAIN(TestTrainForm)
#include "tst_trainform.moc"

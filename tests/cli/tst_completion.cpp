// `rnnwb completion bash`: the script bash runs, driven as bash drives it (COMP_WORDS and
// COMP_CWORD set, then _rnnwb), against the commands and the run spec that make --help.
#include <QProcess>
#include <QTest>

#include "cli_run.hpp"
#include "rnnwb/core/train/run_spec.hpp"

namespace {

// What the script offers after WORDS (the last one is the word being completed).
QStringList completions(const QString& script, const QStringList& words) {
  QProcess bash;
  bash.start("bash", QStringList{"-c",
                                 "source \"$1\"; shift; COMP_WORDS=(\"$@\"); "
                                 "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _rnnwb; "
                                 "printf '%s\\n' \"${COMPREPLY[@]}\"",
                                 "bash", script} +
                         words);
  if (!bash.waitForFinished(30000) || bash.exitCode() != 0) return {"bash failed"};
  return QString::fromUtf8(bash.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
}

}  // namespace

class TestCompletion : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void commandsFirst();
  void everyTrainFlagOfTheRunSpec();
  void choicesOfAnOption_data();
  void choicesOfAnOption();
  void filesForAPositionalAndAPathOption();
  void onlyBashIsKnown();

 private:
  QTemporaryDir m_dir;
  QString m_script;
};

void TestCompletion::initTestCase() {
  const rnnwb::testing::CliRun r = rnnwb::testing::runCli({"completion", "bash"});
  QCOMPARE(r.exitCode, 0);
  m_script = m_dir.filePath("rnnwb.bash");
  QFile f(m_script);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(r.out.toUtf8());
}

void TestCompletion::commandsFirst() {
  const QStringList offered = completions(m_script, {"rnnwb", ""});
  for (const char* c : {"validate", "analyze", "export", "import", "format", "mask", "pack", "init",
                        "grad", "train", "budget", "metrics", "completion", "--help", "--version"})
    QVERIFY2(offered.contains(c), c);
  QCOMPARE(completions(m_script, {"rnnwb", "an"}), QStringList{"analyze"});
}

void TestCompletion::everyTrainFlagOfTheRunSpec() {
  const QStringList offered = completions(m_script, {"rnnwb", "train", "--"});
  int flags = 0;
  for (const rnnwb::train::Setting& s : rnnwb::train::runSpec()) {
    if (!QString::fromStdString(s.flag).startsWith("--")) continue;
    QVERIFY2(offered.contains(QString::fromStdString(s.flag)), s.flag.c_str());
    ++flags;
  }
  QVERIFY(flags > 10);
  QVERIFY(offered.contains("--config") && offered.contains("--run-dir"));
}

void TestCompletion::choicesOfAnOption_data() {
  QTest::addColumn<QStringList>("words");
  QTest::addColumn<QStringList>("expected");
  // From the run spec's choices, and from a CLI11 IsMember check (what --help shows).
  QTest::newRow("train --optimizer")
      << QStringList{"rnnwb", "train", "--optimizer", ""} << QStringList{"sgd", "adam"};
  QTest::newRow("export --format")
      << QStringList{"rnnwb", "export", "x.rnn.json", "--format", ""} << QStringList{"dot", "onnx"};
  QTest::newRow("budget --optimizer")
      << QStringList{"rnnwb", "budget", "--optimizer", "s"} << QStringList{"sgd"};
  QTest::newRow("a number") << QStringList{"rnnwb", "train", "--steps", ""} << QStringList{};
}

void TestCompletion::choicesOfAnOption() {
  QFETCH(QStringList, words);
  QFETCH(QStringList, expected);
  QStringList offered = completions(m_script, words);
  offered.sort();
  expected.sort();
  QCOMPARE(offered, expected);
}

void TestCompletion::filesForAPositionalAndAPathOption() {
  QFile(m_dir.filePath("graph-a.rnn.json")).open(QIODevice::WriteOnly);
  const QString prefix = m_dir.filePath("graph-");
  QCOMPARE(completions(m_script, {"rnnwb", "validate", prefix}),
           QStringList{prefix + "a.rnn.json"});
  QCOMPARE(completions(m_script, {"rnnwb", "train", "--text", prefix}),
           QStringList{prefix + "a.rnn.json"});
}

void TestCompletion::onlyBashIsKnown() {
  const rnnwb::testing::CliRun r = rnnwb::testing::runCli({"completion", "fish"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("fish"), qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TestCompletion)
#include "tst_completion.moc"

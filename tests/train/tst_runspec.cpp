// The run spec is the only source of the training settings: the example configs round-trip
// through it, `rnnwb train` has exactly its flags, --resume refuses exactly the settings it marks,
// docs/training.md holds its table, and every value is read exactly or refused, naming the key.
#include <QFloat16>  // QCOMPARE on a JSON value: QTest's qfloat16 overload needs the type
#include <QTest>

#include "cli_run.hpp"

#include <fstream>
#include <set>

#include "rnnwb/core/diagnostic.hpp"
#include "rnnwb/core/engine/backend_registry.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/train/learner.hpp"
#include "rnnwb/core/train/run_spec.hpp"

using namespace rnnwb::train;
using nlohmann::json;

namespace {

rnnwb::testing::CliRun runCli(const QStringList& args) { return rnnwb::testing::runCli(args); }

json readJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

/// Every dotted key of a config's leaves ("task.text").
std::set<std::string> leafKeys(const json& j, const std::string& prefix = "") {
  std::set<std::string> keys;
  for (const auto& [key, value] : j.items()) {
    if (value.is_object()) {
      const auto inner = leafKeys(value, prefix + key + ".");
      keys.insert(inner.begin(), inner.end());
    } else {
      keys.insert(prefix + key);
    }
  }
  return keys;
}

/// A value the setting accepts, as the command line writes it.
QString validText(const Setting& s) {
  switch (s.type) {
    case SettingType::Integer:
      return QString::number(std::max<std::int64_t>(s.min, 1));
    case SettingType::Unsigned:
      return "1";
    case SettingType::Real:
      return "0.25";
    case SettingType::Choice:
      return QString::fromStdString(s.choices.front());
    default:
      return "x";
  }
}

}  // namespace

class TestRunSpec : public QObject {
  Q_OBJECT
 private slots:
  void exampleConfigsRoundTrip();
  void flagsAndKeysMapBothWays();
  void helpListsExactlyTheTable();
  void resumeRefusesExactlyWhatTheTableMarks();
  void docsHoldTheTable();
  void badValuesAreRefusedNamingTheKey_data();
  void badValuesAreRefusedNamingTheKey();
  void badCommandLineValuesShowTheTextAsWritten_data();
  void badCommandLineValuesShowTheTextAsWritten();
  void wholeFloatsAreExact();
  void graphProblemsCarryTheirFile();
  void learnersSayWhichBackendsTheyRunOn();
};

void TestRunSpec::exampleConfigsRoundTrip() {
  const QStringList examples =
      QDir(RNNWB_EXAMPLES_DIR).entryList({"train-*.json"}, QDir::Files, QDir::Name);
  QVERIFY(examples.size() >= 4);
  for (const QString& name : examples) {
    const std::string path = (QString(RNNWB_EXAMPLES_DIR) + "/" + name).toStdString();
    const json original = readJson(path);
    for (const std::string& key : leafKeys(original))
      QVERIFY2(key == "format" || key == "version" || findSetting(key),
               qPrintable(name + ": " + QString::fromStdString(key)));
    const TrainConfig read = loadTrainConfig(path);
    const json written = json::parse(toJson(read).dump());
    QCOMPARE(trainConfigFromJson(written, path), read);
    // Every key the example gives is written back (a resolved config holds more, never less).
    const std::set<std::string> writtenKeys = leafKeys(written);
    for (const std::string& key : leafKeys(original))
      QVERIFY2(writtenKeys.count(key), qPrintable(name + ": " + QString::fromStdString(key)));
  }
}

void TestRunSpec::flagsAndKeysMapBothWays() {
  std::set<std::string> flags, keys;
  for (const Setting& s : runSpec()) {
    QVERIFY2(keys.insert(s.key).second, s.key.c_str());
    QVERIFY2(findSetting(s.key) == &s, s.key.c_str());
    QVERIFY(s.get && s.set);
    if (s.flag.empty()) continue;
    QVERIFY2(flags.insert(s.flag).second, s.flag.c_str());
    QCOMPARE(findSettingByFlag(s.flag), &s);
    // A value given by flag lands in the key's field and reads back from it.
    if (s.type == SettingType::Flag) continue;
    const json value = valueFromText(s, validText(s).toStdString());
    TrainConfig c = withValues(TrainConfig{}, {{s.key, value}});
    QCOMPARE(s.get(c), value);
  }
}

void TestRunSpec::helpListsExactlyTheTable() {
  const auto r = runCli({"train", "--help"});
  QCOMPARE(r.exitCode, 0);
  std::set<std::string> shown;
  const QRegularExpression flag("(?:^|[\\s,])(--[a-z][a-z0-9-]*)");
  for (auto it = flag.globalMatch(r.out); it.hasNext();)
    shown.insert(it.next().captured(1).toStdString());
  std::set<std::string> expected = {"--help", "--config", "--run-dir", "--resume"};
  for (const Setting& s : runSpec())
    if (s.flag.rfind("--", 0) == 0) expected.insert(s.flag);
  QCOMPARE(shown, expected);
  QVERIFY2(r.out.contains("GRAPH"), qPrintable(r.out));
}

void TestRunSpec::resumeRefusesExactlyWhatTheTableMarks() {
  QTemporaryDir dir;
  std::set<std::string> mutableFlags;
  for (const Setting& s : runSpec()) {
    if (s.flag.empty()) continue;
    QStringList args{"train", "--resume", "--run-dir", dir.filePath("none")};
    if (s.flag == "GRAPH")
      args << "g.rnn.json";
    else
      args << QString::fromStdString(s.flag);
    if (s.type != SettingType::Flag && s.flag != "GRAPH") args << validText(s);
    const auto r = runCli(args);
    QVERIFY(r.exitCode != 0);  // there is no run to resume either way
    const bool refused = r.err.contains("may change (got " + QString::fromStdString(s.flag) + ")");
    QVERIFY2(refused != s.resumeMayChange, qPrintable(r.err));
    if (s.resumeMayChange) mutableFlags.insert(s.flag);
  }
  QCOMPARE(mutableFlags, (std::set<std::string>{"--steps", "--epochs", "--lr"}));
  QCOMPARE(resumeMutableFlagsText(), std::string("--steps, --epochs or --lr"));
}

void TestRunSpec::docsHoldTheTable() {
  std::ifstream in(std::string(RNNWB_SOURCE_DIR) + "/docs/training.md");
  const std::string docs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string table = runSpecMarkdown();
  if (docs.find(table) == std::string::npos) {
    const QString generated = QDir::current().filePath("run-spec-table.md");
    std::ofstream(generated.toStdString()) << table;
    QFAIL(qPrintable("docs/training.md must hold the run spec's table as generated; paste " +
                     generated + " over the table in \"Options and config keys\""));
  }
}

void TestRunSpec::badValuesAreRefusedNamingTheKey_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("message");
  QTest::newRow("fraction") << R"({"streams": 2.7})"
                            << "c.json: 'streams' must be a whole number from 1 to 65536, got 2.7";
  QTest::newRow("wraps to 1") << R"({"streams": 4294967297})"
                              << "c.json: 'streams' must be a whole number from 1 to 65536, got "
                                 "4294967297";
  QTest::newRow("wraps negative") << R"({"streams": 1e10})"
                                  << "c.json: 'streams' must be a whole number from 1 to 65536, "
                                     "got 10000000000.0";
  QTest::newRow("negative seed") << R"({"seed": -1})"
                                 << "c.json: 'seed' must be a whole number from 0 to 2^64 - 1, "
                                    "got -1";
  QTest::newRow("fractional seed") << R"({"seed": 1.5})"
                                   << "c.json: 'seed' must be a whole number from 0 to 2^64 - 1, "
                                      "got 1.5";
  QTest::newRow("endless epochs") << R"({"epochs": 1e300})"
                                  << "c.json: 'epochs' must be a number from 0 to 1e+06, got "
                                     "1e+300";
  QTest::newRow("nested") << R"({"task": {"delay": -3}})"
                          << "c.json: task: 'delay' must be a whole number from 1 to 1000000, "
                             "got -3";
  QTest::newRow("threads") << R"({"threads": 100000})"
                           << "c.json: 'threads' must be a whole number from 0 to 256, got 100000";
  QTest::newRow("flag") << R"({"halve_lr_when_worse": 1})"
                        << "c.json: 'halve_lr_when_worse' has the wrong type: 1";
  QTest::newRow("object") << R"({"task": 3})"
                          << "c.json: task: must be a JSON object";
}

void TestRunSpec::badValuesAreRefusedNamingTheKey() {
  QFETCH(QString, text);
  QFETCH(QString, message);
  try {
    trainConfigFromJson(json::parse(text.toStdString()), "c.json");
    QFAIL("expected an error");
  } catch (const std::invalid_argument& e) {
    QCOMPARE(QString(e.what()), message);
  }
}

void TestRunSpec::badCommandLineValuesShowTheTextAsWritten_data() {
  QTest::addColumn<QString>("flag");
  QTest::addColumn<QString>("value");
  QTest::addColumn<QString>("error");
  QTest::newRow("threads") << "--threads"
                           << "100000"
                           << "--threads must be a whole number from 0 to 256, got 100000";
  QTest::newRow("streams 1e10") << "--streams"
                                << "1e10"
                                << "--streams must be a whole number from 1 to 65536, got 1e10";
  QTest::newRow("streams 2.7") << "--streams"
                               << "2.7"
                               << "--streams must be a whole number from 1 to 65536, got 2.7";
  QTest::newRow("seed -1") << "--seed"
                           << "-1"
                           << "--seed must be a whole number from 0 to 2^64 - 1, got -1";
  QTest::newRow("not a number") << "--lr"
                                << "fast"
                                << "--lr must be a finite number, got fast";
}

void TestRunSpec::badCommandLineValuesShowTheTextAsWritten() {
  QFETCH(QString, flag);
  QFETCH(QString, value);
  QFETCH(QString, error);
  QTemporaryDir dir;
  const auto r = runCli({"train", QString(RNNWB_EXAMPLES_DIR) + "/elman.rnn.json", "--task", "copy",
                         "--steps", "1", flag, value, "--run-dir", dir.filePath("run")});
  QCOMPARE(r.exitCode, 1);
  QCOMPARE(r.err.trimmed(), "rnnwb train: error: " + error);
  QVERIFY(!QDir(dir.filePath("run")).exists());
}

void TestRunSpec::wholeFloatsAreExact() {
  const TrainConfig c = trainConfigFromJson(
      json::parse(R"({"streams": 4.0, "seed": 18446744073709551615, "steps": 1e3})"), "c.json");
  QCOMPARE(c.streams, 4);
  QCOMPARE(c.seed, std::uint64_t(18446744073709551615ull));
  QCOMPARE(c.steps, std::int64_t(1000));
}

// A structured error: the file a graph problem is in is a field of the Diagnostic (the message
// keeps its "FILE: " prefix for the command line), so the workbench need not parse it out.
void TestRunSpec::graphProblemsCarryTheirFile() {
  QTemporaryDir dir;
  const std::string path = dir.filePath("bad.rnn.json").toStdString();
  std::ofstream(path)
      << R"({"format": "rnnwb.graph", "version": 1, "layers": [], "connections": 3})";
  try {
    rnnwb::loadValidGraph(path);
    QFAIL("expected a GraphError");
  } catch (const rnnwb::GraphError& e) {
    QVERIFY(!e.problems().empty());
    for (const rnnwb::Diagnostic& d : e.problems()) QCOMPARE(d.file, path);
  }
}

// Asked for a backend, a user gets it or an error naming what cannot run there: the words task
// and RTRL / SnAp-n run on the cpu only (a registered second backend stands in for cuda).
void TestRunSpec::learnersSayWhichBackendsTheyRunOn() {
  rnnwb::registerBackend(
      "second",
      [](const rnnwb::CompiledPlan&,
         const rnnwb::BackendOptions&) -> std::unique_ptr<rnnwb::Backend> { return nullptr; });
  TrainConfig words;
  words.task.kind = "words";
  words.graph = RNNWB_EXAMPLES_DIR "/mdlstm-words-small.rnn.json";
  words.steps = 1;
  words.backend = "second";
  TrainConfig rtrl;
  rtrl.task.text = RNNWB_EXAMPLES_DIR "/data/kjv-genesis-2samuel.txt";
  rtrl.steps = 1;
  rtrl.algo = "rtrl";
  rtrl.backend = "second";
  TrainConfig bptt = rtrl;
  bptt.algo = "bptt";
  QVERIFY(!learnerSupport(words).supportsBackend("second"));
  QVERIFY(!learnerSupport(rtrl).supportsBackend("second"));
  QVERIFY(learnerSupport(bptt).supportsBackend("second"));
  QVERIFY_THROWS_NO_EXCEPTION(validateTrainConfig(bptt));
  for (const auto& [config, message] :
       {std::pair{words, "the words task runs on the cpu backend only (got backend second)"},
        std::pair{rtrl, "algo rtrl runs on the cpu backend only (got backend second)"}}) {
    try {
      validateTrainConfig(config);
      QFAIL(message);
    } catch (const std::invalid_argument& e) {
      QCOMPARE(std::string(e.what()), std::string(message));
    }
  }
}

QTEST_GUILESS_MAIN(TestRunSpec)
#include "tst_runspec.moc"

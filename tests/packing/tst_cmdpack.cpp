// `rnnwb pack` as a user runs it: the JSON shape of the issue, errors that name the line or the
// example, and the picture.
#include <QTest>

#include "cli_run.hpp"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

namespace {
using Run = rnnwb::testing::CliRun;

Run runRnnwb(const QStringList& args) { return rnnwb::testing::runCli(QStringList{"pack"} + args); }

QString writeFile(const QTemporaryDir& dir, const char* name, const char* text) {
  const QString path = dir.filePath(name);
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(text);
  return path;
}
}  // namespace

class TestCmdPack : public QObject {
  Q_OBJECT
 private slots:
  void jsonHasTheIssueShape();
  void sizesErrorNamesTheLine();
  void widthErrorNamesTheExample();
  void exactlyOneSource();
  void syntheticWordsAndPicture();
};

void TestCmdPack::jsonHasTheIssueShape() {
  // The list of tst_baselinepacker, B = 4: figures computed by hand there.
  QTemporaryDir dir;
  const QString sizes = writeFile(dir, "s.txt", "10 20\n10 15\n8 30\n10 9\n\n5 4\n5 3\n5 4\n7 2\n");
  const Run r = runRnnwb({"--sizes", sizes, "--batch", "4", "--json"});
  QCOMPARE(r.exitCode, 0);
  const auto j = nlohmann::json::parse(r.out.toStdString());
  QCOMPARE(j.size(), std::size_t(8));
  QCOMPARE(j["examples"].get<int>(), 8);
  QCOMPARE(j["batches"].get<int>(), 2);
  QCOMPARE(j["real"].get<int>(), 749);
  QCOMPARE(j["lmbr"].get<int>(), 1312);
  QCOMPARE(j["lmbr_skewed"].get<int>(), 1840);
  QCOMPARE(j["packed"].get<int>(), 1000);
  QCOMPARE(j["packed_skewed"].get<int>(), 1370);
  QCOMPARE(j["packers"]["baseline"]["packed_skewed"].get<int>(), 1370);
  QVERIFY(j["packers"].contains("shelf"));
  const Run only = runRnnwb({"--sizes", sizes, "--batch", "4", "--json", "--packer", "baseline"});
  QCOMPARE(nlohmann::json::parse(only.out.toStdString())["packers"].size(), std::size_t(1));
}

void TestCmdPack::sizesErrorNamesTheLine() {
  QTemporaryDir dir;
  const Run r = runRnnwb({"--sizes", writeFile(dir, "bad.txt", "3 4\n5 6 7\n")});
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(r.err.contains("bad.txt:2: expected 'height width'"), qPrintable(r.err));
  const Run zero = runRnnwb({"--sizes", writeFile(dir, "zero.txt", "3 0\n")});
  QVERIFY2(zero.err.contains("zero.txt:1:"), qPrintable(zero.err));
}

void TestCmdPack::widthErrorNamesTheExample() {
  QTemporaryDir dir;
  const QString sizes = writeFile(dir, "s.txt", "3 4\n3 9\n3 2\n5 12\n");
  const Run r = runRnnwb({"--sizes", sizes, "--batch", "2", "--width", "10"});
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(r.err.contains("example 3 is 12 pixels wide, wider than the row width 10"),
           qPrintable(r.err));
  QVERIFY(runRnnwb({"--sizes", sizes, "--packer", "nope"}).err.contains("unknown packer 'nope'"));
}

void TestCmdPack::exactlyOneSource() {
  QVERIFY(runRnnwb({}).exitCode != 0);
  QTemporaryDir dir;
  const QString sizes = writeFile(dir, "s.txt", "3 4\n");
  QVERIFY(runRnnwb({"--sizes", sizes, "--synthetic-words", "3"}).exitCode != 0);
}

void TestCmdPack::syntheticWordsAndPicture() {
  QTemporaryDir dir;
  const QString png = dir.filePath("batch.png");
  const Run r = runRnnwb({"--synthetic-words", "40", "--batch", "20", "--png", png});
  QCOMPARE(r.exitCode, 0);
  QVERIFY(r.out.contains("packed_skewed (baseline)"));
  QVERIFY(r.out.contains("predicted speed-up"));
  QFile f(png);
  QVERIFY(f.open(QIODevice::ReadOnly));
  QCOMPARE(f.read(8), QByteArray("\x89PNG\r\n\x1a\n", 8));
  // The same folder of PNGs through --images gives the same figures as their sizes.
  const Run images = runRnnwb({"--images", dir.path(), "--json"});
  QCOMPARE(images.exitCode, 0);
  QCOMPARE(nlohmann::json::parse(images.out.toStdString())["examples"].get<int>(), 1);
}

QTEST_MAIN(TestCmdPack)
#include "tst_cmdpack.moc"

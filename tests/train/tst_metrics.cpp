// metrics.jsonl: exact round trip, and a reader that follows a file still being written.
#include <QTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "rnnwb/core/train/metrics.hpp"

using namespace rnnwb::train;

namespace {
MetricsRecord record(std::int64_t step, bool valid) {
  MetricsRecord r;
  r.step = step;
  r.frames = step * 512;
  r.trainLoss = 1.0 / 3.0 + step;
  r.trainBpc = r.trainLoss / 0.6931471805599453;
  if (valid) r.validLoss = 2.0 / 7.0, r.validBpc = 0.1 + 0.2;
  r.framesPerS = 12345.678;
  r.gradNorm = 1e-300;
  r.lr = 0.001 / 3;
  r.wallS = 3.25;
  return r;
}
void append(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::app | std::ios::binary);
  out << text;
}
}  // namespace

class TestMetrics : public QObject {
  Q_OBJECT
 private slots:
  void lineRoundTripIsExact();
  void lineHasTheContractKeys();
  void unknownKeysAreIgnored();
  void readerWaitsForAPartialLastLine();
  void readerSkipsBrokenLinesAndMissingFiles();
  void writerAppendsWholeLines();
  void truncateKeepsStepsUpToTheCheckpoint();
  void readerStartsOverOnAReplacedFile();
  void wallTimeIsKeptAndOptional();
  void extraNumericKeysAreKept();
};

void TestMetrics::lineRoundTripIsExact() {
  for (bool valid : {false, true}) {
    const MetricsRecord r = record(42, valid);
    QCOMPARE(parseMetricsLine(toJsonLine(r)).value(), r);
  }
}

void TestMetrics::lineHasTheContractKeys() {
  const auto j = nlohmann::json::parse(toJsonLine(record(5, true)));
  for (const char* key : {"step", "frames", "train_loss", "valid_loss", "frames_per_s", "grad_norm",
                          "lr", "wall_s", "train_bpc", "valid_bpc"})
    QVERIFY2(j.contains(key), key);
  QVERIFY(!nlohmann::json::parse(toJsonLine(record(5, false))).contains("valid_loss"));
}

void TestMetrics::unknownKeysAreIgnored() {
  const auto r = parseMetricsLine(R"({"step": 3, "train_loss": 1.5, "cer": 0.2, "extra": [1]})");
  QVERIFY(r.has_value());
  QCOMPARE(r->step, std::int64_t(3));
  QCOMPARE(r->trainLoss, 1.5);
  QVERIFY(!r->validLoss);
  QVERIFY(!parseMetricsLine(R"({"train_loss": 1.5})"));  // no step: not a report
}

void TestMetrics::readerWaitsForAPartialLastLine() {
  QTemporaryDir dir;
  const std::string path = dir.filePath("metrics.jsonl").toStdString();
  MetricsReader reader(path);
  QVERIFY(reader.readNew().empty());  // no file yet
  const std::string second = toJsonLine(record(2, true));
  append(path, toJsonLine(record(1, false)) + "\n" + second.substr(0, 20));
  auto got = reader.readNew();
  QCOMPARE(got.size(), std::size_t(1));
  QCOMPARE(got[0].step, std::int64_t(1));
  QVERIFY(reader.readNew().empty());  // still unfinished
  append(path, second.substr(20) + "\n");
  got = reader.readNew();
  QCOMPARE(got.size(), std::size_t(1));
  QCOMPARE(got[0], record(2, true));
  QCOMPARE(readMetricsFile(path).size(), std::size_t(2));
  QCOMPARE(reader.skippedLines(), 0);
}

void TestMetrics::readerSkipsBrokenLinesAndMissingFiles() {
  QTemporaryDir dir;
  const std::string path = dir.filePath("metrics.jsonl").toStdString();
  append(path, "{\"step\": 1}\nnot json\n\n{\"step\": 2}\n");
  MetricsReader reader(path);
  QCOMPARE(reader.readNew().size(), std::size_t(2));
  QCOMPARE(reader.skippedLines(), 1);
  QVERIFY(readMetricsFile(dir.filePath("none.jsonl").toStdString()).empty());
}

void TestMetrics::writerAppendsWholeLines() {
  QTemporaryDir dir;
  const std::string path = dir.filePath("metrics.jsonl").toStdString();
  {
    MetricsWriter writer(path);
    writer.append(record(1, false));
  }
  MetricsWriter(path).append(record(2, true));  // a resumed run appends
  const auto all = readMetricsFile(path);
  QCOMPARE(all.size(), std::size_t(2));
  QCOMPARE(all[1], record(2, true));
  QVERIFY_THROWS_EXCEPTION(std::runtime_error, MetricsWriter("/no/such/dir/metrics.jsonl"));
}

void TestMetrics::truncateKeepsStepsUpToTheCheckpoint() {
  QTemporaryDir dir;
  const std::string path = dir.filePath("metrics.jsonl").toStdString();
  for (int step : {10, 20, 30}) append(path, toJsonLine(record(step, false)) + "\n");
  append(path, "{\"step\": 40, \"train_");
  truncateMetricsAfter(path, 20);
  const auto kept = readMetricsFile(path);
  QCOMPARE(kept.size(), std::size_t(2));
  QCOMPARE(kept.back().step, std::int64_t(20));
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  QVERIFY(text.back() == '\n');
}

void TestMetrics::readerStartsOverOnAReplacedFile() {
  QTemporaryDir dir;
  const std::string path = dir.filePath("metrics.jsonl").toStdString();
  for (int step : {10, 20, 30}) append(path, toJsonLine(record(step, false)) + "\n");
  MetricsReader reader(path);
  QCOMPARE(reader.readNew().size(), std::size_t(3));
  QVERIFY(!reader.restarted());
  // A resumed run drops step 30 and writes 30 and 40 again: the file grows past the old offset.
  truncateMetricsAfter(path, 20);
  for (int step : {30, 40}) append(path, toJsonLine(record(step, true)) + "\n");
  const auto again = reader.readNew();
  QVERIFY(reader.restarted());
  QCOMPARE(again.size(), std::size_t(4));
  QCOMPARE(again[2], record(30, true));
  QVERIFY(reader.readNew().empty());
  QVERIFY(!reader.restarted());
}

// wall_time (Unix seconds, TensorBoard's x as wall time) reads back exactly; a line of an older
// rnnwb without it still reads, with no wall time.
void TestMetrics::wallTimeIsKeptAndOptional() {
  MetricsRecord r = record(7, true);
  r.wallTime = 1764605123.4567891;
  const auto j = nlohmann::json::parse(toJsonLine(r));
  QVERIFY(j.contains("wall_time"));
  QCOMPARE(parseMetricsLine(toJsonLine(r)).value(), r);
  const auto old = parseMetricsLine(R"({"step": 3, "train_loss": 1.5, "wall_s": 2.0})");
  QVERIFY(old.has_value());
  QVERIFY(!old->wallTime);
  QCOMPARE(old->wallS, 2.0);
  QVERIFY(!nlohmann::json::parse(toJsonLine(*old)).contains("wall_time"));
}

// A number under a key the trainer does not write (a tool's `accuracy`) is a metric too: read,
// and written back; other values under unknown keys are still ignored.
void TestMetrics::extraNumericKeysAreKept() {
  const auto r = parseMetricsLine(
      R"({"step": 3, "train_loss": 1.5, "accuracy": 0.75, "note": "x", "v": [1]})");
  QVERIFY(r.has_value());
  QCOMPARE(r->extra.size(), std::size_t(1));
  QCOMPARE(r->extra.at("accuracy"), 0.75);
  QCOMPARE(parseMetricsLine(toJsonLine(*r)).value(), *r);
}

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"

// RunFollower and RunPlot: following a metrics.jsonl that another process writes updates what is
// plotted: whole lines only (a partial last line waits), a replaced file (a resumed run that
// dropped lines) starts the run's data over, and the file watcher notices without any timer.
#include <cmath>
#include <cstdio>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/ui/run_follower.hpp"
#include "rnnwb/ui/run_plot.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

train::MetricsRecord record(std::int64_t step, double loss, bool valid = false) {
  train::MetricsRecord r;
  r.step = step;
  r.frames = step * 64;
  r.trainLoss = loss;
  if (valid) r.validLoss = loss + 0.5;
  r.gradNorm = 1.0 / static_cast<double>(step);
  r.lr = 0.001;
  r.framesPerS = 1000.0 + static_cast<double>(step);
  return r;
}

void append(const QString& path, const QByteArray& text) {
  QFile file(path);
  QVERIFY(file.open(QIODevice::Append));
  file.write(text);
}

QByteArray line(const train::MetricsRecord& r) {
  return QByteArray::fromStdString(train::toJsonLine(r)) + '\n';
}

// Feeds the plot from the follower the way the training panel does.
void connectPlot(RunFollower& follower, RunPlot& plot, const QString& key) {
  plot.addRun(key, follower.name());
  auto refresh = [&follower, &plot, key] { plot.setRecords(key, follower.records()); };
  QObject::connect(&follower, &RunFollower::recordsAppended, &plot, refresh);
  QObject::connect(&follower, &RunFollower::recordsReset, &plot, refresh);
  refresh();  // what the follower read when it started
}

}  // namespace

class TestRunFollower : public QObject {
  Q_OBJECT
 private slots:
  void growingFileWithPartialLine();
  void replacedFileStartsOver();
  void unknownKeysAndBadLinesAreSkipped();
  void watcherNoticesWithoutTimer();
  void configGivesTotalSteps();
};

void TestRunFollower::growingFileWithPartialLine() {
  QTemporaryDir dir;
  const QString metrics = dir.filePath(QStringLiteral("metrics.jsonl"));
  RunFollower follower(dir.path(), 60000);  // polled by hand
  RunPlot plot;
  connectPlot(follower, plot, dir.path());
  QCOMPARE(plot.pointCount(dir.path(), QStringLiteral("train_loss")), 0);  // no file yet

  append(metrics, line(record(10, 3.0)) + line(record(20, 2.5, true)) + line(record(30, 2.2)));
  const QByteArray fourth = line(record(40, 2.0, true));
  append(metrics, fourth.left(fourth.size() / 2));  // still being written
  QSignalSpy appended(&follower, &RunFollower::recordsAppended);
  follower.poll();
  QCOMPARE(appended.count(), 1);
  QCOMPARE(appended.front().front().toInt(), 0);
  QCOMPARE(follower.records().size(), std::size_t(3));
  QCOMPARE(plot.pointCount(dir.path(), QStringLiteral("train_loss")), 3);
  QCOMPARE(plot.pointCount(dir.path(), QStringLiteral("valid_loss")), 1);
  QCOMPARE(plot.lastValue(dir.path(), QStringLiteral("train_loss")), 2.2);
  QCOMPARE(plot.lastValue(dir.path(), QStringLiteral("frames_per_s")), 1030.0);

  append(metrics, fourth.mid(fourth.size() / 2));
  follower.poll();
  QCOMPARE(appended.count(), 2);
  QCOMPARE(appended.back().front().toInt(), 3);
  QCOMPARE(plot.pointCount(dir.path(), QStringLiteral("train_loss")), 4);
  QCOMPARE(plot.pointCount(dir.path(), QStringLiteral("valid_loss")), 2);
  QCOMPARE(plot.lastValue(dir.path(), QStringLiteral("valid_loss")), 2.5);
  QCOMPARE(plot.lastValue(dir.path(), QStringLiteral("grad_norm")), 1.0 / 40.0);
  QCOMPARE(follower.lastStep(), std::int64_t(40));

  follower.poll();  // nothing new: no signal
  QCOMPARE(appended.count(), 2);
}

void TestRunFollower::replacedFileStartsOver() {
  QTemporaryDir dir;
  const QString metrics = dir.filePath(QStringLiteral("metrics.jsonl"));
  for (int step = 10; step <= 100; step += 10)
    append(metrics, line(record(step, 3.0 - step / 100.0)));
  RunFollower follower(dir.path(), 60000);
  RunPlot plot;
  connectPlot(follower, plot, dir.path());
  QCOMPARE(plot.pointCount(dir.path(), QStringLiteral("train_loss")), 10);

  // A resume from the checkpoint at step 50 drops the later lines (a new file, renamed over the
  // old one), then writes its own.
  train::truncateMetricsAfter(metrics.toStdString(), 50);
  append(metrics, line(record(60, 9.0)) + line(record(70, 8.0)));
  QSignalSpy reset(&follower, &RunFollower::recordsReset);
  follower.poll();
  QCOMPARE(reset.count(), 1);
  QCOMPARE(follower.records().size(), std::size_t(7));
  QCOMPARE(plot.pointCount(dir.path(), QStringLiteral("train_loss")), 7);
  QCOMPARE(plot.lastValue(dir.path(), QStringLiteral("train_loss")), 8.0);
}

void TestRunFollower::unknownKeysAndBadLinesAreSkipped() {
  QTemporaryDir dir;
  const QString metrics = dir.filePath(QStringLiteral("metrics.jsonl"));
  append(metrics,
         "{\"step\": 5, \"train_loss\": 1.5, \"cer\": 0.25, \"new_key\": [1, 2]}\n"
         "not json\n"
         "{\"step\": 6, \"train_loss\": 1.25, \"train_bpc\": 1.8}\n");
  RunFollower follower(dir.path(), 60000);  // reads the file as it starts
  RunPlot plot;
  connectPlot(follower, plot, dir.path());
  QCOMPARE(plot.pointCount(dir.path(), QStringLiteral("train_loss")), 2);
  // Bits per character have a plot of their own, with the one record that has them.
  QCOMPARE(plot.pointCount(dir.path(), QStringLiteral("train_bpc")), 1);
  QCOMPARE(plot.lastValue(dir.path(), QStringLiteral("train_bpc")), 1.8);
  QCOMPARE(plot.lastValue(dir.path(), QStringLiteral("cer")), 0.25);
}

void TestRunFollower::watcherNoticesWithoutTimer() {
  QTemporaryDir dir;
  const QString metrics = dir.filePath(QStringLiteral("metrics.jsonl"));
  RunFollower follower(dir.path(), 3600 * 1000);  // the timer never fires in this test
  append(metrics, line(record(1, 2.0)));          // a new file: the folder's watch sees it
  QTRY_COMPARE_WITH_TIMEOUT(follower.records().size(), std::size_t(1), 5000);
  append(metrics, line(record(2, 1.9)));  // an append: the file's watch sees it
  QTRY_COMPARE_WITH_TIMEOUT(follower.records().size(), std::size_t(2), 5000);
  train::truncateMetricsAfter(metrics.toStdString(), 1);  // replaced by a rename
  QTRY_COMPARE_WITH_TIMEOUT(follower.records().size(), std::size_t(1), 5000);
  append(metrics, line(record(2, 1.7)));  // the new file is watched again
  QTRY_COMPARE_WITH_TIMEOUT(follower.records().size(), std::size_t(2), 5000);
  QCOMPARE(follower.records().back().trainLoss, 1.7);
}

void TestRunFollower::configGivesTotalSteps() {
  QTemporaryDir dir;
  RunFollower follower(dir.path(), 60000);
  QCOMPARE(follower.totalSteps(), std::int64_t(0));
  QSignalSpy loaded(&follower, &RunFollower::configLoaded);
  QFile config(dir.filePath(QStringLiteral("config.json")));
  QVERIFY(config.open(QIODevice::WriteOnly));
  config.write(
      "{\"format\": \"rnnwb.train-config\", \"version\": 1, \"graph\": \"g.rnn.json\", "
      "\"task\": {\"kind\": \"adding\"}, \"h_prime\": 100, \"steps\": 250}");
  config.close();
  follower.poll();
  QCOMPARE(loaded.count(), 1);
  QCOMPARE(follower.totalSteps(), std::int64_t(250));
  QCOMPARE(follower.name(), QFileInfo(dir.path()).fileName());
  follower.poll();  // unchanged: no second signal
  QCOMPARE(loaded.count(), 1);
}

QTEST_MAIN(TestRunFollower)
#include "tst_runfollower.moc"

// The word recogniser learns to read: the quick configuration of examples/train-words-small.json
// (16 words, small images, examples/mdlstm-words-small.rnn.json: 21,243 parameters, Adam 0.01)
// must bring the validation character error rate well below 1 (all blanks, where CTC training
// starts) in 1,000 updates. About 17 seconds on the grid engine.
#include <QProcess>
#include <QTest>

#include "rnnwb/core/train/metrics.hpp"

class TestWordsLearning : public QObject {
  Q_OBJECT
 private slots:
  void characterErrorRateFalls();
};

void TestWordsLearning::characterErrorRateFalls() {
  QTemporaryDir dir;
  const QString run = dir.filePath("run");
  QProcess p;
  p.start(RNNWB_CLI, {"train", "--config", RNNWB_EXAMPLES_DIR "/train-words-small.json", "--steps",
                      "1000", "--valid-every", "0", "--checkpoint-every", "0", "--report-every",
                      "50", "--run-dir", run});
  QVERIFY(p.waitForFinished(300000));
  QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
  const auto metrics = rnnwb::train::readMetricsFile((run + "/metrics.jsonl").toStdString());
  QCOMPARE(metrics.size(), std::size_t(20));
  const rnnwb::train::MetricsRecord& last = metrics.back();
  QVERIFY(last.cer.has_value() && last.validLoss.has_value());
  QVERIFY2(*last.cer < 0.5, qPrintable(QString("cer %1").arg(*last.cer)));
  QVERIFY2(*last.validLoss < 0.4 * metrics.front().trainLoss,
           qPrintable(QString("valid loss %1, first train loss %2")
                          .arg(*last.validLoss)
                          .arg(metrics.front().trainLoss)));
}

QTEST_GUILESS_MAIN(TestWordsLearning)
#include "tst_words_learning.moc"

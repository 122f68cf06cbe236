// `rnnwb train --backend cuda` as a user runs it: without a device (or driver) a clear error that
// says why and leaves no run folder; with one, a short run whose resolved config says "cuda".
// Both paths are checked: this test runs everywhere (label cli), not only on a GPU machine.
#include <QtTest>

#include "rnnwb/gpu/device.hpp"

class TestCudaCli : public QObject {
  Q_OBJECT
 private slots:
  void trainWithCuda();
};

void TestCudaCli::trainWithCuda() {
  QTemporaryDir dir;
  const QString run = dir.filePath("run");
  QProcess p;
  p.start(RNNWB_CLI,
          {"train", QString(RNNWB_EXAMPLES_DIR) + "/char-lstm.rnn.json", "--task", "char-lm",
           "--text", QString(RNNWB_EXAMPLES_DIR) + "/data/kjv-genesis-2samuel.txt", "--steps", "3",
           "--streams", "4", "--h-prime", "8", "--backend", "cuda", "--run-dir", run});
  QVERIFY(p.waitForFinished(120000));
  const QString err = QString::fromUtf8(p.readAllStandardError());
  if (!rnnwb::gpu::deviceAvailable()) {
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(err.startsWith("rnnwb train: error: no CUDA device: "), qPrintable(err));
    QVERIFY2(err.trimmed().length() > QString("rnnwb train: error: no CUDA device: ").length(),
             "the runtime's reason is missing");
    QVERIFY(!QFileInfo::exists(run));
    return;
  }
  QVERIFY2(p.exitCode() == 0, qPrintable(err));
  QFile config(run + "/config.json");
  QVERIFY(config.open(QIODevice::ReadOnly));
  QVERIFY(config.readAll().contains("\"cuda\""));
}

QTEST_GUILESS_MAIN(TestCudaCli)
#include "tst_cuda_cli.moc"

// `rnnwb train --backend cuda` as a user runs it: without a device (or driver) a clear error that
// says why and leaves no run folder; with one, a short run whose resolved config says "cuda".
// Both paths are checked: this test runs everywhere (label cli), not only on a GPU machine.
#include <QProcess>
#include <QTest>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/gpu/cuda_backend.hpp"
#include "rnnwb/gpu/device.hpp"

class TestCudaCli : public QObject {
  Q_OBJECT
 private slots:
  void trainWithCuda();
  void backendRefusesWhatItCannotCompute();
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

// Graph format version 2: refused before any device is looked for, so this runs everywhere.
void TestCudaCli::backendRefusesWhatItCannotCompute() {
  const std::string dir = RNNWB_EXAMPLES_DIR;
  const std::pair<const char*, const char*> cases[] = {
      {"/leaky-lp-2d.rnn.json", "2-D graphs"},
      {"/leaky-lp-2d.rnn.json", "connection 'h->y': reduce"},
      {"/bidirectional-ctc.rnn.json", "layer 'y': the ctc loss"}};
  for (const auto& [file, expected] : cases) {
    const rnnwb::CompiledPlan plan(rnnwb::loadValidGraph(dir + file));
    try {
      rnnwb::gpu::CudaBackend backend(plan);
      QFAIL("the CUDA backend accepted a version 2 graph");
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      QVERIFY2(what.starts_with("the CUDA backend cannot compute graph '"), e.what());
      QVERIFY2(what.find(expected) != std::string::npos, e.what());
    }
  }
}

QTEST_GUILESS_MAIN(TestCudaCli)
#include "tst_cuda_cli.moc"

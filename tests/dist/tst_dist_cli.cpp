// `rnnwb train` told by a launcher's environment that it is one of several ranks, where it
// cannot join them: a build without MPI says how to get MPI; a build with MPI started without
// the launcher (MPI sees one process) says that MPI and the launcher disagree. Either way
// nothing trains and no run folder is made.
#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

#include "cli_run.hpp"
#include "rnnwb/core/dist/launch.hpp"

class TestDistCli : public QObject {
  Q_OBJECT
 private slots:
  void rankOfSeveralWithoutTheirLauncher();
  void configRanksAreTheLaunchers();
};

void TestDistCli::rankOfSeveralWithoutTheirLauncher() {
  QTemporaryDir dir;
  QProcess p;
  // MPICH's variables: Open MPI ignores them, so MPI_Init here starts a single process.
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("PMI_RANK", "0");
  env.insert("PMI_SIZE", "2");
  p.setProcessEnvironment(env);
  const QString graph = QString(RNNWB_EXAMPLES_DIR) + "/adding-lstm.rnn.json";
  p.start(RNNWB_CLI,
          {"train", graph, "--task", "adding", "--steps", "1", "--run-dir", dir.filePath("run")});
  QVERIFY(p.waitForFinished(60000));
  const QString err = QString::fromUtf8(p.readAllStandardError());
  QVERIFY(p.exitCode() != 0);
  if (rnnwb::dist::builtWithMpi()) {
    QVERIFY2(err.contains("MPI says rank 0 of 1, the launcher's environment rank 0 of 2"),
             qPrintable(err));
  } else {
    QVERIFY2(err.contains("this process is rank 0 of 2 (MPICH (PMI)), but rnnwb was built "
                          "without MPI: install Open MPI (scripts/install-deps.sh installs "
                          "openmpi-bin and libopenmpi-dev"),
             qPrintable(err));
  }
  QVERIFY(!QFile::exists(dir.filePath("run")));
}

// "ranks" in a config is a record of how a run was launched, not a choice: a run started from
// it in one process trains in one, says so, and keeps the number it really had.
void TestDistCli::configRanksAreTheLaunchers() {
  QTemporaryDir dir;
  const QString config = dir.filePath("c.json");
  QFile file(config);
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(QString(R"({"format": "rnnwb.train-config", "version": 1, "graph": "%1",
    "task": {"kind": "adding", "sequence_length": 8}, "h_prime": 8, "streams": 4, "steps": 2,
    "ranks": 2})")
                 .arg(QString(RNNWB_EXAMPLES_DIR) + "/adding-lstm.rnn.json")
                 .toUtf8());
  file.close();
  const QString run = dir.filePath("run");
  const auto r = rnnwb::testing::runCli({"train", "--config", config, "--run-dir", run});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY2(r.err.contains("the config says ranks 2, this run has 1: the launcher sets the number "
                          "of ranks (mpirun -np 2 rnnwb train ...; docs/distributed.md)"),
           qPrintable(r.err));
  QFile kept(run + "/config.json");
  QVERIFY(kept.open(QIODevice::ReadOnly));
  QVERIFY(QString::fromUtf8(kept.readAll()).contains(QStringLiteral("\"ranks\": 1")));
}

QTEST_GUILESS_MAIN(TestDistCli)
#include "tst_dist_cli.moc"

#include "rnnwb/ui/training_process.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QSettings>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>

namespace rnnwb::ui {

TrainingProcess::TrainingProcess(QObject* parent)
    : QObject(parent), m_outputPoll(new QTimer(this)) {
  m_outputPoll->setInterval(200);
  connect(m_outputPoll, &QTimer::timeout, this, &TrainingProcess::readOutput);
  createProcess();
}

void TrainingProcess::createProcess() {
  m_process = new QProcess(this);
  // The progress lines go to stderr; stdout is merged so that nothing the child says is lost.
  m_process->setProcessChannelMode(QProcess::MergedChannels);
  m_process->setStandardInputFile(QProcess::nullDevice());
  // A session of its own: the workbench's terminal (its Ctrl+C, its hangup) and the workbench's
  // exit never reach the trainer; only Stop does.
  m_process->setChildProcessModifier([] { ::setsid(); });
  connect(m_process, &QProcess::finished, this, &TrainingProcess::onFinished);
  connect(m_process, &QProcess::errorOccurred, this, &TrainingProcess::onError);
}

QString TrainingProcess::outputPath(const QString& runDir) {
  return QDir(runDir).filePath(QStringLiteral("console.log"));
}

TrainingProcess::~TrainingProcess() {
  // Closing the workbench stops the run the way Stop does, so that it checkpoints and can be
  // resumed; one that has not stopped after 15 s is killed (QProcess's destructor), losing only
  // the updates since its last checkpoint.
  if (!isRunning()) return;
  m_process->disconnect(this);
  m_process->terminate();
  m_process->waitForFinished(15000);
}

QString TrainingProcess::findExecutable(QString* why) {
  const QString set = QSettings().value(QStringLiteral("training/rnnwb")).toString();
  if (!set.isEmpty()) {
    if (QFileInfo(set).isExecutable()) return set;
    *why = QStringLiteral(
               "The rnnwb executable set in the settings (training/rnnwb = %1) does "
               "not exist or cannot be run.")
               .arg(set);
    return {};
  }
  const QString beside =
      QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../rnnwb/rnnwb"));
  const QString sameDir =
      QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("rnnwb"));
  // An installed workbench has rnnwb in its own folder; a build tree has app/rnnwb/rnnwb beside
  // app/rnnwb-gui/.
  for (const QString& candidate : {sameDir, beside})
    if (QFileInfo(candidate).isExecutable() && !QFileInfo(candidate).isDir())
      return QFileInfo(candidate).canonicalFilePath();
  *why = QStringLiteral(
             "Cannot find the rnnwb executable: looked for %1 and %2. Build the "
             "rnnwb target, or set its path as training/rnnwb in the settings.")
             .arg(QDir::cleanPath(sameDir), QDir::cleanPath(beside));
  return {};
}

void TrainingProcess::setProcesses(int ranks, const QString& hostfile) {
  m_ranks = std::max(1, ranks);
  m_hostfile = hostfile;
}

QString TrainingProcess::findMpirun(QString* why) {
  const QString found = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
  if (found.isEmpty())
    *why = QStringLiteral(
        "Training on several processes needs Open MPI's mpirun, which is not on the PATH: "
        "install openmpi-bin (scripts/install-deps.sh does), or set the number of processes "
        "(ranks) to 1. See docs/distributed.md.");
  return found;
}

bool TrainingProcess::startNew(const QString& graph, const QString& config, const QString& runDir) {
  return launch({QStringLiteral("train"), graph, QStringLiteral("--config"), config,
                 QStringLiteral("--run-dir"), runDir},
                runDir);
}

bool TrainingProcess::resume(const QString& runDir, qint64 steps) {
  QStringList arguments = {QStringLiteral("train"), QStringLiteral("--resume"),
                           QStringLiteral("--run-dir"), runDir};
  if (steps > 0) arguments << QStringLiteral("--steps") << QString::number(steps);
  return launch(arguments, runDir);
}

bool TrainingProcess::launch(const QStringList& arguments, const QString& runDir) {
  if (isRunning()) {
    emit finished(Outcome::NotStarted, QStringLiteral("A training run is already going on (%1); "
                                                      "stop it first.")
                                           .arg(m_runDir));
    return false;
  }
  m_runDir = runDir;
  m_arguments = arguments;
  QString why;
  const QString program = m_executable.isEmpty() ? findExecutable(&why) : m_executable;
  if (program.isEmpty()) {
    emit finished(Outcome::NotStarted, why);
    return false;
  }
  m_command = QStringList{program} + arguments;
  QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
  if (m_ranks > 1) {
    // mpirun forwards SIGTERM (Stop) to every rank; rank 0 writes the run folder.
    const QString mpirun = findMpirun(&why);
    if (mpirun.isEmpty()) {
      emit finished(Outcome::NotStarted, why);
      return false;
    }
    QStringList options = {QStringLiteral("-np"), QString::number(m_ranks)};
    if (!m_hostfile.isEmpty())
      options << QStringLiteral("--hostfile") << m_hostfile;
    else if (m_ranks > QThread::idealThreadCount())
      options << QStringLiteral("--oversubscribe");
    m_command = QStringList{mpirun} + options + m_command;
    if (geteuid() == 0) {  // Open MPI refuses root unless told twice (containers, CI)
      environment.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT"), QStringLiteral("1"));
      environment.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"), QStringLiteral("1"));
    }
  }
  m_pending.clear();
  m_lastError.clear();
  m_stopRequested = false;
  m_reported = false;
  // The output goes to a file, not a pipe: a pipe would break (SIGPIPE) when a detached run's
  // workbench exits. A resume appends to what the earlier launches wrote.
  QDir().mkpath(runDir);
  const QString output = outputPath(runDir);
  m_outputOffset = QFileInfo(output).size();
  m_process->setStandardOutputFile(output, QIODevice::Append);
  m_process->setProcessEnvironment(environment);
  m_process->start(m_command.front(), m_command.mid(1));
  if (!m_process->waitForStarted(10000)) return false;  // onError has reported it
  m_outputPoll->start();
  emit started(runDir);
  return true;
}

void TrainingProcess::detach() {
  if (!isRunning()) return;
  m_outputPoll->stop();
  readOutput();
  m_process->disconnect(this);
  // Qt cannot let go of a started child: ~QProcess kills it. So the QProcess is left alive on
  // purpose, owned by nobody, until the workbench exits; its child, in a session of its own and
  // writing only to files, goes on and is reaped by init when it ends.
  m_process->setParent(nullptr);
  createProcess();
}

void TrainingProcess::stop() {
  if (!isRunning()) return;
  m_stopRequested = true;
  m_process->terminate();  // SIGTERM on Unix
}

bool TrainingProcess::isRunning() const { return m_process->state() != QProcess::NotRunning; }

qint64 TrainingProcess::processId() const { return m_process->processId(); }

void TrainingProcess::readOutput() {
  QFile output(outputPath(m_runDir));
  if (!output.open(QIODevice::ReadOnly)) return;
  if (output.size() < m_outputOffset) m_outputOffset = 0;  // replaced by someone
  output.seek(m_outputOffset);
  const QByteArray added = output.readAll();
  m_outputOffset += added.size();
  m_pending += added;
  // The progress bar of a terminal redraws with '\r'; rnnwb prints plain lines to a pipe, but a
  // wrapper script might not: treat '\r' as a line end too.
  m_pending.replace('\r', '\n');
  qsizetype end;
  while ((end = m_pending.indexOf('\n')) >= 0) {
    const QString line = QString::fromUtf8(m_pending.left(end)).trimmed();
    m_pending.remove(0, end + 1);
    if (line.isEmpty()) continue;
    if (line.contains(QStringLiteral(": error: "))) m_lastError = line;
    emit logLine(line);
  }
}

void TrainingProcess::onFinished(int exitCode, QProcess::ExitStatus status) {
  m_outputPoll->stop();
  readOutput();
  if (!m_pending.isEmpty()) {
    m_pending += '\n';
    readOutput();
  }
  if (m_reported) return;
  m_reported = true;
  if (status == QProcess::CrashExit && m_stopRequested) {
    // SIGTERM arrived before the trainer had set up its handler (while it was loading).
    emit finished(Outcome::Stopped, QStringLiteral("Stopped before the first checkpoint."));
  } else if (status == QProcess::CrashExit) {
    emit finished(Outcome::Crashed,
                  QStringLiteral("rnnwb train crashed (%1). The run folder keeps its last "
                                 "checkpoint; Resume continues from it.")
                      .arg(m_process->errorString()));
  } else if (exitCode == 0) {
    emit finished(Outcome::Finished, QStringLiteral("Training finished."));
  } else if (exitCode == 128 + SIGTERM || exitCode == 128 + SIGINT) {
    emit finished(Outcome::Stopped, m_stopRequested
                                        ? QStringLiteral("Stopped after a checkpoint; Resume "
                                                         "continues the run.")
                                        : QStringLiteral("Stopped by a signal; Resume continues "
                                                         "the run."));
  } else {
    const QString said = m_lastError.isEmpty()
                             ? QStringLiteral("rnnwb train exited with code %1").arg(exitCode)
                             : m_lastError;
    emit finished(Outcome::Failed, said);
  }
}

void TrainingProcess::onError(QProcess::ProcessError error) {
  if (error != QProcess::FailedToStart || m_reported) return;
  m_outputPoll->stop();
  m_reported = true;
  emit finished(
      Outcome::NotStarted,
      QStringLiteral("Cannot start %1: %2").arg(m_process->program(), m_process->errorString()));
}

}  // namespace rnnwb::ui

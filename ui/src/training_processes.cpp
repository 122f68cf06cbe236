#include "training_processes.hpp"

#include "training_panel_support.hpp"

namespace rnnwb::ui {

TrainingProcesses::TrainingProcesses(QObject* parent) : QObject(parent) { m_newest = add(); }

TrainingProcess* TrainingProcesses::add() {
  auto* process = new TrainingProcess(this);
  if (m_newest) process->setExecutable(m_newest->executable());
  connect(process, &TrainingProcess::started, this, &TrainingProcesses::started);
  connect(process, &TrainingProcess::logLine, this,
          [this, process](const QString& line) { emit logLine(process->runDir(), line); });
  connect(process, &TrainingProcess::finished, this,
          [this, process](TrainingProcess::Outcome outcome, const QString& message) {
            emit finished(process, outcome, message);
          });
  m_all.push_back(process);
  return process;
}

TrainingProcess* TrainingProcesses::launcher() {
  if (!m_newest->isRunning()) return m_newest;
  for (TrainingProcess* process : m_all)
    if (!process->isRunning()) return m_newest = process;
  return m_newest = add();
}

TrainingProcess* TrainingProcesses::trainer(const QString& runDir) const {
  if (runDir.isEmpty()) return nullptr;
  const QString key = absoluteDir(runDir);
  for (TrainingProcess* process : m_all)
    if (process->isRunning() && absoluteDir(process->runDir()) == key) return process;
  return nullptr;
}

std::vector<TrainingProcess*> TrainingProcesses::running() const {
  std::vector<TrainingProcess*> busy;
  for (TrainingProcess* process : m_all)
    if (process->isRunning()) busy.push_back(process);
  return busy;
}

}  // namespace rnnwb::ui

#include "latest_only_runner.hpp"

#include <QWidget>

namespace rnnwb::ui {

LatestOnlyRunner::LatestOnlyRunner(QWidget* owner, std::function<void()> start)
    : QObject(owner),
      m_owner(owner),
      m_start(std::move(start)),
      m_active([owner] { return owner->isVisible(); }) {
  m_debounce.setSingleShot(true);
  connect(&m_debounce, &QTimer::timeout, this, &LatestOnlyRunner::fire);
}

void LatestOnlyRunner::schedule(int delayMs) {
  ++m_generation;
  m_debounce.start(delayMs);
}

void LatestOnlyRunner::ownerShown() {
  if (m_dirtyWhileHidden) schedule(0);
}

void LatestOnlyRunner::ownerHidden() {
  ++m_generation;
  m_debounce.stop();
  m_restartWhenDone = false;
  m_dirtyWhileHidden = true;
}

void LatestOnlyRunner::started() {
  m_runningGeneration = m_generation;
  m_running = true;
}

bool LatestOnlyRunner::finished() {
  // The future reports finished before the owner's slot runs: until here the work still runs.
  m_running = false;
  if (m_runningGeneration == m_generation) {
    m_restartWhenDone = false;
    return true;
  }
  if (m_restartWhenDone || !m_debounce.isActive()) {  // outdated meanwhile: run it again
    m_restartWhenDone = false;
    fire();
  }
  return false;
}

bool LatestOnlyRunner::isUpToDate() const {
  return m_active() && !m_dirtyWhileHidden && !m_debounce.isActive() && !m_running;
}

void LatestOnlyRunner::fire() {
  if (!m_active()) {
    m_dirtyWhileHidden = true;
    return;
  }
  m_dirtyWhileHidden = false;
  if (m_running) {
    m_restartWhenDone = true;
    return;
  }
  m_start();
}

}  // namespace rnnwb::ui

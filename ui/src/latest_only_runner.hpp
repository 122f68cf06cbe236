#pragma once
// When a panel that recomputes off the UI thread runs its work, keeping only the newest result:
// every change restarts a pause (the debounce); when it ends, the owner's start function runs if
// the owner is visible (a hidden owner computes once it is shown); a change while the work runs
// waits for it, and a result that a change outdated is dropped and the work run again. The owner
// runs the work itself (QtConcurrent) and reports started() and finished(). Used by the Memory
// budget, Sparsity and Packing panels.
#include <functional>

#include <QObject>
#include <QTimer>

class QWidget;

namespace rnnwb::ui {

class LatestOnlyRunner : public QObject {
  Q_OBJECT
 public:
  /// `start` is called on the UI thread; it either calls started() and launches the work, or
  /// shows its answer at once (nothing to compute, e.g. an invalid graph).
  LatestOnlyRunner(QWidget* owner, std::function<void()> start);

  /// When the work may run; by default while the owner is visible. (The Packing panel, once
  /// shown, goes on while hidden: it was asked for settings, not for a view.)
  void setActiveWhen(std::function<bool()> active) { m_active = std::move(active); }

  /// Something the result depends on changed: what is shown is outdated.
  void schedule(int delayMs);
  /// From the owner's showEvent: work outdated while hidden starts now.
  void ownerShown();
  /// The owner went out of sight and stopped its work: whatever runs or waits is outdated, and
  /// runs again once the owner is shown.
  void ownerHidden();
  /// From start(): work for the current state is running.
  void started();
  /// The work is back. True: its result is current, show it. False: a change outdated it; it is
  /// dropped and the work runs again.
  bool finished();

  bool isRunning() const { return m_running; }
  /// The pause after a change has not ended yet.
  bool isWaiting() const { return m_debounce.isActive(); }
  /// Visible, and nothing waiting or running: what is shown is for the current state.
  bool isUpToDate() const;

 private:
  void fire();

  QWidget* m_owner;
  std::function<void()> m_start;
  std::function<bool()> m_active;
  QTimer m_debounce;
  quint64 m_generation = 0;         // bumped by every change that outdates what is shown
  quint64 m_runningGeneration = 0;  // the generation the running work serves
  bool m_running = false;           // from started() until finished()
  bool m_restartWhenDone = false;   // the debounce fired while the work ran
  bool m_dirtyWhileHidden = true;
};

}  // namespace rnnwb::ui

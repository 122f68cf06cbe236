#pragma once
// What the training panel's files share (private to ui/).
#include <QDir>
#include <QString>

#include "rnnwb/core/train/run_status.hpp"
#include "rnnwb/ui/run_follower.hpp"

namespace rnnwb::ui {

inline QString absoluteDir(const QString& dir) { return QDir::cleanPath(QDir(dir).absolutePath()); }

/// The state column of a run not run by this panel: its status.json's state, "watching" for a
/// folder without one (written by an older rnnwb).
inline QString statusText(const RunFollower& run) {
  if (!run.status()) return QStringLiteral("watching");
  return QString::fromUtf8(train::toString(run.status()->state));
}

}  // namespace rnnwb::ui

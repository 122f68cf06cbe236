#pragma once
// Runs left training when the workbench closed ("Leave it running and detach"). Their folders
// are kept in the settings (training/detachedRuns), so that the next workbench shows them in
// the Training dock's run list and follows them through status.json and metrics.jsonl.
#include <QStringList>

namespace rnnwb::ui {

class TrainingPanel;

/// Remembers a run folder left training, for the next start.
void rememberDetachedRun(const QString& runDir);
/// The remembered run folders (absolute), oldest first.
QStringList detachedRuns();
/// Follows every remembered run folder that still exists in the panel; forgets those that no
/// longer train (shown this once, finished or stopped) or are gone. Returns the folders opened.
QStringList reopenDetachedRuns(TrainingPanel& panel);

}  // namespace rnnwb::ui

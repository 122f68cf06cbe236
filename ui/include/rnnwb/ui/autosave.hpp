#pragma once
// Autosave and crash recovery. While a document has unsaved changes, its text is written every
// interval to <directory>/autosave-<pid>.rnn.json, with a sidecar naming the file it belongs to;
// both go when the changes are saved or discarded. After a crash the files remain, and the next
// start finds them (their process is gone) and offers them back.
#include <vector>

#include <QDateTime>
#include <QObject>
#include <QString>

class QTimer;

namespace rnnwb::ui {

class GraphDocument;

struct RecoverableDocument {
  QString autosavePath;  // the graph text as it was autosaved
  QString sidecarPath;
  QString originalPath;  // the file the user was editing; empty for an untitled document
  QDateTime savedAt;
};

class Autosave : public QObject {
  Q_OBJECT
 public:
  Autosave(GraphDocument* document, QString directory, int intervalMs, QObject* parent = nullptr);
  ~Autosave() override;

  /// Writes now when there are unsaved changes, removes the autosave otherwise.
  void writeNow();
  /// Removes this process' autosave (the changes were saved or knowingly discarded).
  void discard();
  QString autosavePath() const;

  /// Autosaves in `directory` left by processes that no longer run, newest first.
  static std::vector<RecoverableDocument> findRecoverable(const QString& directory);
  static void remove(const RecoverableDocument& recoverable);
  /// The default directory, under the user's application data.
  static QString defaultDirectory();

 private:
  QString sidecarPath() const;
  GraphDocument* m_document;
  QString m_directory;
  QTimer* m_timer;
};

}  // namespace rnnwb::ui

#pragma once
// The File actions of the workbench and what they do: New, Open, Import (an ONNX model), Save,
// Save As, recent files (kept in QSettings), the unsaved-changes prompt, exports (PNG, SVG, DOT),
// autosave and the
// recovery offer after a crash. Failures are shown in message boxes that name the file and the
// problem; the document is left as it was.
#include <QObject>
#include <QStringList>

class QAction;
class QMenu;
class QWidget;

namespace rnnwb::ui {

class Autosave;
class GraphDocument;
class GraphScene;

class FileActions : public QObject {
  Q_OBJECT
 public:
  /// `window` parents the dialogs; all must outlive this object.
  FileActions(GraphDocument* document, GraphScene* scene, QWidget* window);

  QAction* newFile;
  QAction* open;
  QAction* importOnnx;
  QAction* save;
  QAction* saveAs;
  QAction* exportPng;
  QAction* exportSvg;
  QAction* exportDot;
  QAction* quit;
  QMenu* recentMenu;

  /// Opens a file after the unsaved-changes prompt; false if cancelled or it failed (shown).
  bool openFile(const QString& path);
  /// Imports an ONNX model (rnnwb/core/onnx_import.hpp) after the unsaved-changes prompt: the
  /// graph becomes a new untitled, unsaved document, and its weights are written beside the
  /// model as <stem>.safetensors (<stem>-2.safetensors, ... where that exists, so that nothing is
  /// overwritten). Returns that path, or an empty one if cancelled or it failed (shown).
  QString importModel(const QString& path);
  /// Save, or Save As for an untitled document; false if cancelled or it failed (shown).
  bool saveDocument();
  /// Asks whether to save unsaved changes. True when it is fine to go on (saved or discarded).
  bool maybeSave();
  /// Starts autosaving into `directory` every `intervalMs`.
  void startAutosave(const QString& directory, int intervalMs);
  /// Offers the newest autosave a crashed session left in `directory`, if any.
  void offerRecovery(const QString& directory);
  /// Called when the window closes for good: the autosave goes.
  void closing();

  static QStringList recentFiles();

 signals:
  /// A document was opened or created (the view fits it).
  void documentReplaced();
  /// Something to say in the status bar (where an import put the weights).
  void statusMessage(const QString& text);

 private:
  void createActions();
  bool saveTo(const QString& path);
  QString askSavePath(const QString& filter, const QString& suffix);
  void addRecentFile(const QString& path);
  void rebuildRecentMenu();
  void exportAs(const QString& filter, const QString& suffix);

  GraphDocument* m_document;
  GraphScene* m_scene;
  QWidget* m_window;
  Autosave* m_autosave = nullptr;
};

}  // namespace rnnwb::ui

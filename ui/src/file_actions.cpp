#include "rnnwb/ui/file_actions.hpp"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>

#ifdef RNNWB_HAVE_ONNX
#include "rnnwb/core/onnx_import.hpp"
#endif
#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/ui/autosave.hpp"
#include "rnnwb/ui/canvas_export.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"

namespace rnnwb::ui {
namespace {

const QString kRecentKey = QStringLiteral("recentFiles");
constexpr int kMaxRecent = 8;
const QString kGraphFilter = QStringLiteral("Graph files (*.rnn.json);;All files (*)");
const QString kOnnxFilter = QStringLiteral("ONNX models (*.onnx);;All files (*)");

/// <dir>/<stem>.safetensors beside the model, or the first of <stem>-2, -3, ... that is free.
QString freeWeightsPath(const QString& model) {
  const QFileInfo info(model);
  const QString base = info.dir().filePath(info.completeBaseName());
  QString path = base + QStringLiteral(".safetensors");
  for (int n = 2; QFileInfo::exists(path); ++n)
    path = QStringLiteral("%1-%2.safetensors").arg(base).arg(n);
  return path;
}

}  // namespace

FileActions::FileActions(GraphDocument* document, GraphScene* scene, QWidget* window)
    : QObject(window), m_document(document), m_scene(scene), m_window(window) {
  createActions();
}

void FileActions::createActions() {
  auto make = [this](const QString& text, const QKeySequence& key) {
    auto* action = new QAction(text, this);
    action->setShortcut(key);
    if (!action->shortcut().isEmpty())  // the toolbar's tooltip says the key too
      action->setToolTip(QStringLiteral("%1 (%2)").arg(
          QString(text).remove(QLatin1Char('&')).remove(QStringLiteral("…")),
          action->shortcut().toString(QKeySequence::NativeText)));
    return action;
  };
  newFile = make(QStringLiteral("&New"), QKeySequence::New);
  open = make(QStringLiteral("&Open…"), QKeySequence::Open);
  importOnnx = make(QStringLiteral("&Import ONNX Model…"), {});
#ifndef RNNWB_HAVE_ONNX
  importOnnx->setEnabled(false);
  importOnnx->setToolTip(
      QStringLiteral("This build has no ONNX import (it was built without "
                     "protobuf)"));
#endif
  save = make(QStringLiteral("&Save"), QKeySequence::Save);
  // Not QKeySequence::SaveAs: without a desktop environment Qt binds it to nothing.
  saveAs = make(QStringLiteral("Save &As…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
  exportPng = make(QStringLiteral("Export Canvas as &PNG…"), {});
  exportSvg = make(QStringLiteral("Export Canvas as S&VG…"), {});
  exportDot = make(QStringLiteral("Export Graph as &DOT…"), {});
  quit = make(QStringLiteral("&Quit"), QKeySequence::Quit);
  recentMenu = new QMenu(QStringLiteral("Open &Recent"), m_window);
  connect(newFile, &QAction::triggered, this, [this] {
    if (!maybeSave()) return;
    m_document->reset(Graph{}, {});
    emit documentReplaced();
  });
  connect(open, &QAction::triggered, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(m_window, QStringLiteral("Open graph"), {}, kGraphFilter);
    if (!path.isEmpty()) openFile(path);
  });
  connect(importOnnx, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(m_window, QStringLiteral("Import ONNX model"),
                                                      {}, kOnnxFilter);
    if (!path.isEmpty()) importModel(path);
  });
  connect(save, &QAction::triggered, this, &FileActions::saveDocument);
  connect(saveAs, &QAction::triggered, this, [this] {
    const QString path = askSavePath(kGraphFilter, QStringLiteral(".rnn.json"));
    if (!path.isEmpty()) saveTo(path);
  });
  connect(exportPng, &QAction::triggered, this,
          [this] { exportAs(QStringLiteral("PNG images (*.png)"), QStringLiteral(".png")); });
  connect(exportSvg, &QAction::triggered, this,
          [this] { exportAs(QStringLiteral("SVG images (*.svg)"), QStringLiteral(".svg")); });
  connect(exportDot, &QAction::triggered, this, [this] {
    exportAs(QStringLiteral("Graphviz DOT (*.dot *.gv)"), QStringLiteral(".dot"));
  });
  connect(quit, &QAction::triggered, m_window, &QWidget::close);
  rebuildRecentMenu();
}

bool FileActions::openFile(const QString& path) {
  if (!maybeSave()) return false;
  QString error;
  if (!m_document->open(path, &error)) {
    QMessageBox::critical(m_window, QStringLiteral("Cannot open file"), error);
    return false;
  }
  addRecentFile(path);
  emit documentReplaced();
  return true;
}

QString FileActions::importModel(const QString& path) {
#ifdef RNNWB_HAVE_ONNX
  if (!maybeSave()) return {};
  const QString weights = freeWeightsPath(path);
  try {
    OnnxImport imported = importOnnxFile(path.toStdString());
    writeSafetensors(weights.toStdString(), imported.weights, {{"graph", imported.graph.name}});
    m_document->reset(std::move(imported.graph), {});
  } catch (const std::exception& e) {
    QMessageBox::critical(m_window, QStringLiteral("Cannot import model"),
                          QString::fromStdString(e.what()));
    return {};
  }
  m_document->markUnsaved();
  emit documentReplaced();
  emit statusMessage(QStringLiteral("Imported %1; its weights are in %2")
                         .arg(QFileInfo(path).fileName(), weights));
  return weights;
#else
  QMessageBox::critical(m_window, QStringLiteral("Cannot import model"),
                        QStringLiteral("This build has no ONNX import (it was built without "
                                       "protobuf)."));
  (void)path;
  return {};
#endif
}

bool FileActions::saveDocument() {
  if (m_document->filePath().isEmpty()) {
    const QString path = askSavePath(kGraphFilter, QStringLiteral(".rnn.json"));
    return !path.isEmpty() && saveTo(path);
  }
  return saveTo(m_document->filePath());
}

bool FileActions::saveTo(const QString& path) {
  try {
    m_document->saveAs(path);
  } catch (const std::exception& e) {
    QMessageBox::critical(m_window, QStringLiteral("Cannot save file"),
                          QStringLiteral("Cannot save %1:\n%2\nThe document is unchanged and "
                                         "still open.")
                              .arg(path, QString::fromStdString(e.what())));
    return false;
  }
  if (m_autosave) m_autosave->discard();
  addRecentFile(path);
  return true;
}

QString FileActions::askSavePath(const QString& filter, const QString& suffix) {
  QString start = m_document->filePath();
  if (start.isEmpty() && !m_document->graph().name.empty())
    start = QString::fromStdString(m_document->graph().name) + QStringLiteral(".rnn.json");
  QString path = QFileDialog::getSaveFileName(m_window, QStringLiteral("Save as"), start, filter);
  if (!path.isEmpty() && !path.endsWith(suffix) && QFileInfo(path).suffix().isEmpty())
    path += suffix;
  return path;
}

bool FileActions::maybeSave() {
  if (!m_document->isModified()) return true;
  const QString name = m_document->filePath().isEmpty()
                           ? QStringLiteral("the untitled graph")
                           : QFileInfo(m_document->filePath()).fileName();
  const auto answer = QMessageBox::warning(
      m_window, QStringLiteral("Unsaved changes"),
      QStringLiteral("Save the changes to %1?").arg(name),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) return saveDocument();
  if (m_autosave) m_autosave->discard();
  return true;
}

void FileActions::exportAs(const QString& filter, const QString& suffix) {
  const QString path = QFileDialog::getSaveFileName(m_window, QStringLiteral("Export"), {}, filter);
  if (path.isEmpty()) return;
  QString error;
  bool ok = false;
  if (suffix == QLatin1String(".png"))
    ok = exportCanvasPng(m_scene, path, &error);
  else if (suffix == QLatin1String(".svg"))
    ok = exportCanvasSvg(m_scene, path, QString::fromStdString(m_document->graph().name), &error);
  else
    ok = exportGraphDot(*m_document, path, &error);
  if (!ok) QMessageBox::critical(m_window, QStringLiteral("Export failed"), error);
}

QStringList FileActions::recentFiles() { return QSettings().value(kRecentKey).toStringList(); }

void FileActions::addRecentFile(const QString& path) {
  QStringList files = recentFiles();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecent) files.removeLast();
  QSettings().setValue(kRecentKey, files);
  rebuildRecentMenu();
}

void FileActions::rebuildRecentMenu() {
  recentMenu->clear();
  const QStringList files = recentFiles();
  for (const QString& file : files) {
    QAction* action = recentMenu->addAction(QFileInfo(file).fileName());
    action->setStatusTip(file);
    connect(action, &QAction::triggered, this, [this, file] { openFile(file); });
  }
  recentMenu->setEnabled(!files.isEmpty());
}

void FileActions::startAutosave(const QString& directory, int intervalMs) {
  m_autosave = new Autosave(m_document, directory, intervalMs, this);
}

void FileActions::offerRecovery(const QString& directory) {
  const auto found = Autosave::findRecoverable(directory);
  if (found.empty()) return;
  const RecoverableDocument& newest = found.front();
  const QString what =
      newest.originalPath.isEmpty() ? QStringLiteral("an untitled graph") : newest.originalPath;
  const auto answer = QMessageBox::question(
      m_window, QStringLiteral("Recover unsaved changes?"),
      QStringLiteral("The workbench did not close normally. It autosaved unsaved changes to %1 "
                     "at %2.\n\nRecover them?")
          .arg(what, newest.savedAt.toLocalTime().toString(Qt::TextDate)),
      QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
  if (answer == QMessageBox::Yes) {
    QString error;
    if (!m_document->open(newest.autosavePath, &error)) {
      QMessageBox::critical(m_window, QStringLiteral("Cannot recover"), error);
      return;  // keep the files: nothing is lost
    }
    m_document->setFilePath(newest.originalPath);
    m_document->markUnsaved();
    emit documentReplaced();
  }
  Autosave::remove(newest);  // older ones, if any, are offered at the next start
}

void FileActions::closing() {
  if (m_autosave) m_autosave->discard();
}

}  // namespace rnnwb::ui

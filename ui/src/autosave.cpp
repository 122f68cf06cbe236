#include "rnnwb/ui/autosave.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTimer>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/ui/graph_document.hpp"

namespace rnnwb::ui {
namespace {

bool processRuns(qint64 pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

bool writeText(const QString& path, const QByteArray& text) {
  QSaveFile file(path);
  return file.open(QIODevice::WriteOnly) && file.write(text) == text.size() && file.commit();
}

}  // namespace

Autosave::Autosave(GraphDocument* document, QString directory, int intervalMs, QObject* parent)
    : QObject(parent),
      m_document(document),
      m_directory(std::move(directory)),
      m_timer(new QTimer(this)) {
  connect(m_timer, &QTimer::timeout, this, &Autosave::writeNow);
  m_timer->start(intervalMs);
}

Autosave::~Autosave() = default;

QString Autosave::autosavePath() const {
  return QDir(m_directory)
      .filePath(QStringLiteral("autosave-%1.rnn.json").arg(QCoreApplication::applicationPid()));
}

QString Autosave::sidecarPath() const {
  return QDir(m_directory)
      .filePath(QStringLiteral("autosave-%1.json").arg(QCoreApplication::applicationPid()));
}

void Autosave::writeNow() {
  if (!m_document->isModified()) {
    discard();
    return;
  }
  QDir().mkpath(m_directory);
  QJsonObject sidecar;
  sidecar[QStringLiteral("file")] = m_document->filePath();
  sidecar[QStringLiteral("pid")] = QCoreApplication::applicationPid();
  sidecar[QStringLiteral("saved")] = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
  // The graph first: a sidecar never names a graph that is not there yet. A failure here is
  // not worth a dialog every interval; the next tick tries again.
  if (writeText(autosavePath(), QByteArray::fromStdString(serializeGraph(m_document->graph()))))
    writeText(sidecarPath(), QJsonDocument(sidecar).toJson());
}

void Autosave::discard() {
  QFile::remove(sidecarPath());
  QFile::remove(autosavePath());
}

std::vector<RecoverableDocument> Autosave::findRecoverable(const QString& directory) {
  std::vector<RecoverableDocument> found;
  const QDir dir(directory);
  for (const QString& name : dir.entryList({QStringLiteral("autosave-*.json")}, QDir::Files)) {
    if (name.endsWith(QLatin1String(".rnn.json"))) continue;
    QFile file(dir.filePath(name));
    if (!file.open(QIODevice::ReadOnly)) continue;
    const QJsonObject sidecar = QJsonDocument::fromJson(file.readAll()).object();
    const qint64 pid = sidecar.value(QStringLiteral("pid")).toInteger();
    if (processRuns(pid)) continue;  // another workbench is still editing it
    RecoverableDocument doc;
    doc.sidecarPath = dir.filePath(name);
    doc.autosavePath = dir.filePath(QStringLiteral("autosave-%1.rnn.json").arg(pid));
    doc.originalPath = sidecar.value(QStringLiteral("file")).toString();
    doc.savedAt =
        QDateTime::fromString(sidecar.value(QStringLiteral("saved")).toString(), Qt::ISODate);
    if (QFile::exists(doc.autosavePath)) found.push_back(doc);
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.savedAt > b.savedAt; });
  return found;
}

void Autosave::remove(const RecoverableDocument& recoverable) {
  QFile::remove(recoverable.sidecarPath);
  QFile::remove(recoverable.autosavePath);
}

QString Autosave::defaultDirectory() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation))
      .filePath(QStringLiteral("autosave"));
}

}  // namespace rnnwb::ui

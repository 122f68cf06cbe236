// Autosave and crash recovery: unsaved changes are written, saved or discarded ones removed,
// and what a dead process left behind is found (newest first) while a live one's is not.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/ui/autosave.hpp"
#include "rnnwb/ui/graph_commands.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

// What a crashed session leaves: a graph and a sidecar naming a process that is gone.
void leaveCrashedAutosave(const QDir& dir, qint64 pid, const QString& original,
                          const QString& savedAt, const std::string& text) {
  QFile graph(dir.filePath(QStringLiteral("autosave-%1.rnn.json").arg(pid)));
  QVERIFY(graph.open(QIODevice::WriteOnly));
  graph.write(QByteArray::fromStdString(text));
  QJsonObject sidecar{{"file", original}, {"pid", pid}, {"saved", savedAt}};
  QFile side(dir.filePath(QStringLiteral("autosave-%1.json").arg(pid)));
  QVERIFY(side.open(QIODevice::WriteOnly));
  side.write(QJsonDocument(sidecar).toJson());
}

}  // namespace

class TestAutosave : public QObject {
  Q_OBJECT
 private slots:
  void writesOnlyUnsavedChanges();
  void findsWhatACrashLeft();
};

void TestAutosave::writesOnlyUnsavedChanges() {
  QTemporaryDir dir;
  GraphDocument doc;
  QVERIFY(doc.open(QStringLiteral(RNNWB_EXAMPLES_DIR "/elman.rnn.json"), nullptr));
  Autosave autosave(&doc, dir.path(), 60000);
  autosave.writeNow();
  QVERIFY(!QFile::exists(autosave.autosavePath()));
  doc.undoStack()->push(new RenameGraphCommand(&doc, "changed"));
  autosave.writeNow();
  QVERIFY(QFile::exists(autosave.autosavePath()));
  QCOMPARE(loadValidGraph(autosave.autosavePath().toStdString()).name, std::string("changed"));
  // This process still runs: its autosave is nobody's to recover.
  QVERIFY(Autosave::findRecoverable(dir.path()).empty());
  doc.undoStack()->undo();  // back to the saved state
  autosave.writeNow();
  QVERIFY(!QFile::exists(autosave.autosavePath()));
  QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
}

void TestAutosave::findsWhatACrashLeft() {
  QTemporaryDir dir;
  const std::string text = serializeGraph(loadValidGraph(RNNWB_EXAMPLES_DIR "/gru.rnn.json"));
  // PIDs above the kernel's pid_max (4194304 at most) name no process.
  leaveCrashedAutosave(dir.path(), 4194400, "/old.rnn.json", "2026-01-01T10:00:00Z", text);
  leaveCrashedAutosave(dir.path(), 4194401, "/new.rnn.json", "2026-01-02T10:00:00Z", text);
  const auto found = Autosave::findRecoverable(dir.path());
  QCOMPARE(found.size(), std::size_t(2));
  QCOMPARE(found[0].originalPath, QStringLiteral("/new.rnn.json"));
  QCOMPARE(found[1].originalPath, QStringLiteral("/old.rnn.json"));
  GraphDocument doc;
  QVERIFY(doc.open(found[0].autosavePath, nullptr));
  QCOMPARE(doc.graph().name, std::string("gru"));
  Autosave::remove(found[0]);
  QCOMPARE(Autosave::findRecoverable(dir.path()).size(), std::size_t(1));
}

QTEST_GUILESS_MAIN(TestAutosave)
#include "tst_autosave.moc"

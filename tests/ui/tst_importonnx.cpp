// File > Import ONNX Model (FileActions::importModel): a model of torch.onnx.export (a GRU with a
// Linear head, tests/ui/data/tiny-gru.onnx) opens as a new untitled, unsaved document, laid out,
// with its weights written beside the model and never over an existing file; a broken model is
// shown naming the file, and the open document stays as it was.
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "message_box_answer.hpp"
#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/ui/file_actions.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/main_window.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

const QString kModel = QStringLiteral(RNNWB_TEST_DATA_DIR "/tiny-gru.onnx");
const QString kElman = QStringLiteral(RNNWB_EXAMPLES_DIR "/elman.rnn.json");

QString copyInto(const QTemporaryDir& dir, const QString& name) {
  const QString path = dir.filePath(name);
  QFile::copy(kModel, path);
  return path;
}

}  // namespace

class TestImportOnnx : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // settings go to a test location
    QApplication::setOrganizationName(QStringLiteral("rnnwb-tests"));
  }
  void fileMenuHasImport();
  void importOpensAnUnsavedDocumentWithItsWeightsBeside();
  void aBrokenModelIsShownAndNothingChanges();
};

void TestImportOnnx::fileMenuHasImport() {
  MainWindow window;
  QStringList texts;
  for (QAction* a : window.menuBar()->actions().front()->menu()->actions()) texts << a->text();
  QVERIFY2(texts.contains(QStringLiteral("&Import ONNX Model…")), qPrintable(texts.join('|')));
  QVERIFY(window.fileActions()->importOnnx->isEnabled());
}

void TestImportOnnx::importOpensAnUnsavedDocumentWithItsWeightsBeside() {
  MainWindow window;
  QTemporaryDir dir;
  const QString model = copyInto(dir, QStringLiteral("tiny-gru.onnx"));
  const QString weights = window.fileActions()->importModel(model);
  QCOMPARE(weights, dir.filePath(QStringLiteral("tiny-gru.safetensors")));
  const Graph& graph = window.document()->graph();
  QCOMPARE(graph.name, std::string("tiny-gru"));
  QVERIFY(window.document()->filePath().isEmpty());
  QVERIFY(window.document()->isModified());
  QVERIFY(window.document()->analysis());  // valid: it has a schedule
  QVERIFY2(window.statusBar()->currentMessage().contains(weights),
           qPrintable(window.statusBar()->currentMessage()));
  const TensorFile file = readSafetensors(weights.toStdString());
  QVERIFY(file.contains("layers.y.bias"));  // the Linear head is the output layer "y"
  QCOMPARE(file.at("connections.x->rnn_GRU_z.weight").shape(), (Shape{3, 2}));
  // Every layer is placed (laid out, as an opened file without positions is).
  for (const Layer& l : graph.layers) QVERIFY2(graph.ui["positions"].contains(l.id), l.id.c_str());

  // Again: the unsaved import is discarded at the prompt, and the first weights stay.
  QString shown;
  answerNextMessageBox(&shown, QMessageBox::Discard);
  QCOMPARE(window.fileActions()->importModel(model),
           dir.filePath(QStringLiteral("tiny-gru-2.safetensors")));
  QVERIFY(shown.contains(QStringLiteral("untitled")));
  QVERIFY(QFileInfo::exists(weights));
}

void TestImportOnnx::aBrokenModelIsShownAndNothingChanges() {
  MainWindow window;
  QVERIFY(window.fileActions()->openFile(kElman));
  QTemporaryDir dir;
  const QString broken = dir.filePath(QStringLiteral("broken.onnx"));
  QFile file(broken);
  QVERIFY(file.open(QIODevice::WriteOnly));
  QFile model(kModel);
  QVERIFY(model.open(QIODevice::ReadOnly));
  file.write(model.readAll().left(300));
  file.close();
  QString shown;
  answerNextMessageBox(&shown, QMessageBox::Ok);
  QVERIFY(window.fileActions()->importModel(broken).isEmpty());
  QVERIFY2(shown.contains(broken + QStringLiteral(": not an ONNX model")), qPrintable(shown));
  QCOMPARE(window.document()->filePath(), kElman);
  QVERIFY(!window.document()->isModified());
  QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("broken.safetensors"))));
}

QTEST_MAIN(TestImportOnnx)
#include "tst_importonnx.moc"

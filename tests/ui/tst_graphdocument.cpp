// GraphDocument and its undo commands: building a graph through the commands the gestures push,
// undoing to empty and redoing to an identical file, a redo→undo round trip per command, files.
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoCommand>
#include <QUndoStack>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/ui/graph_commands.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_fragment.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

QString example(const char* name) { return QStringLiteral(RNNWB_EXAMPLES_DIR "/") + name; }

Graph loadExample(const char* name) { return loadValidGraph(example(name).toStdString()); }

QPointF positionIn(const Graph& graph, const std::string& id) {
  const auto& p = graph.ui["positions"][id];
  return {p[0].get<double>(), p[1].get<double>()};
}

QString firstProblem(const GraphDocument& doc) {
  return doc.problems().empty() ? QStringLiteral("no problem")
                                : QString::fromStdString(doc.problems().front().message);
}

// Draws `target` as a user would: palette adds, the properties panel sets fields, port drags
// connect, then the fields of each connection are set.
void drawGraph(GraphDocument& doc, const Graph& target) {
  QUndoStack* stack = doc.undoStack();
  for (const Layer& layer : target.layers) {
    Layer added = makeLayer(doc, layer.kind, layer.isOutput());
    stack->push(new AddLayerCommand(&doc, added, positionIn(target, layer.id)));
    stack->push(new EditLayerCommand(&doc, doc.layerIndex(added.id), layer));
  }
  for (const Connection& c : target.connections) {
    stack->push(new AddConnectionCommand(&doc, makeConnection(doc, c.from, c.to)));
    const int index = static_cast<int>(doc.graph().connections.size()) - 1;
    Connection edited = doc.graph().connections[index];
    edited.type = c.type;
    edited.delay = c.delay;
    edited.density = c.density;
    edited.seed = c.seed;
    if (edited != doc.graph().connections[index])
      stack->push(new EditConnectionCommand(&doc, index, edited));
  }
  stack->push(new RenameGraphCommand(&doc, target.name));
  // Its frames (Frame Selection's command), one step each.
  std::vector<LayerFrame> frames;
  for (const LayerFrame& frame : readFrames(target.ui)) {
    const std::vector<LayerFrame> before = frames;
    frames.push_back(frame);
    stack->push(new SetFramesCommand(&doc, before, frames, QStringLiteral("Frame selection")));
  }
}

// Pushes the command, checks it changed the graph, undoes it back to exactly the graph before
// and redoes it to exactly the graph after.
void checkRoundTrip(GraphDocument& doc, QUndoCommand* command) {
  const std::string before = serializeGraph(doc.graph());
  doc.undoStack()->push(command);
  const std::string after = serializeGraph(doc.graph());
  QVERIFY2(after != before, qPrintable(command->text()));
  doc.undoStack()->undo();
  QCOMPARE(serializeGraph(doc.graph()), before);
  doc.undoStack()->redo();
  QCOMPARE(serializeGraph(doc.graph()), after);
  doc.undoStack()->undo();
}

}  // namespace

class TestGraphDocument : public QObject {
  Q_OBJECT
 private slots:
  void buildLstmUndoToEmptyRedoToIdentical();
  void eachCommandRoundTrips();
  void renameCarriesToConnectionsAndPositions();
  void dragMergesIntoOneStep();
  void deleteRestoresExactly();
  void pasteRenamesClashingIds();
  void templatesAreValidCells_data();
  void templatesAreValidCells();
  void openAndSaveEveryExample_data();
  void openAndSaveEveryExample();
  void openReportsBadFile();
  void invalidEditsRaiseProblems_data();
  void invalidEditsRaiseProblems();
};

void TestGraphDocument::buildLstmUndoToEmptyRedoToIdentical() {
  const Graph lstm = loadExample("lstm-peephole.rnn.json");
  GraphDocument doc;
  const std::string empty = serializeGraph(doc.graph());
  drawGraph(doc, lstm);
  QCOMPARE(serializeGraph(doc.graph()), serializeGraph(lstm));
  QVERIFY(doc.problems().empty());
  QVERIFY(doc.isModified());
  while (doc.undoStack()->canUndo()) doc.undoStack()->undo();
  QCOMPARE(serializeGraph(doc.graph()), empty);
  QVERIFY(doc.graph() == Graph{});
  QVERIFY(!doc.isModified());
  while (doc.undoStack()->canRedo()) doc.undoStack()->redo();
  QCOMPARE(serializeGraph(doc.graph()), serializeGraph(lstm));
  QVERIFY(doc.graph() == lstm);
}

void TestGraphDocument::eachCommandRoundTrips() {
  GraphDocument doc;
  QString error;
  QVERIFY2(doc.open(example("lstm-peephole.rnn.json"), &error), qPrintable(error));
  checkRoundTrip(doc, new AddLayerCommand(&doc, makeLayer(doc, LayerKind::Additive), {5, 5}));
  checkRoundTrip(doc, new AddConnectionCommand(&doc, makeConnection(doc, "x", "y")));
  checkRoundTrip(doc, new RemoveItemsCommand(&doc, {"c", "x"}, {}));
  checkRoundTrip(doc, new RemoveItemsCommand(&doc, {}, {0, 7, 20}));
  Layer cell = doc.graph().layers[doc.layerIndex("c")];
  cell.id = "cell";
  checkRoundTrip(doc, new EditLayerCommand(&doc, doc.layerIndex("c"), cell));
  Layer gate = doc.graph().layers[1];
  gate.size = 64;
  gate.activation = Activation::Relu;
  gate.bias = false;
  checkRoundTrip(doc, new EditLayerCommand(&doc, 1, gate));
  Connection c = doc.graph().connections[0];
  c.delay = 2;
  c.density = 0.5;
  checkRoundTrip(doc, new EditConnectionCommand(&doc, 0, c));
  checkRoundTrip(
      doc, new MoveLayersCommand(&doc, {{"x", doc.position("x")}}, {{"x", QPointF(-40, 300)}}));
  checkRoundTrip(doc,
                 new InsertFragmentCommand(
                     &doc, makeCellTemplate(doc, CellTemplate::Lstm, "x", 8, {0, 600}), "LSTM"));
  checkRoundTrip(
      doc, new InsertFragmentCommand(
               &doc, prepareForInsert(doc, copyFragment(doc, {"i", "ig"}), {30, 30}), "Paste"));
  checkRoundTrip(doc, new RenameGraphCommand(&doc, "renamed"));
}

void TestGraphDocument::renameCarriesToConnectionsAndPositions() {
  GraphDocument doc;
  QVERIFY(doc.open(example("elman.rnn.json"), nullptr));
  const QPointF position = doc.position("h");
  Layer h = doc.graph().layers[doc.layerIndex("h")];
  h.id = "hidden";
  doc.undoStack()->push(new EditLayerCommand(&doc, doc.layerIndex("h"), h));
  QCOMPARE(doc.position("hidden"), position);
  QVERIFY(!doc.hasPosition("h"));
  std::vector<std::string> ids;
  for (const Connection& c : doc.graph().connections) ids.push_back(c.id);
  QCOMPARE(ids, (std::vector<std::string>{"x->hidden", "hidden->hidden@1", "hidden->y"}));
  QVERIFY(doc.problems().empty());
}

void TestGraphDocument::dragMergesIntoOneStep() {
  GraphDocument doc;
  QVERIFY(doc.open(example("elman.rnn.json"), nullptr));
  const QPointF start = doc.position("h");
  for (int step = 1; step <= 5; ++step)
    doc.undoStack()->push(new MoveLayersCommand(&doc, {{"h", start + QPointF(step - 1, 0)}},
                                                {{"h", start + QPointF(step, 0)}}, 7));
  QCOMPARE(doc.undoStack()->count(), 1);
  QCOMPARE(doc.position("h"), start + QPointF(5, 0));
  doc.undoStack()->push(
      new MoveLayersCommand(&doc, {{"h", doc.position("h")}}, {{"h", QPointF(0, 0)}}, 8));
  QCOMPARE(doc.undoStack()->count(), 2);
  doc.undoStack()->undo();
  doc.undoStack()->undo();
  QCOMPARE(doc.position("h"), start);
}

void TestGraphDocument::deleteRestoresExactly() {
  const Graph original = loadExample("gru.rnn.json");
  GraphDocument doc;
  doc.reset(original, {});
  RemoveItemsCommand* remove = new RemoveItemsCommand(&doc, {"h"}, {});
  doc.undoStack()->push(remove);
  QCOMPARE(doc.layerIndex("h"), -1);
  for (const Connection& c : doc.graph().connections) QVERIFY(c.from != "h" && c.to != "h");
  doc.undoStack()->undo();
  QVERIFY(doc.graph() == original);
}

void TestGraphDocument::pasteRenamesClashingIds() {
  GraphDocument doc;
  QVERIFY(doc.open(example("elman.rnn.json"), nullptr));
  const auto fragment = fragmentFromText(fragmentToText(copyFragment(doc, {"h"})));
  QVERIFY(fragment.has_value());
  QCOMPARE(fragment->connections.size(), std::size_t(1));  // the self-loop only
  doc.undoStack()->push(
      new InsertFragmentCommand(&doc, prepareForInsert(doc, *fragment, {20, 20}), "Paste"));
  const int pasted = doc.layerIndex("h2");
  QVERIFY(pasted >= 0);
  QCOMPARE(doc.position("h2"), doc.position("h") + QPointF(20, 20));
  QCOMPARE(doc.graph().connections.back().id, std::string("h2->h2@1"));
  QCOMPARE(doc.graph().connections.back().from, std::string("h2"));
}

void TestGraphDocument::templatesAreValidCells_data() {
  QTest::addColumn<int>("cell");
  QTest::addColumn<int>("layers");
  QTest::addColumn<int>("recurrentMembers");
  QTest::newRow("lstm") << int(CellTemplate::Lstm) << 9 << 9;
  QTest::newRow("gru") << int(CellTemplate::Gru) << 7 << 7;
  QTest::newRow("elman") << int(CellTemplate::Elman) << 1 << 1;
}

void TestGraphDocument::templatesAreValidCells() {
  QFETCH(int, cell);
  QFETCH(int, layers);
  QFETCH(int, recurrentMembers);
  GraphDocument doc;
  QVERIFY(doc.open(example("elman.rnn.json"), nullptr));
  GraphFragment fragment = makeCellTemplate(doc, CellTemplate(cell), "x", 8, QPointF(0, 400));
  QCOMPARE(int(fragment.layers.size()), layers);
  doc.undoStack()->push(new InsertFragmentCommand(&doc, fragment, "template"));
  // Wire the cell's output to the output layer; the graph must then be valid.
  doc.undoStack()->push(
      new AddConnectionCommand(&doc, makeConnection(doc, fragment.layers.back().id, "y")));
  QVERIFY2(doc.problems().empty(), qPrintable(firstProblem(doc)));
  QVERIFY(doc.analysis().has_value());
  const auto& nodes = doc.analysis()->nodes;
  const int cellNode = doc.analysis()->nodeOfLayer[doc.layerIndex(fragment.layers.back().id)];
  QVERIFY(nodes[cellNode].recurrent);
  QCOMPARE(int(nodes[cellNode].layers.size()), recurrentMembers);
  // A second insert gets a fresh prefix.
  GraphFragment second = makeCellTemplate(doc, CellTemplate(cell), "x", 8, QPointF(0, 800));
  for (const Layer& layer : second.layers) QCOMPARE(doc.layerIndex(layer.id), -1);
}

void TestGraphDocument::openAndSaveEveryExample_data() {
  QTest::addColumn<QString>("path");
  const QDir dir(QStringLiteral(RNNWB_EXAMPLES_DIR));
  for (const QString& name : dir.entryList({QStringLiteral("*.rnn.json")}))
    QTest::newRow(qPrintable(name)) << dir.filePath(name);
}

void TestGraphDocument::openAndSaveEveryExample() {
  QFETCH(QString, path);
  GraphDocument doc;
  QString error;
  QVERIFY2(doc.open(path, &error), qPrintable(error));
  QVERIFY(doc.problems().empty());
  QVERIFY(!doc.isModified());
  QTemporaryDir dir;
  const QString saved = dir.filePath(QStringLiteral("saved.rnn.json"));
  doc.saveAs(saved);
  QCOMPARE(doc.filePath(), saved);
  QVERIFY(loadValidGraph(saved.toStdString()) == loadValidGraph(path.toStdString()));
  QFile a(path), b(saved);
  QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
  QCOMPARE(b.readAll(), a.readAll());  // the examples are canonical: byte for byte
}

void TestGraphDocument::openReportsBadFile() {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("broken.rnn.json"));
  QFile file(path);
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write("{\"format\": \"rnnwb.graph\", \"version\": 1,\n \"layers\": [}");
  file.close();
  GraphDocument doc;
  QVERIFY(doc.open(example("elman.rnn.json"), nullptr));
  const Graph before = doc.graph();
  QString error;
  QVERIFY(!doc.open(path, &error));
  QVERIFY2(error.contains(path) && error.contains(QStringLiteral("line 2")), qPrintable(error));
  QVERIFY(doc.graph() == before);  // nothing lost
  QVERIFY(!doc.open(dir.filePath(QStringLiteral("missing.rnn.json")), &error));
  QVERIFY(error.contains(QStringLiteral("missing.rnn.json")));
  // A typo'd key would be dropped on save: refused, naming it.
  QFile typo(dir.filePath(QStringLiteral("typo.rnn.json")));
  QVERIFY(typo.open(QIODevice::WriteOnly));
  typo.write(R"({"format": "rnnwb.graph", "version": 1, "layers": [
    {"id": "x", "kind": "input", "size": 2},
    {"id": "y", "kind": "additive", "size": 2, "activaton": "tanh", "loss": "mse"}],
    "connections": [{"from": "x", "to": "y"}]})");
  typo.close();
  QVERIFY(!doc.open(typo.fileName(), &error));
  QVERIFY2(error.contains(QStringLiteral("activaton")), qPrintable(error));
  QVERIFY(doc.graph() == before);
  // A graph that only breaks rules opens, and the problems say what to fix.
  QFile invalid(dir.filePath(QStringLiteral("invalid.rnn.json")));
  QVERIFY(invalid.open(QIODevice::WriteOnly));
  invalid.write(R"({"format": "rnnwb.graph", "version": 1, "layers": [
    {"id": "x", "kind": "input", "size": 2},
    {"id": "y", "kind": "multiplicative", "size": 3, "loss": "mse"}],
    "connections": [{"from": "x", "to": "y"}]})");
  invalid.close();
  QVERIFY2(doc.open(invalid.fileName(), &error), qPrintable(error));
  QVERIFY(!doc.problems().empty());
}

void TestGraphDocument::invalidEditsRaiseProblems_data() {
  QTest::addColumn<QString>("edit");
  QTest::addColumn<QString>("message");
  QTest::addColumn<QString>("layer");   // expected among the diagnostic's layers ("" none)
  QTest::addColumn<int>("connection");  // expected among its connections (-1 none)
  QTest::newRow("size mismatch") << "size"
                                 << "needs equal sizes"
                                 << "" << 2;
  QTest::newRow("bias on input") << "inputBias"
                                 << "input layer has no"
                                 << "x" << -1;
  QTest::newRow("softmax without loss") << "noLoss"
                                        << "softmax activation needs"
                                        << "y" << -1;
  QTest::newRow("zero-delay cycle") << "cycle"
                                    << "cycle with no delay: h -> h"
                                    << "h" << 1;
  QTest::newRow("into input") << "intoInput"
                              << "is an input layer"
                              << "" << 3;
  QTest::newRow("orphan layer") << "orphan"
                                << "no connection leads"
                                << "m" << -1;
  QTest::newRow("no output") << "deleteOutput"
                             << "no output layer"
                             << "" << -1;
}

void TestGraphDocument::invalidEditsRaiseProblems() {
  QFETCH(QString, edit);
  QFETCH(QString, message);
  QFETCH(QString, layer);
  QFETCH(int, connection);
  GraphDocument doc;
  QVERIFY(doc.open(example("elman.rnn.json"), nullptr));
  QVERIFY(doc.problems().empty());
  QSignalSpy spy(&doc, &GraphDocument::problemsChanged);
  QUndoStack* stack = doc.undoStack();
  const auto& g = doc.graph();
  if (edit == "size") {  // h (32) -> y (8) as an identity connection
    Connection c = g.connections[2];
    c.type = ConnectionType::Identity;
    stack->push(new EditConnectionCommand(&doc, 2, c));
  } else if (edit == "inputBias") {
    Layer x = g.layers[0];
    x.bias = true;
    stack->push(new EditLayerCommand(&doc, 0, x));
  } else if (edit == "noLoss") {
    Layer y = g.layers[2];
    y.loss = LossKind::None;
    stack->push(new EditLayerCommand(&doc, 2, y));
  } else if (edit == "cycle") {
    Connection c = g.connections[1];
    c.delay = 0;
    stack->push(new EditConnectionCommand(&doc, 1, c));
    QVERIFY(!doc.analysis().has_value());
  } else if (edit == "intoInput") {
    stack->push(new AddConnectionCommand(&doc, makeConnection(doc, "h", "x")));
  } else if (edit == "orphan") {
    stack->push(new AddLayerCommand(&doc, makeLayer(doc, LayerKind::Multiplicative), {}));
  } else if (edit == "deleteOutput") {
    stack->push(new RemoveItemsCommand(&doc, {"y"}, {}));
  }
  QVERIFY(spy.count() > 0);
  bool found = false;
  for (const Diagnostic& d : doc.problems()) {
    if (!QString::fromStdString(d.message).contains(message)) continue;
    const bool layerOk = layer.isEmpty() || std::count(d.layers.begin(), d.layers.end(),
                                                       doc.layerIndex(layer.toStdString())) > 0;
    const bool connectionOk =
        connection < 0 || std::count(d.connections.begin(), d.connections.end(), connection) > 0;
    found = found || (layerOk && connectionOk);
  }
  QVERIFY2(found, qPrintable(firstProblem(doc)));
  while (stack->canUndo()) stack->undo();
  QVERIFY(doc.problems().empty());
}

QTEST_GUILESS_MAIN(TestGraphDocument)
#include "tst_graphdocument.moc"

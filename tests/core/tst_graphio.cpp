// Reading and writing graph files: defaults, round trips, the ui data, atomic saves.
#include <QFloat16>  // QCOMPARE on a JSON value: QTest's qfloat16 overload needs the type
#include <QTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;

namespace {
std::string readText(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
std::string allMessages(const GraphLoadResult& r) {
  std::string out;
  for (const auto& d : r.problems) out += d.message + "\n";
  return out;
}
const char* kHeader = R"("format": "rnnwb.graph", "version": 1, )";
}  // namespace

class TestGraphIo : public QObject {
  Q_OBJECT
 private slots:
  void examplesRoundTrip_data();
  void examplesRoundTrip();
  void defaultsAreApplied();
  void writerLeavesDefaultsOut();
  void sparseSeedIsPinnedOnSave();
  void uiIsKeptVerbatim();
  void malformedJsonGivesLineAndColumn();
  void missingFileIsAProblem();
  void saveIsAtomicAndReplaces();
  void saveIntoMissingFolderFailsCleanly();
};

void TestGraphIo::examplesRoundTrip_data() {
  QTest::addColumn<QString>("path");
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(RNNWB_EXAMPLES_DIR)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 9 && name.ends_with(".rnn.json")) {
      QTest::newRow(name.c_str()) << QString::fromStdString(entry.path().string());
      ++count;
    }
  }
  QVERIFY2(count >= 8, "the examples folder should hold at least 8 graphs");
}

void TestGraphIo::examplesRoundTrip() {
  QFETCH(QString, path);
  const GraphLoadResult loaded = loadGraphFile(path.toStdString());
  QVERIFY2(loaded.ok(), allMessages(loaded).c_str());
  QVERIFY2(loaded.graph->ui.contains("positions"), "every example has ui positions");
  for (const Layer& l : loaded.graph->layers)
    QVERIFY2(loaded.graph->ui["positions"].contains(l.id), l.id.c_str());

  const std::string text = serializeGraph(*loaded.graph);
  const GraphLoadResult again = parseGraph(text);
  QVERIFY2(again.ok(), allMessages(again).c_str());
  QVERIFY(*again.graph == *loaded.graph);
  QCOMPARE(serializeGraph(*again.graph), text);
  // The examples are stored in canonical form, so opening and saving one changes no byte.
  QCOMPARE(QString::fromStdString(text), QString::fromStdString(readText(path.toStdString())));
}

void TestGraphIo::defaultsAreApplied() {
  const std::string text = std::string("{") + kHeader + R"(
    "layers": [{"id": "x", "kind": "input", "size": 3},
               {"id": "h", "kind": "additive", "size": 3, "activation": "tanh"},
               {"id": "m", "kind": "multiplicative", "size": 3},
               {"id": "y", "kind": "additive", "size": 2, "loss": "mse"}],
    "connections": [{"from": "x", "to": "h"}, {"from": "h", "to": "h", "delay": 2},
                    {"from": "x", "to": "m", "type": "identity"}, {"from": "h", "to": "m"},
                    {"id": "out", "from": "m", "to": "y", "seed": 42}]})";
  const GraphLoadResult r = parseGraph(text);
  QVERIFY2(r.ok(), allMessages(r).c_str());
  const Graph& g = *r.graph;
  QCOMPARE(g.layers[0].bias, false);
  QCOMPARE(g.layers[1].bias, true);
  QCOMPARE(g.layers[2].bias, false);
  QVERIFY(g.layers[2].activation == Activation::Identity);
  QCOMPARE(g.connections[0].id, std::string("x->h"));
  QCOMPARE(g.connections[1].id, std::string("h->h@2"));
  QCOMPARE(g.connections[1].seed, std::uint64_t(1));
  QVERIFY(g.connections[2].type == ConnectionType::Identity);
  QCOMPARE(g.connections[3].density, 1.0);
  QCOMPARE(g.connections[4].id, std::string("out"));
  QCOMPARE(g.connections[4].seed, std::uint64_t(42));
}

void TestGraphIo::writerLeavesDefaultsOut() {
  Graph g;
  g.layers = {{"x", LayerKind::Input, 2, Activation::Identity, false, LossKind::None},
              {"y", LayerKind::Additive, 2, Activation::Identity, true, LossKind::Mse}};
  g.connections = {{"x->y", "x", "y", ConnectionType::Full, 0, 1.0, 0}};
  const std::string text = serializeGraph(g);
  QVERIFY(text.find("\"bias\"") == std::string::npos);
  QVERIFY(text.find("\"seed\"") == std::string::npos);
  QVERIFY(text.find("\"id\": \"x->y\"") == std::string::npos);
  QVERIFY(text.find("\"activation\"") == std::string::npos);
  QVERIFY(*parseGraph(text).graph == g);
}

void TestGraphIo::sparseSeedIsPinnedOnSave() {
  Graph g;
  g.layers = {{"x", LayerKind::Input, 2, Activation::Identity, false, LossKind::None},
              {"y", LayerKind::Additive, 2, Activation::Identity, true, LossKind::Mse}};
  g.connections = {{"x->y", "x", "y", ConnectionType::Full, 0, 0.5, 0}};
  QVERIFY(serializeGraph(g).find("\"seed\": 0") != std::string::npos);
}

void TestGraphIo::uiIsKeptVerbatim() {
  const std::string text = std::string("{") + kHeader + R"(
    "layers": [{"id": "x", "kind": "input", "size": 1}, {"id": "y", "kind": "additive", "size": 1, "loss": "mse"}],
    "connections": [{"from": "x", "to": "y"}],
    "ui": {"positions": {"x": [1.5, -2], "y": [3, 4]}, "notes": {"y": "the output"}, "zoom": 1.25,
           "colours": ["#ff0000", null, true]}})";
  const GraphLoadResult r = parseGraph(text);
  QVERIFY2(r.ok(), allMessages(r).c_str());
  const GraphLoadResult again = parseGraph(serializeGraph(*r.graph));
  QVERIFY(again.ok());
  QCOMPARE(again.graph->ui, r.graph->ui);
  QCOMPARE(again.graph->ui["notes"]["y"].get<std::string>(), std::string("the output"));
  QCOMPARE(again.graph->ui["positions"]["x"][0].get<double>(), 1.5);
}

void TestGraphIo::malformedJsonGivesLineAndColumn() {
  const GraphLoadResult r = parseGraph("{\n  \"format\": \"rnnwb.graph\",\n  \"version\": 1,,\n}");
  QVERIFY(!r.graph);
  QCOMPARE(r.problems.size(), std::size_t(1));
  QCOMPARE(r.problems[0].line, 3);
  QCOMPARE(r.problems[0].column, 16);  // the second ','
  // The position is in line and column; the message does not repeat it (the CLI and the
  // workbench put it in front).
  QVERIFY2(r.problems[0].message.starts_with("malformed JSON: syntax error"),
           r.problems[0].message.c_str());
  QVERIFY2(r.problems[0].message.find("line") == std::string::npos, r.problems[0].message.c_str());
}

void TestGraphIo::missingFileIsAProblem() {
  const GraphLoadResult r = loadGraphFile("/nonexistent/graph.rnn.json");
  QVERIFY(!r.ok());
  QVERIFY2(r.problems[0].message.find("No such file") != std::string::npos,
           r.problems[0].message.c_str());
}

void TestGraphIo::saveIsAtomicAndReplaces() {
  QTemporaryDir dir;
  const std::filesystem::path path = dir.filePath("g.rnn.json").toStdString();
  const Graph g = *loadGraphFile(std::string(RNNWB_EXAMPLES_DIR) + "/elman.rnn.json").graph;
  { std::ofstream(path) << "old contents"; }
  saveGraphFile(g, path);
  QCOMPARE(readText(path), serializeGraph(g));
  int files = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator(dir.path().toStdString()))
    ++files;
  QCOMPARE(files, 1);  // no temporary file left beside it
}

void TestGraphIo::saveIntoMissingFolderFailsCleanly() {
  QTemporaryDir dir;
  const std::filesystem::path path = dir.filePath("missing/g.rnn.json").toStdString();
  Graph g;
  QVERIFY_THROWS_EXCEPTION(std::runtime_error, saveGraphFile(g, path));
  QVERIFY(!std::filesystem::exists(path));
}

QTEST_APPLESS_MAIN(TestGraphIo)
#include "tst_graphio.moc"

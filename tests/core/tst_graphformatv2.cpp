// Version 2 of the graph format (graph-format-v2.md): every new field read, written and read
// back; every new validity rule, one row each, checking the message names the culprit; version 1
// files kept as they were.
#include <QTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/graph_validator.hpp"

using namespace rnnwb;

namespace {
std::string messages(const GraphLoadResult& r) {
  std::string out;
  for (const auto& d : r.problems) out += d.message + "\n";
  return out;
}
std::string readText(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
std::string v2(const std::string& layers, const std::string& connections, int dimensions = 2) {
  return R"({"format": "rnnwb.graph", "version": 2, "dimensions": )" + std::to_string(dimensions) +
         ", \"layers\": " + layers + ", \"connections\": " + connections + "}";
}
std::string v1(const std::string& layers, const std::string& connections,
               const std::string& extra = "") {
  return R"({"format": "rnnwb.graph", "version": 1, )" + extra + "\"layers\": " + layers +
         ", \"connections\": " + connections + "}";
}
// A valid 2-D graph: x -> h (a 2-D recurrence) -> r (reduced over the rows) -> y (ctc).
const std::string kLayers = R"([{"id": "x", "kind": "input", "size": 2},
  {"id": "h", "kind": "additive", "size": 3, "activation": "tanh"},
  {"id": "r", "kind": "additive", "size": 3, "activation": "tanh"},
  {"id": "y", "kind": "additive", "size": 4, "activation": "softmax", "loss": "ctc"}])";
const std::string kConnections = R"([{"from": "x", "to": "h"},
  {"from": "h", "to": "h", "delay": [1, 0]}, {"from": "h", "to": "h", "delay": [0, 1]},
  {"from": "h", "to": "r", "reduce": "y"}, {"from": "r", "to": "y"}])";
std::string with(const std::string& list, const std::string& extra) {
  return list.substr(0, list.size() - 1) + ", " + extra + "]";
}
// A valid 1-D graph to add to.
const std::string kLayers1 = R"([{"id": "x", "kind": "input", "size": 3},
  {"id": "h", "kind": "additive", "size": 3, "activation": "tanh"},
  {"id": "y", "kind": "additive", "size": 3, "loss": "mse"}])";
const std::string kConnections1 = R"([{"from": "x", "to": "h"},
  {"from": "h", "to": "h", "delay": 1}, {"from": "h", "to": "y"}])";
}  // namespace

class TestGraphFormatV2 : public QObject {
  Q_OBJECT
 private slots:
  void validGraphsHaveNoProblem();
  void everyFieldIsRead();
  void everyFieldRoundTrips();
  void writerPicksTheVersion();
  void versionOneSavesByteIdentical();
  void rule_data();
  void rule();
  void modelRules();
  void newProblemsHaveFilePositions();
};

void TestGraphFormatV2::validGraphsHaveNoProblem() {
  const GraphLoadResult r = parseGraph(v2(kLayers, kConnections));
  QVERIFY2(r.ok(), messages(r).c_str());
  const GraphLoadResult one = parseGraph(v2(kLayers1, kConnections1, 1));
  QVERIFY2(one.ok(), messages(one).c_str());
}

void TestGraphFormatV2::everyFieldIsRead() {
  const std::string layers = R"([{"id": "x", "kind": "input", "size": 2},
    {"id": "h", "kind": "additive", "size": 3, "activation": "tanh", "bias_init": 0.5,
     "bias_trainable": false},
    {"id": "g", "kind": "additive", "size": 3, "activation": "sigmoid", "bias_init": -1},
    {"id": "m", "kind": "multiplicative", "size": 3},
    {"id": "y", "kind": "additive", "size": 3, "activation": "softmax", "loss": "ctc"}])";
  const std::string connections = R"([
    {"from": "x", "to": "h", "type": "block", "block": [2, 3], "init": 0.25},
    {"from": "h", "to": "h", "delay": [1, 0]}, {"from": "h", "to": "h", "delay": [0, -1]},
    {"from": "h", "to": "g", "trainable": false},
    {"from": "g", "to": "m", "type": "complement", "delay": [-1, 0]},
    {"from": "h", "to": "m", "type": "identity"},
    {"from": "m", "to": "y", "reduce": "y", "type": "diagonal", "id": "red"}])";
  const GraphLoadResult r = parseGraph(v2(layers, connections));
  QVERIFY2(r.ok(), messages(r).c_str());
  const Graph& g = *r.graph;
  QCOMPARE(g.dimensions, 2);
  QCOMPARE(g.layers[1].biasInit, std::optional<double>(0.5));
  QCOMPARE(g.layers[1].biasTrainable, false);
  QCOMPARE(g.layers[2].biasInit, std::optional<double>(-1.0));
  QVERIFY(g.layers[4].loss == LossKind::Ctc);
  QVERIFY(g.connections[0].type == ConnectionType::Block);
  QCOMPARE(g.connections[0].block, (std::array<int, 2>{2, 3}));
  QCOMPARE(g.connections[0].init, std::optional<double>(0.25));
  QCOMPARE(g.connections[1].id, std::string("h->h@1,0"));
  QCOMPARE(g.connections[2].id, std::string("h->h@0,-1"));
  QCOMPARE(g.connections[2].delay, 0);
  QCOMPARE(g.connections[2].delayY, -1);
  QCOMPARE(g.connections[3].trainable, false);
  QVERIFY(g.connections[4].type == ConnectionType::Complement);
  QCOMPARE(g.connections[4].id, std::string("g->m@-1,0"));
  QVERIFY(g.connections[6].reduce == ReduceAxis::Y);
  // 1-D: an integer or an array of one, any sign; "h->h@-1".
  const GraphLoadResult one = parseGraph(
      v2(kLayers1, with(kConnections1, R"({"from": "h", "to": "y", "delay": [-2]})"), 1));
  QVERIFY2(one.ok(), messages(one).c_str());
  QCOMPARE(one.graph->connections[3].id, std::string("h->y@-2"));
  QCOMPARE(one.graph->connections[3].delay, -2);
}

void TestGraphFormatV2::everyFieldRoundTrips() {
  const std::string layers = R"([{"id": "x", "kind": "input", "size": 2},
    {"id": "h", "kind": "additive", "size": 3, "activation": "tanh", "bias_init": 0.5,
     "bias_trainable": false},
    {"id": "m", "kind": "multiplicative", "size": 3},
    {"id": "y", "kind": "additive", "size": 3, "activation": "softmax", "loss": "ctc"}])";
  const std::string connections = R"([
    {"from": "x", "to": "h", "type": "block", "block": [2, 3], "init": 0.25},
    {"from": "h", "to": "h", "delay": [1, 0], "trainable": false},
    {"from": "h", "to": "h", "delay": [0, -1], "id": "up"},
    {"from": "h", "to": "m", "type": "complement", "delay": [-1, 0]},
    {"from": "h", "to": "m", "type": "identity"},
    {"from": "m", "to": "y", "reduce": "y", "type": "diagonal"}])";
  const GraphLoadResult r = parseGraph(v2(layers, connections));
  QVERIFY2(r.ok(), messages(r).c_str());
  const std::string text = serializeGraph(*r.graph);
  const GraphLoadResult again = parseGraph(text);
  QVERIFY2(again.ok(), (messages(again) + text).c_str());
  QVERIFY(*again.graph == *r.graph);
  QCOMPARE(serializeGraph(*again.graph), text);
  for (const char* expected :
       {"\"version\": 2", "\"dimensions\": 2", "\"bias_init\": 0.5", "\"bias_trainable\": false",
        "\"loss\": \"ctc\"", "\"type\": \"block\", \"block\": [2, 3]", "\"init\": 0.25",
        "\"delay\": [1, 0], \"trainable\": false", "\"id\": \"up\"", "\"delay\": [0, -1]",
        "\"type\": \"complement\"", "\"reduce\": \"y\""})
    QVERIFY2(text.find(expected) != std::string::npos, (expected + ("\n" + text)).c_str());
  QVERIFY2(text.find("h->h@1,0") == std::string::npos, "default ids are left out");
  // 1-D delays of any sign are written as integers.
  const GraphLoadResult one = parseGraph(
      v2(kLayers1, with(kConnections1, R"({"from": "h", "to": "y", "delay": [-2]})"), 1));
  const std::string oneText = serializeGraph(*one.graph);
  QVERIFY2(oneText.find("\"delay\": -2}") != std::string::npos, oneText.c_str());
  QVERIFY(oneText.find("dimensions") == std::string::npos);
  QVERIFY(*parseGraph(oneText).graph == *one.graph);
}

void TestGraphFormatV2::writerPicksTheVersion() {
  // A version 2 file that uses nothing of version 2 is written as version 1, the same graph.
  const GraphLoadResult plain = parseGraph(v2(kLayers1, kConnections1, 1));
  const std::string text = serializeGraph(*plain.graph);
  QVERIFY2(text.find("\"version\": 1") != std::string::npos, text.c_str());
  QVERIFY(*parseGraph(text).graph == *plain.graph);
  Graph g = *plain.graph;
  g.connections[1].delay = -1;
  QVERIFY(serializeGraph(g).find("\"version\": 2") != std::string::npos);
  g = *plain.graph;
  g.layers[1].biasInit = 0.0;
  QVERIFY(serializeGraph(g).find("\"version\": 2") != std::string::npos);
}

void TestGraphFormatV2::versionOneSavesByteIdentical() {
  int versionOne = 0;
  for (const auto& entry : std::filesystem::directory_iterator(RNNWB_EXAMPLES_DIR)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".rnn.json")) continue;
    const std::string text = readText(entry.path());
    if (text.find("\"version\": 1,") == std::string::npos) continue;
    ++versionOne;
    const GraphLoadResult r = parseGraph(text);
    QVERIFY2(r.ok(), messages(r).c_str());
    QCOMPARE(QString::fromStdString(serializeGraph(*r.graph)), QString::fromStdString(text));
  }
  QVERIFY(versionOne >= 8);
}

void TestGraphFormatV2::rule_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("expected");
  auto row = [](const char* name, const std::string& text, const char* expected) {
    QTest::newRow(name) << QString::fromStdString(text) << QString(expected);
  };
  const std::string L = kLayers, C = kConnections, L1 = kLayers1, C1 = kConnections1;
  auto c2 = [&](const std::string& extra) { return v2(L, with(C, extra)); };
  auto c1 = [&](const std::string& extra) { return v2(L1, with(C1, extra), 1); };
  const std::string g = R"({"id": "g", "kind": "additive", "size": 3})";
  // Version 1 files may use nothing of version 2.
  row("v1 dimensions", v1(L1, C1, R"("dimensions": 1, )"), "'dimensions' needs \"version\": 2");
  row("v1 trainable", v1(L1, with(C1, R"({"from": "x", "to": "y", "trainable": false})")),
      "connection 'x->y': 'trainable' needs \"version\": 2");
  row("v1 bias_init",
      v1(with(L1, R"({"id": "k", "kind": "additive", "size": 3, "bias_init": 1})"),
         with(C1, R"({"from": "h", "to": "k"})")),
      "layer 'k': 'bias_init' needs \"version\": 2");
  row("v1 block type", v1(L1, with(C1, R"({"from": "x", "to": "y", "type": "block"})")),
      "connection 'x->y': the type \"block\" needs \"version\": 2");
  row("v1 complement type",
      v1(L1, with(C1, R"({"from": "h", "to": "h", "type": "complement", "delay": 2})")),
      "connection 'h->h@2': the type \"complement\" needs \"version\": 2");
  row("v1 ctc", v1(with(L1, R"({"id": "k", "kind": "additive", "size": 3, "loss": "ctc"})"), C1),
      "layer 'k': the loss \"ctc\" needs \"version\": 2");
  row("v1 array delay", v1(L1, with(C1, R"({"from": "h", "to": "y", "delay": [1]})")),
      "\"delay\" must be an integer >= 0, got an array of 1 values");
  row("v1 negative delay", v1(L1, with(C1, R"({"from": "h", "to": "y", "delay": -1})")),
      "delay must be >= 0, got -1 (a negative delay needs \"version\": 2)");
  // The header.
  row("dimensions 3", v2(L1, C1, 3), "\"dimensions\" must be 1 or 2, got 3");
  row("version 3", R"({"format": "rnnwb.graph", "version": 3, "layers": []})",
      "this program reads versions 1 and 2");
  // Delays.
  row("delay of three", c2(R"({"from": "h", "to": "h", "delay": [1, 1, 0]})"),
      "\"delay\" must be an integer, [d] or [dx, dy]");
  row("1-D delay between 2-D layers", c2(R"({"from": "h", "to": "h", "delay": 1})"),
      "connection 'h->h@1': the delay has one component, but the connection joins 2-D layers");
  row("2-D delay in a 1-D graph", c1(R"({"from": "h", "to": "h", "delay": [1, 0]})"),
      "connection 'h->h@1,0': the delay has two components, but the graph is 1-D");
  row("2-D delay after a reduce", c2(R"({"from": "r", "to": "r", "delay": [1, 0]})"),
      "connection 'r->r@1,0': the delay has two components, but 'r' is a 1-D layer");
  // Scan orders.
  row("opposite delays", c2(R"({"from": "h", "to": "h", "delay": [-1, 0]})"),
      "recurrent node of 'h': no scan order: no σ has σ · d >= 1 for the delays of connection "
      "'h->h@1,0' [1, 0] and connection 'h->h@-1,0' [-1, 0]");
  row("three delays", v2(L, R"([{"from": "x", "to": "h"}, {"from": "h", "to": "h", "delay": [1, 0]},
        {"from": "h", "to": "h", "delay": [-1, 1]}, {"from": "h", "to": "h", "delay": [0, -1]},
        {"from": "h", "to": "r", "reduce": "y"}, {"from": "r", "to": "y"}])"),
      "connection 'h->h@1,0' [1, 0], connection 'h->h@-1,1' [-1, 1] and connection 'h->h@0,-1' "
      "[0, -1]");
  row("1-D forward and backward", c1(R"({"from": "h", "to": "h", "delay": -1})"),
      "recurrent node of 'h': no scan order: no σ has σ · d >= 1 for the delays of connection "
      "'h->h@1' 1 and connection 'h->h@-1' -1");
  // Blocks.
  row("block without block", c2(R"({"from": "x", "to": "h", "type": "block", "id": "b"})"),
      "connection 'b': a block connection needs \"block\": [bx, by]");
  row("block on full", c2(R"({"from": "x", "to": "h", "block": [2, 2], "id": "b"})"),
      "connection 'b': \"block\" is only allowed on a block connection");
  row("block of zero",
      v2(with(L, g), with(C, R"({"from": "h", "to": "g", "type": "block", "block": [0, 2]},
        {"from": "g", "to": "y", "reduce": "y"})")),
      "connection 'h->g': block must be [bx, by] with both >= 1, got [0, 2]");
  row("block not a pair", c2(R"({"from": "x", "to": "h", "type": "block", "block": 2})"),
      "connection 'x->h': \"block\" must be [bx, by], two integers >= 1, got 2");
  row("block in 1-D", c1(R"({"from": "x", "to": "h", "type": "block", "block": [1, 1]})"),
      "connection 'x->h': a block connection needs \"dimensions\": 2");
  row("block with delay",
      c2(R"({"from": "h", "to": "h", "type": "block", "block": [1, 1], "delay": [1, 1]})"),
      "connection 'h->h@1,1': a block connection has delay 0, got [1, 1]");
  row("block inside a recurrence",
      v2(with(L, g), with(C, R"({"from": "h", "to": "g", "type": "block", "block": [1, 1]},
        {"from": "g", "to": "h", "delay": [0, 1]})")),
      "connection 'h->g': a block connection may not be inside a recurrent node of 'h', 'g'");
  row("block from 1-D",
      v2(with(L, g), with(C, R"({"from": "r", "to": "g", "type": "block", "block": [2, 1]})")),
      "connection 'r->g': a block connection needs a 2-D source, and 'r' is 1-D");
  // Reduces.
  row("unknown reduce", c2(R"({"from": "h", "to": "r", "reduce": "x", "id": "q"})"),
      "connection 'q': unknown reduce \"x\" (expected \"y\")");
  row("reduce in 1-D", c1(R"({"from": "h", "to": "y", "reduce": "y", "id": "q"})"),
      "connection 'q': reduce needs \"dimensions\": 2");
  row("reduce on complement",
      c2(R"({"from": "h", "to": "r", "reduce": "y", "type": "complement", "id": "q"})"),
      "reduce is only allowed on full, diagonal and identity connections, not on a complement");
  row("reduce with delay",
      c2(R"({"from": "h", "to": "r", "reduce": "y", "delay": [1, 0], "id": "q"})"),
      "connection 'q': a reduce connection has delay 0, got [1, 0]");
  row("reduce inside a recurrence",
      c2(R"({"from": "r", "to": "h", "delay": [0, 1], "id": "back"})"),
      "connection 'h->r': a reduce connection may not be inside a recurrent node of 'h', 'r'");
  row("reduce from 1-D",
      v2(with(L, R"({"id": "q", "kind": "additive", "size": 3})"),
         with(C, R"({"from": "r", "to": "q", "reduce": "y"})")),
      "connection 'r->q': reduce needs a 2-D source, and 'r' is 1-D");
  // Grids and dimensions.
  row("two grids", v2(with(L, g), with(C, R"({"from": "x", "to": "g"},
        {"from": "x", "to": "g", "type": "block", "block": [2, 2], "id": "b"},
        {"from": "g", "to": "r", "reduce": "y"})")),
      "layer 'g': its anterior connections give it two grids: connection 'x->g' gives H × W "
      "(2-D) and connection 'b' gives ceil(H/2) × ceil(W/2) (2-D)");
  row("two dimensions", c2(R"({"from": "x", "to": "r", "id": "plain"})"),
      "layer 'r': its anterior connections give it two grids: connection 'plain' gives H × W "
      "(2-D) and connection 'h->r' gives W (1-D)");
  // Types, fixed and initial values.
  row("complement sizes", c2(R"({"from": "x", "to": "h", "type": "complement", "id": "q"})"),
      "connection 'q': a complement connection needs equal sizes, but 'x' has size 2 and 'h' "
      "has size 3");
  row("trainable on identity",
      c2(R"({"from": "h", "to": "h", "type": "identity", "delay": [1, 1], "trainable": false})"),
      "connection 'h->h@1,1': a identity connection has no weight, so no \"trainable\"");
  row("init on complement",
      c2(R"({"from": "h", "to": "h", "type": "complement", "delay": [1, 1], "init": 1})"),
      "connection 'h->h@1,1': a complement connection has no weight, so no \"init\"");
  row("init not a number", c2(R"({"from": "x", "to": "h", "init": "one", "id": "q"})"),
      "connection 'q': \"init\" must be a number, got \"one\"");
  row("trainable not a flag", c2(R"({"from": "x", "to": "h", "trainable": 0, "id": "q"})"),
      "connection 'q': \"trainable\" must be true or false, got 0");
  row("bias_init without bias",
      v2(with(L, R"({"id": "m", "kind": "multiplicative", "size": 3, "bias_init": 1})"),
         with(C, R"({"from": "h", "to": "m"})")),
      "layer 'm': \"bias_init\" needs a bias, and this layer has none");
  row("bias_trainable without bias",
      v2(with(L, R"({"id": "m", "kind": "additive", "size": 3, "bias": false,
        "bias_trainable": false})"),
         with(C, R"({"from": "h", "to": "m"})")),
      "layer 'm': \"bias_trainable\" needs a bias, and this layer has none");
  row("bias_init not a number",
      v2(with(L, R"({"id": "m", "kind": "additive", "size": 3, "bias_init": [1]})"),
         with(C, R"({"from": "h", "to": "m"})")),
      "layer 'm': \"bias_init\" must be a number, got an array of 1 values");
  row("bias_trainable not a flag",
      v2(with(L, R"({"id": "m", "kind": "additive", "size": 3, "bias_trainable": "no"})"),
         with(C, R"({"from": "h", "to": "m"})")),
      "layer 'm': \"bias_trainable\" must be true or false");
  // Losses.
  row("ctc without softmax",
      v2(with(L, R"({"id": "k", "kind": "additive", "size": 3, "loss": "ctc"})"),
         with(C, R"({"from": "r", "to": "k"})")),
      "layer 'k': the ctc loss needs the softmax activation");
  row("ctc on 2-D",
      v2(with(L, R"({"id": "k", "kind": "additive", "size": 3, "activation": "softmax",
        "loss": "ctc"})"),
         with(C, R"({"from": "h", "to": "k"})")),
      "layer 'k': the ctc loss needs a 1-D layer, and this one is 2-D (grid H × W)");
  row("unknown loss", v2(with(L, R"({"id": "k", "kind": "additive", "size": 3, "loss": "l1"})"), C),
      "layer 'k': unknown loss \"l1\" (expected cross_entropy, mse or ctc)");
  row("unknown type", c2(R"({"from": "x", "to": "h", "type": "conv"})"),
      "(expected full, diagonal, identity, complement or block)");
  row("unknown v2 key", c2(R"({"from": "x", "to": "h", "trainabel": false})"),
      "unknown key 'trainabel' (did you mean 'trainable'?)");
}

void TestGraphFormatV2::rule() {
  QFETCH(QString, text);
  QFETCH(QString, expected);
  const GraphLoadResult r = parseGraph(text.toStdString());
  QVERIFY2(!r.ok(), "the file should have been refused");
  const std::string all = messages(r);
  QVERIFY2(all.find(expected.toStdString()) != std::string::npos,
           ("expected \"" + expected.toStdString() + "\" in:\n" + all).c_str());
}

void TestGraphFormatV2::modelRules() {
  // Rules the reader cannot break but a graph built in code (the editor's) can.
  Graph g = *parseGraph(v2(kLayers1, kConnections1, 1)).graph;
  g.connections[1].delayY = 1;
  std::vector<Diagnostic> problems = validateGraph(g);
  QCOMPARE(problems.size(), std::size_t(1));
  QCOMPARE(QString::fromStdString(problems[0].message),
           QString("connection 'h->h@1': a 2-D delay [1, 1] in a 1-D graph"));
  g = *parseGraph(v2(kLayers1, kConnections1, 1)).graph;
  g.layers[1].biasInit = std::nan("");
  g.connections[0].init = std::numeric_limits<double>::infinity();
  g.connections[2].block = {1, 1};
  problems = validateGraph(g);
  QCOMPARE(problems.size(), std::size_t(3));
  QVERIFY(problems[0].message.find("\"bias_init\" must be a finite number") != std::string::npos);
  QVERIFY(problems[1].message.find("\"init\" must be a finite number") != std::string::npos);
  QVERIFY(problems[2].message.find("\"block\" is only allowed") != std::string::npos);
  g = *parseGraph(v2(kLayers1, kConnections1, 1)).graph;
  g.dimensions = 3;
  problems = validateGraph(g);
  QCOMPARE(problems.size(), std::size_t(1));
  QCOMPARE(problems[0].message, std::string("\"dimensions\" must be 1 or 2, got 3"));
  // After a reduce, layers are 1-D: a dy there is refused, naming the connection.
  g = *parseGraph(v2(kLayers, with(kConnections, R"({"from": "r", "to": "r", "delay": 1})"))).graph;
  g.connections[5].delayY = 2;
  problems = validateGraph(g);
  QCOMPARE(problems.size(), std::size_t(1));
  QCOMPARE(QString::fromStdString(problems[0].message),
           QString("connection 'r->r@1': a 2-D delay [1, 2] between 1-D layers"));
}

void TestGraphFormatV2::newProblemsHaveFilePositions() {
  const std::string text =
      "{\"format\": \"rnnwb.graph\", \"version\": 2, \"dimensions\": 2,\n"
      "\"layers\": " +
      kLayers + ",\n\"connections\": [\n" +
      R"({"from": "x", "to": "h"},)"
      "\n" +
      R"({"from": "h", "to": "h", "delay": 1},)"
      "\n" +
      R"({"from": "h", "to": "h", "delay": [-1, 0], "id": "back"},)"
      "\n" +
      R"({"from": "h", "to": "r", "reduce": "y"}, {"from": "r", "to": "y"}]})";
  const GraphLoadResult r = parseGraph(text);
  QCOMPARE(r.problems.size(), std::size_t(1));  // the arity; the scan order follows from it
  QCOMPARE(r.problems[0].line, 8);
  QCOMPARE(r.problems[0].column, 26);  // the "delay" key
  QCOMPARE(r.problems[0].connections, std::vector<int>{1});
  // A validation problem points at the first connection it names.
  const std::string back = text.substr(0, text.find("\"delay\": 1}")) + "\"delay\": [1, 0]}" +
                           text.substr(text.find("\"delay\": 1}") + 11);
  const GraphLoadResult scan = parseGraph(back);
  QCOMPARE(scan.problems.size(), std::size_t(1));
  QCOMPARE(scan.problems[0].line, 8);
  QCOMPARE(scan.problems[0].column, 1);
  QCOMPARE(scan.problems[0].connections, (std::vector<int>{1, 2}));
}

QTEST_APPLESS_MAIN(TestGraphFormatV2)
#include "tst_graphformatv2.moc"

// Every validity rule of graph-format.md, one row each, checking the message names the culprit.
#include <QTest>

#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;

namespace {
// A valid graph; each row replaces one part of it.
const char* kLayers = R"([{"id": "x", "kind": "input", "size": 4},
  {"id": "h", "kind": "additive", "size": 4, "activation": "tanh"},
  {"id": "y", "kind": "additive", "size": 3, "activation": "softmax", "loss": "cross_entropy"}])";
const char* kConnections = R"([{"from": "x", "to": "h"}, {"from": "h", "to": "h", "delay": 1},
  {"from": "h", "to": "y"}])";

std::string document(const std::string& layers, const std::string& connections,
                     const std::string& header = R"("format": "rnnwb.graph", "version": 1)") {
  return "{" + header + ", \"layers\": " + layers + ", \"connections\": " + connections + "}";
}
std::string messages(const GraphLoadResult& r) {
  std::string out;
  for (const auto& d : r.problems) out += d.message + "\n";
  return out;
}
}  // namespace

class TestGraphValidator : public QObject {
  Q_OBJECT
 private slots:
  void validGraphHasNoProblem();
  void rule_data();
  void rule();
  void everyProblemIsReported();
  void zeroDelayCycleListsTheCycle();
  void problemsPointAtLayersAndConnections();
};

void TestGraphValidator::validGraphHasNoProblem() {
  const GraphLoadResult r = parseGraph(document(kLayers, kConnections));
  QVERIFY2(r.ok(), messages(r).c_str());
}

void TestGraphValidator::rule_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("expected");
  auto row = [](const char* name, const std::string& text, const char* expected) {
    QTest::newRow(name) << QString::fromStdString(text) << QString(expected);
  };
  const std::string L = kLayers, C = kConnections;
  auto withLayer = [&](const std::string& extra) {
    return L.substr(0, L.size() - 1) + ", " + extra + "]";
  };
  auto withConnection = [&](const std::string& extra) {
    return C.substr(0, C.size() - 1) + ", " + extra + "]";
  };
  row("malformed JSON", "{\"format\": ", "malformed JSON: syntax error");
  row("wrong format", document(L, C, R"("format": "other", "version": 1)"), "\"format\" must be");
  row("unknown version", document(L, C, R"("format": "rnnwb.graph", "version": 3)"),
      "unknown \"version\" 3");
  row("missing layer id", document(withLayer(R"({"kind": "additive", "size": 4})"), C),
      "layer #3: missing \"id\"");
  row("bad layer id", document(withLayer(R"({"id": "a b", "kind": "additive", "size": 4})"), C),
      "layer 'a b': the id may hold only letters, digits");
  row("duplicate layer id", document(withLayer(R"({"id": "h", "kind": "additive", "size": 4})"), C),
      "layers #1 and #3 have the same id 'h'");
  row("missing from", document(L, withConnection(R"({"to": "h", "delay": 3})")),
      "connection #3: missing \"from\"");
  row("duplicate connection id", document(L, withConnection(R"({"from": "x", "to": "h"})")),
      "connections #0 and #3 have the same id 'x->h'");
  row("bad connection id", document(L, withConnection(R"({"id": "a.b", "from": "x", "to": "h"})")),
      "connection 'a.b': the id may not hold '.' or white space");
  row("unknown layer", document(L, withConnection(R"({"from": "q", "to": "h"})")),
      "connection 'q->h': unknown layer 'q'");
  row("into input", document(L, withConnection(R"({"from": "h", "to": "x", "delay": 1})")),
      "connection 'h->x@1': layer 'x' is an input layer and takes no connection");
  row("unknown kind", document(withLayer(R"({"id": "k", "kind": "lstm", "size": 4})"), C),
      "layer 'k': unknown kind \"lstm\"");
  row("unknown activation",
      document(withLayer(R"({"id": "k", "kind": "additive", "size": 4, "activation": "gelu"})"), C),
      "layer 'k': unknown activation \"gelu\"");
  row("unknown type",
      document(L, withConnection(R"({"from": "x", "to": "h", "type": "conv", "delay": 2})")),
      "connection 'x->h@2': unknown type \"conv\"");
  row("unknown loss",
      document(withLayer(R"({"id": "k", "kind": "additive", "size": 4, "loss": "hinge"})"), C),
      "layer 'k': unknown loss \"hinge\"");
  row("size zero", document(withLayer(R"({"id": "k", "kind": "additive", "size": 0})"), C),
      "layer 'k': size must be >= 1, got 0");
  row("size not integer", document(withLayer(R"({"id": "k", "kind": "additive", "size": 2.5})"), C),
      "layer 'k': \"size\" must be an integer >= 1, got 2.5");
  row("negative delay", document(L, withConnection(R"({"from": "x", "to": "h", "delay": -1})")),
      "delay must be >= 0, got -1");
  row("density zero",
      document(L, withConnection(R"({"from": "x", "to": "h", "delay": 1, "density": 0})")),
      "connection 'x->h@1': density must be in (0, 1], got 0");
  row("density above one",
      document(L, withConnection(R"({"from": "x", "to": "h", "delay": 1, "density": 1.5})")),
      "density must be in (0, 1], got 1.5");
  row("negative seed",
      document(L, withConnection(R"({"from": "x", "to": "h", "delay": 1, "seed": -3})")),
      "connection 'x->h@1': \"seed\" must be an integer >= 0, got -3");
  row("bias on multiplicative",
      document(withLayer(R"({"id": "m", "kind": "multiplicative", "size": 4, "bias": true})"),
               withConnection(R"({"from": "h", "to": "m"})")),
      "layer 'm': only additive layers may have a bias");
  row("activation on input",
      document(withLayer(R"({"id": "x2", "kind": "input", "size": 4, "activation": "tanh"})"), C),
      "layer 'x2': an input layer takes no \"activation\"");
  row("bias on input",
      document(withLayer(R"({"id": "x2", "kind": "input", "size": 4, "bias": false})"), C),
      "layer 'x2': an input layer takes no \"bias\"");
  row("loss on input",
      document(withLayer(R"({"id": "x2", "kind": "input", "size": 4, "loss": "mse"})"), C),
      "layer 'x2': an input layer takes no \"loss\"");
  row("density on diagonal",
      document(L,
               withConnection(
                   R"({"from": "x", "to": "h", "type": "diagonal", "delay": 1, "density": 0.5})")),
      "connection 'x->h@1': \"density\" is only allowed on a full connection");
  row("seed on identity",
      document(L, withConnection(
                      R"({"from": "x", "to": "h", "type": "identity", "delay": 1, "seed": 1})")),
      "connection 'x->h@1': \"seed\" is only allowed on a full connection");
  row("diagonal sizes",
      document(L, withConnection(R"({"from": "h", "to": "y", "type": "diagonal", "delay": 1})")),
      "connection 'h->y@1': a diagonal connection needs equal sizes, but 'h' has size 4 and 'y' "
      "has size 3");
  row("identity sizes",
      document(L, withConnection(R"({"from": "y", "to": "h", "type": "identity", "delay": 1})")),
      "connection 'y->h@1': an identity connection needs equal sizes");
  row("multiplicative sizes",
      document(withLayer(R"({"id": "m", "kind": "multiplicative", "size": 4})"),
               withConnection(R"({"from": "y", "to": "m"})")),
      "connection 'y->m': a connection into multiplicative layer 'm' needs equal sizes, but 'y' "
      "has size 3 and 'm' has size 4");
  row("no anterior", document(withLayer(R"({"id": "lonely", "kind": "additive", "size": 4})"), C),
      "layer 'lonely': no connection leads into this layer");
  row("no input",
      document(R"([{"id": "h", "kind": "additive", "size": 4, "loss": "mse"}])",
               R"([{"from": "h", "to": "h", "delay": 1}])"),
      "the graph has no input layer");
  row("no output",
      document(
          R"([{"id": "x", "kind": "input", "size": 4}, {"id": "h", "kind": "additive", "size": 4}])",
          R"([{"from": "x", "to": "h"}])"),
      "the graph has no output layer");
  row("softmax without cross entropy",
      document(withLayer(R"({"id": "s", "kind": "additive", "size": 4, "activation": "softmax"})"),
               withConnection(R"({"from": "h", "to": "s"})")),
      "layer 's': the softmax activation needs the cross_entropy loss");
  row("cross entropy without softmax",
      document(withLayer(R"({"id": "s", "kind": "additive", "size": 4, "loss": "cross_entropy"})"),
               withConnection(R"({"from": "h", "to": "s"})")),
      "layer 's': the cross_entropy loss needs the softmax activation");
  row("zero-delay self loop", document(L, withConnection(R"({"from": "h", "to": "h"})")),
      "cycle with no delay: h -> h");
  row("unknown layer key",
      document(withLayer(R"({"id": "k", "kind": "additive", "size": 4, "activaton": "tanh"})"), C),
      "layer 'k': unknown key 'activaton'");
  row("unknown connection key",
      document(L, withConnection(R"({"from": "x", "to": "h", "delay": 4, "weight": 1})")),
      "connection 'x->h@4': unknown key 'weight'");
  row("unknown top-level key",
      document(L, C, R"("format": "rnnwb.graph", "version": 1, "extra": 1)"),
      "unknown top-level key 'extra'");
}

void TestGraphValidator::rule() {
  QFETCH(QString, text);
  QFETCH(QString, expected);
  const GraphLoadResult r = parseGraph(text.toStdString());
  QVERIFY2(!r.ok(), "the file should have been refused");
  const std::string all = messages(r);
  QVERIFY2(all.find(expected.toStdString()) != std::string::npos,
           ("expected \"" + expected.toStdString() + "\" in:\n" + all).c_str());
}

void TestGraphValidator::everyProblemIsReported() {
  const std::string layers = R"([{"id": "x", "kind": "input", "size": 4},
    {"id": "h", "kind": "additive", "size": 0},
    {"id": "g", "kind": "multiplicative", "size": 4, "bias": true},
    {"id": "y", "kind": "additive", "size": 4, "activation": "softmax", "loss": "mse"}])";
  const std::string connections = R"([{"from": "x", "to": "h"}, {"from": "x", "to": "g"},
    {"from": "g", "to": "y"}, {"from": "y", "to": "q"}])";
  const GraphLoadResult r = parseGraph(document(layers, connections));
  QCOMPARE(r.problems.size(), std::size_t(4));
}

void TestGraphValidator::zeroDelayCycleListsTheCycle() {
  const std::string layers = R"([{"id": "x", "kind": "input", "size": 2},
    {"id": "a", "kind": "additive", "size": 2}, {"id": "b", "kind": "additive", "size": 2},
    {"id": "c", "kind": "additive", "size": 2, "loss": "mse"}])";
  const std::string connections = R"([{"from": "x", "to": "b"}, {"from": "b", "to": "c"},
    {"from": "c", "to": "a"}, {"from": "a", "to": "b"}, {"from": "c", "to": "c", "delay": 1}])";
  const GraphLoadResult r = parseGraph(document(layers, connections));
  QCOMPARE(r.problems.size(), std::size_t(1));
  QCOMPARE(QString::fromStdString(r.problems[0].message),
           QString("cycle with no delay: a -> b -> c -> a"));
  QCOMPARE(r.problems[0].connections, (std::vector<int>{3, 1, 2}));
}

void TestGraphValidator::problemsPointAtLayersAndConnections() {
  const GraphLoadResult r = parseGraph(
      document(kLayers, std::string(kConnections).substr(0, std::string(kConnections).size() - 1) +
                            R"(, {"from": "h", "to": "y", "type": "identity", "delay": 1}])"));
  QCOMPARE(r.problems.size(), std::size_t(1));
  QCOMPARE(r.problems[0].connections, std::vector<int>{3});
  QCOMPARE(r.problems[0].layers, (std::vector<int>{1, 2}));
}

QTEST_APPLESS_MAIN(TestGraphValidator)
#include "tst_graphvalidator.moc"

// Bounded JSON reading and positions in messages: deep nesting is refused with its line and
// column instead of crashing, and a problem in a graph file says where it is and, for a typo,
// what was meant.
#include <QTest>

#include <filesystem>
#include <fstream>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/json_read.hpp"

using namespace rnnwb;

namespace {
const char* kHeader = R"("format": "rnnwb.graph", "version": 1, )";

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string graphWith(const std::string& kind, const std::string& ui = "{}") {
  return std::string("{") + kHeader + "\n\"layers\": [{\"id\": \"x\", \"kind\": " + kind +
         ", \"size\": 1}],\n" + "\"connections\": [], \"ui\": " + ui + "}";
}
}  // namespace

class TestJsonRead : public QObject {
  Q_OBJECT
 private slots:
  void shallowJsonParses();
  void deepNestingIsRefusedWithItsPosition();
  void bracketsInStringsDoNotCount();
  void numberOverflowIsAReadError();
  void deepGraphFilesAreProblemsNotCrashes_data();
  void deepGraphFilesAreProblemsNotCrashes();
  void longValuesAreNotEchoed();
  void unknownKeyHasPositionAndSuggestion();
  void valueProblemPointsAtItsKey();
  void validationProblemPointsAtItsConnection();
  void loadValidGraphPrefixesFileLineColumn();
  void locatorFindsEscapedKeysAndIndices();
  void closestNameOnlySuggestsTypos();
};

void TestJsonRead::shallowJsonParses() {
  QCOMPARE(parseJsonBounded(nested(kMaxJsonDepth)).is_array(), true);
  QCOMPARE(parseJsonBounded(R"({"a": [1, {"b": "[[["}]})")["a"][1]["b"].get<std::string>(),
           std::string("[[["));
}

void TestJsonRead::deepNestingIsRefusedWithItsPosition() {
  const std::string text = "{\n \"a\": " + nested(100000) + "}";
  try {
    parseJsonBounded(text);
    QFAIL("no exception");
  } catch (const JsonReadError& e) {
    QCOMPARE(e.position().line, 2);
    QCOMPARE(e.position().column, 6 + kMaxJsonDepth);  // the bracket one level too deep
    QVERIFY2(e.reason().starts_with("JSON nested deeper than 256 levels"), e.what());
    QVERIFY2(std::string(e.what()).starts_with("line 2, column "), e.what());
  }
  QVERIFY(!tryParseJsonBounded(nested(kMaxJsonDepth + 1)));
}

void TestJsonRead::bracketsInStringsDoNotCount() {
  const std::string deepString = "[\"" + std::string(1000, '[') + "\\\"\"]";
  QCOMPARE(parseJsonBounded(deepString)[0].get<std::string>().size(), std::size_t(1001));
}

void TestJsonRead::numberOverflowIsAReadError() {
  // Found by the metrics fuzz target: nlohmann throws out_of_range, not parse_error, for it.
  try {
    parseJsonBounded("{\"step\": 1,\n \"loss\": 1e999}");
    QFAIL("no exception");
  } catch (const JsonReadError& e) {
    QCOMPARE(e.position().line, 2);
    QCOMPARE(e.position().column, 10);
    QCOMPARE(e.reason(), std::string("malformed JSON: number overflow parsing '1e999'"));
  }
}

void TestJsonRead::deepGraphFilesAreProblemsNotCrashes_data() {
  QTest::addColumn<QString>("text");
  QTest::newRow("kind") << QString::fromStdString(graphWith(nested(100000)));
  QTest::newRow("ui") << QString::fromStdString(
      graphWith("\"input\"", "{\"a\": " + nested(100000) + "}"));
  QTest::newRow("top") << QString::fromStdString(nested(100000));
}

void TestJsonRead::deepGraphFilesAreProblemsNotCrashes() {
  QFETCH(QString, text);
  const GraphLoadResult r = parseGraph(text.toStdString());
  QVERIFY(!r.graph);
  QCOMPARE(r.problems.size(), std::size_t(1));
  QVERIFY(r.problems[0].line >= 1);
  QVERIFY2(r.problems[0].message.starts_with("JSON nested deeper"), r.problems[0].message.c_str());
}

void TestJsonRead::longValuesAreNotEchoed() {
  const GraphLoadResult r = parseGraph(graphWith("\"" + std::string(100000, 'k') + "\""));
  QVERIFY(!r.ok());
  QVERIFY2(r.problems[0].message.size() < 200, r.problems[0].message.substr(0, 300).c_str());
  QVERIFY2(r.problems[0].message.find("(100000 characters)") != std::string::npos,
           r.problems[0].message.c_str());
  const GraphLoadResult array = parseGraph(graphWith(nested(200)));
  QVERIFY2(array.problems[0].message.find("unknown kind an array of 1 values") != std::string::npos,
           array.problems[0].message.c_str());
}

void TestJsonRead::unknownKeyHasPositionAndSuggestion() {
  const std::string text = std::string("{") + kHeader + R"(
  "layers": [
    {"id": "x", "kind": "input", "size": 2},
    {"id": "y", "kind": "additive", "size": 1, "activaton": "tanh", "loss": "mse"}
  ],
  "connections": [{"from": "x", "to": "y"}]
})";
  const GraphLoadResult r = parseGraph(text);
  QCOMPARE(r.problems.size(), std::size_t(1));
  QCOMPARE(r.problems[0].message,
           std::string("layer 'y': unknown key 'activaton' (did you mean 'activation'?)"));
  QCOMPARE(r.problems[0].line, 4);
  QCOMPARE(r.problems[0].column, 48);
}

void TestJsonRead::valueProblemPointsAtItsKey() {
  const GraphLoadResult r = parseGraph(graphWith("\"lstm\""));
  QCOMPARE(r.problems[0].line, 2);
  QCOMPARE(r.problems[0].column, 24);  // the "kind" key
  const GraphLoadResult top = parseGraph(std::string("{") + kHeader + "\"layerz\": []}");
  QVERIFY2(top.problems[0].message.find("did you mean 'layers'?") != std::string::npos,
           top.problems[0].message.c_str());
  QCOMPARE(top.problems[0].column, 41);
}

void TestJsonRead::validationProblemPointsAtItsConnection() {
  const std::string text = std::string("{") + kHeader + R"(
  "layers": [{"id": "x", "kind": "input", "size": 2},
             {"id": "y", "kind": "additive", "size": 1, "loss": "mse"}],
  "connections": [{"from": "x", "to": "y"},
                  {"from": "q", "to": "y"}]
})";
  const GraphLoadResult r = parseGraph(text);
  QCOMPARE(r.problems.size(), std::size_t(1));
  QVERIFY2(r.problems[0].message.find("unknown layer 'q'") != std::string::npos,
           r.problems[0].message.c_str());
  QCOMPARE(r.problems[0].line, 5);
  QCOMPARE(r.problems[0].column, 19);
}

void TestJsonRead::loadValidGraphPrefixesFileLineColumn() {
  QTemporaryDir dir;
  const std::filesystem::path path = dir.filePath("g.rnn.json").toStdString();
  std::ofstream(path) << "{\n  \"format\": \"rnnwb.graph\",\n  \"version\": 1,,\n}";
  try {
    loadValidGraph(path);
    QFAIL("no exception");
  } catch (const GraphError& e) {
    const std::string expected = path.string() + ":3:16: malformed JSON: syntax error";
    QVERIFY2(std::string(e.what()).starts_with(expected), e.what());
  }
}

void TestJsonRead::locatorFindsEscapedKeysAndIndices() {
  const std::string text = "{\"a\\\"b\": [10,\n [\"s,]\", {\"k\": 1}]], \"c\": 2}";
  const auto found = JsonLocator(text).locate(
      {{"a\"b"}, {"a\"b", "1"}, {"a\"b", "1", "1", "k"}, {"c"}, {"missing"}});
  QCOMPARE(found[0].column, 2);
  QCOMPARE(found[1].line, 2);
  QCOMPARE(found[1].column, 2);
  QCOMPARE(found[2].column, 11);
  QCOMPARE(found[3].column, 22);
  QCOMPARE(found[4].line, 0);
}

void TestJsonRead::closestNameOnlySuggestsTypos() {
  const std::set<std::string> keys{"id", "kind", "size", "activation", "bias", "loss"};
  QCOMPARE(closestName("activaton", keys).value_or(""), std::string("activation"));
  QCOMPARE(closestName("szie", keys).value_or(""), std::string("size"));
  QVERIFY(!closestName("colour", keys));
  QVERIFY(!closestName("x", keys));
}

QTEST_APPLESS_MAIN(TestJsonRead)
#include "tst_jsonread.moc"

// `rnnwb mask` as a user runs it: the JSON contract on every example, node selection, refusals,
// and the PNG.
#include <QColor>
#include <QFloat16>  // QCOMPARE on a JSON value: QTest's qfloat16 overload needs the type
#include <QRgb>
#include <QTest>

#include "cli_run.hpp"

#include <QImage>
#include <nlohmann/json.hpp>

#include "engine_examples.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/snap/row_colouring.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"

using namespace rnnwb;

namespace {
using Run = rnnwb::testing::CliRun;

Run rnnwbRun(const QStringList& args) { return rnnwb::testing::runCli(args); }

QString example(const QString& name) { return QString(RNNWB_EXAMPLES_DIR) + "/" + name; }

nlohmann::json maskJson(const QStringList& args) {
  const Run r = rnnwbRun(QStringList{"mask"} + args + QStringList{"--json"});
  if (r.exitCode != 0) qWarning("%s", qPrintable(r.err));
  return r.exitCode == 0 ? nlohmann::json::parse(r.out.toStdString()) : nlohmann::json();
}
}  // namespace

class TestMaskCommand : public QObject {
  Q_OBJECT
 private slots:
  void jsonAgreesWithTheLibraryOnEveryExample();
  void elmanFigures();
  void refusedNodeHasOnlyTheMessage();
  void nodeAndSnapOptions();
  void tableNamesEveryLevel();
  void pngDrawsThePatterns();
};

void TestMaskCommand::jsonAgreesWithTheLibraryOnEveryExample() {
  const QStringList files = rnnwb::testing::engineExampleNames();
  QVERIFY(files.size() >= 8);
  for (const QString& file : files) {
    const nlohmann::json j = maskJson({example(file)});
    QVERIFY2(j.contains("nodes"), qPrintable(file));
    const CompiledPlan plan(loadValidGraph(example(file).toStdString()));
    std::size_t k = 0;
    for (int node = 0; node < static_cast<int>(plan.nodes().size()); ++node) {
      if (!plan.nodes()[node].recurrent) continue;
      const nlohmann::json& n = j["nodes"].at(k++);
      QVERIFY(n["layers"].is_array() && !n["layers"].empty());
      if (snap::rtrlRefusal(plan, node)) {
        QVERIFY(n.contains("refused"));
        continue;
      }
      const snap::SnapPatterns patterns(snap::RtrlNodeLayout(plan, node));
      QCOMPARE(n["state_size"].get<int>(), patterns.stateSize());
      QCOMPARE(n["params"].get<std::int64_t>(), patterns.parameterCount());
      for (int level : {1, 2, 3})
        QCOMPARE(n["snap"][std::to_string(level)].get<std::uint64_t>(),
                 patterns.nnz(patterns.mask(level)));
      QCOMPARE(n["snap"]["inf"].get<std::uint64_t>(), patterns.nnz(patterns.exactMask()));
      QCOMPARE(n["colors_I"].get<int>(), snap::colourRows(patterns.immediate()).colours);
      QCOMPARE(n["colors_D"].get<int>(), snap::colourRows(patterns.dynamics()).colours);
    }
    QCOMPARE(j["nodes"].size(), k);
  }
}

void TestMaskCommand::elmanFigures() {
  const nlohmann::json n = maskJson({example("elman.rnn.json")})["nodes"].at(0);
  QCOMPARE(n["layers"], nlohmann::json({"h"}));
  QCOMPARE(n["state_size"].get<int>(), 32);
  QCOMPARE(n["params"].get<int>(), 1312);
  QCOMPARE(n["snap"], nlohmann::json({{"1", 1312}, {"2", 41984}, {"3", 41984}, {"inf", 41984}}));
  QCOMPARE(n["colors_I"].get<int>(), 1);
  QCOMPARE(n["colors_D"].get<int>(), 32);
  QCOMPARE(n["memory"]["coo"]["1"].get<int>(), 1312 * 12);
  QCOMPARE(n["memory"]["csr"]["1"].get<int>(), 1312 * 8 + 1313 * 4);
  QCOMPARE(n["memory"]["dense_rtrl"].get<int>(), 32 * 1312 * 4);
  QCOMPARE(n["memory"]["bptt"].get<int>(), 100 * 32 * 4);
  const nlohmann::json lstm = maskJson({example("lstm-peephole.rnn.json")})["nodes"].at(0);
  QCOMPARE(lstm["colors_I"].get<int>(), 2);
  QCOMPARE(lstm["state_layers"], nlohmann::json({"c", "h"}));
}

void TestMaskCommand::refusedNodeHasOnlyTheMessage() {
  const nlohmann::json j = maskJson({example("two-recurrent-nodes.rnn.json")});
  QCOMPARE(j["nodes"].size(), std::size_t(2));
  QVERIFY(!j["nodes"][0].contains("refused"));
  const nlohmann::json& b = j["nodes"][1];
  QCOMPARE(b["layers"], nlohmann::json({"b"}));
  QVERIFY(b["refused"].get<std::string>().find("'b->b@2'") != std::string::npos);
  QVERIFY(!b.contains("snap") && !b.contains("state_size") && !b.contains("colors_I"));
}

void TestMaskCommand::nodeAndSnapOptions() {
  const nlohmann::json j =
      maskJson({example("stacked-lstm.rnn.json"), "--node", "2", "--snap", "7"});
  QCOMPARE(j["nodes"].size(), std::size_t(1));
  QCOMPARE(j["nodes"][0]["index"].get<int>(), 2);
  QCOMPARE(j["nodes"][0]["layers"][0].get<std::string>(), std::string("l2_i"));
  QVERIFY(j["nodes"][0]["snap"].contains("7"));
  const Run bad = rnnwbRun({"mask", example("elman.rnn.json"), "--node", "2"});
  QCOMPARE(bad.exitCode, 1);
  QVERIFY2(bad.err.contains("rnnwb mask: error: --node 2: the graph has 1 recurrent node(s)"),
           qPrintable(bad.err));
  const Run none = rnnwbRun({"mask", example("elman.rnn.json"), "--snap", "0"});
  QVERIFY(none.exitCode != 0);
}

void TestMaskCommand::tableNamesEveryLevel() {
  const Run r = rnnwbRun({"mask", example("two-recurrent-nodes.rnn.json")});
  QCOMPARE(r.exitCode, 0);
  for (const char* text : {"SnAp-1", "SnAp-2", "SnAp-3", "exact (= M_2)", "colours: I 1",
                           "refused:", "BPTT over 100 frames"})
    QVERIFY2(r.out.contains(text), text);
}

void TestMaskCommand::pngDrawsThePatterns() {
  QTemporaryDir dir;
  const QString path = dir.filePath("lstm.png");
  const Run r = rnnwbRun({"mask", example("lstm-peephole.rnn.json"), "--png", path});
  QCOMPARE(r.exitCode, 0);
  QImage image(path);
  QVERIFY(!image.isNull());
  QVERIFY(image.width() > 600 && image.height() > 64);
  // Two row classes of I means at least two saturated colours.
  QSet<QRgb> saturated;
  for (int y = 0; y < image.height(); y += 2)
    for (int x = 0; x < image.width(); x += 2) {
      const QColor c = image.pixelColor(x, y);
      if (c.saturation() > 100) saturated.insert(c.rgb());
    }
  QVERIFY(saturated.size() >= 2);
  const Run refused = rnnwbRun({"mask", example("two-recurrent-nodes.rnn.json"), "--node", "2",
                                "--png", dir.filePath("b.png")});
  QCOMPARE(refused.exitCode, 1);
  QVERIFY(!QFile::exists(dir.filePath("b.png")));
}

QTEST_GUILESS_MAIN(TestMaskCommand)
#include "tst_maskcommand.moc"

// The ONNX importer's symbolic sequences (core/src/import/import_values.hpp): the glue operators
// move units of layers, as torch's Transpose + Reshape of a bidirectional LSTM's Y does, and
// refuse what touches the frames or the streams, saying so.
#include <QTest>

#include <stdexcept>

#include "import_values.hpp"

using namespace rnnwb::onnx_import;

namespace {

/// Y of a bidirectional recurrent operator: [T, 2, N, 3], the forward layer 0, the backward 1.
Sequence bidirectionalY() {
  Sequence y;
  y.axes = {Axis::Frames, Axis::Known, Axis::Streams, Axis::Known};
  y.dims = {2, 3};
  for (int layer : {0, 1})
    for (int i = 0; i < 3; ++i) y.units.push_back({layer, i});
  return y;
}

std::vector<Unit> units(std::initializer_list<std::pair<int, int>> list) {
  std::vector<Unit> r;
  for (auto [l, i] : list) r.push_back({l, i});
  return r;
}

}  // namespace

class TestImportValues : public QObject {
  Q_OBJECT
 private slots:
  void torchsBidirectionalGlueGivesBothDirectionsInOrder();
  void transposeOfKnownAxesReordersUnits();
  void sliceGatherAndConcatSelectUnits();
  void squeezeAndUnsqueezeKeepUnits();
  void framesAndStreamsAreNotTouched();
};

void TestImportValues::torchsBidirectionalGlueGivesBothDirectionsInOrder() {
  const Sequence t = transposeSequence(bidirectionalY(), {0, 2, 1, 3});
  QCOMPARE(t.describe(), std::string("[T, N, 2, 3]"));
  const Sequence flat = reshapeSequence(t, {0, 0, -1});
  QVERIFY(flat.isFlat());
  QCOMPARE(flat.describe(), std::string("[T, N, 6]"));
  QVERIFY(flat.units == units({{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
}

void TestImportValues::transposeOfKnownAxesReordersUnits() {
  Sequence s = transposeSequence(bidirectionalY(), {0, 2, 3, 1});  // [T, N, 3, 2]
  QCOMPARE(s.describe(), std::string("[T, N, 3, 2]"));
  QVERIFY(s.units == units({{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}}));
}

void TestImportValues::sliceGatherAndConcatSelectUnits() {
  const Sequence flat =
      reshapeSequence(transposeSequence(bidirectionalY(), {0, 2, 1, 3}), {0, 0, 6});
  QVERIFY(sliceSequence(flat, 2, 4, 100, 1).units == units({{1, 1}, {1, 2}}));
  QVERIFY(sliceSequence(flat, -1, -1, -100, -2).units == units({{1, 2}, {1, 0}, {0, 1}}));
  const Sequence backward = gatherSequence(bidirectionalY(), 1, {1}, true);  // [T, N, 3]
  QVERIFY(backward.isFlat());
  QVERIFY(backward.units == units({{1, 0}, {1, 1}, {1, 2}}));
  const Sequence both = concatSequences({backward, flatSequence(units({{5, 0}}))}, -1);
  QCOMPARE(both.describe(), std::string("[T, N, 4]"));
  QVERIFY(both.units.back() == (Unit{5, 0}));
}

void TestImportValues::squeezeAndUnsqueezeKeepUnits() {
  const Sequence one = unsqueezeSequence(flatSequence(units({{0, 0}, {0, 1}})), {1});
  QCOMPARE(one.describe(), std::string("[T, 1, N, 2]"));
  const Sequence back = squeezeSequence(one, {});
  QVERIFY(back.isFlat());
  QCOMPARE(back.units.size(), std::size_t{2});
}

void TestImportValues::framesAndStreamsAreNotTouched() {
  const Sequence flat = flatSequence(units({{0, 0}, {0, 1}}));
  auto refuses = [](auto f, const char* why) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).find(why) != std::string::npos, e.what());
      return;
    }
    QFAIL("no exception");
  };
  refuses([&] { sliceSequence(flat, 0, 0, 2, 1); }, "frames axis of [T, N, 2]");
  refuses([&] { gatherSequence(flat, 1, {0}, true); }, "streams axis of [T, N, 2]");
  refuses([&] { squeezeSequence(flat, {0}); }, "which is not of size 1");
  refuses([&] { reshapeSequence(flat, {-1, 2}); }, "across the frames or the streams");
  refuses([&] { reshapeSequence(flat, {0, 0, 3}); }, "does not fit [T, N, 2]");
}

QTEST_GUILESS_MAIN(TestImportValues)
#include "tst_importvalues.moc"

// pack / unpack / mask / skew / flip on random lists, for every packer.
#include <QTest>

#include "random_examples.hpp"

#include <random>

#include "rnnwb/core/packing/block_chunking.hpp"
#include "rnnwb/core/packing/packers.hpp"
#include "rnnwb/core/packing/packing_ops.hpp"

using namespace rnnwb::packing;

namespace {

// Examples of up to 9 x 14 pixels.
std::vector<FeatureMap> randomExamples(std::mt19937& rng, int count, int channels) {
  return testing::randomExamples(rng, count, channels, 9, 14);
}

using testing::sizesOf;

}  // namespace

class TestPackingOps : public QObject {
  Q_OBJECT
 private slots:
  void unpackPackIsIdentity_data();
  void unpackPackIsIdentity();
  void maskMarksExactlyTheExamples();
  void skewShiftsEachRowBlockOnItsOwn();
  void skewRoundTrip();
  void flipIsAnInvolutionThatMirrorsEachExample();
  void blockChunkingRoundTrip();
};

void TestPackingOps::unpackPackIsIdentity_data() {
  QTest::addColumn<QString>("packer");
  QTest::addColumn<int>("rowWidth");
  for (const std::string& name : packerNames()) {
    QTest::newRow((name + " default W").c_str()) << QString::fromStdString(name) << 0;
    QTest::newRow((name + " W=30").c_str()) << QString::fromStdString(name) << 30;
  }
}

void TestPackingOps::unpackPackIsIdentity() {
  QFETCH(QString, packer);
  QFETCH(int, rowWidth);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const auto examples = randomExamples(rng, 1 + trial % 17, 1 + trial % 3);
    const PackedLayout l = packWith(packer.toStdString(), sizesOf(examples), rowWidth);
    QVERIFY(unpack(l, pack(l, examples)) == examples);
  }
}

void TestPackingOps::maskMarksExactlyTheExamples() {
  std::mt19937 rng(11);
  const auto examples = randomExamples(rng, 12, 1);
  for (const std::string& name : packerNames()) {
    const PackedLayout l = packWith(name, sizesOf(examples));
    const FeatureMap mask = packedMask(l);
    long long ones = 0, real = 0;
    for (float v : mask.data) ones += v == 1.0f;
    for (const FeatureMap& e : examples) real += e.cells();
    QCOMPARE(ones, real);  // no overlap (finishLayout checks) + every pixel marked
    for (const ExamplePlace& p : l.places) {
      QCOMPARE(mask.at(p.y, p.x), 1.0f);
      QCOMPARE(mask.at(p.y + p.height - 1, p.x + p.width - 1), 1.0f);
      if (p.x + p.width < l.width) QCOMPARE(mask.at(p.y, p.x + p.width), 0.0f);  // separator
    }
  }
}

void TestPackingOps::skewShiftsEachRowBlockOnItsOwn() {
  // Two rows: heights 3 and 2 (baseline buckets), lengths 4 and 5. Ws = max(4+2, 5+1) = 6.
  const std::vector<ExampleSize> sizes{{3, 4}, {2, 5}};
  const PackedLayout l = packBaseline(sizes);
  QCOMPARE(l.height, 6);
  QCOMPARE(l.skewedWidth, 6);
  FeatureMap packed(l.height, l.width, 1);
  for (int y = 0; y < l.height; ++y)
    for (int x = 0; x < l.width; ++x) packed.at(y, x) = 100.0f * y + x + 1;
  const FeatureMap s = skew(l, packed);
  QCOMPARE(s.at(0, 0), packed.at(0, 0));
  QCOMPARE(s.at(2, 2 + 3), packed.at(2, 3));  // row 2 of block 0 moves right by 2
  QCOMPARE(s.at(2, 0), 0.0f);
  QCOMPARE(s.at(3, 1), 0.0f);             // separator row stays zero
  QCOMPARE(s.at(4, 0), packed.at(4, 0));  // block 1 starts again unshifted
  QCOMPARE(s.at(5, 1 + 4), packed.at(5, 4));
  QCOMPARE(skew(l, packedMask(l)).at(5, 0), 0.0f);
}

void TestPackingOps::skewRoundTrip() {
  std::mt19937 rng(3);
  for (const std::string& name : packerNames())
    for (int trial = 0; trial < 20; ++trial) {
      const auto examples = randomExamples(rng, 1 + trial, 2);
      const PackedLayout l = packWith(name, sizesOf(examples));
      const FeatureMap packed = pack(l, examples);
      const FeatureMap s = skew(l, packed);
      QCOMPARE(s.width, l.skewedWidth);
      QVERIFY(unskew(l, s) == packed);
    }
}

void TestPackingOps::flipIsAnInvolutionThatMirrorsEachExample() {
  std::mt19937 rng(5);
  const auto examples = randomExamples(rng, 9, 1);
  const PackedLayout l = packBaseline(sizesOf(examples));
  const FeatureMap packed = pack(l, examples);
  for (ScanDirection d : kScanDirections) {
    const FeatureMap f = flip(l, packed, d);
    QVERIFY(flip(l, f, d) == packed);
    QVERIFY(skewedMask(l, d) == skew(l, flip(l, packedMask(l), d)));
    QCOMPARE(skew(l, f).width, l.skewedWidth);
  }
  // In a bottom-right flip, an example's top-left pixel lands at its mirrored place in the row.
  const FeatureMap f = flip(l, packed, ScanDirection::BottomRight);
  for (const ExamplePlace& p : l.places) {
    const PackedRow& r = l.rows[p.row];
    const int y = r.top + (r.top + r.height - 1 - p.y), x = r.length - 1 - p.x;
    QCOMPARE(f.at(y, x), examples[p.index].at(0, 0));
  }
}

void TestPackingOps::blockChunkingRoundTrip() {
  std::mt19937 rng(9);
  const auto examples = randomExamples(rng, 6, 2);
  const BlockChunks c = chunkBlocks(examples, 2, 3);
  int blocks = 0;
  for (const FeatureMap& e : examples) blocks += ((e.height + 1) / 2) * ((e.width + 2) / 3);
  QCOMPARE(c.blockCount(), blocks);
  QCOMPARE(c.rowSize(), 2 * 3 * 2);
  QVERIFY(unchunkBlocks(c) == examples);
  // Block (0, 0) of example 0 starts with its pixel (0, 0); (1, 0) follows in the row.
  QCOMPARE(c.rows[0], examples[0].at(0, 0, 0));
  if (examples[0].height > 1) QCOMPARE(c.rows[2], examples[0].at(1, 0, 0));
  // dechunk / chunkRows: one row per block, back to per-example maps of the grid's size.
  std::vector<float> rows(static_cast<std::size_t>(blocks) * 3);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = float(i);
  const auto maps = dechunkRows(rows, 3, c.grids);
  QCOMPARE(maps[0].height, c.grids[0].height);
  QCOMPARE(maps[0].at(0, 0, 1), 1.0f);
  QVERIFY(chunkRows(maps) == rows);
}

QTEST_APPLESS_MAIN(TestPackingOps)
#include "tst_packingops.moc"

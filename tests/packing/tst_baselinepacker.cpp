// The baseline packer and the figures of spec/packing.md on fixed lists, against values computed
// by hand (the computation is written out beside each case).
#include <QTest>

#include "rnnwb/core/packing/packers.hpp"
#include "rnnwb/core/packing/packing_figures.hpp"

using namespace rnnwb::packing;

namespace {
// Indices 0-3 form batch 0 and 4-7 batch 1 when B = 4.
const std::vector<ExampleSize> kList{{10, 20}, {10, 15}, {8, 30}, {10, 9},
                                     {5, 4},   {5, 3},   {5, 4},  {7, 2}};
}  // namespace

class TestBaselinePacker : public QObject {
  Q_OBJECT
 private slots:
  void firstBatchRowsAndPlaces();
  void tiesGoToTheLowerIndex();
  void fixedWidthAllowsWiderRows();
  void figuresEqualHandComputation();
  void widerThanWidthNamesTheExample();
  void shelfIsReportedBesideBaseline();
};

void TestBaselinePacker::firstBatchRowsAndPlaces() {
  // W = 30 (widest). Bucket h=10 holds 0 (w20), 1 (w15), 3 (w9); bucket h=8 holds 2 (w30).
  // Row 0: widest fitting is 0 (len 20); then w <= 30-20-1 = 9 fits: 3 (len 30). Closed.
  // Row 1: 1 (len 15). Row 2 (bucket 8): 2 (len 30).
  // H = 10 + 10 + 8 + 2 separators = 30; Wp = 30; Ws = max(30+9, 15+9, 30+7) = 39.
  const auto batch = std::span(kList).first(4);
  const PackedLayout l = packBaseline(batch);
  QCOMPARE(int(l.rows.size()), 3);
  QCOMPARE(l.height, 30);
  QCOMPARE(l.width, 30);
  QCOMPARE(l.skewedWidth, 39);
  QCOMPARE(l.rows[1].top, 11);
  QCOMPARE(l.rows[2].top, 22);
  const int expected[4][3] = {{0, 0, 0}, {1, 0, 11}, {2, 0, 22}, {0, 21, 0}};  // row, x, y
  for (int i = 0; i < 4; ++i) {
    QCOMPARE(l.places[i].index, i);
    QCOMPARE(l.places[i].row, expected[i][0]);
    QCOMPARE(l.places[i].x, expected[i][1]);
    QCOMPARE(l.places[i].y, expected[i][2]);
  }
}

void TestBaselinePacker::tiesGoToTheLowerIndex() {
  // Batch 1 (indices 4..7 -> 0..3 here), W = 4: bucket 7: {3} row 0 (len 2).
  // Bucket 5: widths 4, 3, 4: widest tie 0 vs 2 -> 0 (len 4; nothing else fits: 4+1+3 > 4).
  // Then 2 (len 4), then 1 (len 3). H = 7+5+5+5+3 = 25, Wp = 4,
  // Ws = max(2+6, 4+4, 4+4, 3+4) = 8.
  const PackedLayout l = packBaseline(std::span(kList).subspan(4, 4));
  QCOMPARE(int(l.rows.size()), 4);
  QCOMPARE(l.places[3].row, 0);
  QCOMPARE(l.places[0].row, 1);
  QCOMPARE(l.places[2].row, 2);
  QCOMPARE(l.places[1].row, 3);
  QCOMPARE(l.height, 25);
  QCOMPARE(l.width, 4);
  QCOMPARE(l.skewedWidth, 8);
}

void TestBaselinePacker::fixedWidthAllowsWiderRows() {
  // Same batch with W = 12: row 0: {3} (len 2); row 1: 0 (len 4), then widest fitting
  // w <= 12-4-1 = 7: 2 (w4, len 9), then w <= 2: none. Row 2: 1 (len 3).
  // H = 7+5+5+2 = 19, Wp = 9, Ws = max(2+6, 9+4, 3+4) = 13; places: 0 at (x0,y8), 2 at (x5,y8),
  // 1 at (x0, y14).
  const PackedLayout l = packBaseline(std::span(kList).subspan(4, 4), 12);
  QCOMPARE(l.height, 19);
  QCOMPARE(l.width, 9);
  QCOMPARE(l.skewedWidth, 13);
  QCOMPARE(l.places[2].x, 5);
  QCOMPARE(l.places[2].y, 8);
  QCOMPARE(l.places[1].y, 14);
}

void TestBaselinePacker::figuresEqualHandComputation() {
  // B = 4. Batch 0: real = 200+150+240+90 = 680; lmbr = 4*10*30 = 1200;
  //   lmbr_skewed = 4*10*(30+10-1) = 1560; packed = 30*30 = 900; packed_skewed = 30*39 = 1170.
  // Batch 1: real = 20+15+20+14 = 69; lmbr = 4*7*4 = 112; lmbr_skewed = 4*7*(4+7-1) = 280;
  //   packed = 25*4 = 100; packed_skewed = 25*8 = 200.
  const PackingFigures f = computeFigures(kList, 4, 0, {});
  QCOMPARE(f.examples, 8LL);
  QCOMPARE(f.batches, 2LL);
  QCOMPARE(f.real, 749LL);
  QCOMPARE(f.lmbr, 1312LL);
  QCOMPARE(f.lmbrSkewed, 1840LL);
  QCOMPARE(f.baseline.packed, 1000LL);
  QCOMPARE(f.baseline.packedSkewed, 1370LL);
  // B = 3: batches {0,1,2}, {3,4,5}, {6,7}.
  // Batch 0: W=30; rows {0} (h10,len20), {1} (h10,len15; 20+1+15 > 30), {2} (h8,len30):
  //   H = 30, Wp = 30, Ws = max(29, 24, 37) = 37 -> packed 900, skewed 1110.
  //   real 590, lmbr 3*10*30 = 900, lmbr_skewed 3*10*39 = 1170.
  // Batch 1: (10,9),(5,4),(5,3), W=9: rows {3} (h10,len9), {4,5}? 4+1+3 = 8 <= 9 yes (h5,len8):
  //   H = 16, Wp = 9, Ws = max(9+9, 8+4) = 18 -> packed 144, skewed 288.
  //   real 90+20+15 = 125, lmbr 3*10*9 = 270, lmbr_skewed 3*10*18 = 540.
  // Batch 2: (5,4),(7,2), W=4: rows {7} (h7,len2), {6} (h5,len4): H = 13, Wp = 4,
  //   Ws = max(2+6, 4+4) = 8 -> packed 52, skewed 104. real 34, lmbr 2*7*4 = 56,
  //   lmbr_skewed 2*7*(4+6) = 140.
  const PackingFigures g = computeFigures(kList, 3, 0, {});
  QCOMPARE(g.batches, 3LL);
  QCOMPARE(g.real, 749LL);
  QCOMPARE(g.lmbr, 1226LL);
  QCOMPARE(g.lmbrSkewed, 1850LL);
  QCOMPARE(g.baseline.packed, 1096LL);
  QCOMPARE(g.baseline.packedSkewed, 1502LL);
}

void TestBaselinePacker::widerThanWidthNamesTheExample() {
  try {
    computeFigures(kList, 4, 25, {});
    QFAIL("no error for an example wider than W");
  } catch (const std::invalid_argument& e) {
    QVERIFY2(QString(e.what()).contains("example 2 is 30 pixels wide"), e.what());
  }
  try {
    computeFigures(kList, 4, 3, {});  // example 0 (w 20) is the first too wide
    QFAIL("no error for an example wider than W");
  } catch (const std::invalid_argument& e) {
    QVERIFY2(QString(e.what()).contains("example 0 is 20"), e.what());
  }
}

void TestBaselinePacker::shelfIsReportedBesideBaseline() {
  const PackingFigures f = computeFigures(kList, 4, 0, {"shelf"});
  QCOMPARE(int(f.packers.size()), 2);
  QCOMPARE(f.packers.at("baseline").packedSkewed, f.baseline.packedSkewed);
  QVERIFY(f.packers.at("shelf").packedSkewed > 0);
  QVERIFY(f.packers.at("shelf").packed >= f.real);
}

QTEST_APPLESS_MAIN(TestBaselinePacker)
#include "tst_baselinepacker.moc"

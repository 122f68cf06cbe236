// Row colourings are valid on random patterns, and invalid ones are caught.
#include <QTest>

#include <random>

#include "rnnwb/core/snap/row_colouring.hpp"

using namespace rnnwb::snap;

namespace {

BitMatrix randomPattern(int rows, int cols, double density, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution keep(density);
  BitMatrix m(rows, cols);
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r)
      if (keep(rng)) m.set(r, c);
  return m;
}

}  // namespace

class TestRowColouring : public QObject {
  Q_OBJECT
 private slots:
  void validOnRandomPatterns();
  void emptyPatternHasNoColours();
  void diagonalNeedsOneColour();
  void denseColumnNeedsOneColourPerRow();
  void validationCatchesAClash();
};

void TestRowColouring::validOnRandomPatterns() {
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const int rows = 1 + int(seed % 70), cols = 1 + int(seed * 7 % 90);
    const BitMatrix pattern = randomPattern(rows, cols, 0.02 + (seed % 10) * 0.03, seed);
    const RowColouring colouring = colourRows(pattern);
    // Independent check: every pair of rows sharing a column differs.
    for (int c = 0; c < cols; ++c) {
      const std::vector<int> r = pattern.rowsOf(c);
      for (std::size_t a = 0; a < r.size(); ++a)
        for (std::size_t b = a + 1; b < r.size(); ++b)
          QVERIFY(colouring.colourOfRow[r[a]] != colouring.colourOfRow[r[b]]);
      QVERIFY(colouring.colours >= static_cast<int>(r.size()));  // a column is a clique
    }
    QVERIFY(colouring.colours <= rows);
  }
}

void TestRowColouring::emptyPatternHasNoColours() {
  QCOMPARE(colourRows(BitMatrix(5, 7)).colours, 0);
  QCOMPARE(colourRows(BitMatrix(0, 0)).colours, 0);
}

void TestRowColouring::diagonalNeedsOneColour() {
  BitMatrix m(20, 20);
  for (int i = 0; i < 20; ++i) m.set(i, i);
  QCOMPARE(colourRows(m).colours, 1);
}

void TestRowColouring::denseColumnNeedsOneColourPerRow() {
  BitMatrix m(130, 3);
  for (int i = 0; i < 130; ++i) m.set(i, 1);
  QCOMPARE(colourRows(m).colours, 130);
}

void TestRowColouring::validationCatchesAClash() {
  BitMatrix m(3, 2);
  m.set(0, 0);
  m.set(2, 0);
  m.set(1, 1);
  RowColouring bad{{0, 0, 0}, 1};
  QVERIFY_THROWS_EXCEPTION(std::logic_error, validateRowColouring(m, bad));
  RowColouring outOfRange{{0, 1, 2}, 2};
  QVERIFY_THROWS_EXCEPTION(std::logic_error, validateRowColouring(m, outOfRange));
  validateRowColouring(m, RowColouring{{0, 0, 1}, 2});
}

QTEST_GUILESS_MAIN(TestRowColouring)
#include "tst_rowcolouring.moc"

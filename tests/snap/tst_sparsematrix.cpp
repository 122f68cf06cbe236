// COO <-> CSR conversions, the transpose, and the Mix map of I into M_n.
#include <QTest>

#include <algorithm>
#include <numeric>
#include <random>

#include "random_sparse.hpp"
#include "rnnwb/core/snap/jacobian_mix.hpp"
#include "rnnwb/core/snap/sparse_matrix.hpp"

using namespace rnnwb::snap;
using rnnwb::testing::randomCsr;

class TestSparseMatrix : public QObject {
  Q_OBJECT
 private slots:
  void roundTrips_data();
  void roundTrips();
  void shuffledCooGivesCanonicalCsr();
  void rejectsDuplicatesAndOutOfRange();
  void transposeTwiceIsIdentity();
  void checkCanonicalCatchesUnsortedRows();
  void memoryFormulas();
  void mixAddsImmediateAtItsPositions();
  void mixRejectsEntriesOutsideTheMask();
};

void TestSparseMatrix::roundTrips_data() {
  QTest::addColumn<int>("rows");
  QTest::addColumn<int>("cols");
  QTest::addColumn<double>("density");
  QTest::addColumn<bool>("pattern");
  QTest::newRow("empty") << 0 << 0 << 0.5 << false;
  QTest::newRow("no entries") << 7 << 5 << 0.0 << false;
  QTest::newRow("dense") << 9 << 4 << 1.0 << false;
  QTest::newRow("sparse") << 60 << 300 << 0.03 << false;
  QTest::newRow("pattern") << 40 << 70 << 0.2 << true;
}

void TestSparseMatrix::roundTrips() {
  QFETCH(int, rows);
  QFETCH(int, cols);
  QFETCH(double, density);
  QFETCH(bool, pattern);
  const SparseCsr csr = randomCsr(rows, cols, density, 42, pattern);
  checkCanonical(csr);
  const SparseCoo coo = toCoo(csr);
  QCOMPARE(coo.nnz(), csr.nnz());
  QVERIFY(toCsr(coo) == csr);
  QVERIFY(toCoo(toCsr(coo)) == coo);
}

void TestSparseMatrix::shuffledCooGivesCanonicalCsr() {
  const SparseCsr csr = randomCsr(50, 80, 0.1, 7);
  SparseCoo coo = toCoo(csr);
  std::vector<std::size_t> order(coo.rowIndex.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(3));
  SparseCoo shuffled = coo;
  for (std::size_t q = 0; q < order.size(); ++q) {
    shuffled.rowIndex[q] = coo.rowIndex[order[q]];
    shuffled.colIndex[q] = coo.colIndex[order[q]];
    shuffled.values[q] = coo.values[order[q]];
  }
  QVERIFY(toCsr(shuffled) == csr);
}

void TestSparseMatrix::rejectsDuplicatesAndOutOfRange() {
  SparseCoo coo{3, 3, {0, 2, 0}, {1, 2, 1}, {}};
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, toCsr(coo));
  coo = SparseCoo{3, 3, {0, 3}, {1, 0}, {}};
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, toCsr(coo));
  coo = SparseCoo{3, 3, {0}, {1}, {1.0f, 2.0f}};
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, toCsr(coo));
}

void TestSparseMatrix::transposeTwiceIsIdentity() {
  const SparseCsr csr = randomCsr(33, 71, 0.15, 11);
  const SparseCsr t = transposed(csr);
  checkCanonical(t);
  QCOMPARE(t.rows, 71);
  QCOMPARE(t.cols, 33);
  for (int r = 0; r < csr.rows; ++r)
    for (int q = csr.rowStart[r]; q < csr.rowStart[r + 1]; ++q) {
      const int c = csr.colIndex[q];
      const auto begin = t.colIndex.begin() + t.rowStart[c],
                 end = t.colIndex.begin() + t.rowStart[c + 1];
      const auto it = std::lower_bound(begin, end, r);
      QVERIFY(it != end && *it == r);
      QCOMPARE(t.values[it - t.colIndex.begin()], csr.values[q]);
    }
  QVERIFY(transposed(t) == csr);
}

void TestSparseMatrix::checkCanonicalCatchesUnsortedRows() {
  SparseCsr csr{2, 4, {0, 2, 3}, {3, 1, 0}, {}};
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, checkCanonical(csr));
  csr.colIndex = {1, 3, 4};
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, checkCanonical(csr));
  csr.colIndex = {1, 3, 0};
  checkCanonical(csr);
}

void TestSparseMatrix::memoryFormulas() {
  QCOMPARE(cooBytes(1000), std::uint64_t(12000));
  QCOMPARE(csrBytes(1000, 9), std::uint64_t(8000 + 40));
}

void TestSparseMatrix::mixAddsImmediateAtItsPositions() {
  SparseCsr mask = randomCsr(40, 60, 0.3, 5);
  // I: a random subset of the mask's entries.
  SparseCsr immediate{mask.rows, mask.cols, {0}, {}, {}};
  std::mt19937_64 rng(9);
  for (int r = 0; r < mask.rows; ++r) {
    for (int q = mask.rowStart[r]; q < mask.rowStart[r + 1]; ++q)
      if (rng() % 3 == 0) {
        immediate.colIndex.push_back(mask.colIndex[q]);
        immediate.values.push_back(float(rng() % 100));
      }
    immediate.rowStart.push_back(static_cast<std::int32_t>(immediate.colIndex.size()));
  }
  QVERIFY(immediate.nnz() > 50);
  const JacobianMix mix(immediate, mask);
  std::vector<float> values = mask.values;
  mix.addImmediate(immediate.values, values);
  // Against a search, entry by entry.
  std::vector<float> expected = mask.values;
  for (int r = 0; r < mask.rows; ++r)
    for (int e = immediate.rowStart[r]; e < immediate.rowStart[r + 1]; ++e)
      for (int q = mask.rowStart[r]; q < mask.rowStart[r + 1]; ++q)
        if (mask.colIndex[q] == immediate.colIndex[e]) expected[q] += immediate.values[e];
  QCOMPARE(values, expected);
  std::vector<float> tooShort(3);
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, mix.addImmediate(immediate.values, tooShort));
}

void TestSparseMatrix::mixRejectsEntriesOutsideTheMask() {
  const SparseCsr mask{2, 3, {0, 1, 2}, {0, 2}, {}};
  const SparseCsr immediate{2, 3, {0, 1, 2}, {0, 1}, {}};
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, JacobianMix(immediate, mask));
}

QTEST_GUILESS_MAIN(TestSparseMatrix)
#include "tst_sparsematrix.moc"

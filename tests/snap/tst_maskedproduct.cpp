// R = M ⊙ (D X) computed sparsely equals D X formed densely, then masked.
#include <QTest>

#include <cmath>
#include <random>

#include "random_sparse.hpp"
#include "rnnwb/core/snap/masked_product.hpp"

using namespace rnnwb::snap;
using rnnwb::testing::randomCsr;

namespace {

std::vector<float> randomDense(int rows, int cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> d(static_cast<std::size_t>(rows) * cols);
  for (float& x : d) x = value(rng);
  return d;
}

double relativeError(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

}  // namespace

class TestMaskedProduct : public QObject {
  Q_OBJECT
 private slots:
  void equalsDenseThenMasked_data();
  void equalsDenseThenMasked();
  void snapShapeSharedPattern();
  void rejectsMismatchedShapes();
};

void TestMaskedProduct::equalsDenseThenMasked_data() {
  QTest::addColumn<int>("m");
  QTest::addColumn<int>("k");
  QTest::addColumn<int>("p");
  QTest::addColumn<double>("xDensity");
  QTest::addColumn<double>("mDensity");
  QTest::addColumn<int>("threads");
  QTest::newRow("square, 1 thread") << 32 << 32 << 200 << 0.2 << 0.1 << 1;
  QTest::newRow("rectangular, 2 threads") << 17 << 45 << 333 << 0.05 << 0.3 << 2;
  QTest::newRow("dense operands, 3 threads") << 8 << 8 << 50 << 1.0 << 1.0 << 3;
  QTest::newRow("more threads than columns") << 5 << 6 << 3 << 0.5 << 0.5 << 8;
  QTest::newRow("empty mask") << 10 << 10 << 40 << 0.3 << 0.0 << 2;
  QTest::newRow("hardware threads") << 64 << 64 << 1000 << 0.02 << 0.05 << 0;
  // Enough work (> 2e5 per thread) for the product to start its threads; columns of ~51 entries
  // take the vectorized gather, the dense-column row above the scattered dense dot.
  QTest::newRow("threaded, long gathers") << 64 << 512 << 2000 << 0.1 << 0.2 << 2;
  QTest::newRow("threaded, short gathers") << 200 << 200 << 20000 << 0.1 << 0.1 << 2;
  QTest::newRow("threaded, dense columns") << 96 << 96 << 3000 << 0.6 << 0.6 << 3;
}

void TestMaskedProduct::equalsDenseThenMasked() {
  QFETCH(int, m);
  QFETCH(int, k);
  QFETCH(int, p);
  QFETCH(double, xDensity);
  QFETCH(double, mDensity);
  QFETCH(int, threads);
  const std::vector<float> d = randomDense(m, k, 1);
  const SparseCsr xT = randomCsr(p, k, xDensity, 2);
  const SparseCsr mT = randomCsr(p, m, mDensity, 3, true);
  std::vector<float> fast(mT.nnz()), slow(mT.nnz());
  maskedProduct(d.data(), m, k, xT, mT, fast, threads);
  maskedProductReference(d.data(), m, k, xT, mT, slow);
  QVERIFY2(relativeError(fast, slow) < 1e-6,
           qPrintable(QString::number(relativeError(fast, slow))));
}

void TestMaskedProduct::snapShapeSharedPattern() {
  // SnAp's shape: D k x k, X and M k x p sharing one pattern.
  const int k = 48, p = k * k;
  const std::vector<float> d = randomDense(k, k, 4);
  const SparseCsr xT = randomCsr(p, k, 0.1, 5);
  SparseCsr mT = xT;
  mT.values.clear();
  std::vector<float> fast(mT.nnz()), slow(mT.nnz());
  maskedProduct(d.data(), k, k, xT, mT, fast, 2);
  maskedProductReference(d.data(), k, k, xT, mT, slow);
  QVERIFY(relativeError(fast, slow) < 1e-6);
  // One entry by hand.
  int j = 0;
  while (xT.rowStart[j + 1] == xT.rowStart[j]) ++j;
  const int s = mT.colIndex[mT.rowStart[j]];
  double expected = 0;
  for (int b = xT.rowStart[j]; b < xT.rowStart[j + 1]; ++b)
    expected += double(d[s * k + xT.colIndex[b]]) * xT.values[b];
  QVERIFY(std::fabs(fast[mT.rowStart[j]] - expected) < 1e-5);
}

void TestMaskedProduct::rejectsMismatchedShapes() {
  const std::vector<float> d = randomDense(4, 5, 1);
  const SparseCsr xT = randomCsr(6, 5, 0.5, 2);
  const SparseCsr mT = randomCsr(6, 4, 0.5, 3, true);
  std::vector<float> out(mT.nnz());
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, maskedProduct(d.data(), 4, 6, xT, mT, out));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, maskedProduct(d.data(), 5, 5, xT, mT, out));
  std::vector<float> wrong(mT.nnz() + 1);
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, maskedProduct(d.data(), 4, 5, xT, mT, wrong));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                           maskedProduct(d.data(), 4, 5, randomCsr(6, 5, 0.5, 2, true), mT, out));
}

QTEST_GUILESS_MAIN(TestMaskedProduct)
#include "tst_maskedproduct.moc"

// The dense products of core (products.hpp): sgemm / sgemv / sger against a double-precision
// loop for every transpose, strided operands, alpha and beta, one-row and one-column shapes; the
// thread count's owner and its per-thread scopes; bit-for-bit repeats; the kernels named.
#include <QTest>

#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "rnnwb/core/engine/products.hpp"

using namespace rnnwb;

namespace {

std::vector<float> randomValues(std::size_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(generator);
  return values;
}

/// C = alpha op(A) op(B) + beta C in double, row-major with leading dimensions.
std::vector<double> reference(bool ta, bool tb, int m, int n, int k, float alpha,
                              const std::vector<float>& a, int lda, const std::vector<float>& b,
                              int ldb, float beta, const std::vector<float>& c, int ldc) {
  std::vector<double> out(c.begin(), c.end());
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int p = 0; p < k; ++p)
        sum +=
            double(ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
      out[i * ldc + j] = alpha * sum + beta * double(c[i * ldc + j]);
    }
  return out;
}

void compareClose(const std::vector<float>& got, const std::vector<double>& want) {
  QCOMPARE(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    QVERIFY2(std::abs(got[i] - want[i]) <= 1e-5 * (std::abs(want[i]) + 1.0),
             qPrintable(QString("element %1: %2 vs %3").arg(i).arg(got[i]).arg(want[i])));
}

}  // namespace

class TestProducts : public QObject {
  Q_OBJECT
 private slots:
  void sgemmMatchesDoublePrecision_data();
  void sgemmMatchesDoublePrecision();
  void sgemvAndSgerMatchDoublePrecision();
  void emptyProductsTouchNothing();
  void threadCountHasOneOwner();
  void scopesArePerThread();
  void repeatsBitForBit();
  void namesTheKernels();
};

void TestProducts::sgemmMatchesDoublePrecision_data() {
  QTest::addColumn<bool>("ta");
  QTest::addColumn<bool>("tb");
  QTest::addColumn<int>("m");
  QTest::addColumn<int>("n");
  QTest::addColumn<int>("k");
  QTest::addColumn<float>("alpha");
  QTest::addColumn<float>("beta");
  QTest::addColumn<int>("pad");  // added to every leading dimension
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const QString t = QString("%1%2").arg(ta ? 'T' : 'N').arg(tb ? 'T' : 'N');
      QTest::addRow("%s square", qPrintable(t)) << ta << tb << 33 << 33 << 33 << 1.0f << 0.0f << 0;
      QTest::addRow("%s one row", qPrintable(t)) << ta << tb << 1 << 40 << 17 << 1.0f << 1.0f << 0;
      QTest::addRow("%s one column", qPrintable(t))
          << ta << tb << 40 << 1 << 9 << 1.0f << 1.0f << 0;
      QTest::addRow("%s rank one", qPrintable(t)) << ta << tb << 12 << 13 << 1 << 0.5f << 1.0f << 0;
      QTest::addRow("%s strided, alpha, beta", qPrintable(t))
          << ta << tb << 20 << 70 << 30 << -0.75f << 0.5f << 5;
      QTest::addRow("%s step shape", qPrintable(t))
          << ta << tb << 32 << 1024 << 256 << 1.0f << 1.0f << 0;
    }
}

void TestProducts::sgemmMatchesDoublePrecision() {
  QFETCH(bool, ta);
  QFETCH(bool, tb);
  QFETCH(int, m);
  QFETCH(int, n);
  QFETCH(int, k);
  QFETCH(float, alpha);
  QFETCH(float, beta);
  QFETCH(int, pad);
  const int lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
  const auto a = randomValues(std::size_t(ta ? k : m) * lda, 1);
  const auto b = randomValues(std::size_t(tb ? n : k) * ldb, 2);
  auto c = randomValues(std::size_t(m) * ldc, 3);
  const auto want = reference(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  sgemm(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  // The padding columns of C are not part of the product: they must be as they were.
  compareClose(c, want);
}

void TestProducts::sgemvAndSgerMatchDoublePrecision() {
  const int m = 37, n = 53, lda = 60;
  const auto a = randomValues(std::size_t(m) * lda, 4);
  const auto x = randomValues(n, 5), xt = randomValues(m, 6);
  auto y = randomValues(m, 7), yt = randomValues(n, 8);
  // As products with one column: y = 2 A x + 0.5 y, yt = Aᵀ xt + yt.
  const auto wantY = reference(false, false, m, 1, n, 2.0f, a, lda, x, 1, 0.5f, y, 1);
  const auto wantYt = reference(true, false, n, 1, m, 1.0f, a, lda, xt, 1, 1.0f, yt, 1);
  sgemv(false, m, n, 2.0f, a.data(), lda, x.data(), 0.5f, y.data());
  sgemv(true, m, n, 1.0f, a.data(), lda, xt.data(), 1.0f, yt.data());
  compareClose(y, wantY);
  compareClose(yt, wantYt);
  auto w = randomValues(std::size_t(m) * lda, 9);
  const auto wantW = reference(false, false, m, n, 1, 1.5f, xt, 1, x, n, 1.0f, w, lda);
  sger(m, n, 1.5f, xt.data(), x.data(), w.data(), lda);
  compareClose(w, wantW);
}

void TestProducts::emptyProductsTouchNothing() {
  std::vector<float> a(4, 1.0f), c(4, 7.0f);
  sgemm(false, false, 0, 2, 2, 1.0f, a.data(), 2, a.data(), 2, 0.0f, c.data(), 2);
  sgemm(false, false, 2, 2, 0, 1.0f, a.data(), 2, a.data(), 2, 0.0f, c.data(), 2);
  QCOMPARE(c, std::vector<float>(4, 7.0f));
}

void TestProducts::threadCountHasOneOwner() {
  const int before = computeThreads();
  QVERIFY(before >= 1);
  setComputeThreads(3);
  QCOMPARE(computeThreads(), 3);
  QCOMPARE(blasThreads(), 3);
  setComputeThreads(0);  // 0 leaves the count as it is
  QCOMPARE(computeThreads(), 3);
  setBlasThreads(before);
  QCOMPARE(computeThreads(), before);
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ProductThreadsScope(0));
}

void TestProducts::scopesArePerThread() {
  // Two threads in scopes of different counts at once, each checking its products; the scopes
  // leave the process-wide count alone.
  const int before = computeThreads();
  const auto a = randomValues(64 * 64, 10), b = randomValues(64 * 64, 11);
  const auto want = reference(false, true, 64, 64, 64, 1.0f, a, 64, b, 64, 0.0f,
                              std::vector<float>(64 * 64, 0.0f), 64);
  std::vector<float> one(64 * 64), two(64 * 64);
  std::thread other([&] {
    const ProductThreadsScope scope(2);
    for (int r = 0; r < 20; ++r)
      sgemm(false, true, 64, 64, 64, 1.0f, a.data(), 64, b.data(), 64, 0.0f, two.data(), 64);
  });
  {
    const ProductThreadsScope scope(1);
    for (int r = 0; r < 20; ++r)
      sgemm(false, true, 64, 64, 64, 1.0f, a.data(), 64, b.data(), 64, 0.0f, one.data(), 64);
  }
  other.join();
  compareClose(one, want);
  compareClose(two, want);
  QCOMPARE(computeThreads(), before);
}

void TestProducts::repeatsBitForBit() {
  const auto a = randomValues(96 * 200, 12), b = randomValues(200 * 300, 13);
  std::vector<float> first(96 * 300, 0.0f), second(96 * 300, 0.0f);
  sgemm(false, false, 96, 300, 200, 1.0f, a.data(), 200, b.data(), 300, 0.0f, first.data(), 300);
  sgemm(false, false, 96, 300, 200, 1.0f, a.data(), 200, b.data(), 300, 0.0f, second.data(), 300);
  QVERIFY(first == second);
}

void TestProducts::namesTheKernels() {
  const std::string kernels = productKernels();
#ifdef RNNWB_EXPECT_ONEDNN
  QVERIFY2(kernels.rfind("oneDNN ", 0) == 0, kernels.c_str());
#else
  QVERIFY2(kernels.rfind("OpenBLAS ", 0) == 0, kernels.c_str());
#endif
}

QTEST_APPLESS_MAIN(TestProducts)
#include "tst_products.moc"

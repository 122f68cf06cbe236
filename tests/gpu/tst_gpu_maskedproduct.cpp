// Each GPU implementation of R = M ⊙ (D X) against the CPU one (snap::maskedProduct), by relative
// error on random inputs. Without a device the executable exits with 77, which CTest reports as
// skipped (SKIP_RETURN_CODE), never as passed.
#include <QTest>

#include <cmath>
#include <cstdio>
#include <random>

#include "random_sparse.hpp"
#include "rnnwb/core/snap/masked_product.hpp"
#include "rnnwb/gpu/csr_view.hpp"
#include "rnnwb/gpu/device.hpp"

using namespace rnnwb;
using gpu::MaskedProductKernel;

namespace {

constexpr int kSkipped = 77;

std::vector<float> randomDense(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> d(count);
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

class TestGpuMaskedProduct : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void matchesCpu_data();
  void matchesCpu();
  void newValuesOnTheSamePattern();
  void rejectsMismatchedShapes();
};

void TestGpuMaskedProduct::initTestCase() { qInfo("device: %s", gpu::deviceDescription().c_str()); }

void TestGpuMaskedProduct::matchesCpu_data() {
  QTest::addColumn<int>("m");
  QTest::addColumn<int>("k");
  QTest::addColumn<int>("p");
  QTest::addColumn<double>("density");
  QTest::addColumn<bool>("shared");  // X and M share one pattern, as in SnAp
  QTest::addColumn<int>("kernel");
  for (int kernel = 0; kernel <= int(MaskedProductKernel::DenseThenMask); ++kernel) {
    const char* name = gpu::toString(MaskedProductKernel(kernel));
    QTest::addRow("%s snap k=64 d=0.1", name) << 64 << 64 << 64 * 64 << 0.1 << true << kernel;
    QTest::addRow("%s snap k=128 d=0.01", name)
        << 128 << 128 << 128 * 128 << 0.01 << true << kernel;
    QTest::addRow("%s snap k=96 d=0.5", name) << 96 << 96 << 96 * 96 << 0.5 << true << kernel;
    QTest::addRow("%s rectangular", name) << 37 << 200 << 999 << 0.2 << false << kernel;
    QTest::addRow("%s dense columns", name) << 70 << 70 << 300 << 1.0 << false << kernel;
  }
}

void TestGpuMaskedProduct::matchesCpu() {
  QFETCH(int, m);
  QFETCH(int, k);
  QFETCH(int, p);
  QFETCH(double, density);
  QFETCH(bool, shared);
  QFETCH(int, kernel);
  const std::vector<float> d = randomDense(std::size_t(m) * k, 1);
  const snap::SparseCsr xT = testing::randomCsr(p, k, density, 2);
  snap::SparseCsr mT = shared ? xT : testing::randomCsr(p, m, density, 3, true);
  mT.values.clear();
  std::vector<float> cpu(mT.nnz());
  snap::maskedProduct(d.data(), m, k, xT, mT, cpu);
  gpu::MaskedProductGpu product;
  product.setOperands(d.data(), m, k, gpu::viewOf(xT), gpu::viewOf(mT));
  product.run(MaskedProductKernel(kernel));
  const double error = relativeError(product.result(), cpu);
  QVERIFY2(error < 1e-5, qPrintable(QString("relative error %1").arg(error)));
}

void TestGpuMaskedProduct::newValuesOnTheSamePattern() {
  const int k = 80;
  const snap::SparseCsr xT = testing::randomCsr(k * k, k, 0.05, 4);
  snap::SparseCsr mT = xT;
  mT.values.clear();
  gpu::MaskedProductGpu product;
  product.setOperands(randomDense(k * k, 5).data(), k, k, gpu::viewOf(xT), gpu::viewOf(mT));
  for (MaskedProductKernel kernel : {MaskedProductKernel::CusparseSddmm, MaskedProductKernel::Tiled,
                                     MaskedProductKernel::Naive, MaskedProductKernel::Flat})
    product.run(kernel);
  // A second step: new D and X values, same pattern; cuSPARSE keeps its preprocessing.
  const std::vector<float> d = randomDense(k * k, 6);
  snap::SparseCsr x2 = xT;
  x2.values = randomDense(xT.values.size(), 7);
  product.updateValues(d.data(), x2.values.data());
  std::vector<float> cpu(mT.nnz());
  snap::maskedProduct(d.data(), k, k, x2, mT, cpu);
  for (MaskedProductKernel kernel :
       {MaskedProductKernel::CusparseSddmm, MaskedProductKernel::Tiled, MaskedProductKernel::Naive,
        MaskedProductKernel::Flat, MaskedProductKernel::DenseThenMask}) {
    product.run(kernel);
    QVERIFY2(relativeError(product.result(), cpu) < 1e-5, gpu::toString(kernel));
  }
}

void TestGpuMaskedProduct::rejectsMismatchedShapes() {
  const snap::SparseCsr xT = testing::randomCsr(10, 6, 0.5, 8);
  const snap::SparseCsr mT = testing::randomCsr(10, 5, 0.5, 9, true);
  const std::vector<float> d = randomDense(30, 10);
  gpu::MaskedProductGpu product;
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                           product.setOperands(d.data(), 6, 5, gpu::viewOf(xT), gpu::viewOf(mT)));
}

int main(int argc, char** argv) {
  if (!gpu::deviceAvailable()) {
    std::printf("SKIPPED: %s\n", gpu::deviceDescription().c_str());
    return kSkipped;
  }
  QCoreApplication app(argc, argv);
  TestGpuMaskedProduct test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_gpu_maskedproduct.moc"

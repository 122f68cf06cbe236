// SnAp's Jacobian update against a dense reference on random values placed on the node's own
// I and D patterns: with M_n it equals the dense masked recursion, with M_∞ the dense unmasked
// one (exact RTRL loses nothing), and the gradient read-out equals Jᵀ g.
#include <QTest>

#include <cmath>
#include <random>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/snap/snap_jacobian.hpp"
#include "snap_test_graphs.hpp"

using namespace rnnwb;
using namespace rnnwb::snap;

namespace {

/// Dense |h| x |θ| Jacobian, row-major, with the recursion written out.
struct DenseRtrl {
  int h = 0, theta = 0;
  std::vector<double> j;
  void step(const std::vector<float>& d, const std::vector<double>& immediate,
            const SparseCsr* mask) {
    std::vector<double> next(j.size(), 0.0);
    for (int s = 0; s < h; ++s)
      for (int t = 0; t < h; ++t)
        if (const double w = d[s * h + t]; w != 0.0)
          for (int p = 0; p < theta; ++p)
            next[std::size_t(s) * theta + p] += w * j[std::size_t(t) * theta + p];
    if (mask) {
      std::vector<double> kept(j.size(), 0.0);
      for (int p = 0; p < theta; ++p)
        for (int q = mask->rowStart[p]; q < mask->rowStart[p + 1]; ++q) {
          const std::size_t at = std::size_t(mask->colIndex[q]) * theta + p;
          kept[at] = next[at];
        }
      next.swap(kept);
    }
    for (std::size_t i = 0; i < j.size(); ++i) j[i] = next[i] + immediate[i];
  }
};

/// Compares Ĵ with the dense J: equal on Ĵ's pattern, and J zero outside it.
double mismatch(const SnapJacobian& sparse, const DenseRtrl& dense) {
  std::vector<double> onPattern(dense.j.size(), 0.0);
  const SparseCsr& jt = sparse.byParameter();
  for (int p = 0; p < jt.rows; ++p)
    for (int q = jt.rowStart[p]; q < jt.rowStart[p + 1]; ++q)
      onPattern[std::size_t(jt.colIndex[q]) * dense.theta + p] = jt.values[q];
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < onPattern.size(); ++i)
    diff += (onPattern[i] - dense.j[i]) * (onPattern[i] - dense.j[i]),
        norm += dense.j[i] * dense.j[i];
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

/// Runs `frames` steps of SnAp-n (0 = exact) and the dense reference (masked unless n = 0) on
/// random D_t and I_t with the node's patterns; returns the worst mismatch and checks gradients.
double compareOnNode(const CompiledPlan& plan, int node, int n, int frames, std::uint64_t seed) {
  const SnapPatterns patterns(RtrlNodeLayout(plan, node));
  SnapJacobian sparse = SnapJacobian::forNode(patterns, n);
  const SparseCsr immediate = patterns.expandByParameter(patterns.immediate());
  const SparseCsr mask =
      patterns.expandByParameter(n == 0 ? patterns.exactMask() : patterns.mask(n));
  const int h = patterns.stateSize(), theta = static_cast<int>(patterns.parameterCount());
  DenseRtrl dense{h, theta, std::vector<double>(std::size_t(h) * theta, 0.0)};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-0.5f, 0.5f);
  double worst = 0;
  for (int t = 0; t < frames; ++t) {
    std::vector<float> d(std::size_t(h) * h, 0.0f);
    for (int col = 0; col < h; ++col)
      for (int s : patterns.dynamics().rowsOf(col)) d[std::size_t(s) * h + col] = value(rng);
    std::vector<float> iValues(immediate.nnz());
    std::vector<double> iDense(dense.j.size(), 0.0);
    for (int p = 0; p < theta; ++p)
      for (int q = immediate.rowStart[p]; q < immediate.rowStart[p + 1]; ++q)
        iDense[std::size_t(immediate.colIndex[q]) * theta + p] = iValues[q] = value(rng);
    sparse.step(d.data(), iValues, 2);
    dense.step(d, iDense, n == 0 ? nullptr : &mask);
    worst = std::max(worst, mismatch(sparse, dense));
  }
  std::vector<float> g(h), gradient(theta, 0.0f);
  for (float& x : g) x = value(rng);
  sparse.accumulateGradient(g, gradient);
  for (int p = 0; p < theta; ++p) {
    double expected = 0;
    for (int s = 0; s < h; ++s) expected += g[s] * dense.j[std::size_t(s) * theta + p];
    worst = std::max(worst, std::fabs(gradient[p] - expected) / (1.0 + std::fabs(expected)));
  }
  return worst;
}

int recurrentNode(const CompiledPlan& plan, int which = 0) {
  for (int i = 0; i < static_cast<int>(plan.nodes().size()); ++i)
    if (plan.nodes()[i].recurrent && which-- == 0) return i;
  return -1;
}

}  // namespace

class TestSnapJacobian : public QObject {
  Q_OBJECT
 private slots:
  void matchesDenseRecursionOnExamples_data();
  void matchesDenseRecursionOnExamples();
  void matchesDenseRecursionOnRandomGraphs();
  void resetClearsTheJacobian();
};

void TestSnapJacobian::matchesDenseRecursionOnExamples_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<int>("n");
  for (const char* file : {"elman.rnn.json", "lstm-peephole.rnn.json", "gru.rnn.json",
                           "gru-complement.rnn.json", "sparse-rnn.rnn.json"})
    for (int n : {1, 2, 0}) {
      const QString level = n == 0 ? QString("exact") : QString("SnAp-%1").arg(n);
      QTest::newRow(qPrintable(QString("%1 %2").arg(file, level))) << QString(file) << n;
    }
}

void TestSnapJacobian::matchesDenseRecursionOnExamples() {
  QFETCH(QString, file);
  QFETCH(int, n);
  const CompiledPlan plan(
      loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/" + file.toStdString()));
  const double error = compareOnNode(plan, recurrentNode(plan), n, 4, 17);
  QVERIFY2(error < 1e-5, qPrintable(QString("mismatch %1").arg(error)));
}

void TestSnapJacobian::matchesDenseRecursionOnRandomGraphs() {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const CompiledPlan plan(testing::makeSnapTestGraph(seed));
    for (int node = 0; node < static_cast<int>(plan.nodes().size()); ++node) {
      if (!plan.nodes()[node].recurrent) continue;
      for (int n : {1, 2, 0}) {
        const double error = compareOnNode(plan, node, n, 6, seed);
        QVERIFY2(
            error < 1e-5,
            qPrintable(QString("seed %1 node %2 n %3: %4").arg(seed).arg(node).arg(n).arg(error)));
      }
    }
  }
}

void TestSnapJacobian::resetClearsTheJacobian() {
  const CompiledPlan plan(loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/elman.rnn.json"));
  const SnapPatterns patterns(RtrlNodeLayout(plan, recurrentNode(plan)));
  SnapJacobian j = SnapJacobian::forNode(patterns, 1);
  std::vector<float> d(32 * 32, 0.1f), immediate(j.immediateNnz(), 1.0f);
  j.step(d.data(), immediate);
  QVERIFY(std::any_of(j.byParameter().values.begin(), j.byParameter().values.end(),
                      [](float v) { return v != 0; }));
  j.reset();
  QVERIFY(std::all_of(j.byParameter().values.begin(), j.byParameter().values.end(),
                      [](float v) { return v == 0; }));
  std::vector<float> wrong(3);
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, j.step(d.data(), wrong));
}

QTEST_GUILESS_MAIN(TestSnapJacobian)
#include "tst_snapjacobian.moc"

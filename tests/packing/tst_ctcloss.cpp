// CTC against a brute-force sum over every alignment on tiny inputs, its gradient against finite
// differences, greedy decoding and the edit distance.
#include <QTest>

#include <cmath>
#include <random>

#include "rnnwb/core/mdlstm/ctc_loss.hpp"

using namespace rnnwb::mdlstm;

namespace {

// Collapse an alignment (merge repeats, drop blanks).
std::vector<int> collapse(const std::vector<int>& path) {
  std::vector<int> out;
  int previous = 0;
  for (int k : path) {
    if (k != 0 && k != previous) out.push_back(k);
    previous = k;
  }
  return out;
}

// -log of the sum over all K^T paths that collapse to `labels` of the product of softmaxes.
double bruteForceLoss(const std::vector<float>& logits, int T, int K,
                      const std::vector<int>& labels) {
  std::vector<double> p(logits.size());
  for (int t = 0; t < T; ++t) {
    double sum = 0;
    for (int k = 0; k < K; ++k) sum += std::exp(double(logits[t * K + k]));
    for (int k = 0; k < K; ++k) p[t * K + k] = std::exp(double(logits[t * K + k])) / sum;
  }
  double total = 0;
  std::vector<int> path(T, 0);
  for (long code = 0, paths = std::lround(std::pow(K, T)); code < paths; ++code) {
    long c = code;
    double prob = 1;
    for (int t = 0; t < T; ++t, c /= K) {
      path[t] = int(c % K);
      prob *= p[t * K + path[t]];
    }
    if (collapse(path) == labels) total += prob;
  }
  return -std::log(total);
}

std::vector<float> randomLogits(std::mt19937& rng, int n) {
  std::normal_distribution<float> d(0.0f, 1.5f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace

class TestCtcLoss : public QObject {
  Q_OBJECT
 private slots:
  void matchesBruteForce_data();
  void matchesBruteForce();
  void gradientMatchesFiniteDifferences();
  void impossibleAlignmentIsInfinite();
  void greedyDecodeAndEditDistance();
};

void TestCtcLoss::matchesBruteForce_data() {
  QTest::addColumn<int>("frames");
  QTest::addColumn<QList<int>>("labels");
  QTest::newRow("T4 a") << 4 << QList<int>{1};
  QTest::newRow("T4 ab") << 4 << QList<int>{1, 2};
  QTest::newRow("T5 aa (needs a blank)") << 5 << QList<int>{1, 1};
  QTest::newRow("T5 aba") << 5 << QList<int>{1, 2, 1};
  QTest::newRow("T3 aa exactly") << 3 << QList<int>{1, 1};
  QTest::newRow("T6 empty") << 6 << QList<int>{};
}

void TestCtcLoss::matchesBruteForce() {
  QFETCH(int, frames);
  QFETCH(QList<int>, labels);
  const std::vector<int> l(labels.begin(), labels.end());
  std::mt19937 rng(frames * 10 + int(l.size()));
  for (int trial = 0; trial < 5; ++trial) {
    const auto logits = randomLogits(rng, frames * 3);
    const double expected = bruteForceLoss(logits, frames, 3, l);
    const CtcResult r = ctcLoss(logits, frames, 3, l);
    QVERIFY2(std::abs(r.loss - expected) < 1e-6 * std::max(1.0, expected),
             qPrintable(QString("%1 vs %2").arg(r.loss).arg(expected)));
  }
}

void TestCtcLoss::gradientMatchesFiniteDifferences() {
  std::mt19937 rng(4);
  auto logits = randomLogits(rng, 7 * 4);
  const std::vector<int> labels{1, 3, 3, 2};
  const CtcResult r = ctcLoss(logits, 7, 4, labels);
  for (std::size_t k = 0; k < logits.size(); ++k) {
    const float keep = logits[k];
    logits[k] = keep + 1e-3f;
    const double up = ctcLoss(logits, 7, 4, labels).loss;
    logits[k] = keep - 1e-3f;
    const double down = ctcLoss(logits, 7, 4, labels).loss;
    logits[k] = keep;
    const double numeric = (up - down) / 2e-3;
    QVERIFY2(std::abs(numeric - r.gradient[k]) < 2e-3,
             qPrintable(QString("%1: %2 vs %3").arg(k).arg(numeric).arg(r.gradient[k])));
  }
  // Each frame's gradient sums to zero (softmax minus a distribution).
  for (int t = 0; t < 7; ++t) {
    double sum = 0;
    for (int k = 0; k < 4; ++k) sum += r.gradient[t * 4 + k];
    QVERIFY(std::abs(sum) < 1e-5);
  }
}

void TestCtcLoss::impossibleAlignmentIsInfinite() {
  // "aa" needs 3 frames (a, blank, a); 2 are too few.
  const CtcResult r = ctcLoss(std::vector<float>(6, 0.0f), 2, 3, {1, 1});
  QVERIFY(std::isinf(r.loss));
  QVERIFY_EXCEPTION_THROWN(ctcLoss(std::vector<float>(6, 0.0f), 2, 3, {3}), std::invalid_argument);
}

void TestCtcLoss::greedyDecodeAndEditDistance() {
  // Frames: a a blank a b b -> "aab".
  const int best[] = {1, 1, 0, 1, 2, 2};
  std::vector<float> logits(6 * 3, 0.0f);
  for (int t = 0; t < 6; ++t) logits[t * 3 + best[t]] = 5.0f;
  QCOMPARE(ctcGreedyDecode(logits, 6, 3), (std::vector<int>{1, 1, 2}));
  QCOMPARE(editDistance({1, 2, 3}, {1, 3}), 1);
  QCOMPARE(editDistance({}, {1, 2}), 2);
  QCOMPARE(editDistance({1, 2, 3, 4}, {2, 1, 3, 5}), 3);
}

QTEST_APPLESS_MAIN(TestCtcLoss)
#include "tst_ctcloss.moc"

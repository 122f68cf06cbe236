// Optimizers, clipping and the learning-rate schedule against steps computed by hand.
#include <QTest>

#include <cmath>
#include <vector>

#include "rnnwb/core/train/learning_rate_schedule.hpp"
#include "rnnwb/core/train/optimizer.hpp"

using namespace rnnwb::train;

namespace {
OptimizerSettings sgd(double momentum) {
  OptimizerSettings s;
  s.kind = OptimizerKind::Sgd;
  s.momentum = momentum;
  return s;
}
OptimizerSettings adam() {
  OptimizerSettings s;
  s.kind = OptimizerKind::Adam;
  return s;
}
}  // namespace

class TestOptimizer : public QObject {
  Q_OBJECT
 private slots:
  void sgdMomentumTwoSteps();
  void plainSgdIsGradientDescent();
  void adamTwoSteps();
  void adamFirstStepMovesByTheLearningRate();
  void zeroGradientNeverMoves_data();
  void zeroGradientNeverMoves();
  void stateRestoresExactly_data();
  void stateRestoresExactly();
  void resetForgetsTheMoments();
  void restoreRejectsWrongLength();
  void wrongBufferLengthThrows();
  void invalidSettingsThrow();
  void clipping();
  void normOfEveryLength();
  void halvingWhenValidationGetsWorse();
  void noHalvingWhenOff();
};

void TestOptimizer::sgdMomentumTwoSteps() {
  // v1 = g = [0.5, 1]; p1 = p0 - 0.1 v1 = [0.95, -2.1]
  // v2 = 0.9 v1 + g2 = [0.45 - 1, 0.9 + 0.5] = [-0.55, 1.4]; p2 = [1.005, -2.24]
  auto opt = makeOptimizer(sgd(0.9), 2);
  std::vector<float> p = {1.0f, -2.0f};
  opt->step(p, std::vector<float>{0.5f, 1.0f}, 0.1);
  QCOMPARE(p[0], 0.95f);
  QCOMPARE(p[1], -2.1f);
  opt->step(p, std::vector<float>{-1.0f, 0.5f}, 0.1);
  QVERIFY(std::abs(p[0] - 1.005f) < 1e-6f);
  QVERIFY(std::abs(p[1] - -2.24f) < 1e-6f);
  QCOMPARE(opt->state().updates, std::int64_t(2));
}

void TestOptimizer::plainSgdIsGradientDescent() {
  auto opt = makeOptimizer(sgd(0.0), 1);
  std::vector<float> p = {1.0f};
  opt->step(p, std::vector<float>{2.0f}, 0.25);
  QCOMPARE(p[0], 0.5f);
  opt->step(p, std::vector<float>{2.0f}, 0.25);  // no memory of the first step
  QCOMPARE(p[0], 0.0f);
}

void TestOptimizer::adamTwoSteps() {
  // Step 1, g = 0.5: m = 0.05, v = 0.00025, m^ = 0.5, v^ = 0.25 -> p = 1 - 0.1*0.5/0.5 = 0.9.
  // Step 2, g = -1: m = 0.045 - 0.1 = -0.055, v = 0.00024975 + 0.001 = 0.00124975,
  //   m^ = -0.055/0.19 = -0.2894737, v^ = 0.00124975/0.001999 = 0.6251876, sqrt = 0.7906881,
  //   p = 0.9 + 0.1*0.2894737/0.7906881 = 0.9366102.
  auto opt = makeOptimizer(adam(), 1);
  std::vector<float> p = {1.0f};
  opt->step(p, std::vector<float>{0.5f}, 0.1);
  QVERIFY2(std::abs(p[0] - 0.9f) < 1e-6f, qPrintable(QString::number(p[0], 'g', 9)));
  opt->step(p, std::vector<float>{-1.0f}, 0.1);
  QVERIFY2(std::abs(p[0] - 0.9366102f) < 2e-6f, qPrintable(QString::number(p[0], 'g', 9)));
  const OptimizerState s = opt->state();
  QCOMPARE(s.buffers.size(), std::size_t(2));
  QVERIFY(std::abs(s.buffers[0].second[0] - -0.055f) < 1e-7f);
  // (1 - 0.999) in float is 0.000999987, hence a relative tolerance.
  QVERIFY(std::abs(s.buffers[1].second[0] / 0.00124975f - 1.0f) < 2e-5f);
}

void TestOptimizer::adamFirstStepMovesByTheLearningRate() {
  // Adam's first step is lr * sign(g) whatever the gradient's scale (up to epsilon).
  auto opt = makeOptimizer(adam(), 3);
  std::vector<float> p = {0.0f, 0.0f, 0.0f};
  opt->step(p, std::vector<float>{1e-3f, -50.0f, 7.0f}, 0.01);
  QVERIFY(std::abs(p[0] - -0.01f) < 1e-7f);
  QVERIFY(std::abs(p[1] - 0.01f) < 1e-7f);
  QVERIFY(std::abs(p[2] - -0.01f) < 1e-7f);
}

void TestOptimizer::zeroGradientNeverMoves_data() {
  QTest::addColumn<bool>("useAdam");
  QTest::newRow("sgd") << false;
  QTest::newRow("adam") << true;
}

void TestOptimizer::zeroGradientNeverMoves() {
  // A weight that a mask removes has gradient 0 and must stay 0.
  QFETCH(bool, useAdam);
  auto opt = makeOptimizer(useAdam ? adam() : sgd(0.9), 2);
  std::vector<float> p = {0.0f, 1.0f};
  for (int i = 0; i < 5; ++i) opt->step(p, std::vector<float>{0.0f, 0.3f}, 0.1);
  QCOMPARE(p[0], 0.0f);
  QVERIFY(p[1] < 1.0f);
}

void TestOptimizer::stateRestoresExactly_data() { zeroGradientNeverMoves_data(); }

void TestOptimizer::stateRestoresExactly() {
  QFETCH(bool, useAdam);
  const OptimizerSettings settings = useAdam ? adam() : sgd(0.8);
  auto a = makeOptimizer(settings, 3);
  std::vector<float> p = {0.1f, -0.2f, 0.3f};
  const std::vector<std::vector<float>> grads = {
      {0.3f, -0.1f, 2.0f}, {-0.7f, 0.2f, 0.1f}, {0.05f, 0.4f, -1.0f}, {1.0f, 1.0f, 1.0f}};
  a->step(p, grads[0], 0.01);
  a->step(p, grads[1], 0.01);
  const OptimizerState saved = a->state();
  std::vector<float> q = p;
  a->step(p, grads[2], 0.01);
  a->step(p, grads[3], 0.01);
  auto b = makeOptimizer(settings, 3);
  b->restore(saved);
  b->step(q, grads[2], 0.01);
  b->step(q, grads[3], 0.01);
  QCOMPARE(q, p);  // bit for bit
  QCOMPARE(b->state().updates, a->state().updates);
}

void TestOptimizer::resetForgetsTheMoments() {
  auto opt = makeOptimizer(adam(), 1);
  std::vector<float> p = {0.0f};
  opt->step(p, std::vector<float>{5.0f}, 0.1);
  opt->step(p, std::vector<float>{-3.0f}, 0.1);
  opt->reset();
  QCOMPARE(opt->state().updates, std::int64_t(0));
  const float before = p[0];
  opt->step(p, std::vector<float>{-2.0f}, 0.1);  // a first step again: exactly +lr
  QVERIFY(std::abs(p[0] - (before + 0.1f)) < 1e-6f);
}

void TestOptimizer::restoreRejectsWrongLength() {
  auto opt = makeOptimizer(adam(), 4);
  OptimizerState s{{{"m", std::vector<float>(3)}, {"v", std::vector<float>(4)}}, 1};
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, opt->restore(s));
  OptimizerState wrongName{{{"velocity", std::vector<float>(4)}}, 1};
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, opt->restore(wrongName));
}

void TestOptimizer::wrongBufferLengthThrows() {
  auto opt = makeOptimizer(sgd(0.9), 2);
  std::vector<float> p(3);
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, opt->step(p, std::vector<float>(3), 0.1));
}

void TestOptimizer::invalidSettingsThrow() {
  OptimizerSettings s = sgd(1.0);
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeOptimizer(s, 1));
  s = adam();
  s.beta2 = 1.0;
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeOptimizer(s, 1));
  s = adam();
  s.learningRate = 0.0;
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeOptimizer(s, 1));
}

void TestOptimizer::clipping() {
  std::vector<float> g = {3.0f, 4.0f};
  QCOMPARE(clipGradientNorm(g, 1.0), 5.0);
  QVERIFY(std::abs(g[0] - 0.6f) < 1e-7f && std::abs(g[1] - 0.8f) < 1e-7f);
  g = {3.0f, 4.0f};
  QCOMPARE(clipGradientNorm(g, 10.0), 5.0);  // under the limit: unchanged
  QCOMPARE(g, (std::vector<float>{3.0f, 4.0f}));
  QCOMPARE(clipGradientNorm(g, 0.0), 5.0);  // off
  QCOMPARE(g, (std::vector<float>{3.0f, 4.0f}));
}

void TestOptimizer::normOfEveryLength() {
  // l2Norm's eight partial sums and their tail, against one sum in long double, at lengths
  // around the lanes' multiples and at char-lm's parameter count.
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8},
                              std::size_t{9}, std::size_t{17}, std::size_t{105790}}) {
    std::vector<float> v(n);
    long double sum = 0.0L;
    for (std::size_t i = 0; i < n; ++i) {
      v[i] = std::sin(0.37f * static_cast<float>(i) + 1.0f) * (i % 3 == 0 ? 1e-3f : 2.5f);
      sum += static_cast<long double>(v[i]) * v[i];
    }
    const double expected = static_cast<double>(std::sqrt(sum));
    const double norm = l2Norm(v);
    QVERIFY2(
        std::abs(norm - expected) <= 1e-14 * expected,
        qPrintable(
            QString("n %1: %2 against %3").arg(n).arg(norm, 0, 'g', 17).arg(expected, 0, 'g', 17)));
  }
}

void TestOptimizer::halvingWhenValidationGetsWorse() {
  LearningRateSchedule s(0.4, true);
  QVERIFY(!s.onValidation(2.0));  // the first has nothing to compare with
  QVERIFY(!s.onValidation(1.5));
  QVERIFY(s.onValidation(1.7));  // worse than 1.5
  QCOMPARE(s.rate(), 0.2);
  QVERIFY(s.onValidation(1.8));  // worse than 1.7 (the previous one, not the best)
  QCOMPARE(s.rate(), 0.1);
  QVERIFY(!s.onValidation(1.0));
  QVERIFY(!s.onValidation(1.0));  // equal is not worse
  QCOMPARE(s.halvings(), 2);
  QCOMPARE(s.previousValidLoss().value(), 1.0);
}

void TestOptimizer::noHalvingWhenOff() {
  LearningRateSchedule s(0.4, false);
  s.onValidation(1.0);
  QVERIFY(!s.onValidation(2.0));
  QCOMPARE(s.rate(), 0.4);
}

QTEST_GUILESS_MAIN(TestOptimizer)
#include "tst_optimizer.moc"

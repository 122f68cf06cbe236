// The shared activation maths: the vectorizable approximations stay within a few float ulps of
// the standard library, saturate without overflow, and let NaN through so callers can see it.
#include <QTest>

#include <cmath>
#include <limits>

#include "rnnwb/core/engine/activation_math.hpp"

using namespace rnnwb;

class TestActivationMath : public QObject {
  Q_OBJECT
 private slots:
  void expMatchesTheLibrary();
  void sigmoidAndTanhMatchTheLibrary();
  void saturatesAndPropagatesNaN();
  void softmaxAndCrossEntropy();
  void derivativesFromOutputs();
};

void TestActivationMath::expMatchesTheLibrary() {
  double worst = 0;
  for (double x = -87.0; x <= 88.0; x += 0.0137) {
    const double expected = std::exp(double(float(x)));
    worst = std::max(worst, std::abs(math::expApprox(float(x)) - expected) / expected);
  }
  QVERIFY2(worst < 5e-7, qPrintable(QString::number(worst)));
}

void TestActivationMath::sigmoidAndTanhMatchTheLibrary() {
  double worstSigmoid = 0, worstTanh = 0;
  for (double x = -30.0; x <= 30.0; x += 0.00731) {
    const float s = float(x);
    const double sigmoid = 1.0 / (1.0 + std::exp(-double(s)));
    worstSigmoid = std::max(worstSigmoid, std::abs(math::sigmoid(s) - sigmoid) / sigmoid);
    const double tanh = std::tanh(double(s));
    worstTanh = std::max(worstTanh, std::abs(math::tanhApprox(s) - tanh) / std::abs(tanh));
  }
  QVERIFY2(worstSigmoid < 1e-6, qPrintable(QString::number(worstSigmoid)));
  QVERIFY2(worstTanh < 1e-6, qPrintable(QString::number(worstTanh)));
  QCOMPARE(math::tanhApprox(1e-6f), 1e-6f);
  QCOMPARE(math::activate(Activation::Relu, -2.0f), 0.0f);
  QCOMPARE(math::activate(Activation::Identity, -2.0f), -2.0f);
}

void TestActivationMath::saturatesAndPropagatesNaN() {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  QCOMPARE(math::sigmoid(1000.0f), 1.0f);
  QVERIFY(math::sigmoid(-1000.0f) >= 0.0f && math::sigmoid(-1000.0f) < 1e-37f);
  QCOMPARE(math::tanhApprox(inf), 1.0f);
  QCOMPARE(math::tanhApprox(-inf), -1.0f);
  QVERIFY(std::isfinite(math::expApprox(1000.0f)));
  QVERIFY(std::isnan(math::expApprox(nan)));
  QVERIFY(std::isnan(math::sigmoid(nan)));
  QVERIFY(std::isnan(math::tanhApprox(nan)));
  const float logits[] = {1.0f, nan, 0.0f};
  QVERIFY(!std::isfinite(math::crossEntropyFromLogits(logits, 3, 0)));
}

void TestActivationMath::softmaxAndCrossEntropy() {
  const float s[] = {1000.0f, 999.0f, -5.0f};
  float y[3];
  math::softmax(s, y, 3);
  QVERIFY(std::abs(y[0] + y[1] + y[2] - 1.0f) < 1e-6f);
  QVERIFY(std::abs(y[0] / y[1] - std::exp(1.0f)) < 1e-5f);
  const double expected = std::log(std::exp(0.0) + std::exp(-1.0) + std::exp(-1005.0)) + 1.0;
  QVERIFY(std::abs(math::crossEntropyFromLogits(s, 3, 1) - expected) < 1e-9);
  // A probability that underflows still gives the exact, finite loss.
  QVERIFY(std::abs(math::crossEntropyFromLogits(s, 3, 2) - (1005.0 + expected - 1.0)) < 1e-6);
  const float dy[] = {1.0f, 0.0f, 0.0f};
  float ds[3];
  math::softmaxBackward(y, dy, ds, 3);
  QVERIFY(std::abs(ds[0] - y[0] * (1 - y[0])) < 1e-6f);
  QVERIFY(std::abs(ds[1] + y[0] * y[1]) < 1e-6f);
}

void TestActivationMath::derivativesFromOutputs() {
  QCOMPARE(math::derivativeFromOutput(Activation::Sigmoid, 0.25f), 0.1875f);
  QCOMPARE(math::derivativeFromOutput(Activation::Tanh, 0.5f), 0.75f);
  QCOMPARE(math::derivativeFromOutput(Activation::Relu, 0.0f), 0.0f);
  QCOMPARE(math::derivativeFromOutput(Activation::Relu, 3.0f), 1.0f);
  QCOMPARE(math::derivativeFromOutput(Activation::Identity, 3.0f), 1.0f);
}

QTEST_APPLESS_MAIN(TestActivationMath)
#include "tst_activationmath.moc"

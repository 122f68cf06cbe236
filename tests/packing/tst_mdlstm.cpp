// The 2-D LSTM (Leaky LP cell) over packed batches: each example's result inside a packed batch
// equals the example computed alone, in every scan direction and for every packer; gradients
// against finite differences.
#include <QTest>

#include "random_examples.hpp"

#include <random>

#include "rnnwb/core/mdlstm/mdlstm_layer.hpp"
#include "rnnwb/core/packing/packers.hpp"

using namespace rnnwb::mdlstm;
using namespace rnnwb::packing;

namespace {

// Examples of up to 7 x 9 pixels.
std::vector<FeatureMap> randomExamples(std::mt19937& rng, int count, int channels) {
  return testing::randomExamples(rng, count, channels, 7, 9);
}

using testing::sizesOf;

FeatureMap randomLike(std::mt19937& rng, const FeatureMap& shape, int channels) {
  FeatureMap m(shape.height, shape.width, channels);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float& v : m.data) v = value(rng);
  return m;
}

float maxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  float worst = a.size() == b.size() ? 0.0f : 1e30f;
  for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k)
    worst = std::max(worst, std::abs(a[k] - b[k]));
  return worst;
}

// Output and input gradient of one example alone (a layout of just that example).
std::pair<FeatureMap, FeatureMap> alone(const Mdlstm2dParameters& p, const FeatureMap& x,
                                        const FeatureMap& dOut, ScanDirection d,
                                        Mdlstm2dParameters& grads) {
  const ExampleSize size{x.height, x.width};
  const PackedLayout l = packBaseline(std::span(&size, 1));
  Mdlstm2dTape tape;
  FeatureMap out = mdlstmForwardPacked(p, l, x, d, tape);
  FeatureMap dx = mdlstmBackwardPacked(p, l, d, tape, dOut, grads);
  return {std::move(out), std::move(dx)};
}

}  // namespace

class TestMdlstm : public QObject {
  Q_OBJECT
 private slots:
  void packedEqualsAlone_data();
  void packedEqualsAlone();
  void gradientsMatchFiniteDifferences_data();
  void gradientsMatchFiniteDifferences();
  void cellStateStaysBounded();
};

void TestMdlstm::packedEqualsAlone_data() {
  QTest::addColumn<QString>("packer");
  QTest::addColumn<int>("direction");
  for (const std::string& name :
       {std::string("baseline"), std::string("shelf"), std::string("padded")})
    for (int d = 0; d < 4; ++d)
      QTest::newRow((name + " " + scanDirectionName(kScanDirections[d])).c_str())
          << QString::fromStdString(name) << d;
}

void TestMdlstm::packedEqualsAlone() {
  QFETCH(QString, packer);
  QFETCH(int, direction);
  const ScanDirection d = kScanDirections[direction];
  std::mt19937 rng(100 + direction);
  const auto examples = randomExamples(rng, 9, 2);
  Mdlstm2dParameters p(2, 3);
  p.initialize(17);
  for (float& b : p.bias) b = 0.3f;  // biases make padding cells non-zero if the mask leaked
  const PackedLayout l = packer == "padded" ? padBatch(sizesOf(examples))
                                            : packWith(packer.toStdString(), sizesOf(examples));
  std::vector<FeatureMap> dOuts;
  for (const FeatureMap& e : examples) dOuts.push_back(randomLike(rng, e, 3));
  Mdlstm2dTape tape;
  const auto outs = unpack(l, mdlstmForwardPacked(p, l, pack(l, examples), d, tape));
  Mdlstm2dParameters packedGrads(2, 3), aloneGrads(2, 3);
  const auto dxs = unpack(l, mdlstmBackwardPacked(p, l, d, tape, pack(l, dOuts), packedGrads));
  for (std::size_t i = 0; i < examples.size(); ++i) {
    const auto [out, dx] = alone(p, examples[i], dOuts[i], d, aloneGrads);
    QVERIFY2(maxAbsDiff(outs[i].data, out.data) <= 1e-5f, qPrintable(QString::number(i)));
    QVERIFY2(maxAbsDiff(dxs[i].data, dx.data) <= 1e-5f, qPrintable(QString::number(i)));
  }
  for (std::size_t t = 0; t < 4; ++t)
    QVERIFY(maxAbsDiff(packedGrads.tensors()[t][0], aloneGrads.tensors()[t][0]) <= 1e-4f);
}

void TestMdlstm::gradientsMatchFiniteDifferences_data() {
  QTest::addColumn<int>("direction");
  for (int d = 0; d < 4; ++d) QTest::newRow(scanDirectionName(kScanDirections[d])) << d;
}

void TestMdlstm::gradientsMatchFiniteDifferences() {
  // Loss = sum(out * R) over a packed batch of three examples; central differences in float
  // with eps = 1e-2 agree with the analytic gradient to ~1e-3.
  QFETCH(int, direction);
  const ScanDirection d = kScanDirections[direction];
  std::mt19937 rng(7 + direction);
  auto examples = randomExamples(rng, 3, 2);
  Mdlstm2dParameters p(2, 2);
  p.initialize(3);
  for (float& b : p.bias) b = 0.2f;
  const PackedLayout l = packShelves(sizesOf(examples));
  FeatureMap x = pack(l, examples);
  const FeatureMap r = randomLike(rng, x, 2);
  auto loss = [&]() {
    Mdlstm2dTape tape;
    const FeatureMap out = mdlstmForwardPacked(p, l, x, d, tape);
    double sum = 0;
    for (std::size_t k = 0; k < out.data.size(); ++k) sum += double(out.data[k]) * r.data[k];
    return sum;
  };
  Mdlstm2dTape tape;
  mdlstmForwardPacked(p, l, x, d, tape);
  Mdlstm2dParameters grads(2, 2);
  const FeatureMap dx = mdlstmBackwardPacked(p, l, d, tape, r, grads);
  const float eps = 1e-2f;
  auto check = [&](float& value, float analytic, const char* what) {
    const float keep = value;
    value = keep + eps;
    const double up = loss();
    value = keep - eps;
    const double down = loss();
    value = keep;
    const double numeric = (up - down) / (2 * eps);
    QVERIFY2(
        std::abs(numeric - analytic) <= 2e-3 + 2e-2 * std::abs(numeric),
        qPrintable(QString("%1: numeric %2 analytic %3").arg(what).arg(numeric).arg(analytic)));
  };
  for (std::size_t k = 0; k < x.data.size(); k += 3) check(x.data[k], dx.data[k], "input");
  const auto params = p.tensors();
  const auto gradients = grads.tensors();
  const char* names[] = {"input weights", "left weights", "up weights", "bias"};
  for (std::size_t t = 0; t < params.size(); ++t)
    for (std::size_t k = 0; k < params[t]->size(); k += 2)
      check((*params[t])[k], (*gradients[t])[k], names[t]);
}

void TestMdlstm::cellStateStaysBounded() {
  // Large weights on a 40 x 60 image: the Leaky LP cell keeps |c| <= 1 (convex mixes).
  Mdlstm2dParameters p(1, 4);
  p.initialize(5);
  for (auto* t : p.tensors())
    for (float& w : *t) w *= 8.0f;
  FeatureMap x(40, 60, 1), mask(40, 60, 1);
  std::fill(x.data.begin(), x.data.end(), 1.0f);
  std::fill(mask.data.begin(), mask.data.end(), 1.0f);
  const Mdlstm2dTape t = mdlstmForward(p, x, mask);
  for (float c : t.cells.data) QVERIFY(std::abs(c) <= 1.0f + 1e-6f);
}

QTEST_APPLESS_MAIN(TestMdlstm)
#include "tst_mdlstm.moc"

// The word recogniser: its JSON config, gradients of the whole model (block convolutions, four
// 2-D LSTM directions on packed batches, output layer, CTC) against finite differences, and a
// few training steps that lower the loss.
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

#include <random>

#include "rnnwb/core/mdlstm/word_data.hpp"
#include "word_recognizer.hpp"

using namespace rnnwb::mdlstm;
using rnnwb::packing::Image;

namespace {

RecognizerConfig tinyConfig(const std::string& packer) {
  return parseRecognizerConfig(
      nlohmann::json::parse(R"({"name": "tiny", "alphabet": "ab", "packer": ")" + packer +
                            R"(", "optimizer": {"learning_rate": 0.02},
        "layers": [{"type": "block_conv", "block": [2, 2], "outputs": 3},
                   {"type": "mdlstm", "units": 2},
                   {"type": "block_conv", "block": [2, 1], "outputs": 4},
                   {"type": "mdlstm", "units": 3}]})"),
      "tiny");
}

// 'a' is a dark square in the upper half of a 6-pixel cell, 'b' one in the lower half.
WordExample patternWord(const std::string& text) {
  Image img(12, 7 * static_cast<int>(text.size()) + 1, 1, 255);
  for (std::size_t k = 0; k < text.size(); ++k) {
    const int top = text[k] == 'a' ? 1 : 6;
    for (int y = top; y < top + 5; ++y)
      for (int x = 0; x < 6; ++x) *img.pixel(y, 1 + 7 * int(k) + x) = 0;
  }
  return {img, text};
}

std::vector<WordExample> patternBatch(std::mt19937& rng, int count) {
  std::vector<WordExample> batch;
  std::uniform_int_distribution<int> length(1, 3), letter(0, 1);
  for (int i = 0; i < count; ++i) {
    std::string text;
    for (int k = length(rng); k > 0; --k) text += letter(rng) ? 'a' : 'b';
    batch.push_back(patternWord(text));
  }
  return batch;
}

}  // namespace

class TestWordRecognizer : public QObject {
  Q_OBJECT
 private slots:
  void exampleConfigIsThePapersSmallModel();
  void configErrorsNameTheLayer();
  void gradientsMatchFiniteDifferences_data();
  void gradientsMatchFiniteDifferences();
  void trainingStepsLowerTheLoss();
  void unknownCharacterNamesTheExample();
  void iamFolderTrains();
};

void TestWordRecognizer::exampleConfigIsThePapersSmallModel() {
  const RecognizerConfig c = readRecognizerConfig(RNNWB_RETIRED_DIR "/words-model.json");
  std::vector<int> units;
  for (const RecognizerLayerConfig& l : c.layers)
    if (l.kind == RecognizerLayerConfig::Kind::Mdlstm) units.push_back(l.units);
  QCOMPARE(units, (std::vector<int>{2, 10, 50}));
  QCOMPARE(int(c.alphabet.size()), 52);
  WordRecognizer model(c);
  QVERIFY(model.parameterCount() > 10000);
}

void TestWordRecognizer::configErrorsNameTheLayer() {
  auto error = [](const char* text) -> QString {
    try {
      parseRecognizerConfig(nlohmann::json::parse(text), "m.json");
    } catch (const std::exception& e) {
      return e.what();
    }
    return {};
  };
  QVERIFY(error(R"({"alphabet": "ab", "layers": [{"type": "mdlstm", "units": 2},
                   {"type": "conv3d"}]})")
              .contains("m.json: layers[1]: unknown layer type"));
  QVERIFY(error(R"({"alphabet": "ab", "layers": [{"type": "block_conv", "block": [2],
                   "outputs": 3}]})")
              .contains("layers[0]: 'block' must be"));
  QVERIFY(error(R"({"layers": []})").contains("'alphabet'"));
  QVERIFY(error(R"({"alphabet": "a", "packer": "magic", "layers": [{"type": "mdlstm",
                   "units": 1}]})")
              .contains("unknown packer 'magic'"));
}

void TestWordRecognizer::gradientsMatchFiniteDifferences_data() {
  QTest::addColumn<QString>("packer");
  QTest::newRow("baseline") << "baseline";
  QTest::newRow("shelf") << "shelf";
}

void TestWordRecognizer::gradientsMatchFiniteDifferences() {
  QFETCH(QString, packer);
  WordRecognizer model(tinyConfig(packer.toStdString()), 3);
  std::mt19937 rng(1);
  std::vector<WordExample> batch{patternWord("ab"), patternWord("b"), patternWord("aab")};
  std::uniform_int_distribution<int> noise(0, 80);
  for (WordExample& w : batch)
    for (auto& p : w.image.pixels) p = static_cast<std::uint8_t>(std::max(0, p - noise(rng)));
  const RecognizerReport r = model.computeGradients(batch);
  QCOMPARE(r.skipped, 0);
  const auto params = model.parameters();
  const auto grads = model.gradients();
  const float eps = 1e-2f;
  int checked = 0;
  for (std::size_t t = 0; t < params.size(); ++t)
    for (std::size_t k = 0; k < params[t]->size(); k += 1 + params[t]->size() / 4) {
      float& w = (*params[t])[k];
      const float keep = w;
      w = keep + eps;
      const double up = model.evaluate(batch).loss;
      w = keep - eps;
      const double down = model.evaluate(batch).loss;
      w = keep;
      const double numeric = (up - down) / (2 * eps), analytic = (*grads[t])[k];
      QVERIFY2(std::abs(numeric - analytic) <= 3e-3 + 5e-2 * std::abs(numeric),
               qPrintable(QString("tensor %1 [%2]: numeric %3 analytic %4")
                              .arg(t)
                              .arg(k)
                              .arg(numeric)
                              .arg(analytic)));
      ++checked;
    }
  QVERIFY(checked > 60);
}

void TestWordRecognizer::trainingStepsLowerTheLoss() {
  WordRecognizer model(tinyConfig("shelf"), 5);
  std::mt19937 rng(2);
  const auto batch = patternBatch(rng, 8);
  const double before = model.evaluate(batch).loss;
  RecognizerReport last;
  for (int step = 0; step < 80; ++step) last = model.trainStep(batch);
  QVERIFY(last.mdlstmCells > 0);
  QVERIFY(last.gradNorm > 0);
  const RecognizerReport after = model.evaluate(batch);
  QVERIFY2(after.loss < 0.5 * before,
           qPrintable(QString("loss %1 -> %2").arg(before).arg(after.loss)));
  QVERIFY(after.cer <= 1.0);
}

void TestWordRecognizer::unknownCharacterNamesTheExample() {
  WordRecognizer model(tinyConfig("baseline"));
  try {
    model.evaluate({patternWord("ab"), {patternWord("a").image, "ax"}});
    QFAIL("no error for a character outside the alphabet");
  } catch (const std::invalid_argument& e) {
    QVERIFY2(QString(e.what()).contains("example 1 ('ax'): character 'x'"), e.what());
  }
}

void TestWordRecognizer::iamFolderTrains() {
  // A tiny IAM tree: two usable words, one "err" segmentation, one with a character outside
  // the alphabet; the usable ones go through a training step.
  QTemporaryDir tmp;
  const std::filesystem::path root = tmp.path().toStdString();
  std::filesystem::create_directories(root / "words/a01/a01-000u");
  const char* ids[] = {"a01-000u-00-00", "a01-000u-00-01", "a01-000u-00-02", "a01-000u-00-03"};
  const char* texts[] = {"ab", "ba", "ab", "a."};
  for (int i = 0; i < 4; ++i)
    rnnwb::packing::writePng(root / "words/a01/a01-000u" / (std::string(ids[i]) + ".png"),
                             patternWord(i == 3 ? "a" : texts[i]).image);
  std::ofstream txt(root / "words.txt");
  for (int i = 0; i < 4; ++i)
    txt << ids[i] << (i == 2 ? " err" : " ok") << " 154 1 2 3 4 NN " << texts[i] << "\n";
  txt.close();
  int skipped = -1;
  const auto examples = readIamExamples(root, "ab", &skipped);
  QCOMPARE(int(examples.size()), 2);
  QCOMPARE(skipped, 2);
  QCOMPARE(examples[1].text, std::string("ba"));
  QVERIFY(examples[0].image == patternWord("ab").image);
  WordRecognizer model(tinyConfig("shelf"));
  const RecognizerReport r = model.trainStep(examples);
  QCOMPARE(r.examples, 2);
  QVERIFY(std::isfinite(r.loss) && r.loss > 0);
  QVERIFY_EXCEPTION_THROWN(readIamExamples(root / "words", "ab"), std::runtime_error);
  QCOMPARE(int(syntheticExamples(3, 1).size()), 3);
}

QTEST_APPLESS_MAIN(TestWordRecognizer)
#include "tst_wordrecognizer.moc"

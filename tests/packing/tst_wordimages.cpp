// PNG in and out, the IAM loader on a small tree made here, and the synthetic word generator.
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

#include "rnnwb/core/packing/word_images.hpp"

using namespace rnnwb::packing;
namespace fs = std::filesystem;

namespace {
SyntheticWordOptions seeded(std::uint64_t seed) {
  SyntheticWordOptions o;
  o.seed = seed;
  return o;
}

Image stripes(int h, int w) {
  Image img(h, w, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) *img.pixel(y, x) = static_cast<std::uint8_t>((x * 37 + y) % 256);
  return img;
}
}  // namespace

class TestWordImages : public QObject {
  Q_OBJECT
 private slots:
  void pngRoundTrip();
  void iamTreeIsLoaded();
  void iamErrorsNameTheLine();
  void syntheticWordsAreDeterministic();
  void syntheticSizesAreIamLike();
};

void TestWordImages::pngRoundTrip() {
  QTemporaryDir dir;
  const fs::path file = fs::path(dir.path().toStdString()) / "a.png";
  const Image img = stripes(7, 13);
  writePng(file, img);
  QVERIFY(readGrayPng(file) == img);
  QCOMPARE(readPngSize(file), (ExampleSize{7, 13}));
  const FeatureMap ink = inkFeatures(img);
  QCOMPARE(ink.at(0, 0), 1.0f);
  QCOMPARE(ink.at(2, 1), 1.0f - 39.0f / 255.0f);
  QVERIFY_EXCEPTION_THROWN(readGrayPng(file.parent_path() / "missing.png"), std::runtime_error);
}

void TestWordImages::iamTreeIsLoaded() {
  // words.txt beside words/a01/a01-000u/<id>.png as the IAM download has it; lines in a flat dir.
  QTemporaryDir tmp;
  const fs::path root = tmp.path().toStdString();
  fs::create_directories(root / "words/a01/a01-000u");
  writePng(root / "words/a01/a01-000u/a01-000u-00-00.png", stripes(30, 40));
  writePng(root / "words/a01/a01-000u/a01-000u-00-01.png", stripes(25, 90));
  std::ofstream(root / "words.txt") << "#--- words.txt ---\n"
                                    << "a01-000u-00-00 ok 154 408 768 27 51 AT A\n"
                                    << "a01-000u-00-01 err 154 507 766 213 48 NN MOVE\n";
  QCOMPARE(findIamTranscriptions(root), root / "words.txt");
  const auto words = readIamTranscriptions(root / "words.txt", root);
  QCOMPARE(int(words.size()), 2);
  QCOMPARE(words[0].text, std::string("A"));
  QVERIFY(words[0].segmentationOk);
  QVERIFY(!words[1].segmentationOk);
  QCOMPARE(readPngSize(words[1].image), (ExampleSize{25, 90}));
  writePng(root / "a01-000u-00.png", stripes(60, 300));
  std::ofstream(root / "lines.txt") << "a01-000u-00 ok 154 19 408 746 1661 89 A|MOVE|to|stop\n";
  const auto lines = readIamTranscriptions(root / "lines.txt", root);
  QCOMPARE(lines[0].text, std::string("A MOVE to stop"));
  QCOMPARE(int(listPngFiles(root).size()), 3);
}

void TestWordImages::iamErrorsNameTheLine() {
  QTemporaryDir tmp;
  const fs::path root = tmp.path().toStdString();
  std::ofstream(root / "words.txt") << "# comment\n"
                                    << "a01-000u-00-00 ok 154 408\n";
  try {
    readIamTranscriptions(root / "words.txt", root);
    QFAIL("no error for a short line");
  } catch (const std::runtime_error& e) {
    QVERIFY2(QString(e.what()).contains("words.txt:2:"), e.what());
  }
  std::ofstream(root / "words.txt") << "a01-000u-00-09 ok 154 408 768 27 51 AT A\n";
  try {
    readIamTranscriptions(root / "words.txt", root);
    QFAIL("no error for a missing image");
  } catch (const std::runtime_error& e) {
    QVERIFY2(QString(e.what()).contains("words.txt:1: no image a01-000u-00-09.png"), e.what());
  }
}

void TestWordImages::syntheticWordsAreDeterministic() {
  const auto a = generateSyntheticWords(25, seeded(5));
  const auto b = generateSyntheticWords(25, seeded(5));
  const auto c = generateSyntheticWords(25, seeded(6));
  int differentFromC = 0;
  for (int i = 0; i < 25; ++i) {
    QCOMPARE(a[i].text, b[i].text);
    QVERIFY(a[i].image == b[i].image);
    differentFromC += a[i].text != c[i].text;
  }
  QVERIFY(differentFromC > 20);
  // Ink is there: some pixels dark, most paper.
  const Image& img = a[0].image;
  const auto dark =
      std::count_if(img.pixels.begin(), img.pixels.end(), [](auto p) { return p < 100; });
  QVERIFY(dark > 10);
  QVERIFY(dark < static_cast<long>(img.pixels.size()) * 3 / 4);
}

void TestWordImages::syntheticSizesAreIamLike() {
  const auto words = generateSyntheticWords(300, seeded(2));
  int tallest = 0, widest = 0, tall = 0;
  for (const WordImage& w : words) {
    QVERIFY(w.image.height >= 20 && w.image.height <= 200);
    QVERIFY(w.image.width >= 20 && w.image.width <= 1000);
    tallest = std::max(tallest, w.image.height);
    widest = std::max(widest, w.image.width);
    tall += w.image.height > 100;
  }
  QVERIFY2(tallest > 120 && widest > 500, "the size spread is too narrow");
  QVERIFY(tall > 10 && tall < 150);
}

QTEST_APPLESS_MAIN(TestWordImages)
#include "tst_wordimages.moc"

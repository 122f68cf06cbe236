// The examples `rnnwb pack` and the workbench's packing view share: sizes files (errors name the
// line), image folders (sorted, headers only, pixels on demand), synthetic words (the generator's
// own), progress and cancellation, and one batch packed and drawn (drawSourceBatch).
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

#include "rnnwb/core/packing/example_source.hpp"
#include "rnnwb/core/packing/packers.hpp"
#include "rnnwb/core/packing/packing_ops.hpp"
#include "rnnwb/core/packing/packing_picture.hpp"

using namespace rnnwb::packing;
namespace fs = std::filesystem;

namespace {

fs::path writeText(const QTemporaryDir& dir, const char* name, const char* text) {
  const fs::path path = fs::path(dir.path().toStdString()) / name;
  std::ofstream(path) << text;
  return path;
}

Image gradient(int h, int w) {
  Image img(h, w, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      *img.pixel(y, x) = static_cast<std::uint8_t>((x * 31 + y * 7) % 256);
  return img;
}

SyntheticWordOptions smallWords() {
  SyntheticWordOptions o;
  o.seed = 3;
  o.minPixelSize = 8;
  o.maxPixelSize = 12;
  return o;
}

// Records every progress call; returns false (cancels) once `stopAt` examples are done.
struct ProgressLog {
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  std::size_t stopAt = 0;
  LoadProgress callback() {
    return [this](std::size_t done, std::size_t total) {
      calls.emplace_back(done, total);
      return stopAt == 0 || done < stopAt;
    };
  }
};

}  // namespace

class TestExampleSource : public QObject {
  Q_OBJECT
 private slots:
  void sizesFile();
  void sizesFileErrorsNameTheLine();
  void imageFolder();
  void syntheticWordsAreTheGenerators();
  void cancelling();
  void inkWithoutPixelsShowsTheExtent();
  void batchCounts();
  void drawSourceBatchIsCoresPicture();
  void pictureScaleRule();
};

void TestExampleSource::sizesFile() {
  QTemporaryDir dir;
  const ExampleSource s = loadSizesFile(writeText(dir, "s.txt", "10 20\n\n  8 30 \r\n7 2\n"));
  QCOMPARE(s.sizes, (std::vector<ExampleSize>{{10, 20}, {8, 30}, {7, 2}}));
  QVERIFY(s.files.empty() && s.images.empty());
}

void TestExampleSource::sizesFileErrorsNameTheLine() {
  QTemporaryDir dir;
  const auto message = [](const fs::path& file) -> std::string {
    try {
      loadSizesFile(file);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  };
  const fs::path bad = writeText(dir, "bad.txt", "3 4\n\n5 6 7\n");
  QCOMPARE(message(bad), bad.string() +
                             ":3: expected 'height width' (two positive integers), "
                             "got '5 6 7'");
  QVERIFY(message(writeText(dir, "zero.txt", "3 0\n")).find("zero.txt:1:") != std::string::npos);
  QVERIFY(message(writeText(dir, "x.txt", "3 x\n")).find("x.txt:1:") != std::string::npos);
  QCOMPARE(message(writeText(dir, "empty.txt", "\n\n")), std::string("no examples to pack"));
  const fs::path missing = fs::path(dir.path().toStdString()) / "missing.txt";
  QCOMPARE(message(missing),
           missing.string() + ": cannot read the sizes file: No such file or directory");
}

void TestExampleSource::imageFolder() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  fs::create_directories(root / "b");
  writePng(root / "b" / "1.png", gradient(5, 9));
  writePng(root / "a.png", gradient(7, 3));
  writePng(root / "c.png", gradient(4, 4));
  ProgressLog log;
  const ExampleSource s = loadImageFolder(root, log.callback());
  QCOMPARE(s.files, (std::vector<fs::path>{root / "a.png", root / "b" / "1.png", root / "c.png"}));
  QCOMPARE(s.sizes, (std::vector<ExampleSize>{{7, 3}, {5, 9}, {4, 4}}));
  QVERIFY(s.images.empty());  // pixels are read when drawn
  QCOMPARE(log.calls.size(), std::size_t(3));
  QCOMPARE(log.calls.back(), (std::pair<std::size_t, std::size_t>{3, 3}));
  const std::vector<FeatureMap> ink = s.ink(1, 2);
  QCOMPARE(ink.size(), std::size_t(2));
  QVERIFY(ink[0] == inkFeatures(gradient(5, 9)));
  QVERIFY(ink[1] == inkFeatures(gradient(4, 4)));
  fs::create_directories(root / "empty");
  QVERIFY_EXCEPTION_THROWN(loadImageFolder(root / "empty"), std::runtime_error);
}

void TestExampleSource::syntheticWordsAreTheGenerators() {
  ProgressLog log;
  const ExampleSource s = loadSyntheticWords(7, smallWords(), log.callback());
  const std::vector<WordImage> words = generateSyntheticWords(7, smallWords());
  QCOMPARE(s.images.size(), std::size_t(7));
  for (std::size_t i = 0; i < words.size(); ++i) {
    QVERIFY(s.images[i] == words[i].image);
    QCOMPARE(s.sizes[i], (ExampleSize{words[i].image.height, words[i].image.width}));
  }
  QVERIFY(s.ink(6, 1)[0] == inkFeatures(words[6].image));
  QCOMPARE(log.calls.size(), std::size_t(7));
  QCOMPARE(log.calls.front(), (std::pair<std::size_t, std::size_t>{1, 7}));
}

void TestExampleSource::cancelling() {
  ProgressLog log;
  log.stopAt = 3;
  QVERIFY_EXCEPTION_THROWN(loadSyntheticWords(50, smallWords(), log.callback()), LoadCancelled);
  QCOMPARE(log.calls.size(), std::size_t(3));  // it stopped at once
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  for (const char* name : {"a.png", "b.png", "c.png", "d.png"})
    writePng(root / name, gradient(2, 2));
  ProgressLog folderLog;
  folderLog.stopAt = 2;
  QVERIFY_EXCEPTION_THROWN(loadImageFolder(root, folderLog.callback()), LoadCancelled);
  QCOMPARE(folderLog.calls.size(), std::size_t(2));
}

void TestExampleSource::inkWithoutPixelsShowsTheExtent() {
  ExampleSource s;
  s.sizes = {{2, 3}, {4, 1}};
  const std::vector<FeatureMap> ink = s.ink(0, 2);
  QCOMPARE(ink[1].height, 4);
  QCOMPARE(ink[1].width, 1);
  for (const FeatureMap& m : ink)
    for (float v : m.data) QCOMPARE(v, 0.25f);
  QVERIFY_EXCEPTION_THROWN(s.ink(1, 2), std::out_of_range);
}

void TestExampleSource::batchCounts() {
  QCOMPARE(batchCount(0, 4), std::size_t(0));
  QCOMPARE(batchCount(8, 4), std::size_t(2));
  QCOMPARE(batchCount(9, 4), std::size_t(3));
  QCOMPARE(batchCount(3, 32), std::size_t(1));
  QVERIFY_EXCEPTION_THROWN(batchCount(3, 0), std::invalid_argument);
}

void TestExampleSource::drawSourceBatchIsCoresPicture() {
  ExampleSource s;
  s.sizes = {{10, 20}, {10, 15}, {8, 30}, {10, 9}, {5, 4}, {5, 3}, {5, 4}, {7, 2}, {3, 3}};
  for (const std::string& packer : packerNames()) {
    const BatchPicture p = drawSourceBatch(s, 1, 4, packer, 0);
    QCOMPARE(p.first, std::size_t(4));
    const std::span<const ExampleSize> sizes(s.sizes.data() + 4, 4);
    const PackedLayout layout = packWith(packer, sizes, 0, 4);
    QCOMPARE(p.layout.height, layout.height);
    QCOMPARE(p.layout.width, layout.width);
    QCOMPARE(p.layout.skewedWidth, layout.skewedWidth);
    QCOMPARE(p.scale, pictureScale(layout));
    QVERIFY(p.image == drawPackedBatch(layout, pack(layout, s.ink(4, 4)), p.scale));
  }
  QCOMPARE(drawSourceBatch(s, 2, 4, "baseline", 0).layout.places.size(), std::size_t(1));
  QVERIFY_EXCEPTION_THROWN(drawSourceBatch(s, 3, 4, "baseline", 0), std::out_of_range);
  // A row width narrower than an example names its index in the whole list.
  try {
    drawSourceBatch(s, 0, 4, "baseline", 25);
    QFAIL("no error for an example wider than the row");
  } catch (const std::invalid_argument& e) {
    QVERIFY2(std::string(e.what()).find("example 2 is 30 pixels wide") != std::string::npos,
             e.what());
  }
}

void TestExampleSource::pictureScaleRule() {
  const auto scaleFor = [](int height, int skewedWidth) {
    PackedLayout l;
    l.height = height;
    l.skewedWidth = skewedWidth;
    return pictureScale(l);
  };
  QCOMPARE(scaleFor(10, 59), 8);
  QCOMPARE(scaleFor(60, 10), 3);
  QCOMPARE(scaleFor(10, 199), 3);
  QCOMPARE(scaleFor(200, 10), 1);
}

QTEST_MAIN(TestExampleSource)
#include "tst_examplesource.moc"

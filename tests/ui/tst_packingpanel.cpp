// PackingPanel: the workbench's packing view shows core's figures (every packer beside padding
// and the baseline) for synthetic words and a sizes file, core's picture of the chosen batch,
// the file:line of a malformed sizes file, exports the picture to PNG, and shows only the
// result of the newest settings when they change while work runs. Every expected value is
// computed here by core, never copied.
#include <QComboBox>
#include <QDockWidget>
#include <QImage>
#include <QLabel>
#include <QProgressBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QWidget>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/packing/image_io.hpp"
#include "rnnwb/core/packing/packers.hpp"
#include "rnnwb/core/packing/packing_ops.hpp"
#include "rnnwb/core/packing/packing_picture.hpp"
#include "rnnwb/ui/main_window.hpp"
#include "rnnwb/ui/mask_panel.hpp"
#include "rnnwb/ui/packing_form.hpp"
#include "rnnwb/ui/packing_panel.hpp"
#include "rnnwb/ui/packing_table.hpp"
#include "rnnwb/ui/pixel_image_view.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

constexpr int kTimeoutMs = 30000;

// Small words (pixel sizes 8-14) in batches of 8: quick to render and to draw.
PackingSettings smallWords(int count, quint64 seed = 1) {
  PackingSettings s;
  s.source.wordCount = count;
  s.source.seed = seed;
  s.source.minPixelSize = 8;
  s.source.maxPixelSize = 14;
  s.batchSize = 8;
  return s;
}

PackingSettings sizesFile(const QString& path, int batchSize, int rowWidth) {
  PackingSettings s;
  s.source.kind = PackingSource::Kind::SizesFile;
  s.source.path = path;
  s.batchSize = batchSize;
  s.rowWidth = rowWidth;
  return s;
}

// The examples the panel should have loaded, by core's loaders.
packing::ExampleSource loadByCore(const PackingSource& source) {
  if (source.kind == PackingSource::Kind::SizesFile)
    return packing::loadSizesFile(source.path.toStdString());
  if (source.kind == PackingSource::Kind::ImageFolder)
    return packing::loadImageFolder(source.path.toStdString());
  packing::SyntheticWordOptions options;
  options.seed = source.seed;
  options.minPixelSize = source.minPixelSize;
  options.maxPixelSize = source.maxPixelSize;
  return packing::loadSyntheticWords(source.wordCount, options);
}

QString writeFile(const QTemporaryDir& dir, const char* name, const char* text) {
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
  f.write(text);
  return path;
}

// Waits until the panel shows the result of its current settings.
#define WAIT_IDLE(panel) QTRY_VERIFY_WITH_TIMEOUT(!(panel).isBusy(), kTimeoutMs)

// Every figure of the table equals core's figures for the same settings.
void compareWithCore(const PackingPanel& panel, const PackingSettings& s) {
  const packing::ExampleSource source = loadByCore(s.source);
  const packing::PackingFigures f =
      packing::computeFigures(source.sizes, s.batchSize, s.rowWidth, packing::packerNames());
  const PackingTable* t = panel.table();
  QCOMPARE(t->rowCount(), 2 + static_cast<int>(packing::packerNames().size()));
  QCOMPARE(t->cells("real", PackingTable::Cells), f.real);
  QCOMPARE(t->cells("lmbr", PackingTable::Cells), f.lmbr);
  QCOMPARE(t->cells("lmbr", PackingTable::SkewedCells), f.lmbrSkewed);
  QCOMPARE(t->rowOf("baseline"), 2);  // the baseline first among the packers
  for (const std::string& name : packing::packerNames()) {
    const QString key = QString::fromStdString(name);
    QCOMPARE(t->cells(key, PackingTable::Cells), f.packers.at(name).packed);
    QCOMPARE(t->cells(key, PackingTable::SkewedCells), f.packers.at(name).packedSkewed);
  }
  QVERIFY2(panel.summary().contains(
               QStringLiteral("%1 examples in %2 batches").arg(f.examples).arg(f.batches)),
           qPrintable(panel.summary()));
}

// Batch `batch` drawn by core from its parts: packWith, pack, drawPackedBatch, at the grid of
// the settings (each example's size and ink at it).
QImage coreBatchImage(const PackingSettings& s, std::size_t batch) {
  const packing::ExampleSource source = loadByCore(s.source);
  const std::size_t first = batch * s.batchSize;
  const std::size_t count = std::min<std::size_t>(s.batchSize, source.sizes.size() - first);
  std::vector<packing::ExampleSize> sizes;
  for (std::size_t i = first; i < first + count; ++i)
    sizes.push_back(packing::sizeAtGrid(source.sizes[i], s.grid));
  const packing::PackedLayout layout =
      packing::packWith(s.packer.toStdString(), sizes, s.rowWidth, static_cast<int>(first));
  std::vector<packing::FeatureMap> ink = source.ink(first, count);
  for (packing::FeatureMap& example : ink) example = packing::inkAtGrid(example, s.grid);
  const packing::Image image =
      packing::drawPackedBatch(layout, packing::pack(layout, ink), packing::pictureScale(layout));
  return toQImage(image);
}

}  // namespace

class TestPackingPanel : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }  // MainWindow's settings
  void figuresOfSyntheticWords();
  void figuresOfSizesFile_data();
  void figuresOfSizesFile();
  void malformedSizesFileNamesTheLine();
  void imageFolderAndItsErrors();
  void steppingBatchesChangesThePicture();
  void exportWritesReadablePng();
  void newerSettingsWinWhileWorkRuns();
  void dockIsHiddenAndIdleUntilShown();
  void panelsScheduleThroughLatestOnlyRunner();
  void hoverSaysWhichExampleOrPadding();
  void exampleNumbersReadAtFit();
  void layerGridsOfTheOpenGraph();
};

void TestPackingPanel::figuresOfSyntheticWords() {
  PackingPanel panel;
  const PackingSettings s = smallWords(20);
  panel.setSettings(s);
  QVERIFY(panel.isBusy());
  WAIT_IDLE(panel);
  QVERIFY2(!panel.messageIsError(), qPrintable(panel.message()));
  compareWithCore(panel, s);
  QCOMPARE(panel.batchCount(), 3);
}

void TestPackingPanel::figuresOfSizesFile_data() {
  QTest::addColumn<int>("batchSize");
  QTest::addColumn<int>("rowWidth");
  QTest::addColumn<QString>("packer");
  QTest::newRow("batch 4, widest") << 4 << 0 << "shelf";
  QTest::newRow("batch 3, width 40") << 3 << 40 << "baseline";
}

void TestPackingPanel::figuresOfSizesFile() {
  QFETCH(int, batchSize);
  QFETCH(int, rowWidth);
  QFETCH(QString, packer);
  QTemporaryDir dir;
  const QString file =
      writeFile(dir, "sizes.txt", "10 20\n10 15\n8 30\n10 9\n\n5 4\n5 3\n5 4\n7 2\n");
  PackingPanel panel;
  PackingSettings s = sizesFile(file, batchSize, rowWidth);
  s.packer = packer;
  panel.setSettings(s);
  WAIT_IDLE(panel);
  QVERIFY2(!panel.messageIsError(), qPrintable(panel.message()));
  compareWithCore(panel, s);
  QCOMPARE(panel.form()->settings(), s);  // the form shows what is computed
  // A sizes file has no pixels: the picture is still core's (light fills of the extents).
  QCOMPARE(panel.image(), coreBatchImage(s, 0));
}

void TestPackingPanel::malformedSizesFileNamesTheLine() {
  QTemporaryDir dir;
  PackingPanel panel;
  panel.setSettings(smallWords(10));
  WAIT_IDLE(panel);
  QVERIFY(panel.table()->rowCount() > 0);
  panel.setSettings(sizesFile(writeFile(dir, "bad.txt", "3 4\n5 6 7\n"), 4, 0));
  WAIT_IDLE(panel);
  QVERIFY(panel.messageIsError());
  QVERIFY2(panel.message().contains(QStringLiteral("bad.txt:2: expected 'height width'")),
           qPrintable(panel.message()));
  // Nothing of the earlier source is left to be mistaken for this one's.
  QCOMPARE(panel.table()->rowCount(), 0);
  QVERIFY(panel.image().isNull());
  QVERIFY(!panel.figures());
  // A row width narrower than an example names it, from core.
  panel.setSettings(sizesFile(writeFile(dir, "wide.txt", "3 4\n3 9\n3 2\n5 12\n"), 2, 10));
  WAIT_IDLE(panel);
  QVERIFY2(panel.message().contains(QStringLiteral("example 3 is 12 pixels wide")),
           qPrintable(panel.message()));
}

void TestPackingPanel::imageFolderAndItsErrors() {
  QTemporaryDir dir;
  const std::filesystem::path root = dir.path().toStdString();
  std::filesystem::create_directories(root / "sub");
  int n = 0;
  for (const auto& [h, w] : {std::pair{9, 14}, {5, 20}, {9, 6}, {12, 11}, {4, 4}}) {
    packing::Image img(h, w, 1, 255);
    for (int x = 0; x < w; x += 2) *img.pixel(h / 2, x) = 0;  // a dotted line of ink
    const std::string name = "w" + std::to_string(n) + ".png";
    packing::writePng(root / (n++ % 2 ? "sub" : "") / name, img);
  }
  PackingSettings s;
  s.source.kind = PackingSource::Kind::ImageFolder;
  s.source.path = dir.path();
  s.batchSize = 3;
  PackingPanel panel;
  panel.setSettings(s);
  WAIT_IDLE(panel);
  QVERIFY2(!panel.messageIsError(), qPrintable(panel.message()));
  compareWithCore(panel, s);
  QCOMPARE(panel.image(), coreBatchImage(s, 0));
  panel.showBatch(1);
  WAIT_IDLE(panel);
  QCOMPARE(panel.image(), coreBatchImage(s, 1));
  // A folder that is not there, and a file that is no PNG: errors naming them, no crash.
  s.source.path = dir.filePath("gone");
  panel.setSettings(s);
  WAIT_IDLE(panel);
  QVERIFY(panel.messageIsError());
  QVERIFY2(panel.message().contains(QStringLiteral("gone: not a directory")),
           qPrintable(panel.message()));
  writeFile(dir, "broken.png", "not a png");
  s.source.path = dir.path();
  panel.setSettings(s);
  WAIT_IDLE(panel);
  QVERIFY(panel.messageIsError());
  QVERIFY2(panel.message().contains(QStringLiteral("broken.png")), qPrintable(panel.message()));
}

void TestPackingPanel::steppingBatchesChangesThePicture() {
  PackingPanel panel;
  panel.resize(1000, 600);
  const PackingSettings s = smallWords(20);
  panel.setSettings(s);
  WAIT_IDLE(panel);
  const QImage first = panel.image();
  QCOMPARE(first, coreBatchImage(s, 0));
  QVERIFY(panel.legend().contains(QStringLiteral("Batch 1 of 3 packed by 'shelf'")));
  panel.view()->zoomIn();
  const double zoom = panel.view()->zoom();

  auto* selector = panel.findChild<QSpinBox*>(QStringLiteral("batchSelector"));
  QVERIFY(selector);
  QCOMPARE(selector->maximum(), 3);
  selector->setValue(2);
  WAIT_IDLE(panel);
  QCOMPARE(panel.batch(), 1);
  QVERIFY(panel.image() != first);
  QCOMPARE(panel.image(), coreBatchImage(s, 1));
  QCOMPARE(panel.image().size(), QSize(panel.picture().image.width, panel.picture().image.height));
  QCOMPARE(panel.view()->zoom(), zoom);  // stepping keeps the zoom

  panel.showBatch(2);  // the last batch: 4 examples
  WAIT_IDLE(panel);
  QCOMPARE(panel.picture().first, std::size_t(16));
  QCOMPARE(panel.picture().layout.places.size(), std::size_t(4));
  QCOMPARE(panel.image(), coreBatchImage(s, 2));
  QVERIFY2(panel.legend().contains(QStringLiteral("examples 16–19")), qPrintable(panel.legend()));
}

void TestPackingPanel::exportWritesReadablePng() {
  QTemporaryDir dir;
  PackingPanel panel;
  QString error;
  QVERIFY(!panel.exportPicture(dir.filePath("none.png"), &error));  // nothing shown yet
  QVERIFY(!error.isEmpty());
  panel.setSettings(smallWords(12));
  WAIT_IDLE(panel);
  const QString path = dir.filePath("batch.png");
  QVERIFY2(panel.exportPicture(path, &error), qPrintable(error));
  const QImage read(path);
  QVERIFY(!read.isNull());
  QCOMPARE(read.convertToFormat(QImage::Format_RGB888), panel.image());
  const QString missing = dir.filePath("no/such/folder/batch.png");
  QVERIFY(!panel.exportPicture(missing, &error));
  QVERIFY2(error.contains(missing), qPrintable(error));
}

void TestPackingPanel::newerSettingsWinWhileWorkRuns() {
  PackingPanel panel;
  QSignalSpy shown(&panel, &PackingPanel::resultShown);
  const PackingSettings slow = smallWords(20000, 5);  // a second or two of rendering
  panel.setSettings(slow);
  auto* progress = panel.findChild<QProgressBar*>();
  QVERIFY(progress);
  QTRY_VERIFY_WITH_TIMEOUT(progress->value() > 0, kTimeoutMs);  // it is loading
  QVERIFY(panel.isBusy());
  QVERIFY(progress->value() < progress->maximum());
  // The user types a new word count meanwhile (through the form, as a person would).
  auto* count = panel.findChild<QSpinBox*>(QStringLiteral("wordCount"));
  QVERIFY(count);
  count->setValue(17);
  WAIT_IDLE(panel);
  QCOMPARE(shown.count(), 1);  // the stale result was never shown
  PackingSettings newer = slow;
  newer.source.wordCount = 17;
  QCOMPARE(panel.settings(), newer);
  compareWithCore(panel, newer);
  QCOMPARE(panel.image(), coreBatchImage(newer, 0));
}

void TestPackingPanel::dockIsHiddenAndIdleUntilShown() {
  MainWindow window;
  window.show();
  auto* dock = window.findChild<QDockWidget*>(QStringLiteral("Packing"));
  QVERIFY(dock);
  QCOMPARE(dock->widget(), window.packingPanel());
  QVERIFY(dock->isHidden());
  QVERIFY(!window.packingPanel()->isBusy());  // nothing is rendered for a hidden dock
  dock->toggleViewAction()->trigger();        // View → Packing
  QVERIFY(dock->isVisible());
  QVERIFY(window.packingPanel()->isBusy());
  WAIT_IDLE(*window.packingPanel());
  QVERIFY2(!window.packingPanel()->messageIsError(), qPrintable(window.packingPanel()->message()));
  compareWithCore(*window.packingPanel(), PackingSettings{});  // the defaults: 200 words
}

// Hovering the packed batch names the example under the mouse (its number in the batch and in
// the source, its size, its place) or says it is padding; the skewed panel maps back.
void TestPackingPanel::hoverSaysWhichExampleOrPadding() {
  PackingPanel panel;
  panel.resize(1200, 600);
  panel.show();
  panel.setSettings(smallWords(20));
  WAIT_IDLE(panel);
  const packing::BatchPicture& picture = panel.picture();
  const int s = picture.scale, bar = packing::kPictureTitleBar;
  QVERIFY(picture.layout.places.size() > 3);
  PixelImageView* view = panel.view();
  for (const packing::ExamplePlace& p : picture.layout.places) {
    view->hoverPixel({p.x * s + s / 2 + (p.width - 1) * s, bar + p.y * s + s / 2});
    const QString expected = QStringLiteral("example %1 of the batch (%2 of %3; #%4 in the source)")
                                 .arg(p.index)
                                 .arg(p.index + 1)
                                 .arg(picture.layout.places.size())
                                 .arg(picture.first + p.index);
    QVERIFY2(view->hoverText().contains(expected), qPrintable(view->hoverText()));
    QVERIFY2(view->hoverText().contains(QStringLiteral("%1 × %2 cells").arg(p.height).arg(p.width)),
             qPrintable(view->hoverText()));
    QVERIFY(view->hoverText().startsWith(QStringLiteral("Packed batch")));
  }
  // A cell of a row that no example covers is padding; a separator row too.
  const packing::PackedRow& row = picture.layout.rows.front();
  int paddingX = -1;
  for (int x = 0; x < picture.layout.width && paddingX < 0; ++x) {
    bool covered = false;
    for (const auto& p : picture.layout.places)
      covered |= p.row == 0 && x >= p.x && x < p.x + p.width && row.top + row.height - 1 >= p.y &&
                 row.top + row.height - 1 < p.y + p.height;
    if (!covered) paddingX = x;
  }
  QVERIFY(paddingX >= 0);
  view->hoverPixel({paddingX * s, bar + (row.top + row.height - 1) * s});
  QVERIFY2(view->hoverText().contains(QStringLiteral("padding in row 1")),
           qPrintable(view->hoverText()));
  // The skewed panel: row dy of a row block is shifted right by dy.
  const packing::ExamplePlace& p = picture.layout.places.front();
  const int panelH = picture.layout.height * s;
  const int dy = p.height - 1, y = p.y + dy;
  const int skewedTop = 3 * bar + 2 * (panelH + packing::kPicturePanelGap);
  view->hoverPixel({(p.x + dy - picture.layout.rows[p.row].top + p.y) * s, skewedTop + y * s});
  QVERIFY2(view->hoverText().startsWith(QStringLiteral("Skewed batch")) &&
               view->hoverText().contains(QStringLiteral("example %1 of").arg(p.index)),
           qPrintable(view->hoverText()));
}

// At Fit the example numbers are drawn at the view's font size, whatever the zoom: every
// example whose box is large enough on screen carries its number, readable.
void TestPackingPanel::exampleNumbersReadAtFit() {
  PackingPanel panel;
  panel.resize(900, 420);  // about the Packing dock's size at 1280×720
  panel.show();
  PackingSettings words;  // the default word images, 16 to a batch
  words.source.wordCount = 32;
  words.batchSize = 16;
  panel.setSettings(words);
  WAIT_IDLE(panel);
  PixelImageView* view = panel.view();
  view->fitToWindow();
  QVERIFY2(view->zoom() < 1.0, qPrintable(QString::number(view->zoom())));  // the picture shrinks
  view->viewport()->grab();
  const auto& places = panel.picture().layout.places;
  // Every example whose box holds a line of the smallest label size on screen is numbered.
  const double boxScale = view->zoom() * panel.picture().scale;
  int large = 0;
  for (const auto& p : places) large += p.height * boxScale >= PixelImageView::kMinLabelPixels + 4;
  QVERIFY2(large >= int(places.size()) / 2, qPrintable(QString::number(large)));
  QVERIFY2(
      view->drawnLabels().size() >= large,
      qPrintable(
          QStringLiteral("%1 labels, %2 large boxes").arg(view->drawnLabels().size()).arg(large)));
  for (const QRect& label : view->drawnLabels())
    QVERIFY(label.height() >= PixelImageView::kMinLabelPixels);
}

// The Packing and Sparsity panels schedule their background work through the one state machine
// (LatestOnlyRunner: debounce, drop outdated results), not through copies of it.
void TestPackingPanel::panelsScheduleThroughLatestOnlyRunner() {
  MainWindow window;
  auto* mask = window.findChild<MaskPanel*>();
  QVERIFY(mask);
  for (QWidget* panel :
       {static_cast<QWidget*>(window.packingPanel()), static_cast<QWidget*>(mask)}) {
    int runners = 0;
    for (const QObject* child : panel->children())
      runners += child->metaObject()->className() == QByteArray("rnnwb::ui::LatestOnlyRunner");
    QVERIFY2(runners == 1, panel->metaObject()->className());
  }
}

QTEST_MAIN(TestPackingPanel)
void TestPackingPanel::layerGridsOfTheOpenGraph() {
  // The recogniser's three block stages pack at 1/2, 1/4 and 1/8 of each word (after its 2 x 2
  // input block and two 2 x 2 block-strided layers): the Grid box offers each.
  PackingPanel panel;
  panel.resize(1200, 600);
  QComboBox* grid = panel.gridBox();
  QCOMPARE(grid->count(), 1);  // no graph: the examples' own grid only
  QVERIFY(!grid->isEnabled());
  panel.setGraph(loadValidGraph(RNNWB_EXAMPLES_DIR "/mdlstm-words-small.rnn.json"));
  QVERIFY(grid->isEnabled());
  QStringList labels;
  for (int i = 0; i < grid->count(); ++i) labels << grid->itemText(i);
  QVERIFY2(labels.size() >= 3, qPrintable(labels.join(" | ")));
  QVERIFY2(labels[1].startsWith(QStringLiteral("ceil(H/2) × ceil(W/2): ")),
           qPrintable(labels.join(" | ")));
  const PackingSettings own = smallWords(20);
  panel.setSettings(own);
  WAIT_IDLE(panel);
  const QImage full = panel.image();

  grid->setCurrentIndex(1);
  PackingSettings half = own;
  half.grid = {2, 2};
  QCOMPARE(panel.settings().grid, half.grid);
  WAIT_IDLE(panel);
  QVERIFY2(!panel.messageIsError(), qPrintable(panel.message()));
  QCOMPARE(panel.image(), coreBatchImage(half, 0));  // the words at the stage's grid
  QVERIFY(panel.image() != full);
  QVERIFY2(panel.legend().contains(QStringLiteral("at 1/2 × 1/2 of each example's grid")),
           qPrintable(panel.legend()));
  // The figures count the cells at that grid too.
  const packing::ExampleSource source = loadByCore(own.source);
  const packing::PackingFigures f =
      packing::computeFigures(packing::sizesAtGrid(source.sizes, half.grid), own.batchSize,
                              own.rowWidth, packing::packerNames());
  QCOMPARE(panel.table()->cells("real", PackingTable::Cells), f.real);
  QCOMPARE(panel.table()->cells("shelf", PackingTable::Cells), f.packers.at("shelf").packed);
  // A change of the form keeps the grid; a 1-D graph leaves only the examples' own.
  auto* batchSize = panel.form()->findChild<QSpinBox*>(QStringLiteral("batchSize"));
  batchSize->setValue(10);
  QCOMPARE(panel.settings().grid, half.grid);
  WAIT_IDLE(panel);
  panel.setGraph(loadValidGraph(RNNWB_EXAMPLES_DIR "/lstm-peephole.rnn.json"));
  QCOMPARE(grid->count(), 1);
  QCOMPARE(panel.settings().grid, packing::GridDivisor{});
}

#include "tst_packingpanel.moc"

// The Sparsity panel: its figures and picture are core's (summarizeNode, drawRecurrentNode) for
// the document's graph, they follow edits after the debounce, an invalid graph and a node RTRL
// cannot take say why, weight masks are connectionMask's, and pictures export.
#include <cmath>

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QRgb>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/connection_mask.hpp"
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/snap/node_summary.hpp"
#include "rnnwb/core/snap/pattern_image.hpp"
#include "rnnwb/core/snap/row_colouring.hpp"
#include "rnnwb/core/snap/rtrl_node_layout.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"
#include "rnnwb/ui/graph_commands.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/mask_panel.hpp"
#include "rnnwb/ui/pixel_image_view.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

namespace {

QString example(const QString& name) { return QStringLiteral(RNNWB_EXAMPLES_DIR "/") + name; }

/// The value beside `figure` in the panel's figure table; empty when there is no such row.
QString figureValue(const MaskPanel& panel, const QString& figure) {
  auto* table = panel.findChild<QTableWidget*>(QStringLiteral("figures"));
  for (int r = 0; r < table->rowCount(); ++r)
    if (table->item(r, 0)->text() == figure) return table->item(r, 1)->text();
  return {};
}

QString bytes(std::uint64_t b) { return QString::fromStdString(rnnwb::formatBytes(b)); }

}  // namespace

class TestMaskPanel : public QObject {
  Q_OBJECT
 private slots:
  void init();
  void cleanup();
  void figuresAreCoreSummary_data();
  void figuresAreCoreSummary();
  void invalidGraphShowsProblem();
  void delayTwoIsRefused();
  void graphWithoutRecurrentNode();
  void chosenNodeSurvivesInvalidSpell();
  void editUpdatesAfterDebounce();
  void outdatedResultIsDropped();
  void weightMaskIsConnectionMask();
  void exportsPngAndSvg();
  void pictureZoomsWithoutBlur();
  void hoverSaysUnitsMaskAndColourGroup();

 private:
  void open(const QString& name);
  void waitUntilUpToDate() { QTRY_VERIFY_WITH_TIMEOUT(m_panel->isUpToDate(), 20000); }

  GraphDocument* m_doc = nullptr;
  MaskPanel* m_panel = nullptr;
};

void TestMaskPanel::init() {
  m_doc = new GraphDocument;
  m_panel = new MaskPanel(m_doc);
  m_panel->resize(1200, 500);
  m_panel->show();
}

void TestMaskPanel::cleanup() {
  delete m_panel;
  delete m_doc;
}

void TestMaskPanel::open(const QString& name) {
  QString error;
  QVERIFY2(m_doc->open(example(name), &error), qPrintable(error));
  waitUntilUpToDate();
}

void TestMaskPanel::figuresAreCoreSummary_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<int>("level");
  QTest::newRow("elman, exact") << "elman.rnn.json" << 0;
  QTest::newRow("lstm-peephole, exact") << "lstm-peephole.rnn.json" << 0;
  QTest::newRow("lstm-peephole, SnAp-5") << "lstm-peephole.rnn.json" << 5;
  QTest::newRow("gru, SnAp-1") << "gru.rnn.json" << 1;
  QTest::newRow("two recurrent nodes") << "two-recurrent-nodes.rnn.json" << 2;
}

void TestMaskPanel::figuresAreCoreSummary() {
  QFETCH(QString, file);
  QFETCH(int, level);
  open(file);
  m_panel->setSnapLevel(level);
  const CompiledPlan plan(m_doc->graph());
  const std::vector<int> recurrent = snap::recurrentNodes(plan.nodes());
  QCOMPARE(m_panel->recurrentNodeCount(), int(recurrent.size()));
  for (int k = 0; k < int(recurrent.size()); ++k) {
    m_panel->setCurrentNode(k);
    waitUntilUpToDate();
    const snap::NodeSummary core =
        snap::summarizeNode(plan, recurrent[k], snap::reportedLevels(level), 100);
    QVERIFY(m_panel->summary());
    if (core.refusal) {  // two-recurrent-nodes' second node has a delay-2 connection
      QCOMPARE(m_panel->summary()->refusal, core.refusal);
      QVERIFY(m_panel->message().contains(QString::fromStdString(*core.refusal)));
      QVERIFY(m_panel->patternView()->image().isNull());
      continue;
    }
    const snap::NodeSummary& shown = *m_panel->summary();
    QCOMPARE(shown.node, core.node);
    QCOMPARE(shown.stateSize, core.stateSize);
    QCOMPARE(shown.parameters, core.parameters);
    QCOMPARE(shown.coloursI, core.coloursI);
    QCOMPARE(shown.coloursD, core.coloursD);
    QCOMPARE(shown.exactAfter, core.exactAfter);
    QCOMPARE(figureValue(*m_panel, QStringLiteral("|h| (state units)")),
             QString::number(core.stateSize));
    QCOMPARE(figureValue(*m_panel, QStringLiteral("|θ| (parameters)")),
             QString::number(core.parameters));
    QVERIFY(figureValue(*m_panel, QStringLiteral("colours of D"))
                .startsWith(QString::number(core.coloursD) + QStringLiteral(" (compression")));
    QCOMPARE(figureValue(*m_panel, QStringLiteral("dense RTRL Ĵ")), bytes(core.denseRtrlBytes));
    QCOMPARE(figureValue(*m_panel, QStringLiteral("BPTT over 100 frames")), bytes(core.bpttBytes));
    auto* levels = m_panel->findChild<QTableWidget*>(QStringLiteral("levels"));
    QCOMPARE(levels->rowCount(), int(core.levels.size()));
    for (int r = 0; r < int(core.levels.size()); ++r) {
      const snap::SnapLevel& l = core.levels[r];
      QCOMPARE(levels->item(r, 0)->text(),
               QString::fromStdString(snap::levelName(l, core.exactAfter)));
      QCOMPARE(levels->item(r, 1)->text(), QString::number(l.nnz));
      QCOMPARE(levels->item(r, 3)->text(), bytes(l.cooBytes));
      QCOMPARE(levels->item(r, 4)->text(), bytes(l.csrBytes));
    }
    // The picture is drawNodePatterns's, pixel for pixel.
    const snap::RgbImage picture = snap::drawRecurrentNode(plan, recurrent[k], level);
    const QImage image = m_panel->patternView()->image();
    QCOMPARE(image.size(), QSize(picture.width, picture.height));
    for (int y = 0; y < picture.height; y += 3)
      for (int x = 0; x < picture.width; x += 3) {
        const std::uint8_t* p = picture.pixels.data() + (std::size_t(y) * picture.width + x) * 3;
        QCOMPARE(image.pixel(x, y), qRgb(p[0], p[1], p[2]));
      }
    QVERIFY(!m_panel->findChild<QLabel*>(QStringLiteral("legend"))->text().isEmpty());
  }
}

void TestMaskPanel::invalidGraphShowsProblem() {
  open(QStringLiteral("elman.rnn.json"));
  QVERIFY(m_panel->summary());
  Connection loop = m_doc->graph().connections[1];  // h->h@1
  loop.delay = 0;                                   // a cycle with no delay
  m_doc->undoStack()->push(new EditConnectionCommand(m_doc, 1, loop));
  QVERIFY(!m_doc->problems().empty());
  waitUntilUpToDate();
  QVERIFY(m_panel->message().startsWith(QStringLiteral("Fix the problems first: ") +
                                        QString::fromStdString(m_doc->problems().front().message)));
  QVERIFY(!m_panel->summary());
  QVERIFY(m_panel->findChild<QTableWidget*>(QStringLiteral("figures"))->isHidden());
  QCOMPARE(m_panel->findChild<QTableWidget*>(QStringLiteral("levels"))->rowCount(), 0);
  QVERIFY(m_panel->patternView()->image().isNull());
  m_doc->undoStack()->undo();  // valid again: the figures come back
  waitUntilUpToDate();
  QVERIFY(m_panel->summary());
  QVERIFY(!m_panel->findChild<QTableWidget*>(QStringLiteral("figures"))->isHidden());
}

void TestMaskPanel::delayTwoIsRefused() {
  open(QStringLiteral("elman.rnn.json"));
  Connection loop = m_doc->graph().connections[1];
  loop.delay = 2;
  m_doc->undoStack()->push(new EditConnectionCommand(m_doc, 1, loop));
  QVERIFY(m_doc->problems().empty());
  waitUntilUpToDate();
  const CompiledPlan plan(m_doc->graph());
  const auto refusal = snap::rtrlRefusal(plan, snap::recurrentNodes(plan.nodes()).front());
  QVERIFY(refusal);
  QVERIFY(m_panel->summary() && m_panel->summary()->refusal);
  QCOMPARE(*m_panel->summary()->refusal, *refusal);
  QVERIFY2(m_panel->message().contains(QString::fromStdString(*refusal)),
           qPrintable(m_panel->message()));
  QVERIFY(m_panel->findChild<QTableWidget*>(QStringLiteral("figures"))->isHidden());
  QVERIFY(m_panel->patternView()->image().isNull());
}

void TestMaskPanel::graphWithoutRecurrentNode() {
  Graph graph;
  graph.layers = {
      Layer{"x", LayerKind::Input, 4, Activation::Identity, false},
      Layer{"y", LayerKind::Additive, 3, Activation::Softmax, true, LossKind::CrossEntropy}};
  graph.connections = {Connection{"x->y", "x", "y"}};
  m_doc->reset(graph, QString());
  QCOMPARE(m_doc->problems().size(), std::size_t(0));
  waitUntilUpToDate();
  QCOMPARE(m_panel->recurrentNodeCount(), 0);
  QVERIFY(!m_panel->summary());
  QVERIFY(m_panel->message().startsWith(QStringLiteral("No recurrent node")));
  QVERIFY(m_panel->patternView()->image().isNull());
}

void TestMaskPanel::chosenNodeSurvivesInvalidSpell() {
  open(QStringLiteral("two-recurrent-nodes.rnn.json"));
  QVERIFY(m_panel->setCurrentNode(1));
  waitUntilUpToDate();
  Connection loop = m_doc->graph().connections[1];  // a->a@1
  loop.delay = 0;
  m_doc->undoStack()->push(new EditConnectionCommand(m_doc, 1, loop));
  waitUntilUpToDate();
  QCOMPARE(m_panel->recurrentNodeCount(), 0);  // no analysis while a cycle has no delay
  m_doc->undoStack()->undo();
  waitUntilUpToDate();
  QCOMPARE(m_panel->currentNode(), 1);
  QVERIFY(m_panel->summary() && m_panel->summary()->refusal);  // b->b@2: node 2 is refused
}

void TestMaskPanel::editUpdatesAfterDebounce() {
  open(QStringLiteral("elman.rnn.json"));
  const int before = m_panel->summary()->stateSize;
  QSignalSpy updated(m_panel, &MaskPanel::updated);
  // Two quick edits: the first one's result (if computed at all) is outdated and dropped.
  for (int size : {40, 48}) {
    Layer h = m_doc->graph().layers[1];
    h.size = size;
    m_doc->undoStack()->push(new EditLayerCommand(m_doc, 1, h));
  }
  QCOMPARE(m_panel->summary()->stateSize, before);  // nothing yet: the debounce waits
  QVERIFY(!m_panel->isUpToDate());
  QTRY_COMPARE_WITH_TIMEOUT(updated.count(), 1, 10000);
  waitUntilUpToDate();
  QCOMPARE(updated.count(), 1);
  const CompiledPlan plan(m_doc->graph());
  const snap::NodeSummary core =
      snap::summarizeNode(plan, snap::recurrentNodes(plan.nodes()).front(), {1, 2, 3}, 100);
  QCOMPARE(m_panel->summary()->stateSize, 48);
  QCOMPARE(m_panel->summary()->parameters, core.parameters);
  QCOMPARE(figureValue(*m_panel, QStringLiteral("|θ| (parameters)")),
           QString::number(core.parameters));
  // The BPTT length is a choice of the panel, and its figure follows it.
  m_panel->setBpttLength(250);
  QTRY_COMPARE_WITH_TIMEOUT(m_panel->summary()->bpttLength, 250, 10000);
  const snap::NodeSummary longer =
      snap::summarizeNode(plan, snap::recurrentNodes(plan.nodes()).front(), {1, 2, 3}, 250);
  QCOMPARE(figureValue(*m_panel, QStringLiteral("BPTT over 250 frames")), bytes(longer.bpttBytes));
}

void TestMaskPanel::outdatedResultIsDropped() {
  open(QStringLiteral("elman.rnn.json"));
  QList<int> shownSizes;
  connect(m_panel, &MaskPanel::updated, this,
          [&] { shownSizes << (m_panel->summary() ? m_panel->summary()->stateSize : -1); });
  auto resize = [this](int size) {
    Layer h = m_doc->graph().layers[1];
    h.size = size;
    m_doc->undoStack()->push(new EditLayerCommand(m_doc, 1, h));
  };
  resize(1200);  // long enough (|θ| = 1.45e6) to be caught while it computes
  QTRY_VERIFY_WITH_TIMEOUT(m_panel->isComputing(), 10000);
  QCOMPARE(m_panel->message(), QStringLiteral("computing…"));
  resize(8);
  waitUntilUpToDate();
  QCOMPARE(shownSizes, QList<int>{8});  // the 1200-unit result never reached the screen
  QCOMPARE(figureValue(*m_panel, QStringLiteral("|h| (state units)")), QStringLiteral("8"));
}

void TestMaskPanel::weightMaskIsConnectionMask() {
  open(QStringLiteral("sparse-rnn.rnn.json"));
  auto* choice = m_panel->findChild<QComboBox*>(QStringLiteral("weightConnection"));
  const Graph& graph = m_doc->graph();
  QStringList sparse;
  for (const Connection& c : graph.connections)
    if (c.isSparse()) sparse << QString::fromStdString(c.id);
  QVERIFY(!sparse.isEmpty());
  QCOMPARE(choice->count(), int(sparse.size()));
  const Connection& c = graph.connections[1];
  QCOMPARE(choice->currentText(), QString::fromStdString(c.id));
  const int rows = graph.layers[m_doc->layerIndex(c.to)].size;
  const int columns = graph.layers[m_doc->layerIndex(c.from)].size;
  const std::vector<std::uint8_t> mask = connectionMask(c, rows, columns);
  const QImage image = m_panel->weightMaskView()->image();
  QCOMPARE(image.size(), QSize(columns, rows));
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < columns; ++k)
      QCOMPARE(image.pixel(k, r) != qRgb(255, 255, 255), mask[r * columns + k] != 0);
  long long ones = 0;
  for (std::uint8_t m : mask) ones += m;
  QVERIFY(m_panel->findChild<QLabel*>(QStringLiteral("weightInfo"))
              ->text()
              .contains(QStringLiteral("%1 of %2 weights").arg(ones).arg(rows * columns)));
}

void TestMaskPanel::exportsPngAndSvg() {
  open(QStringLiteral("lstm-peephole.rnn.json"));
  const QImage shown = m_panel->patternView()->image();
  QVERIFY(!shown.isNull());
  QTemporaryDir dir;
  QString error;
  const QString png = dir.filePath(QStringLiteral("patterns.png"));
  QVERIFY2(m_panel->patternView()->exportTo(png, &error), qPrintable(error));
  const QImage read(png);
  QCOMPARE(read.size(), shown.size());
  QCOMPARE(read.convertToFormat(QImage::Format_RGB888),
           shown.convertToFormat(QImage::Format_RGB888));
  const QString svg = dir.filePath(QStringLiteral("patterns.svg"));
  QVERIFY2(m_panel->patternView()->exportTo(svg, &error), qPrintable(error));
  QFile file(svg);
  QVERIFY(file.open(QIODevice::ReadOnly));
  const QByteArray text = file.readAll();
  QVERIFY(text.contains(QByteArray("viewBox=\"0 0 ") + QByteArray::number(shown.width())));
  QVERIFY(text.contains("<rect x="));
  // Drawn back by Qt's SVG renderer, the vector picture is the pixel picture.
  QSvgRenderer renderer(svg);
  QVERIFY(renderer.isValid());
  QCOMPARE(renderer.defaultSize(), shown.size());
  QImage drawn(shown.size(), QImage::Format_RGB888);
  drawn.fill(Qt::black);
  {
    QPainter painter(&drawn);
    renderer.render(&painter);
  }
  QCOMPARE(drawn, shown.convertToFormat(QImage::Format_RGB888));
  // A file that cannot be written says so and leaves nothing behind.
  const QString bad = dir.filePath(QStringLiteral("missing/patterns.png"));
  QVERIFY(!m_panel->patternView()->exportTo(bad, &error));
  QVERIFY(error.contains(bad));
  QVERIFY(!QFile::exists(bad));
}

void TestMaskPanel::pictureZoomsWithoutBlur() {
  PixelImageView view;
  view.resize(400, 300);
  view.show();
  QImage image(40, 20, QImage::Format_RGB888);
  image.fill(Qt::white);
  image.setPixelColor(3, 4, Qt::red);
  image.setPixelColor(30, 15, Qt::blue);
  view.setImage(image);
  const double fit = view.zoom();
  // Fitted to the window, by a whole number so that every entry is a square of one size.
  QVERIFY(fit >= 2);
  QCOMPARE(fit, std::floor(fit));
  QVERIFY(fit * image.width() <= view.viewport()->width());
  QVERIFY((fit + 1) * image.width() > view.viewport()->width() ||
          (fit + 1) * image.height() > view.viewport()->height());
  view.zoomIn();
  QVERIFY(qFuzzyCompare(view.zoom(), fit * 1.25));
  view.setImage(image);  // same size: the user's zoom stays
  QVERIFY(qFuzzyCompare(view.zoom(), fit * 1.25));
  view.fitToWindow();
  QVERIFY(qFuzzyCompare(view.zoom(), fit));
  // Nearest neighbour: the magnified picture holds only its own colours and the background.
  const QImage shown = view.viewport()->grab().toImage();
  QSet<QRgb> colours;
  for (int y = 0; y < shown.height(); ++y)
    for (int x = 0; x < shown.width(); ++x) colours.insert(shown.pixel(x, y) | 0xFF000000u);
  QVERIFY(colours.contains(qRgb(255, 0, 0)) && colours.contains(qRgb(0, 0, 255)));
  QVERIFY2(colours.size() <= 4, qPrintable(QString::number(colours.size())));
}

// Hovering the I | D | M_n picture names the entry's row unit (layer and index) and column (a
// parameter and the unit it acts on, or a unit of h), says whether the SnAp mask holds it, and
// gives the row's colour group: checked against core's patterns and colouring.
void TestMaskPanel::hoverSaysUnitsMaskAndColourGroup() {
  open(QStringLiteral("lstm-peephole.rnn.json"));
  m_panel->setSnapLevel(1);
  waitUntilUpToDate();
  const CompiledPlan plan(m_doc->graph());
  const int node = snap::recurrentNodes(plan.nodes()).front();
  const snap::RtrlNodeLayout layout(plan, node);
  const snap::SnapPatterns patterns(layout);
  const snap::BitMatrix mask = patterns.mask(1);
  const snap::RowColouring colours = snap::colourRows(patterns.immediate());
  PixelImageView* view = m_panel->patternView();
  const QImage& image = view->image();
  const auto& columnOf = patterns.parameterColumns();
  int checkedIn = 0, checkedOut = 0, checkedD = 0;
  for (int y = 0; y < image.height(); y += 3)
    for (int x = 0; x < image.width(); x += 2) {
      const snap::PatternPixel at = snap::locatePatternPixel(patterns, x, y);
      view->hoverPixel({x, y});
      const QString text = view->hoverText();
      if (at.panel == snap::PatternPixel::Panel::None) {
        QVERIFY2(text.isEmpty(), qPrintable(text));
        continue;
      }
      const snap::StateLayer* row = nullptr;
      for (const auto& s : layout.stateLayers())
        if (at.row >= s.offset && at.row < s.offset + s.size) row = &s;
      const QString unit = QStringLiteral("row %1[%2]")
                               .arg(QString::fromStdString(plan.graph().layers[row->layer].id))
                               .arg(at.row - row->offset);
      QVERIFY2(text.contains(unit), qPrintable(text + " / " + unit));
      if (at.panel == snap::PatternPixel::Panel::Dynamics) {
        if (checkedD++ > 50) continue;
        const bool nonzero = patterns.dynamics().test(at.row, at.column);
        QVERIFY2(text.contains(nonzero ? "Nonzero: yes" : "Nonzero: no"), qPrintable(text));
        continue;
      }
      if (at.panel != snap::PatternPixel::Panel::Mask) continue;
      bool inMask = false, inI = false;  // a binned pixel column: any parameter of its bin
      for (std::int64_t p = at.firstParameter; p < at.lastParameter; ++p) {
        inMask |= mask.test(at.row, columnOf[std::size_t(p)]);
        inI |= patterns.immediate().test(at.row, columnOf[std::size_t(p)]);
      }
      QVERIFY2(text.startsWith(QStringLiteral("M_1: ")), qPrintable(text));
      QVERIFY2(text.contains(QStringLiteral("In the SnAp mask M_1: %1; in I: %2")
                                 .arg(inMask ? "yes" : "no", inI ? "yes" : "no")),
               qPrintable(text));
      QVERIFY2(text.contains(QStringLiteral("Colour group %1 of %2")
                                 .arg(colours.colourOfRow[at.row] + 1)
                                 .arg(colours.colours)),
               qPrintable(text));
      (inMask ? checkedIn : checkedOut)++;
    }
  QVERIFY(checkedIn > 0 && checkedOut > 0 && checkedD > 0);
  // The mouse does the same: a move over the picture shows the readout.
  view->hoverPixel({-1, -1});
  QVERIFY(view->hoverText().isEmpty());
  const QPoint inside = view->mapFromScene(QPointF(image.width() - 12.5, image.height() / 2.0));
  QMouseEvent move(QEvent::MouseMove, inside, view->viewport()->mapToGlobal(inside), Qt::NoButton,
                   Qt::NoButton, Qt::NoModifier);
  QApplication::sendEvent(view->viewport(), &move);
  QVERIFY2(view->hoverText().startsWith(QStringLiteral("M_1: row ")),
           qPrintable(view->hoverText()));
}

QTEST_MAIN(TestMaskPanel)
#include "tst_maskpanel.moc"

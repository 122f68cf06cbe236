// 2-D graphs in the workbench (issue 31): the document's dimensions chosen in the Properties
// panel, a 2-D delay edited as [dx, dy] and drawn as arrows with counts, complement, block and
// reduce connections drawn apart from the others and explained in their tooltips, the 2-D
// templates (the two Leaky LP cells and the four-direction layer), and the Schedule's scans.
#include <QCheckBox>
#include <QComboBox>
#include <QGraphicsItem>
#include <QGraphicsSceneHoverEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>
#include <QWidget>

#include "connection_item.hpp"
#include "recurrent_node_item.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/graph_validator.hpp"
#include "rnnwb/ui/edit_actions.hpp"
#include "rnnwb/ui/graph_fragment.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/graph_view.hpp"
#include "rnnwb/ui/metric_card.hpp"
#include "rnnwb/ui/properties_panel.hpp"
#include "rnnwb/ui/schedule_panel.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

class TestTwoDGraphs : public QObject {
  Q_OBJECT
 private slots:
  void cleanup();
  void dimensionsAreChosenAndUndone();
  void twoDDelayIsEditedAsDxDy();
  void oneDFormHidesTheTwoDRows();
  void blockReduceTrainableAndInitAreEdited();
  void newConnectionTypesAreDrawnApart();
  void everyTwoDRowFitsTheDefaultDockWidth();
  void leakyLpTemplatesAreTheExampleCells();
  void twoDTemplateMakesTheGraphTwoDInOneUndoStep();
  void newFromFourDirectionTemplateIsAValidRecogniserLayer();
  void scheduleShowsEachNodesScan();
  void scheduleGroupsTheRecognisersScans();
  void foldedNodesShowTheirScan();
  void wordsLossCardsSayPerWord();

 private:
  void open(const char* example) {
    m_doc = new GraphDocument;
    QVERIFY(m_doc->open(QStringLiteral(RNNWB_EXAMPLES_DIR "/") + QLatin1String(example), nullptr));
    m_scene = new GraphScene(m_doc);
    m_panel = new PropertiesPanel(m_doc, m_scene);
  }
  template <typename T>
  T* field(const char* name) {
    T* widget = m_panel->findChild<T*>(QString::fromLatin1(name));
    if (!widget) qFatal("no field %s", name);
    return widget;
  }
  void choose(const char* name, const QString& text) {
    QComboBox* combo = field<QComboBox>(name);
    combo->setCurrentText(text);
    QCOMPARE(combo->currentText(), text);
    emit combo->activated(combo->currentIndex());
  }
  void setSpin(const char* name, int value) {
    field<QSpinBox>(name)->setValue(value);
    emit field<QSpinBox>(name)->editingFinished();
  }
  bool rowShown(const char* name) { return field<QWidget>(name)->isVisibleTo(m_panel); }
  int connectionWhere(const std::function<bool(const Connection&)>& test) const {
    const auto& cs = m_doc->graph().connections;
    for (int i = 0; i < int(cs.size()); ++i)
      if (test(cs[i])) return i;
    qFatal("no such connection");
  }
  ConnectionItem* item(int index) const {
    for (QGraphicsItem* i : m_scene->items())
      if (auto* c = qgraphicsitem_cast<ConnectionItem*>(i); c && c->connectionIndex() == index)
        return c;
    qFatal("no item for connection %d", index);
  }
  QString tooltipOf(int index) {
    ConnectionItem* c = item(index);
    QGraphicsSceneHoverEvent hover(QEvent::GraphicsSceneHoverEnter);
    m_scene->sendEvent(c, &hover);
    return c->toolTip();
  }

  GraphDocument* m_doc = nullptr;
  GraphScene* m_scene = nullptr;
  PropertiesPanel* m_panel = nullptr;
};

void TestTwoDGraphs::cleanup() {
  delete m_panel;
  delete m_scene;
  delete m_doc;
  m_panel = nullptr, m_scene = nullptr, m_doc = nullptr;
}

void TestTwoDGraphs::dimensionsAreChosenAndUndone() {
  open("elman.rnn.json");
  m_scene->selectItems({}, {});
  QCOMPARE(field<QComboBox>("graphDimensions")->currentIndex(), 0);
  choose("graphDimensions", QStringLiteral("2: images"));
  QCOMPARE(m_doc->graph().dimensions, 2);
  QCOMPARE(m_doc->undoStack()->count(), 1);
  QCOMPARE(m_doc->undoStack()->undoText(), QStringLiteral("Make the graph 2-D"));
  // Drawn as a 2-D graph at once: elman's h->h@1 is an arrow to the right.
  const int loop = connectionWhere([](const Connection& c) { return c.delay == 1; });
  QVERIFY2(item(loop)->label().endsWith(QStringLiteral("\u21921")),
           qPrintable(item(loop)->label()));
  m_doc->undoStack()->undo();
  QCOMPARE(m_doc->graph().dimensions, 1);
  QCOMPARE(field<QComboBox>("graphDimensions")->currentIndex(), 0);
  QVERIFY(item(loop)->label().endsWith(QStringLiteral("d=1")));
}

void TestTwoDGraphs::twoDDelayIsEditedAsDxDy() {
  open("leaky-lp-2d.rnn.json");
  const int i = connectionWhere([](const Connection& c) {
    return c.delay == 1 && c.delayY == 0 && c.type == ConnectionType::Full;
  });
  m_scene->selectItems({}, {i});
  QVERIFY(rowShown("connectionDelayY"));
  QCOMPARE(field<QSpinBox>("connectionDelay")->value(), 1);
  QCOMPARE(field<QSpinBox>("connectionDelayY")->value(), 0);
  setSpin("connectionDelay", -1);
  setSpin("connectionDelayY", 2);
  const Connection& c = m_doc->graph().connections[i];
  QCOMPARE(c.delay, -1);
  QCOMPARE(c.delayY, 2);
  QCOMPARE(m_doc->undoStack()->count(), 2);
  // Arrows with counts: dx = -1 carries leftwards, dy = 2 downwards two rows.
  QVERIFY2(item(i)->label().endsWith(QStringLiteral("\u21901\u21932")),
           qPrintable(item(i)->label()));
  QVERIFY(tooltipOf(i).contains(
      QStringLiteral("delay [-1, 2]: reads the source at (x \u2212 -1, y \u2212 2)")));
  QCOMPARE(item(i)->pen().style(), Qt::DashLine);
  m_doc->undoStack()->undo();
  QCOMPARE(m_doc->graph().connections[i].delayY, 0);
  QVERIFY2(item(i)->label().endsWith(QStringLiteral("\u21901")), qPrintable(item(i)->label()));
}

void TestTwoDGraphs::oneDFormHidesTheTwoDRows() {
  open("gru-complement.rnn.json");
  const int i = connectionWhere([](const Connection& c) { return c.delay == 1; });
  m_scene->selectItems({}, {i});
  QVERIFY(!rowShown("connectionDelayY"));
  QVERIFY(!rowShown("connectionReduce"));
  QVERIFY(!rowShown("connectionBlockX"));
  QVERIFY(rowShown("connectionDelay"));
  // A complement has no weight: no trainable or init row.
  const int complement =
      connectionWhere([](const Connection& c) { return c.type == ConnectionType::Complement; });
  m_scene->selectItems({}, {complement});
  QCOMPARE(field<QComboBox>("connectionType")->currentText(), QStringLiteral("complement"));
  QVERIFY(!rowShown("connectionTrainable"));
  QVERIFY(!rowShown("connectionInit"));
}

void TestTwoDGraphs::blockReduceTrainableAndInitAreEdited() {
  open("mdlstm-words-small.rnn.json");
  const int block =
      connectionWhere([](const Connection& c) { return c.type == ConnectionType::Block; });
  m_scene->selectItems({}, {block});
  QVERIFY(rowShown("connectionBlockX"));
  QCOMPARE(field<QSpinBox>("connectionBlockX")->value(), 2);
  setSpin("connectionBlockY", 3);
  QVERIFY((m_doc->graph().connections[block].block == std::array<int, 2>{2, 3}));
  field<QCheckBox>("connectionTrainable")->click();
  QVERIFY(!m_doc->graph().connections[block].trainable);
  field<QLineEdit>("connectionInit")->setText(QStringLiteral("0.25"));
  emit field<QLineEdit>("connectionInit")->editingFinished();
  QCOMPARE(m_doc->graph().connections[block].init, std::optional<double>(0.25));
  QVERIFY(item(block)->label().startsWith(QStringLiteral("block 2\u00d73")));
  QVERIFY(item(block)->label().endsWith(QStringLiteral("fixed")));
  const QString tip = tooltipOf(block);
  QVERIFY2(tip.contains(QStringLiteral("a Conv2d with kernel = stride")), qPrintable(tip));
  QVERIFY(tip.contains(QStringLiteral("fixed: its weights are not trained")));
  QVERIFY(tip.contains(QStringLiteral("every weight starts at 0.25")));
  // Emptied, init is drawn at random again.
  field<QLineEdit>("connectionInit")->setText(QString());
  emit field<QLineEdit>("connectionInit")->editingFinished();
  QVERIFY(!m_doc->graph().connections[block].init);
  QCOMPARE(m_doc->undoStack()->count(), 4);

  const int reduce = connectionWhere([](const Connection& c) { return c.reduce == ReduceAxis::Y; });
  m_scene->selectItems({}, {reduce});
  QCOMPARE(field<QComboBox>("connectionReduce")->currentText(), QStringLiteral("y"));
  QVERIFY(!rowShown("connectionBlockX"));
  choose("connectionReduce", QStringLiteral("none"));
  QVERIFY(m_doc->graph().connections[reduce].reduce == ReduceAxis::None);
  QVERIFY(!m_doc->problems().empty());  // a 2-D source into a 1-D layer without a reduce
  m_doc->undoStack()->undo();
  QVERIFY(m_doc->graph().connections[reduce].reduce == ReduceAxis::Y);
}

void TestTwoDGraphs::newConnectionTypesAreDrawnApart() {
  open("mdlstm-words-small.rnn.json");
  const auto index = [&](ConnectionType type, ReduceAxis reduce = ReduceAxis::None) {
    return connectionWhere([&](const Connection& c) {
      return c.type == type && c.reduce == reduce && !c.isDelayed();
    });
  };
  const int complement = index(ConnectionType::Complement);
  const int block = index(ConnectionType::Block);
  const int reduce = index(ConnectionType::Full, ReduceAxis::Y);
  const int plain = index(ConnectionType::Full);
  QCOMPARE(item(complement)->label(), QStringLiteral("1\u2212y"));
  QCOMPARE(item(complement)->pen().style(), Qt::DotLine);
  QVERIFY(tooltipOf(complement).contains(QStringLiteral("adds 1 \u2212 source, unit by unit")));
  QCOMPARE(item(block)->label(), QStringLiteral("block 2\u00d72"));
  QCOMPARE(item(block)->pen().style(), Qt::SolidLine);
  QVERIFY(item(block)->pen().widthF() > item(plain)->pen().widthF() + 1);
  QCOMPARE(item(reduce)->label(), QStringLiteral("full \u03a3y"));
  QCOMPARE(item(reduce)->pen().style(), Qt::DashDotLine);
  QVERIFY(tooltipOf(reduce).contains(QStringLiteral("sums the source over its rows")));
  QCOMPARE(item(plain)->pen().style(), Qt::SolidLine);
  QVERIFY(tooltipOf(plain).count(QLatin1Char('\n')) <= 1);  // the id, label and weight count
}

void TestTwoDGraphs::everyTwoDRowFitsTheDefaultDockWidth() {
  // A block connection of a 2-D graph shows every row (dx, dy, bx, by, reduce, trainable, init);
  // the form must still fit the left docks' 190 px (tst_propertiespanel checks the 1-D forms).
  open("mdlstm-words-small.rnn.json");
  m_scene->selectItems(
      {}, {connectionWhere([](const Connection& c) { return c.type == ConnectionType::Block; })});
  for (const char* row : {"connectionDelayY", "connectionBlockX", "connectionBlockY",
                          "connectionReduce", "connectionTrainable", "connectionInit"})
    QVERIFY2(rowShown(row), row);
  QVERIFY2(m_panel->minimumSizeHint().width() <= 190,
           qPrintable(QString::number(m_panel->minimumSizeHint().width())));
}

void TestTwoDGraphs::leakyLpTemplatesAreTheExampleCells() {
  // The templates are the example files' cells: the same layers (but x and y) and connections,
  // prefixed, at the chosen size.
  open("leaky-lp-2d.rnn.json");
  for (const auto& [cell, file] :
       {std::pair{CellTemplate::LeakyLp2d, "leaky-lp-2d.rnn.json"},
        std::pair{CellTemplate::LeakyLp2dCellsReport, "leaky-lp-2d-cells-report.rnn.json"}}) {
    const Graph example = loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/" + std::string(file));
    std::vector<std::string> outputs;
    const GraphFragment f = makeCellTemplate(*m_doc, cell, "x", 7, QPointF(0, 0), &outputs);
    QCOMPARE(f.layers.size(), example.layers.size() - 2);
    QCOMPARE(f.connections.size(), example.connections.size() - 1);  // all but h -> y
    QCOMPARE(outputs, std::vector<std::string>{"lp_h"});
    for (const Layer& l : f.layers) {
      QVERIFY2(l.id.starts_with("lp_"), l.id.c_str());
      QCOMPARE(l.size, 7);
      QVERIFY(f.positions.count(l.id));
    }
    int peepholes = 0;  // the two variants differ in the output gates' peepholes
    for (const Connection& c : f.connections)
      if (c.from == "lp_c" && (c.to == "lp_o1" || c.to == "lp_o2")) peepholes += c.delay;
    QCOMPARE(peepholes, cell == CellTemplate::LeakyLp2d ? 2 : 0);
  }
}

void TestTwoDGraphs::twoDTemplateMakesTheGraphTwoDInOneUndoStep() {
  open("elman.rnn.json");
  GraphView view(m_scene);
  QWidget window;
  EditActions actions(m_doc, m_scene, &view, &window);
  const std::size_t layers = m_doc->graph().layers.size();
  QVERIFY(actions.insertTemplate(CellTemplate::LeakyLp2d, "x", 10, std::nullopt));
  QCOMPARE(m_doc->graph().dimensions, 2);
  QCOMPARE(m_doc->graph().layers.size(), layers + 17);
  QCOMPARE(m_doc->undoStack()->count(), 1);
  QCOMPARE(m_doc->undoStack()->undoText(), QStringLiteral("Insert Leaky LP 2-D cell (paper)"));
  // Drawn as 2-D: the cell's [0, 1] delays are downward arrows.
  const int down = connectionWhere([](const Connection& c) { return c.delayY == 1; });
  QVERIFY2(item(down)->label().endsWith(QStringLiteral("\u21931")),
           qPrintable(item(down)->label()));
  m_doc->undoStack()->undo();
  QCOMPARE(m_doc->graph().dimensions, 1);
  QCOMPARE(m_doc->graph().layers.size(), layers);
}

void TestTwoDGraphs::newFromFourDirectionTemplateIsAValidRecogniserLayer() {
  m_doc = new GraphDocument;
  m_scene = new GraphScene(m_doc);
  GraphView view(m_scene);
  QWidget window;
  EditActions actions(m_doc, m_scene, &view, &window);
  QVERIFY(actions.newFromTemplate(CellTemplate::FourDirectionLeakyLp));
  const Graph& g = m_doc->graph();
  QCOMPARE(g.dimensions, 2);
  QCOMPARE(int(g.layers.size()), 1 + 4 * 17 + 1);
  QVERIFY2(validateGraph(g).empty(),
           validateGraph(g).empty() ? "" : validateGraph(g)[0].message.c_str());
  // Each direction scans from its own corner: its copy's delays carry its signs.
  for (const auto& [direction, sx, sy] : {std::tuple{"ff", 1, 1}, std::tuple{"bf", -1, 1},
                                          std::tuple{"fb", 1, -1}, std::tuple{"bb", -1, -1}}) {
    const std::string h = std::string("mdlstm_") + direction + "-h";
    const std::string i = std::string("mdlstm_") + direction + "-i";
    int seen = 0;
    for (const Connection& c : g.connections)
      if (c.from == h && c.to == i) {
        QVERIFY(c.delay == sx || c.delayY == sy);
        QVERIFY(c.delay == 0 || c.delay == sx);
        QVERIFY(c.delayY == 0 || c.delayY == sy);
        ++seen;
      }
    QCOMPARE(seen, 2);
  }
  int reduces = 0;
  for (const Connection& c : g.connections) reduces += c.reduce == ReduceAxis::Y && c.to == "y";
  QCOMPARE(reduces, 4);
  QVERIFY(g.layers.back().loss == LossKind::Ctc);
  QCOMPARE(m_doc->undoStack()->count(), 1);
}

void TestTwoDGraphs::scheduleShowsEachNodesScan() {
  open("leaky-lp-2d-four-directions.rnn.json");
  {
    SchedulePanel panel(m_doc, m_scene);
    auto* tree = panel.findChild<QTreeWidget*>();
    QStringList sigmas;
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
      if (tree->topLevelItem(i)->text(1).startsWith(QStringLiteral("recurrent")))
        sigmas << tree->topLevelItem(i)->text(3).section(QLatin1Char(';'), 0, 0);
    QCOMPARE(sigmas, (QStringList{
                         QStringLiteral("\u03c3 = (1, 1)"), QStringLiteral("\u03c3 = (-1, 1)"),
                         QStringLiteral("\u03c3 = (1, -1)"), QStringLiteral("\u03c3 = (-1, -1)")}));
    const QString summary = panel.findChild<QLabel*>()->text();
    QVERIFY2(summary.contains(QStringLiteral(
                 "Scans: \u03c3 = (1, 1): diagonal wavefront: x forward, y forward (recurrent 1); "
                 "\u03c3 = (-1, 1): diagonal wavefront: x backward, y forward (recurrent 2); "
                 "\u03c3 = (1, -1): diagonal wavefront: x forward, y backward (recurrent 3); "
                 "\u03c3 = (-1, -1): diagonal wavefront: x backward, y backward (recurrent 4).")),
             qPrintable(summary));
  }
  cleanup();
  open("elman.rnn.json");  // a 1-D node forward in time reads as before
  SchedulePanel plain(m_doc, m_scene);
  auto* tree = plain.findChild<QTreeWidget*>();
  bool perFrame = false;
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    if (tree->topLevelItem(i)->text(2) == QStringLiteral("per frame")) {
      perFrame = true;
      QCOMPARE(tree->topLevelItem(i)->text(3), QStringLiteral("1, in order:"));
    }
  QVERIFY(perFrame);
  QVERIFY(!plain.findChild<QLabel*>()->text().contains(QStringLiteral("Scans")));
}

void TestTwoDGraphs::scheduleGroupsTheRecognisersScans() {
  // Two stages of four directions: four scans, each naming its two nodes.
  open("mdlstm-words-small.rnn.json");
  SchedulePanel panel(m_doc, m_scene);
  const QString summary = panel.findChild<QLabel*>()->text();
  QVERIFY2(summary.contains(QStringLiteral("x forward, y forward (recurrent 1, 5); ")),
           qPrintable(summary));
  QVERIFY(summary.contains(QStringLiteral("x backward, y backward (recurrent 4, 8).")));
}

void TestTwoDGraphs::foldedNodesShowTheirScan() {
  const RecurrentNodeItem down({1}, 3, {"a", "b"}, {"a", "b"}, {-1, 1});
  QCOMPARE(down.shortTitle(), QStringLiteral("recurrent 1 \u2199"));
  QVERIFY2(down.body().startsWith(QStringLiteral(
               "diagonal wavefront: x backward, y forward (\u03c3 = (-1, 1))\nmembers: a, b")),
           qPrintable(down.body()));
  const RecurrentNodeItem rows(2, 4, {"a"}, {"a"}, {0, -1});
  QCOMPARE(rows.shortTitle(), QStringLiteral("recurrent 2 \u2191"));
  const RecurrentNodeItem forward(3, 5, {"a"}, {"a"}, {1});
  QCOMPARE(forward.shortTitle(), QStringLiteral("recurrent 3"));
  QVERIFY(forward.body().startsWith(QStringLiteral("frame by frame\n")));
}

void TestTwoDGraphs::wordsLossCardsSayPerWord() {
  // A words run's loss is a word's ctc loss; other tasks' stays per frame.
  QCOMPARE(MetricCard(QStringLiteral("train_loss"), QStringLiteral("words")).title(),
           QStringLiteral("train_loss (words) \u00b7 training ctc loss per word"));
  QCOMPARE(MetricCard(QStringLiteral("valid_loss"), QStringLiteral("words")).title(),
           QStringLiteral("valid_loss (words) \u00b7 validation ctc loss per word"));
  QCOMPARE(MetricCard(QStringLiteral("train_loss"), QStringLiteral("adding")).title(),
           QStringLiteral("train_loss (adding) \u00b7 training loss per frame"));
  QCOMPARE(MetricCard(QStringLiteral("cer"), QStringLiteral("words")).title(),
           QStringLiteral("cer (words) \u00b7 character error rate, validation"));
}

QTEST_MAIN(TestTwoDGraphs)
#include "tst_twodgraphs.moc"

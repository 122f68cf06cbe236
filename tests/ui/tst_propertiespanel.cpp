// The properties panel: editing a field pushes one undo command with exactly that change; ids
// that are malformed or taken are refused; defaults that depend on other fields follow them.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFrame>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>
#include <QWidget>

#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/properties_panel.hpp"

using namespace rnnwb;
using namespace rnnwb::ui;

class TestPropertiesPanel : public QObject {
  Q_OBJECT
 private slots:
  void init();
  void cleanup();
  void layerFieldsPushCommands();
  void takenOrMalformedIdIsRefused();
  void refusedIdMessageSitsUnderTheField();
  void kindChangeCarriesBiasDefault();
  void connectionFieldsPushCommands();
  void graphName();
  void everyFormFitsTheDefaultDockWidth();

 private:
  template <typename T>
  T* field(const char* name) {
    T* widget = m_panel->findChild<T*>(QString::fromLatin1(name));
    if (!widget) qFatal("no field %s", name);
    return widget;
  }
  void chooseInCombo(const char* name, const QString& text) {
    QComboBox* combo = field<QComboBox>(name);
    combo->setCurrentText(text);
    emit combo->activated(combo->currentIndex());
  }
  GraphDocument* m_doc = nullptr;
  GraphScene* m_scene = nullptr;
  PropertiesPanel* m_panel = nullptr;
};

void TestPropertiesPanel::init() {
  m_doc = new GraphDocument;
  QVERIFY(m_doc->open(QStringLiteral(RNNWB_EXAMPLES_DIR "/elman.rnn.json"), nullptr));
  m_scene = new GraphScene(m_doc);
  m_panel = new PropertiesPanel(m_doc, m_scene);
}

void TestPropertiesPanel::cleanup() {
  delete m_panel;
  delete m_scene;
  delete m_doc;
}

void TestPropertiesPanel::layerFieldsPushCommands() {
  m_scene->selectItems({1}, {});  // h
  QCOMPARE(field<QLineEdit>("layerId")->text(), QStringLiteral("h"));
  field<QSpinBox>("layerSize")->setValue(64);
  emit field<QSpinBox>("layerSize")->editingFinished();
  QCOMPARE(m_doc->graph().layers[1].size, 64);
  chooseInCombo("layerActivation", QStringLiteral("relu"));
  QVERIFY(m_doc->graph().layers[1].activation == Activation::Relu);
  field<QCheckBox>("layerBias")->click();
  QVERIFY(!m_doc->graph().layers[1].bias);
  chooseInCombo("layerLoss", QStringLiteral("mse"));
  QVERIFY(m_doc->graph().layers[1].loss == LossKind::Mse);
  field<QLineEdit>("layerId")->setText(QStringLiteral("hidden"));
  emit field<QLineEdit>("layerId")->editingFinished();
  QCOMPARE(m_doc->graph().layers[1].id, std::string("hidden"));
  QCOMPARE(m_doc->graph().connections[1].id, std::string("hidden->hidden@1"));
  QCOMPARE(m_doc->undoStack()->count(), 5);
  // The selection follows the rename, and the panel still shows the layer.
  QCOMPARE(field<QLineEdit>("layerId")->text(), QStringLiteral("hidden"));
  while (m_doc->undoStack()->canUndo()) m_doc->undoStack()->undo();
  QVERIFY(!m_doc->isModified());
  QCOMPARE(m_doc->graph().layers[1].size, 32);
}

void TestPropertiesPanel::takenOrMalformedIdIsRefused() {
  m_scene->selectItems({1}, {});
  for (const char* bad : {"x", "has space", "dot.ted", ""}) {
    field<QLineEdit>("layerId")->setText(QString::fromLatin1(bad));
    emit field<QLineEdit>("layerId")->editingFinished();
    QCOMPARE(m_doc->undoStack()->count(), 0);
    QCOMPARE(field<QLineEdit>("layerId")->text(), QStringLiteral("h"));
    QVERIFY(!field<QLabel>("layerMessage")->text().isEmpty());
  }
}

// Issue #14, defect 14: a refused id's message sits right under the id field, not at the
// bottom of the panel.
void TestPropertiesPanel::refusedIdMessageSitsUnderTheField() {
  m_panel->resize(280, 600);
  m_panel->show();
  QVERIFY(QTest::qWaitForWindowExposed(m_panel));
  m_scene->selectItems({1}, {});
  auto* id = field<QLineEdit>("layerId");
  id->setText(QString());
  emit id->editingFinished();
  auto* message = field<QLabel>("layerMessage");
  QTRY_VERIFY(message->isVisible());
  QVERIFY(message->text().contains(QStringLiteral("empty")));
  const int idBottom = id->mapTo(m_panel, QPoint(0, id->height())).y();
  const int messageTop = message->mapTo(m_panel, QPoint(0, 0)).y();
  QVERIFY2(messageTop >= idBottom && messageTop - idBottom < 20,
           qPrintable(QStringLiteral("%1 px below the field").arg(messageTop - idBottom)));
  // The next good edit clears it.
  id->setText(QStringLiteral("hidden"));
  emit id->editingFinished();
  QVERIFY(!message->isVisible());
}

void TestPropertiesPanel::kindChangeCarriesBiasDefault() {
  m_scene->selectItems({1}, {});
  chooseInCombo("layerKind", QStringLiteral("multiplicative"));
  const Layer& h = m_doc->graph().layers[1];
  QVERIFY(h.kind == LayerKind::Multiplicative);
  QVERIFY(!h.bias);  // additive's default bias became multiplicative's default
  QCOMPARE(m_doc->undoStack()->count(), 1);
}

void TestPropertiesPanel::connectionFieldsPushCommands() {
  m_scene->selectItems({}, {1});  // h->h@1
  QCOMPARE(field<QLineEdit>("connectionId")->text(), QStringLiteral("h->h@1"));
  field<QSpinBox>("connectionDelay")->setValue(2);
  emit field<QSpinBox>("connectionDelay")->editingFinished();
  QCOMPARE(m_doc->graph().connections[1].delay, 2);
  QCOMPARE(m_doc->graph().connections[1].id, std::string("h->h@2"));  // a default id follows
  field<QDoubleSpinBox>("connectionDensity")->setValue(0.25);
  emit field<QDoubleSpinBox>("connectionDensity")->editingFinished();
  field<QLineEdit>("connectionSeed")->setText(QStringLiteral("99"));
  emit field<QLineEdit>("connectionSeed")->editingFinished();
  QCOMPARE(m_doc->graph().connections[1].density, 0.25);
  QCOMPARE(m_doc->graph().connections[1].seed, std::uint64_t(99));
  chooseInCombo("connectionType", QStringLiteral("identity"));
  QVERIFY(m_doc->graph().connections[1].type == ConnectionType::Identity);
  QCOMPARE(m_doc->graph().connections[1].density, 1.0);  // density belongs to full only
  QVERIFY(m_doc->problems().empty());
  QCOMPARE(m_doc->undoStack()->count(), 4);
}

void TestPropertiesPanel::graphName() {
  m_scene->selectItems({}, {});
  field<QLineEdit>("graphName")->setText(QStringLiteral("renamed"));
  emit field<QLineEdit>("graphName")->editingFinished();
  QCOMPARE(m_doc->graph().name, std::string("renamed"));
  m_doc->undoStack()->undo();
  QCOMPARE(m_doc->graph().name, std::string("elman"));
}

void TestPropertiesPanel::everyFormFitsTheDefaultDockWidth() {
  // The left docks start 190 px wide (MainWindow); the panel sits in a scroll area there. Its
  // fields' widest contents (a size's range of +-2^30, "cross_entropy") made each form wider
  // than that, so the dock scrolled sideways and cut the fields.
  QScrollArea area;
  area.setWidget(m_panel);
  area.setWidgetResizable(true);
  area.setFrameShape(QFrame::NoFrame);
  area.resize(190, 400);
  area.show();
  QVERIFY(QTest::qWaitForWindowExposed(&area));
  for (int form = 0; form < 3; ++form) {
    if (form == 0) m_scene->selectItems({}, {});
    if (form == 1) m_scene->selectItems({0}, {});
    if (form == 2) m_scene->selectItems({}, {0});
    QCoreApplication::processEvents();
    QVERIFY2(m_panel->minimumSizeHint().width() <= 190,
             qPrintable(QStringLiteral("form %1 needs %2 px")
                            .arg(form)
                            .arg(m_panel->minimumSizeHint().width())));
    QVERIFY(!area.horizontalScrollBar()->isVisible());
  }
  // The narrow field shows the start of the name (setText leaves the cursor at the end), unless
  // it is being typed in.
  if (QWidget* focused = QApplication::focusWidget()) focused->clearFocus();
  m_scene->selectItems({0}, {});
  m_scene->selectItems({}, {});
  QCOMPARE(field<QLineEdit>("graphName")->cursorPosition(), 0);
  area.takeWidget();
}

QTEST_MAIN(TestPropertiesPanel)
#include "tst_propertiespanel.moc"

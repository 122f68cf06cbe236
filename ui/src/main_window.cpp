#include "rnnwb/ui/main_window.hpp"

#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>

#include "rnnwb/ui/edit_actions.hpp"
#include "rnnwb/ui/file_actions.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/graph_view.hpp"
#include "rnnwb/ui/mask_panel.hpp"
#include "rnnwb/ui/packing_panel.hpp"
#include "rnnwb/ui/palette_panel.hpp"
#include "rnnwb/ui/problems_panel.hpp"
#include "rnnwb/ui/properties_panel.hpp"
#include "rnnwb/ui/schedule_panel.hpp"
#include "rnnwb/ui/training_panel.hpp"

namespace rnnwb::ui {

namespace {

const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
// Raised when the docks change in a way an old saved state would restore badly.
constexpr int kLayoutVersion = 1;

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_document(new GraphDocument(this)),
      m_scene(new GraphScene(m_document, this)),
      m_view(new GraphView(m_scene, this)) {
  setCentralWidget(m_view);
  createActions();
  createMenus();
  createToolBar();
  createDockWindows();
  connect(m_document, &GraphDocument::filePathChanged, this, &MainWindow::updateTitle);
  connect(m_document, &GraphDocument::modifiedChanged, this, &MainWindow::updateTitle);
  connect(m_document, &GraphDocument::structureChanged, this, &MainWindow::updateTitle);
  connect(m_document, &GraphDocument::problemsChanged, this, [this] {
    const auto count = m_document->problems().size();
    statusBar()->showMessage(count == 0 ? QStringLiteral("Valid graph")
                                        : QStringLiteral("%1 problem(s)").arg(count));
  });
  updateTitle();
  resize(1500, 900);
}

void MainWindow::createActions() {
  m_edit = new EditActions(m_document, m_scene, m_view, this);
  m_files = new FileActions(m_document, m_scene, this);
  // A new document is shown whole, once the view has its final size.
  connect(m_files, &FileActions::documentReplaced, this, [this] {
    m_scene->setCollapsed(false, false);
    QTimer::singleShot(0, m_view, &GraphView::fitToWindow);
  });
  connect(m_view, &GraphView::paletteEntryDropped, m_edit, &EditActions::addPaletteEntry);
  connect(m_scene, &GraphScene::collapsedChanged, this, [this](bool collapsed) {
    if (collapsed && !m_document->analysis())
      statusBar()->showMessage(QStringLiteral("Nothing to collapse while the graph has a cycle "
                                              "with no delay (see Problems)"),
                               8000);
  });
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
  file->addActions({m_files->newFile, m_files->open});
  file->addMenu(m_files->recentMenu);
  file->addSeparator();
  file->addActions({m_files->save, m_files->saveAs});
  file->addSeparator();
  file->addActions({m_files->exportPng, m_files->exportSvg, m_files->exportDot});
  file->addSeparator();
  file->addAction(m_files->quit);

  QMenu* edit = menuBar()->addMenu(QStringLiteral("&Edit"));
  edit->addActions({m_edit->undo, m_edit->redo});
  edit->addSeparator();
  edit->addActions({m_edit->cut, m_edit->copy, m_edit->paste, m_edit->remove});
  edit->addSeparator();
  edit->addActions({m_edit->selectAll, m_edit->autoLayout});

  m_viewMenu = menuBar()->addMenu(QStringLiteral("&View"));
  m_viewMenu->addActions({m_edit->zoomIn, m_edit->zoomOut, m_edit->resetZoom, m_edit->fitToWindow});
  m_viewMenu->addSeparator();
  m_viewMenu->addAction(m_edit->collapse);
  m_viewMenu->addSeparator();  // the docks' toggles follow
}

void MainWindow::createToolBar() {
  QToolBar* bar = addToolBar(QStringLiteral("Main"));
  bar->setObjectName(QStringLiteral("mainToolBar"));
  bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  bar->addActions({m_files->newFile, m_files->open, m_files->save});
  bar->addSeparator();
  bar->addActions({m_edit->undo, m_edit->redo, m_edit->remove});
  bar->addSeparator();
  bar->addActions({m_edit->autoLayout, m_edit->fitToWindow, m_edit->collapse});
}

void MainWindow::createDockWindows() {
  auto addDock = [this](QWidget* widget, const QString& title, Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(title);
    dock->setWidget(widget);
    addDockWidget(area, dock);
    m_viewMenu->addAction(dock->toggleViewAction());
    return dock;
  };
  m_palette = new PalettePanel(this);
  connect(m_palette, &PalettePanel::entryActivated, this,
          [this](const QString& key) { m_edit->addPaletteEntry(key, m_view->visibleCentre()); });
  m_properties = new PropertiesPanel(m_document, m_scene, this);
  m_problems = new ProblemsPanel(m_document, m_scene, this);
  m_schedule = new SchedulePanel(m_document, m_scene, this);
  QDockWidget* palette = addDock(m_palette, QStringLiteral("Palette"), Qt::LeftDockWidgetArea);
  addDock(m_properties, QStringLiteral("Properties"), Qt::LeftDockWidgetArea);
  QDockWidget* schedule = addDock(m_schedule, QStringLiteral("Schedule"), Qt::RightDockWidgetArea);
  addDock(m_problems, QStringLiteral("Problems"), Qt::RightDockWidgetArea);
  resizeDocks({palette, schedule}, {190, 290}, Qt::Horizontal);
  // Training takes the width of the window under the canvas; hidden until asked for (View menu,
  // toolbar), so that drawing keeps its room.
  m_training = new TrainingPanel(m_document, this);
  QDockWidget* training = addDock(m_training, QStringLiteral("Training"), Qt::BottomDockWidgetArea);
  training->hide();
  findChild<QToolBar*>(QStringLiteral("mainToolBar"))->addAction(training->toggleViewAction());
  // Packing (spec/packing.md) shares the bottom with Training, as a tab; hidden until asked for.
  m_packing = new PackingPanel(this);
  QDockWidget* packing = addDock(m_packing, QStringLiteral("Packing"), Qt::BottomDockWidgetArea);
  tabifyDockWidget(training, packing);
  packing->hide();
  // Sparsity (SnAp masks, colourings, memory) shares the bottom with Training, as a tab.
  m_masks = new MaskPanel(m_document, this);
  QDockWidget* sparsity = addDock(m_masks, QStringLiteral("Sparsity"), Qt::BottomDockWidgetArea);
  tabifyDockWidget(training, sparsity);
  sparsity->hide();
}

void MainWindow::updateTitle() {
  const QString path = m_document->filePath();
  const QString name = path.isEmpty() ? QStringLiteral("untitled") : QFileInfo(path).fileName();
  setWindowTitle(QStringLiteral("%1[*] — RNN Workbench").arg(name));
  setWindowModified(m_document->isModified());
}

void MainWindow::restoreLayout() {
  const QSettings settings;
  restoreGeometry(settings.value(kGeometryKey).toByteArray());
  restoreState(settings.value(kStateKey).toByteArray(), kLayoutVersion);
  m_keepsLayout = true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!m_files->maybeSave() || !m_training->confirmClose()) {
    event->ignore();
    return;
  }
  if (m_keepsLayout) {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState(kLayoutVersion));
  }
  m_files->closing();
  event->accept();
}

}  // namespace rnnwb::ui

#include "rnnwb/ui/main_window.hpp"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>

#include "rnnwb/core/train/node_times_file.hpp"
#include "rnnwb/ui/budget_panel.hpp"
#include "rnnwb/ui/edit_actions.hpp"
#include "rnnwb/ui/file_actions.hpp"
#include "rnnwb/ui/find_layer_field.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/graph_view.hpp"
#include "rnnwb/ui/mask_panel.hpp"
#include "rnnwb/ui/packing_panel.hpp"
#include "rnnwb/ui/palette_panel.hpp"
#include "rnnwb/ui/problems_panel.hpp"
#include "rnnwb/ui/properties_panel.hpp"
#include "rnnwb/ui/schedule_panel.hpp"
#include "rnnwb/ui/train_form.hpp"
#include "rnnwb/ui/training_panel.hpp"
#include "start_page.hpp"

// The icons are compiled into the static rnnwb_ui library, whose resources a program must
// register by name (Q_INIT_RESOURCE works only outside a namespace).
static void registerWorkbenchResources() { Q_INIT_RESOURCE(rnnwb); }

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
  registerWorkbenchResources();
  setWindowIcon(QIcon(QStringLiteral(":/icons/rnnwb.svg")));
  setCentralWidget(m_view);
  createActions();
  createMenus();
  createToolBar();
  createDockWindows();
  connect(m_document, &GraphDocument::filePathChanged, this, &MainWindow::updateTitle);
  connect(m_document, &GraphDocument::modifiedChanged, this, &MainWindow::updateTitle);
  connect(m_document, &GraphDocument::structureChanged, this, &MainWindow::updateTitle);
  // A permanent widget: a menu's status tips replace temporary messages, never this.
  m_problemCount = new QLabel(this);
  m_problemCount->setObjectName(QStringLiteral("problemCount"));
  statusBar()->addPermanentWidget(m_problemCount);
  connect(m_document, &GraphDocument::problemsChanged, this, &MainWindow::updateProblemCount);
  m_zoomLevel = new QLabel(this);
  m_zoomLevel->setObjectName(QStringLiteral("zoomLevel"));
  m_zoomLevel->setToolTip(QStringLiteral("Zoom (wheel; Ctrl+0: 100%)"));
  statusBar()->addPermanentWidget(m_zoomLevel);
  connect(m_view, &GraphView::zoomChanged, this, [this](double zoom) {
    m_zoomLevel->setText(QStringLiteral("%1%").arg(qRound(zoom * 100)));
  });
  m_zoomLevel->setText(QStringLiteral("%1%").arg(qRound(m_view->zoom() * 100)));
  updateProblemCount();
  updateTitle();
  createStartPage();
  placeOnScreen();
}

void MainWindow::createStartPage() {
  m_startPage = new StartPage(m_view);
  connect(m_startPage, &StartPage::fileChosen, m_files,
          [this](const QString& path) { m_files->openFile(path); });
  connect(m_startPage, &StartPage::templateChosen, m_edit,
          [this](CellTemplate cell) { m_edit->newFromTemplate(cell); });
  connect(m_document, &GraphDocument::structureChanged, this, &MainWindow::placeStartPage);
  m_view->installEventFilter(this);  // it stays centred as the canvas resizes
  placeStartPage();
}

void MainWindow::placeStartPage() {
  const bool empty = m_document->graph().layers.empty();
  if (empty && !m_startPage->isVisible()) m_startPage->refresh();
  m_startPage->setVisible(empty);
  const QSize size = m_startPage->sizeHint().boundedTo(m_view->size() - QSize(20, 20));
  m_startPage->resize(size);
  m_startPage->move((m_view->width() - size.width()) / 2, (m_view->height() - size.height()) / 2);
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_view && event->type() == QEvent::Resize) placeStartPage();
  return QMainWindow::eventFilter(watched, event);
}

QSize MainWindow::initialSize(const QRect& available) {
  // As large as the design wants, but never past the screen: at 1280×720 the docks and the
  // status bar stay on screen.
  return {std::min(1500, int(available.width() * 0.94)),
          std::min(900, int(available.height() * 0.92))};
}

void MainWindow::placeOnScreen() {
  const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
  const QRect available = screen ? screen->availableGeometry() : QRect(0, 0, 1500, 900);
  const QSize size = initialSize(available);
  setGeometry(QStyle::alignedRect(Qt::LeftToRight, Qt::AlignCenter, size, available));
}

void MainWindow::updateProblemCount() {
  const auto count = m_document->problems().size();
  m_problemCount->setText(m_document->graph().layers.empty() ? QStringLiteral("Empty graph")
                          : count == 0                       ? QStringLiteral("Valid graph")
                          : count == 1                       ? QStringLiteral("1 problem")
                                       : QStringLiteral("%1 problems").arg(count));
}

void MainWindow::createActions() {
  m_edit = new EditActions(m_document, m_scene, m_view, this);
  m_files = new FileActions(m_document, m_scene, this);
  // A new document is shown whole, once the view has its final size.
  connect(m_files, &FileActions::documentReplaced, this, [this] {
    m_scene->setCollapsed(false, false);
    QTimer::singleShot(0, m_view, &GraphView::showDocument);
  });
  connect(m_files, &FileActions::statusMessage, this,
          [this](const QString& text) { statusBar()->showMessage(text, 15000); });
  connect(m_view, &GraphView::paletteEntryDropped, m_edit,
          [this](const QString& key, QPointF at) { m_edit->addPaletteEntry(key, at); });
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
  file->addAction(m_files->importOnnx);
  file->addSeparator();
  file->addActions({m_files->save, m_files->saveAs});
  file->addSeparator();
  file->addActions({m_files->exportPng, m_files->exportSvg, m_files->exportDot});
  file->addSeparator();
  file->addAction(m_files->quit);

  QMenu* edit = menuBar()->addMenu(QStringLiteral("&Edit"));
  edit->addActions({m_edit->undo, m_edit->redo});
  edit->addSeparator();
  edit->addActions({m_edit->cut, m_edit->copy, m_edit->paste, m_edit->duplicate, m_edit->remove});
  edit->addSeparator();
  edit->addActions({m_edit->selectAll, m_edit->find, m_edit->autoLayout, m_edit->frameSelection});

  m_viewMenu = menuBar()->addMenu(QStringLiteral("&View"));
  m_viewMenu->addActions({m_edit->zoomIn, m_edit->zoomOut, m_edit->resetZoom, m_edit->fitToWindow});
  m_viewMenu->addSeparator();
  m_viewMenu->addActions({m_edit->collapse, m_edit->minimap, m_edit->snapToGrid});
  m_viewMenu->addSeparator();  // the docks' toggles follow

  // Added last, so that it stays the rightmost menu.
  m_helpMenu = new QMenu(QStringLiteral("&Help"), this);
  QAction* about = m_helpMenu->addAction(QStringLiteral("&About RNN Workbench"));
  about->setMenuRole(QAction::AboutRole);
  connect(about, &QAction::triggered, this, &MainWindow::showAbout);
  QAction* aboutQt = m_helpMenu->addAction(QStringLiteral("About &Qt"));
  aboutQt->setMenuRole(QAction::AboutQtRole);
  connect(aboutQt, &QAction::triggered, qApp, &QApplication::aboutQt);
}

void MainWindow::showAbout() {
  QMessageBox::about(
      this, QStringLiteral("About RNN Workbench"),
      QStringLiteral("<h3>RNN Workbench %1</h3>"
                     "<p>Draw, check and train generalized recurrent neural networks: "
                     "truncated BPTT, SnAp-n and exact RTRL on a CPU engine and a CUDA "
                     "backend.</p><p>The command-line tool is <code>rnnwb</code> "
                     "(<code>rnnwb --help</code>). Built with Qt %2.</p>")
          .arg(QStringLiteral(RNNWB_VERSION), QString::fromLatin1(qVersion())));
}

void MainWindow::createToolBar() {
  QToolBar* bar = addToolBar(QStringLiteral("Main"));
  bar->setObjectName(QStringLiteral("mainToolBar"));
  // Icons (resources/icons), named in their tooltips with their keys.
  bar->setToolButtonStyle(Qt::ToolButtonIconOnly);
  bar->setIconSize(QSize(22, 22));
  const auto icon = [](const char* name) {
    return QIcon(QStringLiteral(":/icons/%1.svg").arg(QLatin1String(name)));
  };
  m_files->newFile->setIcon(icon("new"));
  m_files->open->setIcon(icon("open"));
  m_files->save->setIcon(icon("save"));
  m_edit->undo->setIcon(icon("undo"));
  m_edit->redo->setIcon(icon("redo"));
  m_edit->remove->setIcon(icon("delete"));
  m_edit->autoLayout->setIcon(icon("auto-layout"));
  m_edit->fitToWindow->setIcon(icon("fit"));
  m_edit->collapse->setIcon(icon("collapse"));
  m_edit->find->setIcon(icon("find"));
  bar->setMovable(false);
  bar->addActions({m_files->newFile, m_files->open, m_files->save});
  bar->addSeparator();
  bar->addActions({m_edit->undo, m_edit->redo, m_edit->remove});
  bar->addSeparator();
  bar->addActions({m_edit->autoLayout, m_edit->fitToWindow, m_edit->collapse});
  // The find field sits at the right end, as a search box does.
  auto* spacer = new QWidget(bar);
  spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  m_toolBarEnd = bar->addWidget(spacer);
  m_find = new FindLayerField(m_document, m_scene, m_view, bar);
  bar->addWidget(m_find);
  connect(m_edit->find, &QAction::triggered, m_find, [this] {
    m_find->setFocus(Qt::ShortcutFocusReason);
    m_find->selectAll();
  });
}

void MainWindow::createDockWindows() {
  auto addDock = [this](QWidget* widget, const QString& title, Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(title);
    dock->setWidget(widget);
    addDockWidget(area, dock);
    m_viewMenu->addAction(dockToggle(dock));
    return dock;
  };
  m_palette = new PalettePanel(this);
  connect(m_palette, &PalettePanel::entryActivated, this,
          [this](const QString& key) { m_edit->addPaletteEntry(key, std::nullopt); });
  m_properties = new PropertiesPanel(m_document, m_scene, this);
  m_problems = new ProblemsPanel(m_document, m_scene, this);
  m_schedule = new SchedulePanel(m_document, m_scene, this);
  QDockWidget* palette = addDock(m_palette, QStringLiteral("Palette"), Qt::LeftDockWidgetArea);
  // In a scroll area: its form's full height would otherwise be the least the left column can
  // give, and that caps every bottom dock (the Training plots) at 1280x720.
  auto* properties = new QScrollArea;
  properties->setWidget(m_properties);
  properties->setWidgetResizable(true);
  properties->setFrameShape(QFrame::NoFrame);
  addDock(properties, QStringLiteral("Properties"), Qt::LeftDockWidgetArea);
  QDockWidget* schedule = addDock(m_schedule, QStringLiteral("Schedule"), Qt::RightDockWidgetArea);
  addDock(m_problems, QStringLiteral("Problems"), Qt::RightDockWidgetArea);
  resizeDocks({palette, schedule}, {190, 290}, Qt::Horizontal);
  // Training takes the width of the window under the canvas; hidden until asked for (View menu,
  // toolbar), so that drawing keeps its room.
  m_training = new TrainingPanel(m_document, this);
  QDockWidget* training = addDock(m_training, QStringLiteral("Training"), Qt::BottomDockWidgetArea);
  training->hide();
  // Its size hint would leave the plots a strip: the first time it shows docked, it takes half
  // the window's height (a layout the user saved or dragged since is kept after that).
  connect(training, &QDockWidget::visibilityChanged, this, [this, training](bool visible) {
    if (!visible || training->isFloating() || training->property("sized").toBool()) return;
    training->setProperty("sized", true);
    resizeDocks({training}, {height() / 2}, Qt::Vertical);
  });
  QAction* showTraining = dockToggle(training);
  showTraining->setIcon(QIcon(QStringLiteral(":/icons/training.svg")));
  showTraining->setIconVisibleInMenu(false);  // the View menu shows its check mark, as the others
  findChild<QToolBar*>(QStringLiteral("mainToolBar"))->insertAction(m_toolBarEnd, showTraining);
  // Packing (spec/packing.md) shares the bottom with Training, as a tab; hidden until asked for.
  m_packing = new PackingPanel(this);
  QDockWidget* packing = addDock(m_packing, QStringLiteral("Packing"), Qt::BottomDockWidgetArea);
  tabifyDockWidget(training, packing);
  packing->hide();
  // A 2-D graph's stages pack at their own grids: the dock offers each.
  m_packing->setGraph(m_document->graph());
  connect(m_document, &GraphDocument::structureChanged, m_packing,
          [this] { m_packing->setGraph(m_document->graph()); });
  // Sparsity (SnAp masks, colourings, memory) shares the bottom with Training, as a tab.
  m_masks = new MaskPanel(m_document, this);
  QDockWidget* sparsity = addDock(m_masks, QStringLiteral("Sparsity"), Qt::BottomDockWidgetArea);
  tabifyDockWidget(training, sparsity);
  sparsity->hide();
  // Where the selected run's time goes: its node_times.json on the Schedule and the canvas.
  connect(m_training, &TrainingPanel::currentRunUpdated, this, [this](const QString& runDir) {
    std::optional<train::NodeTimesFile> times;
    const QString path = runDir + QStringLiteral("/node_times.json");
    if (!runDir.isEmpty() && QFileInfo::exists(path)) {
      try {
        times = train::readNodeTimes(path.toStdString());
      } catch (const std::exception&) {  // being replaced, or from another version: none shown
      }
    }
    m_schedule->setNodeTimes(std::move(times));
  });
  // Memory budget (which algorithm fits, docs/snap.md) too; a row that fits fills the Training
  // form, which comes to the front.
  m_budget = new BudgetPanel(m_document, this);
  QDockWidget* budget =
      addDock(m_budget, QStringLiteral("Memory budget"), Qt::BottomDockWidgetArea);
  tabifyDockWidget(training, budget);
  budget->hide();
  // A tab behind another is visible but covered: the measurement runs only while it is in front.
  // A 2-D graph's budget is that of the words run the Training form would start.
  const auto wordsTaskToBudget = [this] {
    const train::TrainConfig config = m_training->form()->config();
    if (config.task.kind == "words") m_budget->setWordsTask(config.task);
  };
  connect(m_training->form(), &TrainForm::changed, this, wordsTaskToBudget);
  wordsTaskToBudget();
  connect(budget, &QDockWidget::visibilityChanged, m_budget, &BudgetPanel::setOnScreen);
  connect(m_budget, &BudgetPanel::useAlgorithm, this,
          [this, training](const QString& algorithm, int streams, int h, int hPrime) {
            m_training->useAlgorithm(algorithm, streams, h, hPrime);
            training->show();
            training->raise();
          });
  menuBar()->addMenu(m_helpMenu);
}

QAction* MainWindow::dockToggle(QDockWidget* dock) {
  // One action per dock, made once: the View menu and the toolbar share it.
  if (auto* made = dock->findChild<QAction*>(QStringLiteral("dockToggle"))) return made;
  auto* action = new QAction(dock->windowTitle(), dock);
  action->setObjectName(QStringLiteral("dockToggle"));
  action->setCheckable(true);
  action->setChecked(!dock->isHidden());
  action->setToolTip(QStringLiteral("Show or hide the %1 panel").arg(dock->windowTitle()));
  connect(dock->toggleViewAction(), &QAction::toggled, action, &QAction::setChecked);
  // Shows a hidden dock, raises one behind another's tab, hides one in view. (The dock's own
  // toggleViewAction would hide a tabbed dock that is not in front, or show it still behind.)
  connect(action, &QAction::triggered, dock, [this, dock, action] {
    const bool behindTab = !dock->isHidden() && dock->visibleRegion().isEmpty();
    if (dock->isHidden() || behindTab) {
      // A bottom dock coming out takes a share of the height that leaves the canvas room.
      if (dock->isHidden() && dockWidgetArea(dock) == Qt::BottomDockWidgetArea)
        QTimer::singleShot(
            0, this, [this, dock] { resizeDocks({dock}, {int(height() * 0.42)}, Qt::Vertical); });
      dock->show();
      dock->raise();
      action->setChecked(true);
    } else {
      dock->close();
    }
  });
  return action;
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

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  // A dock hidden (or restored) before the window was first shown sent no hide event: its
  // View-menu and toolbar check marks are set from what is shown now.
  for (QDockWidget* dock : findChildren<QDockWidget*>())
    if (auto* toggle = dock->findChild<QAction*>(QStringLiteral("dockToggle")))
      toggle->setChecked(!dock->isHidden());
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

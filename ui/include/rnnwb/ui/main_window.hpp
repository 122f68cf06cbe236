#pragma once
// The workbench window. It only places things: the canvas in the centre, the palette,
// properties, problems, schedule, training, packing and sparsity as dock widgets (each
// toggled from the View menu), and the menus and toolbar built from EditActions and FileActions.
// It owns the GraphDocument.
#include <QMainWindow>

class QDockWidget;
class QLabel;

namespace rnnwb::ui {

class EditActions;
class FileActions;
class FindLayerField;
class GraphDocument;
class GraphScene;
class GraphView;
class PackingPanel;
class BudgetPanel;
class MaskPanel;
class PalettePanel;
class ProblemsPanel;
class PropertiesPanel;
class SchedulePanel;
class StartPage;
class TrainingPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  GraphDocument* document() const { return m_document; }
  GraphScene* scene() const { return m_scene; }
  GraphView* view() const { return m_view; }
  EditActions* editActions() const { return m_edit; }
  FileActions* fileActions() const { return m_files; }
  TrainingPanel* trainingPanel() const { return m_training; }
  /// Puts the window and its docks where the user left them (QSettings), and from then on
  /// saves them when the window closes. Not called for --screenshot, whose renders must not
  /// depend on anyone's settings.
  void restoreLayout();
  PackingPanel* packingPanel() const { return m_packing; }
  MaskPanel* maskPanel() const { return m_masks; }
  BudgetPanel* budgetPanel() const { return m_budget; }
  /// The first window's size on a screen whose free area is `available`.
  static QSize initialSize(const QRect& available);
  /// The View menu's action for a dock (also on the toolbar for Training).
  QAction* dockToggle(QDockWidget* dock);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void createActions();
  void createMenus();
  void createToolBar();
  void createDockWindows();
  void updateTitle();
  void updateProblemCount();
  void placeOnScreen();
  void showAbout();
  void createStartPage();
  void placeStartPage();

  GraphDocument* m_document;
  GraphScene* m_scene;
  GraphView* m_view;
  EditActions* m_edit = nullptr;
  FileActions* m_files = nullptr;
  PalettePanel* m_palette = nullptr;
  PropertiesPanel* m_properties = nullptr;
  ProblemsPanel* m_problems = nullptr;
  SchedulePanel* m_schedule = nullptr;
  TrainingPanel* m_training = nullptr;
  PackingPanel* m_packing = nullptr;
  MaskPanel* m_masks = nullptr;
  BudgetPanel* m_budget = nullptr;
  QMenu* m_viewMenu = nullptr;
  QMenu* m_helpMenu = nullptr;
  QLabel* m_problemCount = nullptr;
  QLabel* m_zoomLevel = nullptr;
  FindLayerField* m_find = nullptr;
  QAction* m_toolBarEnd = nullptr;   // the spacer before the find field
  StartPage* m_startPage = nullptr;  // on the canvas while the document has no layers
  bool m_keepsLayout = false;
};

}  // namespace rnnwb::ui

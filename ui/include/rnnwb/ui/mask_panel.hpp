#pragma once
// The Sparsity panel: what `rnnwb mask` says about one recurrent node of the document
// (spec/snap-masks.md), kept up to date while the graph is edited. A node selector (numbered as
// `rnnwb analyze` numbers them), a SnAp level and a BPTT length choose what to show: the figures
// (state, parameters, nnz and density of M_n, colours of I and D, the memory of Ĵ in COO and CSR
// beside dense RTRL and BPTT), the I | D | M_n picture with its row colouring, and the weight
// mask of a sparse connection.
//
// Recomputing runs off the UI thread (QtConcurrent) after a pause in the edits; a result that
// the document or the choices have since outdated is dropped. Nothing is computed while the
// panel is hidden.
#include <memory>
#include <optional>

#include <QFutureWatcher>
#include <QWidget>

#include "rnnwb/core/snap/node_summary.hpp"

class QComboBox;
class QLabel;
class QSpinBox;
class QTabWidget;
class QTableWidget;

namespace rnnwb::ui {

class GraphDocument;
class LatestOnlyRunner;
class PixelImageView;
struct MaskResult;

class MaskPanel : public QWidget {
  Q_OBJECT
 public:
  /// Pause after an edit before recomputing.
  static constexpr int kDebounceMs = 300;

  explicit MaskPanel(GraphDocument* document, QWidget* parent = nullptr);
  ~MaskPanel() override;

  /// Chooses recurrent node `index` (0-based in schedule order); false when there is none.
  bool setCurrentNode(int index);
  int currentNode() const;  // -1 when the graph has no recurrent node
  int recurrentNodeCount() const;
  void setSnapLevel(int n);  // 0 = the exact mask M_∞
  void setBpttLength(int frames);

  /// The one-line state: a problem to fix, a refusal, "computing…", an error from core.
  QString message() const;
  bool isComputing() const;
  /// Shown, with nothing waiting or running: what is on screen is for the current document.
  bool isUpToDate() const;
  /// The figures shown; absent while there are none (invalid graph, error, refusal keeps them).
  const std::optional<snap::NodeSummary>& summary() const { return m_summary; }
  PixelImageView* patternView() const { return m_patternView; }
  PixelImageView* weightMaskView() const { return m_weightView; }

 signals:
  /// A result (or a reason why there is none) is on screen for the current document.
  void updated();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void buildControls();
  QWidget* buildPictures();
  void refreshNodeList();
  void refreshWeightList();
  void scheduleUpdate(int delayMs);
  void startComputation();
  void computationFinished();
  void display(const MaskResult& result);
  void showMessageOnly(const QString& text);

  GraphDocument* m_document;
  QComboBox* m_node = nullptr;
  QSpinBox* m_level = nullptr;
  QSpinBox* m_bptt = nullptr;
  QLabel* m_message = nullptr;
  QTableWidget* m_figures = nullptr;
  QTableWidget* m_levels = nullptr;
  QTabWidget* m_tabs = nullptr;
  PixelImageView* m_patternView = nullptr;
  QLabel* m_legend = nullptr;
  QComboBox* m_weightConnection = nullptr;
  QLabel* m_weightInfo = nullptr;
  PixelImageView* m_weightView = nullptr;
  LatestOnlyRunner* m_runner;  // the debounce, and dropping outdated results
  QFutureWatcher<MaskResult>* m_watcher;
  std::optional<snap::NodeSummary> m_summary;
  int m_chosenNode = 0;  // the user's choice, kept while the graph has no analysis
};

}  // namespace rnnwb::ui

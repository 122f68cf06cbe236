#pragma once
// The Memory budget panel: which training algorithm fits a memory budget for the document's
// graph, as `rnnwb budget` says (core/include/rnnwb/core/snap/algorithm_budget.hpp). Streams,
// BPTT's window (h; h'), the optimizer and the budget are chosen here; the table shows the bytes
// BPTT(h; h'), SnAp-1/2/3 and exact RTRL would hold, their time per frame (measured by a short
// run of each algorithm that fits, else the model's estimate, marked ~) and whether they fit. A
// row that fits fills the Training form in one click (useAlgorithm).
//
// The work runs off the UI thread (QtConcurrent) after a pause in the edits; a result that the
// document or the choices have since outdated is dropped. Nothing runs while the panel is hidden
// (closed, or a dock tab behind another: setOnScreen): hiding it stops a measurement between two
// sample runs, each kept under kMaxSampleSeconds by the model, and so does the destructor, which
// therefore returns within about that time.
#include <optional>
#include <stop_token>

#include <QFutureWatcher>
#include <QWidget>

#include "rnnwb/core/snap/algorithm_budget.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace rnnwb::ui {

class GraphDocument;
class LatestOnlyRunner;

/// What one computation returns: the table, or core's message.
struct BudgetResult {
  bool stopped = false;  // cut short: the panel hid or closed
  QString error;
  std::optional<snap::BudgetTable> table;
};

class BudgetPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kDebounceMs = 400;
  /// A sample run the model says takes longer is not measured (its row keeps the estimate, ~).
  static constexpr double kMaxSampleSeconds = 0.25;

  explicit BudgetPanel(GraphDocument* document, QWidget* parent = nullptr);
  ~BudgetPanel() override;

  void setStreams(int streams);
  void setWindow(int h, int hPrime);
  void setBudgetBytes(std::uint64_t bytes);
  /// Measure the algorithms that fit (on by default); off leaves the model's estimates.
  void setMeasuring(bool measure);

  QString message() const;
  bool isUpToDate() const;   // shown, nothing waiting or running
  bool isComputing() const;  // a computation runs off the UI thread
  /// Whether the panel can be seen, where being visible is not enough: a dock tabbed behind
  /// another is visible but covered (MainWindow passes its dock's visibilityChanged). Off stops
  /// what runs; on computes what changed meanwhile.
  void setOnScreen(bool onScreen);
  const std::optional<snap::BudgetTable>& table() const { return m_table; }
  QTableWidget* tableWidget() const { return m_rows; }
  /// Selects the row of an algorithm ("bptt", "snap1", ...); false when there is none.
  bool selectAlgorithm(const QString& algorithm);
  QPushButton* useButton() const { return m_use; }

 signals:
  void updated();
  /// The user chose this row: fill the Training form with it.
  void useAlgorithm(const QString& algorithm, int streams, int h, int hPrime);

 protected:
  void showEvent(QShowEvent* event) override;
  void hideEvent(QHideEvent* event) override;

 private:
  QWidget* buildControls();
  void scheduleUpdate(int delayMs);
  void startComputation();
  void computationFinished();
  void stopComputation();
  void display(const BudgetResult& result);
  void updateUseButton();
  snap::BudgetQuery query() const;

  GraphDocument* m_document;
  QSpinBox* m_streams = nullptr;
  QSpinBox* m_window = nullptr;
  QSpinBox* m_newFrames = nullptr;
  QDoubleSpinBox* m_budget = nullptr;  // GiB
  QComboBox* m_optimizer = nullptr;
  QCheckBox* m_measure = nullptr;
  QLabel* m_message = nullptr;
  QLabel* m_shared = nullptr;
  QTableWidget* m_rows = nullptr;
  QPushButton* m_use = nullptr;
  LatestOnlyRunner* m_runner;
  QFutureWatcher<BudgetResult>* m_watcher;
  std::optional<snap::BudgetTable> m_table;
  std::optional<std::uint64_t> m_exactBudget;  // set by setBudgetBytes until the user edits
  std::stop_source m_stop;                     // of the computation running now
  bool m_onScreen = true;
};

}  // namespace rnnwb::ui

#pragma once
// The Memory budget panel: which training algorithm fits a memory budget for the document's
// graph, as `rnnwb budget` says (core/include/rnnwb/core/snap/algorithm_budget.hpp). Streams,
// BPTT's window (h; h'), the optimizer and the budget are chosen here; the table shows the bytes
// BPTT(h; h'), SnAp-1/2/3 and exact RTRL would hold, their time per frame (measured by a short
// run of each algorithm that fits, else the model's estimate, marked ~) and whether they fit. A
// row that fits fills the Training form in one click (useAlgorithm).
//
// The work runs off the UI thread (QtConcurrent) after a pause in the edits; a result that the
// document or the choices have since outdated is dropped. Nothing runs while the panel is hidden.
#include <optional>

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
  QString error;
  std::optional<snap::BudgetTable> table;
};

class BudgetPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kDebounceMs = 400;

  explicit BudgetPanel(GraphDocument* document, QWidget* parent = nullptr);
  ~BudgetPanel() override;

  void setStreams(int streams);
  void setWindow(int h, int hPrime);
  void setBudgetBytes(std::uint64_t bytes);
  /// Measure the algorithms that fit (on by default); off leaves the model's estimates.
  void setMeasuring(bool measure);

  QString message() const;
  bool isUpToDate() const;  // shown, nothing waiting or running
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

 private:
  QWidget* buildControls();
  void scheduleUpdate(int delayMs);
  void startComputation();
  void computationFinished();
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
};

}  // namespace rnnwb::ui

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
//
// For a 2-D graph the panel counts its words run instead (words_budget.hpp): the batch, the
// synthetic words and the packer are chosen here, and the table lists each part's bytes for the
// largest batch of the first epoch and for the worst case. Its time is not measured here (an
// update cannot be cut short); `rnnwb budget` measures it.
#include <optional>
#include <stop_token>

#include <QFutureWatcher>
#include <QWidget>

#include "rnnwb/core/snap/algorithm_budget.hpp"
#include "rnnwb/core/train/words_budget.hpp"

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
class WordsBudgetControls;

/// What one computation returns: the table, or core's message.
struct BudgetResult {
  bool stopped = false;  // cut short: the panel hid or closed
  QString error;
  std::optional<snap::BudgetTable> table;
  std::optional<train::WordsBudget> words;  // a 2-D graph's
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
  /// The words task of the Training form, which a 2-D graph's run is sized by (its word list,
  /// fonts, IAM folder; batch, word count and packer shown here and editable).
  void setWordsTask(const train::TaskConfig& task);
  /// Measure the algorithms that fit (on by default); off leaves the model's estimates.
  void setMeasuring(bool measure);
  /// The longest sample run the model may promise (kMaxSampleSeconds unless set): the tests set
  /// it where they check what is measured, since on a slow machine (a sanitizer build) the model
  /// puts some rows' sample runs over the cap, and those rows stay modelled.
  void setMaxSampleSeconds(double seconds);

  QString message() const;
  bool isUpToDate() const;   // shown, nothing waiting or running
  bool isComputing() const;  // a computation runs off the UI thread
  /// Whether the panel can be seen, where being visible is not enough: a dock tabbed behind
  /// another is visible but covered (MainWindow passes its dock's visibilityChanged). Off stops
  /// what runs; on computes what changed meanwhile.
  void setOnScreen(bool onScreen);
  const std::optional<snap::BudgetTable>& table() const { return m_table; }
  const std::optional<train::WordsBudget>& wordsBudget() const { return m_words; }
  WordsBudgetControls* wordsControls() const { return m_wordsControls; }
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
  void displayWords(const train::WordsBudget& words);
  /// Shows the choices of the document's kind: streams and h for 1-D, the words run's for 2-D.
  void showControlsForDocument();
  void updateUseButton();
  snap::BudgetQuery query() const;

  GraphDocument* m_document;
  QWidget* m_sequenceControls = nullptr;
  WordsBudgetControls* m_wordsControls = nullptr;
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
  std::optional<train::WordsBudget> m_words;
  std::optional<std::uint64_t> m_exactBudget;  // set by setBudgetBytes until the user edits
  std::stop_source m_stop;                     // of the computation running now
  bool m_onScreen = true;
  double m_maxSampleSeconds = kMaxSampleSeconds;
};

}  // namespace rnnwb::ui

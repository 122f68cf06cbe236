#pragma once
// The packing view (a dock of the workbench): variable-size 2-D examples tiled into packed
// batches (spec/packing.md), against batch padding. A source (synthetic words, a folder of PNGs
// or IAM, a sizes file), a packer, the batch size and row width; the figures of every packer
// beside padding and the baseline (PackingTable, the numbers of `rnnwb pack`); and one batch at
// a time drawn by core's drawPackedBatch (the packed examples, the mask, the skewed form) in a
// zoomable view that exports to PNG.
//
// Loading, figures and drawing run on a worker thread (runPackingJob through QtConcurrent):
// the panel stays responsive, shows progress, and a change of settings cancels the running job
// and starts a newer one, so only the latest settings' result is ever shown. Errors (an
// unreadable folder, a malformed sizes file with its line) are shown in the panel.
#include <memory>

#include <QFutureWatcher>
#include <QWidget>

#include "rnnwb/core/graph.hpp"
#include "rnnwb/ui/packing_job.hpp"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace rnnwb::ui {

class LatestOnlyRunner;
class PackingForm;
class PackingTable;
class PixelImageView;

class PackingPanel : public QWidget {
  Q_OBJECT
 public:
  /// Pause after a key typed in a spin box before the work starts.
  static constexpr int kTypingPauseMs = 250;

  explicit PackingPanel(QWidget* parent = nullptr);
  ~PackingPanel() override;

  PackingSettings settings() const { return m_settings; }
  /// Sets the form to `settings` and starts the work for them now (no waiting for the panel to
  /// be shown). Settings the form does not show (synthetic pixel sizes) are kept.
  void setSettings(const PackingSettings& settings);

  /// The open graph: a 2-D graph's coarser layer grids (its block-strided stages) become
  /// choices of the Grid box, so that a batch is drawn and counted as each stage packs it.
  void setGraph(const Graph& graph);
  QComboBox* gridBox() const { return m_grid; }

  /// The batch shown, 0-based, and how many there are (0 while nothing is shown).
  int batch() const { return m_batch; }
  int batchCount() const;
  /// Draws batch `batch` (0-based) of the current examples.
  void showBatch(int batch);

  /// Whether the result for the current settings is still to come (work running or about to).
  bool isBusy() const;
  /// The figures, picture and examples shown (null / empty before any result or after an error).
  const packing::PackingFigures* figures() const { return m_figures.get(); }
  const packing::BatchPicture& picture() const { return m_picture; }
  const QImage& image() const;
  PackingForm* form() const { return m_form; }
  PackingTable* table() const { return m_table; }
  PixelImageView* view() const { return m_view; }
  QString summary() const;
  QString legend() const;
  /// The message line: an error (messageIsError) or what is being done.
  QString message() const;
  bool messageIsError() const { return m_messageIsError; }

  /// Writes the picture shown as a PNG, atomically. False with *error when there is no picture
  /// or the file cannot be written.
  bool exportPicture(const QString& path, QString* error) const;

 public slots:
  /// Asks for a file (QFileDialog) and exports the picture; failures go to the message line.
  void exportPictureAs();

 signals:
  /// A job's result (or its error) is shown; the panel is idle until the next change.
  void resultShown();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  QWidget* createFiguresSide();
  QWidget* createPictureSide();
  void onSettingsEdited(bool typing);
  void start();
  void reschedule(int delayMs);
  void onJobFinished();
  void applyResult(const PackingResult& result);
  void showBatchSelector(const PackingResult& result);
  void showPicture(const PackingResult& result);
  void clearShown();
  void showMessage(const QString& text, bool error);

  PackingSettings m_settings;
  int m_batch = 0;
  bool m_started = false;
  // What earlier jobs computed, reused while the settings they depend on stay the same.
  std::shared_ptr<const packing::ExampleSource> m_examples;
  PackingSource m_examplesSource;
  std::shared_ptr<const packing::PackingFigures> m_figures;
  PackingSettings m_figuresSettings;  // packer ignored: the table shows every packer
  packing::BatchPicture m_picture;
  PackingSettings m_shownSettings;  // those of the picture shown
  QFutureWatcher<PackingResult> m_watcher;
  LatestOnlyRunner* m_runner;  // the pause while typing, and dropping outdated results

  PackingForm* m_form = nullptr;
  QComboBox* m_grid = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_message = nullptr;
  bool m_messageIsError = false;
  QLabel* m_summary = nullptr;
  PackingTable* m_table = nullptr;
  QSpinBox* m_batchSelector = nullptr;
  QLabel* m_batchTotal = nullptr;
  QPushButton* m_export = nullptr;
  PixelImageView* m_view = nullptr;
  QLabel* m_legend = nullptr;
};

}  // namespace rnnwb::ui

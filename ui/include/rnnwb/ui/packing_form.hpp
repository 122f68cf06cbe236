#pragma once
// The settings row of the packing view: the source of examples (synthetic words with a count
// and a seed, an image folder, a sizes file, the last two chosen with a file dialog), the packer
// drawn, the batch size and the row width (0 = the widest example of each batch).
#include <QWidget>

#include "rnnwb/ui/packing_job.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace rnnwb::ui {

class PackingForm : public QWidget {
  Q_OBJECT
 public:
  explicit PackingForm(QWidget* parent = nullptr);

  PackingSettings settings() const { return m_settings; }
  /// Shows `settings` without emitting settingsEdited. Fields the form has no widget for (the
  /// synthetic words' pixel sizes) are kept as given.
  void setSettings(const PackingSettings& settings);

 signals:
  /// The user changed a setting. `typing`: a spin box or combo box that may change again at
  /// once (the receiver may wait a little); otherwise a deliberate choice (a source, a file).
  void settingsEdited(bool typing);

 private:
  void connectWidgets();
  void readWidgets();
  void updateSourceWidgets();
  void browse();

  PackingSettings m_settings;
  QComboBox* m_sourceKind;
  QSpinBox* m_wordCount;
  QSpinBox* m_seed;
  QLineEdit* m_path;
  QPushButton* m_browse;
  QComboBox* m_packer;
  QSpinBox* m_batchSize;
  QSpinBox* m_rowWidth;
  QLabel* m_wordCountLabel;
  QLabel* m_seedLabel;
};

}  // namespace rnnwb::ui

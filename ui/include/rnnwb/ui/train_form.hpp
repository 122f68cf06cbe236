#pragma once
// TrainForm: the settings of a new training run (docs/training.md), edited as a TrainConfig:
// the task and its options, the algorithm (truncated BPTT, SnAp-n or exact RTRL), N streams, h
// and h', the optimizer, learning rate, clipping, how long, how often to validate and
// checkpoint, the seed and the backend, plus the run folder.
// config() gives what the form shows; setConfig() shows a config (a run's, to start a similar
// one). The graph is not part of the form: the panel fills it in at launch.
#include <QWidget>

#include "rnnwb/core/train/train_config.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;
class QStackedWidget;

namespace rnnwb::ui {

class TrainForm : public QWidget {
  Q_OBJECT
 public:
  explicit TrainForm(QWidget* parent = nullptr);

  train::TrainConfig config() const;
  void setConfig(const train::TrainConfig& config);
  QString runDir() const;
  void setRunDir(const QString& dir);

 signals:
  void changed();

 private:
  QWidget* createTaskPage(int kind);
  QWidget* createRunGroup();
  QWidget* createOptimizerGroup();
  QWidget* createScheduleGroup();
  void browseText();
  void browseRunDir();
  void updateEnabled();
  bool isOnline() const;  // RTRL or SnAp-n: online updates, h = h′, cpu only

  QComboBox* m_task;
  QStackedWidget* m_taskPages;
  QLineEdit* m_text = nullptr;
  QDoubleSpinBox* m_validFraction = nullptr;
  QSpinBox* m_sequenceLength = nullptr;
  QSpinBox* m_length = nullptr;
  QSpinBox* m_delay = nullptr;
  QSpinBox* m_alphabet = nullptr;
  QSpinBox* m_validSequences[2] = {nullptr, nullptr};  // adding, copy
  QComboBox* m_algo = nullptr;
  QSpinBox* m_streams = nullptr;
  QSpinBox* m_h = nullptr;
  QSpinBox* m_hPrime = nullptr;
  QComboBox* m_optimizer = nullptr;
  QDoubleSpinBox* m_lr = nullptr;
  QDoubleSpinBox* m_momentum = nullptr;
  QDoubleSpinBox* m_clip = nullptr;
  QCheckBox* m_halving = nullptr;
  QComboBox* m_lengthUnit = nullptr;  // steps or epochs
  QSpinBox* m_steps = nullptr;
  QDoubleSpinBox* m_epochs = nullptr;
  QSpinBox* m_validEvery = nullptr;
  QSpinBox* m_checkpointEvery = nullptr;
  QSpinBox* m_reportEvery = nullptr;
  QLineEdit* m_seed = nullptr;  // a 64-bit seed does not fit a QSpinBox
  QComboBox* m_backend = nullptr;
  QSpinBox* m_threads = nullptr;
  QLineEdit* m_runDir = nullptr;
  train::TrainConfig m_hidden;  // what the form has no field for (Adam's betas, ...) is kept
};

}  // namespace rnnwb::ui

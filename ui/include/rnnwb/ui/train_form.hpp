#pragma once
// TrainForm: the settings of a new training run, edited as a TrainConfig. Its fields are the run
// spec's rows (core/include/rnnwb/core/train/run_spec.hpp), one editor per row by its type
// (a spin box for small whole numbers, a list for choices, a check box for flags, a line for
// the rest), its tool tip the row's help; a row added to the spec appears here with no form code.
// Fields show for the task and optimizer chosen (the spec says which); what the learner fixes
// (h = h' for RTRL and SnAp-n, the cpu backend where it runs on no other) shows, disabled.
// Every value is read as the command line reads it, so problems() names each bad field at once.
// config() gives what the form shows; setConfig() shows a config (a run's, or a file's). The
// graph is not part of the form: the panel fills it in at launch.
#include <optional>
#include <vector>

#include <QStringList>
#include <QWidget>

#include "rnnwb/core/train/run_spec.hpp"

class QLineEdit;

namespace rnnwb::ui {

class TrainForm : public QWidget {
  Q_OBJECT
 public:
  explicit TrainForm(QWidget* parent = nullptr);

  train::TrainConfig config() const;
  void setConfig(const train::TrainConfig& config);
  QString runDir() const;
  void setRunDir(const QString& dir);

  /// Every problem of the form at once: each field whose text is no value of its setting (named
  /// by its flag or key), then what the trainer's check says of the whole config. Empty: it runs.
  QStringList problems() const;
  /// The config keys of the fields shown now, in the spec's order.
  QStringList shownKeys() const;
  /// The editor of a setting (for tests and focus), or null.
  QWidget* editorOf(const QString& key) const;

 signals:
  void changed();

 private:
  struct Field {
    const train::Setting* setting;
    QWidget* editor;
    QWidget* row;  // the editor with its label, shown or hidden as one
  };
  void addFields();
  QWidget* createEditor(const train::Setting& s);
  void showValue(const Field& field, const nlohmann::json& value);
  /// The field's value as its setting reads it; nothing (and *problem) when it is none.
  std::optional<nlohmann::json> valueOf(const Field& field, QString* problem) const;
  train::TrainConfig readFields() const;
  void onEdited(const train::Setting& s);
  void updateShown();

  std::vector<Field> m_fields;
  QLineEdit* m_runDir = nullptr;
  train::TrainConfig m_base;  // what has no field (the graph) and fields that do not parse
  bool m_showing = false;     // setConfig is filling the fields
};

}  // namespace rnnwb::ui

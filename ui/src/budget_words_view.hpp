#pragma once
// The Memory budget panel's view of a 2-D graph (budget_panel.hpp): the bytes of its words run
// (core/include/rnnwb/core/train/words_budget.hpp), sized by the batch, the number of synthetic
// words and the packer chosen here, part by part for the largest batch of the first epoch and
// for the worst case.
#include <QWidget>

#include "rnnwb/core/train/words_budget.hpp"

class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace rnnwb::ui {

/// The words run's choices: batch, synthetic words, packer.
class WordsBudgetControls : public QWidget {
  Q_OBJECT
 public:
  explicit WordsBudgetControls(QWidget* parent = nullptr);
  /// The words task's settings of a run with these choices (graph, optimizer and seed unset):
  /// the Training form's words task (setBase) with this batch, word count and packer.
  train::TaskConfig task() const;
  /// The words task the Training form would run (its word list, fonts, IAM folder, alphabet);
  /// its batch, word count and packer become this form's.
  void setBase(const train::TaskConfig& task);
  void setBatch(int batch);
  void setSyntheticWords(int words);

 signals:
  void changed();

 private:
  QSpinBox* m_batch = nullptr;
  QSpinBox* m_words = nullptr;
  QComboBox* m_packer = nullptr;
  train::TaskConfig m_base;
};

/// Fills `table` (3 columns: part, largest batch of epoch 1, worst case) and the two labels.
void showWordsBudget(const train::WordsBudget& budget, QTableWidget* table, QLabel* message,
                     QLabel* footer);

}  // namespace rnnwb::ui

#pragma once
// For the workbench tests that meet a modal message box: answer it from the event loop.
#include <QApplication>
#include <QMessageBox>
#include <QPushButton>
#include <QString>
#include <QTimer>

namespace rnnwb::ui {

/// Answers the next message box with `button` and returns its text (through *text).
inline void answerNextMessageBox(QString* text, QMessageBox::StandardButton button) {
  QTimer::singleShot(0, [text, button] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) return;
    *text = box->text();
    box->button(button)->click();
  });
}

}  // namespace rnnwb::ui

#pragma once
// Small pieces the properties panel's forms share (properties_panel.cpp and
// properties_connection.cpp).
#include <string_view>

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QString>
#include <QStringList>

namespace rnnwb::ui::properties {

inline QString q(std::string_view text) {
  return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

// A refused id's message, in the row under the id field (where the eye is).
inline QLabel* messageRow(QWidget* form, QFormLayout* layout, const QString& name) {
  auto* label = new QLabel(form);
  label->setObjectName(name);
  label->setWordWrap(true);
  label->setForegroundRole(QPalette::BrightText);
  label->setStyleSheet(QStringLiteral("color: #d0202c"));
  label->hide();
  layout->addRow(label);
  return label;
}

inline QComboBox* comboOf(QWidget* parent, const QStringList& items) {
  auto* combo = new QComboBox(parent);
  combo->addItems(items);
  return combo;
}

}  // namespace rnnwb::ui::properties

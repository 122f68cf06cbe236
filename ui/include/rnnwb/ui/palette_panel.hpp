#pragma once
// The palette: layer kinds and cell templates. A click asks for the entry at the canvas centre
// (entryActivated), a drag carries its key to the canvas (GraphView::paletteEntryDropped).
#include <QListWidget>

namespace rnnwb::ui {

/// Keys: "input", "additive", "multiplicative", "output", "lstm", "gru", "elman".
class PalettePanel : public QListWidget {
  Q_OBJECT
 public:
  explicit PalettePanel(QWidget* parent = nullptr);
  /// What a drag of this entry carries (the caller owns it).
  QMimeData* mimeDataFor(QListWidgetItem* item) const { return mimeData({item}); }

 signals:
  void entryActivated(const QString& key);

 protected:
  QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override;
  QStringList mimeTypes() const override;
};

}  // namespace rnnwb::ui

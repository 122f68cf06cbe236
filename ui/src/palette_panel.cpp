#include "rnnwb/ui/palette_panel.hpp"

#include <QMimeData>

#include "rnnwb/ui/graph_view.hpp"

namespace rnnwb::ui {

PalettePanel::PalettePanel(QWidget* parent) : QListWidget(parent) {
  struct Entry {
    const char* key;
    const char* text;
    const char* tip;
  };
  const Entry entries[] = {
      {"input", "Input layer", "The data: no activation, bias or loss"},
      {"additive", "Additive layer  Σ", "Sums its incoming connections, plus a bias"},
      {"multiplicative", "Multiplicative layer  ⊙", "Multiplies its incoming connections"},
      {"output", "Output layer (softmax)", "Additive, softmax with the cross_entropy loss"},
      {"lstm", "LSTM cell…", "An LSTM with peepholes wired to a chosen layer"},
      {"gru", "GRU cell…", "A GRU wired to a chosen layer"},
      {"elman", "Elman layer…", "A tanh layer with a delayed self-loop, wired to a chosen layer"},
      {"leaky-lp-2d", "Leaky LP 2-D cell…",
       "The 2-D LSTM cell of \"No Padding Please\", in the paper's variant (two output gates "
       "with peepholes to the previous state), wired to a chosen layer"},
      {"leaky-lp-2d-cells-report", "Leaky LP 2-D (report)…",
       "The same cell in the variant of Leifert et al.'s cells report: the output gates' "
       "peepholes read the new state"},
      {"mdlstm-layer", "Four-direction MDLSTM…",
       "Four Leaky LP cells (the paper's variant), one scanning from each corner of the image, "
       "wired to a chosen layer"},
  };
  for (const Entry& e : entries) {
    auto* item = new QListWidgetItem(QString::fromUtf8(e.text), this);
    item->setData(Qt::UserRole, QString::fromLatin1(e.key));
    item->setToolTip(QString::fromUtf8(e.tip) +
                     QStringLiteral(" (click, or drag onto the canvas)"));
  }
  // Exactly as tall as its entries: the properties below get the rest of the dock area, and a
  // small screen does not hide entries behind a scroll bar.
  setFixedHeight(sizeHintForRow(0) * count() + 2 * frameWidth() + 4);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setDragEnabled(true);
  setDragDropMode(QAbstractItemView::DragOnly);
  setSelectionMode(QAbstractItemView::SingleSelection);
  connect(this, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
    emit entryActivated(item->data(Qt::UserRole).toString());
  });
}

QStringList PalettePanel::mimeTypes() const { return {QString::fromLatin1(kPaletteMimeType)}; }

QMimeData* PalettePanel::mimeData(const QList<QListWidgetItem*>& items) const {
  if (items.isEmpty()) return nullptr;
  auto* data = new QMimeData;
  data->setData(kPaletteMimeType, items.front()->data(Qt::UserRole).toString().toUtf8());
  return data;
}

}  // namespace rnnwb::ui

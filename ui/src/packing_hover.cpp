#include "packing_hover.hpp"

namespace rnnwb::ui {
namespace {

QString panelName(packing::PackedPixel::Panel panel) {
  switch (panel) {
    case packing::PackedPixel::Panel::Packed:
      return QStringLiteral("Packed batch");
    case packing::PackedPixel::Panel::Mask:
      return QStringLiteral("Mask");
    case packing::PackedPixel::Panel::Skewed:
      return QStringLiteral("Skewed batch");
    case packing::PackedPixel::Panel::None:
      break;
  }
  return {};
}

QString exampleText(const packing::BatchPicture& picture, const packing::ExampleSource* source,
                    int place) {
  const packing::PackedLayout& layout = picture.layout;
  const packing::ExamplePlace& p = layout.places[std::size_t(place)];
  const std::size_t id = picture.first + std::size_t(place);
  QString text = QStringLiteral("example %1 of the batch (%2 of %3; #%4 in the source)")
                     .arg(place)
                     .arg(place + 1)
                     .arg(layout.places.size())
                     .arg(id);
  if (source && id < source->files.size())
    text += QStringLiteral(", %1").arg(QString::fromStdString(source->files[id].filename()));
  return text + QStringLiteral(": %1 × %2 cells (height × width), row %3, at x %4, y %5")
                    .arg(p.height)
                    .arg(p.width)
                    .arg(p.row + 1)
                    .arg(p.x)
                    .arg(p.y);
}

}  // namespace

QString describePackedPixel(const packing::BatchPicture& picture,
                            const packing::ExampleSource* source, QPoint pixel) {
  const packing::PackedPixel at =
      packing::locatePackedPixel(picture.layout, picture.scale, pixel.x(), pixel.y());
  if (at.panel == packing::PackedPixel::Panel::None) return {};
  const QString where =
      QStringLiteral("%1, cell y %2, x %3: ").arg(panelName(at.panel)).arg(at.y).arg(at.x);
  if (at.place >= 0) return where + exampleText(picture, source, at.place);
  if (at.row < 0) return where + QStringLiteral("separator between rows (padding)");
  if (at.panel == packing::PackedPixel::Panel::Skewed &&
      (at.x < 0 || at.x >= picture.layout.rows[std::size_t(at.row)].length))
    return where + QStringLiteral("skew padding of row %1 (computed for nothing)").arg(at.row + 1);
  return where + QStringLiteral("padding in row %1").arg(at.row + 1);
}

QList<PixelImageView::Label> packedExampleLabels(const packing::BatchPicture& picture) {
  QList<PixelImageView::Label> labels;
  const int s = picture.scale;
  for (const packing::ExamplePlace& p : picture.layout.places)
    labels.append({QRect(p.x * s, packing::kPictureTitleBar + p.y * s, p.width * s, p.height * s),
                   QString::number(p.index)});
  return labels;
}

}  // namespace rnnwb::ui

#pragma once
// The Packing picture's overlays: the readout of a hovered pixel (which example, its size and
// place in the batch, or padding) and the examples' numbers, drawn at screen size so that they
// read at Fit.
#include <QList>
#include <QPoint>
#include <QString>

#include "rnnwb/core/packing/example_source.hpp"
#include "rnnwb/core/packing/packing_picture.hpp"
#include "rnnwb/ui/pixel_image_view.hpp"

namespace rnnwb::ui {

/// What pixel `pixel` of `picture.image` shows; `source` (may be null) names an example's file.
QString describePackedPixel(const packing::BatchPicture& picture,
                            const packing::ExampleSource* source, QPoint pixel);

/// Each example's number (as the picture numbers them) at its box in the packed panel.
QList<PixelImageView::Label> packedExampleLabels(const packing::BatchPicture& picture);

}  // namespace rnnwb::ui

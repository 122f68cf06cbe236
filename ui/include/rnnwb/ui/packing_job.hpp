#pragma once
// The work behind the packing view, meant for a worker thread (QtConcurrent): load the examples
// (core's loaders, the same as `rnnwb pack`), compute the figures of every packer against
// padding, and draw one packed batch. Each step that an earlier result already answers is
// skipped, so stepping through batches only draws.
#include <memory>

#include <QImage>
#include <QPromise>
#include <QString>

#include "rnnwb/core/packing/example_source.hpp"
#include "rnnwb/core/packing/packing_figures.hpp"
#include "rnnwb/core/packing/packing_picture.hpp"

namespace rnnwb::ui {

/// Where the examples come from (the three sources of `rnnwb pack`).
struct PackingSource {
  enum class Kind { SyntheticWords, ImageFolder, SizesFile };
  Kind kind = Kind::SyntheticWords;
  QString path;            // ImageFolder: the folder; SizesFile: the file
  int wordCount = 200;     // SyntheticWords: how many
  quint64 seed = 1;        // SyntheticWords: the generator's seed
  int minPixelSize = 16;   // SyntheticWords: font pixel sizes (core's defaults give IAM-like
  int maxPixelSize = 165;  // words; a small range gives small, quick images)

  bool operator==(const PackingSource&) const = default;
  /// "200 synthetic words (seed 1)", "image folder DIR", "sizes file FILE".
  QString describe() const;
};

/// Everything the figures and the picture depend on. batchSize > 0; rowWidth 0 = per batch the
/// widest example (as `rnnwb pack` without --width).
struct PackingSettings {
  PackingSource source;
  QString packer = QStringLiteral("shelf");  // the packer drawn (the table shows every packer)
  int batchSize = 32;
  int rowWidth = 0;
  packing::GridDivisor grid;  // the grid drawn and counted at: a 2-D graph's layer's

  bool operator==(const PackingSettings&) const = default;
};

/// What a job produced. On failure `error` says why (naming the file and line where core does)
/// and the rest is what was known before the failing step.
struct PackingResult {
  PackingSettings settings;
  std::size_t batch = 0;  // the batch drawn, 0-based
  std::shared_ptr<const packing::ExampleSource> examples;
  std::shared_ptr<const packing::PackingFigures> figures;  // every packer, "baseline" first
  packing::BatchPicture picture;  // layout, scale and first example of the drawn batch
  QImage image;                   // picture.image as a QImage (RGB888)
  QString error;
};

/// The job. `examples` / `figures` are reused when not null (the caller passes them only when
/// they were computed for the same source / source, batch size and row width). Reports the
/// load's progress through `promise` (range 0..examples) and stops early, adding no result,
/// when the promise is cancelled. Never throws: errors go to PackingResult::error.
void runPackingJob(QPromise<PackingResult>& promise, const PackingSettings& settings,
                   std::size_t batch, std::shared_ptr<const packing::ExampleSource> examples,
                   std::shared_ptr<const packing::PackingFigures> figures);

/// A core RGB or gray image as a QImage (a deep copy).
QImage toQImage(const packing::Image& image);

}  // namespace rnnwb::ui

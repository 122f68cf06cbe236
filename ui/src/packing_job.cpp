#include "rnnwb/ui/packing_job.hpp"

#include <QDir>

#include "rnnwb/core/packing/packers.hpp"

namespace rnnwb::ui {
namespace {

using packing::ExampleSource;

ExampleSource loadSource(const PackingSource& source, const packing::LoadProgress& progress) {
  switch (source.kind) {
    case PackingSource::Kind::ImageFolder:
      return packing::loadImageFolder(source.path.toStdString(), progress);
    case PackingSource::Kind::SizesFile:
      return packing::loadSizesFile(source.path.toStdString());
    case PackingSource::Kind::SyntheticWords:
      break;
  }
  packing::SyntheticWordOptions options;
  options.seed = source.seed;
  options.minPixelSize = source.minPixelSize;
  options.maxPixelSize = source.maxPixelSize;
  return packing::loadSyntheticWords(source.wordCount, options, progress);
}

/// The steps in order; each fills its part of `result` and throws on failure.
void runSteps(QPromise<PackingResult>& promise, PackingResult& result) {
  const PackingSettings& s = result.settings;
  if (!result.examples) {
    const auto progress = [&promise](std::size_t done, std::size_t total) {
      promise.setProgressRange(0, static_cast<int>(total));
      promise.setProgressValue(static_cast<int>(done));
      return !promise.isCanceled();
    };
    result.examples = std::make_shared<const ExampleSource>(loadSource(s.source, progress));
  }
  if (promise.isCanceled()) throw packing::LoadCancelled();
  if (!result.figures)
    result.figures = std::make_shared<const packing::PackingFigures>(
        packing::computeFigures(packing::sizesAtGrid(result.examples->sizes, s.grid), s.batchSize,
                                s.rowWidth, packing::packerNames()));
  if (promise.isCanceled()) throw packing::LoadCancelled();
  const std::size_t batches = packing::batchCount(result.examples->sizes.size(), s.batchSize);
  result.batch = std::min(result.batch, batches - 1);
  result.picture = packing::drawSourceBatch(*result.examples, result.batch, s.batchSize,
                                            s.packer.toStdString(), s.rowWidth, s.grid);
  result.image = toQImage(result.picture.image);
}

}  // namespace

QString PackingSource::describe() const {
  switch (kind) {
    case Kind::ImageFolder:
      return QStringLiteral("image folder %1").arg(QDir::toNativeSeparators(path));
    case Kind::SizesFile:
      return QStringLiteral("sizes file %1").arg(QDir::toNativeSeparators(path));
    case Kind::SyntheticWords:
      break;
  }
  return QStringLiteral("%1 synthetic words (seed %2)").arg(wordCount).arg(seed);
}

void runPackingJob(QPromise<PackingResult>& promise, const PackingSettings& settings,
                   std::size_t batch, std::shared_ptr<const packing::ExampleSource> examples,
                   std::shared_ptr<const packing::PackingFigures> figures) {
  PackingResult result;
  result.settings = settings;
  result.batch = batch;
  result.examples = std::move(examples);
  result.figures = std::move(figures);
  try {
    if (settings.source.kind != PackingSource::Kind::SyntheticWords &&
        settings.source.path.isEmpty())
      throw std::runtime_error(settings.source.kind == PackingSource::Kind::SizesFile
                                   ? "choose a sizes file"
                                   : "choose an image folder");
    runSteps(promise, result);
  } catch (const packing::LoadCancelled&) {
    return;  // a newer job replaces this one: nothing to report
  } catch (const std::exception& e) {
    result.error = QString::fromStdString(e.what());
  }
  promise.addResult(std::move(result));
}

QImage toQImage(const packing::Image& image) {
  const QImage::Format format =
      image.channels == 3 ? QImage::Format_RGB888 : QImage::Format_Grayscale8;
  const QImage view(image.pixels.data(), image.width, image.height,
                    static_cast<qsizetype>(image.width) * image.channels, format);
  return view.copy();  // the view does not own the pixels
}

}  // namespace rnnwb::ui

#include "rnnwb/core/packing/example_source.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/memory_size.hpp"

namespace fs = std::filesystem;

namespace rnnwb::packing {
namespace {

void requireExamples(const ExampleSource& source) {
  if (source.sizes.empty()) throw std::runtime_error("no examples to pack");
}

void report(const LoadProgress& progress, std::size_t done, std::size_t total) {
  if (progress && !progress(done, total)) throw LoadCancelled();
}

}  // namespace

std::vector<FeatureMap> ExampleSource::ink(std::size_t first, std::size_t count) const {
  if (first > sizes.size() || count > sizes.size() - first)
    throw std::out_of_range("examples " + std::to_string(first) + " to " +
                            std::to_string(first + count) + " of " + std::to_string(sizes.size()));
  std::vector<FeatureMap> maps;
  maps.reserve(count);
  for (std::size_t i = first; i < first + count; ++i) {
    if (!images.empty()) {
      maps.push_back(inkFeatures(images[i]));
    } else if (!files.empty()) {
      maps.push_back(inkFeatures(readGrayPng(files[i])));
    } else {
      FeatureMap& m = maps.emplace_back(sizes[i].height, sizes[i].width, 1);
      std::fill(m.data.begin(), m.data.end(), 0.25f);
    }
  }
  return maps;
}

std::size_t batchCount(std::size_t exampleCount, int batchSize) {
  if (batchSize <= 0)
    throw std::invalid_argument("batch size must be positive, got " + std::to_string(batchSize));
  const auto b = static_cast<std::size_t>(batchSize);
  return (exampleCount + b - 1) / b;
}

std::vector<ExampleSize> readSizesFile(const fs::path& file) {
  std::istringstream in(readFileBounded(file, kListFileLimit, "the sizes file"));
  std::vector<ExampleSize> sizes;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    ExampleSize s;
    std::string rest;
    if (!(fields >> s.height >> s.width) || (fields >> rest) || s.height <= 0 || s.width <= 0)
      throw std::runtime_error(file.string() + ":" + std::to_string(number) +
                               ": expected 'height width' (two positive integers), got '" +
                               line.substr(0, 80) + "'");
    // Sides above a million pixels (libpng's own limit) would overflow the cell counts of a
    // batch; no handwriting scan comes near.
    if (s.height > kMaxExampleSide || s.width > kMaxExampleSide)
      throw std::runtime_error(file.string() + ":" + std::to_string(number) + ": an example of " +
                               std::to_string(s.height) + " x " + std::to_string(s.width) +
                               " pixels is larger than the " + std::to_string(kMaxExampleSide) +
                               " pixels a side that packing supports");
    sizes.push_back(s);
  }
  return sizes;
}

ExampleSource loadSizesFile(const fs::path& file) {
  ExampleSource source;
  source.sizes = readSizesFile(file);
  requireExamples(source);
  return source;
}

ExampleSource loadImageFolder(const fs::path& dir, const LoadProgress& progress) {
  ExampleSource source;
  const fs::path transcriptions = findIamTranscriptions(dir);
  if (transcriptions.empty()) {
    source.files = listPngFiles(dir);
  } else {
    for (const LabeledImageFile& e : readIamTranscriptions(transcriptions, dir))
      source.files.push_back(e.image);
  }
  const std::size_t total = source.files.size();
  for (const fs::path& f : source.files) {
    source.sizes.push_back(readPngSize(f));
    report(progress, source.sizes.size(), total);
  }
  requireExamples(source);
  return source;
}

ExampleSource loadSyntheticWords(int count, const SyntheticWordOptions& options,
                                 const LoadProgress& progress) {
  ExampleSource source;
  const auto total = static_cast<std::size_t>(std::max(count, 0));
  // Each word holds at least a minPixelSize-square image: refused from the count, before the
  // first is drawn (100,000,000 words ended in bad_alloc).
  const auto side = static_cast<std::uint64_t>(std::max(options.minPixelSize, 1));
  requireMemory(checkedProduct({total, sizeof(Image) + sizeof(ExampleSize) + side * side}),
                std::to_string(total) + " synthetic words (at least " + std::to_string(side) +
                    " x " + std::to_string(side) + " pixels each)");
  if (total > 0) {
    SyntheticWordGenerator generator(options);
    source.sizes.reserve(total);
    source.images.reserve(total);
    for (std::size_t i = 0; i < total; ++i) {
      WordImage w = generator.next();
      source.sizes.push_back({w.image.height, w.image.width});
      source.images.push_back(std::move(w.image));
      report(progress, i + 1, total);
    }
  }
  requireExamples(source);
  return source;
}

}  // namespace rnnwb::packing

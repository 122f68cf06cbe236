#pragma once
// The examples that `rnnwb pack` and the workbench's packing view pack: their sizes and, where
// there are any, their pixels, from a sizes file, a folder of PNGs (IAM layout or not) or
// synthetic words. One loader for both, so that the two show the same figures.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <vector>

#include "rnnwb/core/packing/feature_map.hpp"
#include "rnnwb/core/packing/image_io.hpp"
#include "rnnwb/core/packing/packed_layout.hpp"
#include "rnnwb/core/packing/word_images.hpp"

namespace rnnwb::packing {

/// Called by a loader after each example: `done` of `total` are loaded. Returning false stops
/// the load, which then throws LoadCancelled. It runs on the loader's thread.
using LoadProgress = std::function<bool(std::size_t done, std::size_t total)>;

/// Thrown by a loader whose LoadProgress returned false.
struct LoadCancelled : std::runtime_error {
  LoadCancelled() : std::runtime_error("loading the examples was cancelled") {}
};

/// A list of examples in their order (batches are consecutive). `sizes` always holds every
/// example; at most one of `files` (a folder: each example's PNG, read when drawn) and `images`
/// (synthetic words: the pixels) is filled, with one entry per example. A sizes file has
/// neither: its examples have no pixels.
struct ExampleSource {
  std::vector<ExampleSize> sizes;
  std::vector<std::filesystem::path> files;
  std::vector<Image> images;

  /// The ink (inkFeatures: 0 = paper, 1 = ink) of examples [first, first + count), each
  /// sizes[i].height x sizes[i].width. Examples without pixels are a light fill (0.25) that
  /// shows their extent. Reads the PNGs of a folder (throws std::runtime_error naming a file
  /// that cannot be read).
  std::vector<FeatureMap> ink(std::size_t first, std::size_t count) const;
};

/// Consecutive batches of `batchSize` (the last may be smaller) over `exampleCount` examples.
std::size_t batchCount(std::size_t exampleCount, int batchSize);

/// One `height width` pair of positive integers per line; blank lines are skipped. Throws
/// std::runtime_error "FILE: cannot open" or "FILE:LINE: expected 'height width' (two positive
/// integers), got '...'".
std::vector<ExampleSize> readSizesFile(const std::filesystem::path& file);
/// The largest height or width a sizes file may give (libpng's limit for PNGs too).
constexpr int kMaxExampleSide = 1'000'000;

/// The examples of a sizes file (no pixels). Throws as readSizesFile, or "no examples to pack".
ExampleSource loadSizesFile(const std::filesystem::path& file);

/// The examples of an image folder: the images its IAM transcriptions list
/// (findIamTranscriptions), else every *.png below it sorted by path. Reads only the PNG
/// headers. Throws std::runtime_error naming the file at fault, "no examples to pack", or
/// LoadCancelled.
ExampleSource loadImageFolder(const std::filesystem::path& dir, const LoadProgress& progress = {});

/// `count` synthetic words (generateSyntheticWords with `options`), pixels kept. Throws as
/// SyntheticWordGenerator (no word list, no fonts), "no examples to pack" or LoadCancelled.
ExampleSource loadSyntheticWords(int count, const SyntheticWordOptions& options = {},
                                 const LoadProgress& progress = {});

}  // namespace rnnwb::packing

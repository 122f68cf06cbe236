#pragma once
// Training examples for the word recogniser: an IAM folder or synthetic words.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "rnnwb/core/packing/image_io.hpp"

namespace rnnwb::mdlstm {

struct WordExample {
  packing::Image image;  // gray, white paper
  std::string text;      // every character must be in the alphabet
};

/// The entries of an IAM folder's words.txt / lines.txt (packing::findIamTranscriptions) whose
/// segmentation is "ok" and whose transcription uses only `alphabet`, with their images, in file
/// order. `skipped` (optional) receives how many entries were left out. Throws
/// std::runtime_error when the folder has no transcription file (naming it) or an image is bad.
std::vector<WordExample> readIamExamples(const std::filesystem::path& dir,
                                         const std::string& alphabet, int* skipped = nullptr);

/// `count` synthetic words (packing::SyntheticWordGenerator with `seed`).
std::vector<WordExample> syntheticExamples(int count, std::uint64_t seed);

}  // namespace rnnwb::mdlstm

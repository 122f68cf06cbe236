#pragma once
// Word and line images with their transcriptions: the IAM database's layout, and synthetic
// handwriting-like words rendered with FreeType.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "rnnwb/core/connection_mask.hpp"
#include "rnnwb/core/packing/image_io.hpp"

namespace rnnwb::packing {

/// One entry of an IAM `words.txt` / `lines.txt`: the image id, whether segmentation was "ok",
/// the transcription ('|' in lines turned into spaces) and the image file.
struct LabeledImageFile {
  std::string id;
  bool segmentationOk = true;
  std::string text;
  std::filesystem::path image;
};

/// Reads an IAM transcription file (lines starting with '#' are comments). Each image is looked
/// for at imageDir/<a01>/<a01-000u>/<id>.png (the IAM tree) and then imageDir/<id>.png. Throws
/// std::runtime_error naming the file and line for a malformed line or a missing image.
std::vector<LabeledImageFile> readIamTranscriptions(const std::filesystem::path& transcriptions,
                                                    const std::filesystem::path& imageDir);

/// The transcription file of an IAM folder: DIR/words.txt, DIR/lines.txt, DIR/ascii/words.txt
/// or DIR/ascii/lines.txt, the first that exists; empty when none does.
std::filesystem::path findIamTranscriptions(const std::filesystem::path& dir);

/// Every *.png below dir, sorted by path (the order is part of the result: batches are
/// consecutive).
std::vector<std::filesystem::path> listPngFiles(const std::filesystem::path& dir);

struct WordImage {
  std::string text;
  Image image;  // gray, white paper
};

struct SyntheticWordOptions {
  std::uint64_t seed = 1;
  std::filesystem::path wordList = "/usr/share/dict/american-english";
  /// Only words written in these characters are drawn (empty: any plain word, letters only);
  /// the words task sets it to its alphabet for the default list, whose capitals an a-z
  /// recogniser cannot read.
  std::string alphabet;
  /// Font files; empty = those of fonts-dejavu-core and fonts-urw-base35 that are installed.
  std::vector<std::filesystem::path> fonts;
  /// Pixel sizes are drawn log-uniform in [minPixelSize, maxPixelSize] (16-165 gives IAM-like
  /// word heights; a small range gives small, quick images).
  int minPixelSize = 16;
  int maxPixelSize = 165;
};

/// Handwriting-like words: words from the word list rendered with a random font, pixel size,
/// slant, stroke width, letter spacing and baseline jitter. The same options (seed, word list and
/// fonts) give the same images. Sizes follow IAM words roughly: heights ~20-200, widths 20-1000.
class SyntheticWordGenerator {
 public:
  explicit SyntheticWordGenerator(SyntheticWordOptions options = {});
  ~SyntheticWordGenerator();
  SyntheticWordGenerator(const SyntheticWordGenerator&) = delete;
  SyntheticWordGenerator& operator=(const SyntheticWordGenerator&) = delete;

  WordImage next();
  const std::vector<std::string>& words() const { return m_words; }
  const std::vector<std::filesystem::path>& fonts() const { return m_fonts; }

 private:
  struct FreeType;
  std::vector<std::string> m_words;
  std::vector<std::filesystem::path> m_fonts;
  SplitMix64 m_random;
  int m_minPixelSize, m_maxPixelSize;
  FreeType* m_ft = nullptr;
};

/// `count` words from a fresh generator.
std::vector<WordImage> generateSyntheticWords(int count, const SyntheticWordOptions& options = {});

}  // namespace rnnwb::packing

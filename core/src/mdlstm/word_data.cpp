#include "rnnwb/core/mdlstm/word_data.hpp"

#include <stdexcept>

#include "rnnwb/core/packing/word_images.hpp"

namespace rnnwb::mdlstm {

std::vector<WordExample> readIamExamples(const std::filesystem::path& dir,
                                         const std::string& alphabet, int* skipped) {
  const std::filesystem::path transcriptions = packing::findIamTranscriptions(dir);
  if (transcriptions.empty())
    throw std::runtime_error(dir.string() +
                             ": no words.txt or lines.txt (nor under ascii/): not an IAM folder");
  std::vector<WordExample> examples;
  int left = 0;
  for (const packing::LabeledImageFile& e : packing::readIamTranscriptions(transcriptions, dir)) {
    const bool usable = e.segmentationOk && !e.text.empty() &&
                        e.text.find_first_not_of(alphabet) == std::string::npos;
    if (!usable) {
      ++left;
      continue;
    }
    examples.push_back({packing::readGrayPng(e.image), e.text});
  }
  if (skipped) *skipped = left;
  return examples;
}

std::vector<WordExample> syntheticExamples(int count, std::uint64_t seed) {
  packing::SyntheticWordOptions options;
  options.seed = seed;
  std::vector<WordExample> examples;
  for (packing::WordImage& w : packing::generateSyntheticWords(count, options))
    examples.push_back({std::move(w.image), std::move(w.text)});
  return examples;
}

}  // namespace rnnwb::mdlstm

#pragma once
// The data of the words task (`rnnwb train --task words`): word images with their
// transcriptions, split into training and validation examples, and the order in which updates
// take the training examples.
//
// The order is counter-based like every other task's data: each epoch is a permutation of the
// training examples drawn from SplitMix64(seed, epoch), and update k takes the examples
// [k * batch, (k + 1) * batch) of the concatenated epochs (an epoch is rounded down to whole
// updates). The cursor (examples handed out so far) is therefore the whole random state.
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/example_batch.hpp"
#include "rnnwb/core/mdlstm/word_data.hpp"
#include "rnnwb/core/packing/feature_map.hpp"
#include "rnnwb/core/train/train_config.hpp"

namespace rnnwb::train {

struct WordsData {
  std::vector<mdlstm::WordExample> train;
  std::vector<mdlstm::WordExample> valid;  // the last task.valid_words examples of the source
  int leftOut = 0;  // IAM entries left out (segmentation not "ok", characters outside the alphabet)
  std::string source;  // "IAM folder DIR" or "N synthetic words", for the log
};

/// Reads task.images (an IAM folder, see mdlstm::readIamExamples) or renders
/// task.synthetic_words + task.valid_words synthetic words from `seed` (task.word_list,
/// task.min_font_size, task.max_font_size). Throws std::invalid_argument naming the folder or
/// the option when the folder is missing, is not an IAM folder, or leaves fewer than
/// task.batch training examples. Once `stop` is requested, no further synthetic word is drawn:
/// packing::LoadCancelled is thrown (the Memory budget dock stops so at Quit).
WordsData loadWordsData(const TaskConfig& task, const std::string& alphabet, std::uint64_t seed,
                        const std::stop_token& stop = {});

/// A word as the grid engine's example: its ink (packing::inkFeatures: 0 = paper, 1 = ink) as the
/// input [H, W, 1], its classes (alphabet index + 1) as the ctc target; no target when `labels`
/// is empty and `withTarget` false.
Example inkExample(const packing::FeatureMap& ink, const std::vector<int>& labels,
                   bool withTarget = true);

/// The index of the graph's one output layer, which must have the ctc loss, in a 2-D graph with
/// one input layer of 1 channel (the ink). Throws std::invalid_argument naming `path` and what
/// does not fit the words task.
int wordsOutputLayer(const CompiledPlan& plan, const std::string& path);

/// Whole updates in one pass over `trainCount` examples (at least 1).
std::int64_t wordsStepsPerEpoch(int trainCount, int batch);

/// The training examples of the update that starts at `cursor` (examples handed out so far).
std::vector<int> wordsBatchIndices(std::int64_t cursor, int batch, int trainCount,
                                   std::uint64_t seed);

}  // namespace rnnwb::train

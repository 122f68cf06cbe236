#pragma once
// Connectionist temporal classification (Graves et al. 2006) for one sequence, in log space.
#include <string>
#include <vector>

namespace rnnwb::mdlstm {

struct CtcResult {
  double loss = 0.0;            // -log p(labels | logits); +infinity when no alignment exists
  std::vector<float> gradient;  // d loss / d logits, T x K row-major (zero when loss is infinite)
};

/// logits: T x K row-major, unnormalised (a softmax is applied inside); class 0 is the blank;
/// labels: values in [1, K). An alignment needs T >= labels + repeated neighbours; with fewer
/// frames the loss is +infinity.
CtcResult ctcLoss(const std::vector<float>& logits, int frames, int classes,
                  const std::vector<int>& labels);

/// Best path decoding: the most likely class per frame, repeats merged, blanks removed.
std::vector<int> ctcGreedyDecode(const std::vector<float>& logits, int frames, int classes);

/// Levenshtein distance between two label sequences (for the character error rate).
int editDistance(const std::vector<int>& a, const std::vector<int>& b);

}  // namespace rnnwb::mdlstm

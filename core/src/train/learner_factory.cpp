// Which learner a config asks for, what each supports, and the learner itself: the one place
// that maps a task and an algorithm to a Learner (learner.hpp).
#include <algorithm>
#include <stdexcept>

#include "data_parallel.hpp"
#include "rnnwb/core/train/learner.hpp"
#include "sequence_learner.hpp"
#include "words_learner.hpp"

namespace rnnwb::train {
namespace {

const std::vector<std::string> kSequenceTasks = {"char-lm", "adding", "copy"};

}  // namespace

bool LearnerSupport::supportsBackend(const std::string& backend) const {
  return backends.empty() || std::find(backends.begin(), backends.end(), backend) != backends.end();
}

LearnerSupport learnerSupport(const TrainConfig& c) {
  if (c.task.kind == "words") return {"words", {"cpu"}, {"words"}};
  if (c.algo == "bptt") return {"bptt", {}, kSequenceTasks};
  return {"rtrl/snap", {"cpu"}, kSequenceTasks, true};  // RtrlBackend runs on the CPU engine
}

TrainConfig withLearnerRules(TrainConfig c) {
  const LearnerSupport support = learnerSupport(c);
  if (support.online) c.h = c.hPrime;
  if (support.backends.size() == 1) c.backend = support.backends.front();
  return c;
}

std::vector<std::string> keysFixedByLearner(const TrainConfig& c) {
  const LearnerSupport support = learnerSupport(c);
  std::vector<std::string> keys;
  if (support.online) keys.push_back("h");
  if (support.backends.size() == 1) keys.push_back("backend");
  return keys;
}

void requireLearnerSupports(const TrainConfig& c) {
  const LearnerSupport support = learnerSupport(c);
  if (support.supportsBackend(c.backend)) return;
  const std::string what = support.learner == "words" ? "the words task" : "algo " + c.algo;
  std::string backends;
  for (const std::string& b : support.backends) backends += (backends.empty() ? "" : ", ") + b;
  throw std::invalid_argument(what + " runs on the " + backends + " backend only (got backend " +
                              c.backend + ")");
}

std::unique_ptr<Learner> makeLearner(const TrainConfig& c, DataParallel* ranks) {
  requireLearnerSupports(c);
  const std::string learner = learnerSupport(c).learner;
  if (learner == "words") {
    auto words = std::make_unique<WordsLearner>(c, ranks);
    requireMemoryForWords(*words, c);  // before a run folder is made
    return words;
  }
  if (learner == "bptt") return std::make_unique<SequenceLearner>(c, bpttEngine, ranks);
  return std::make_unique<SequenceLearner>(c, rtrlEngine, ranks);
}

}  // namespace rnnwb::train

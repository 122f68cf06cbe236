#include "rnnwb/core/train/task_factory.hpp"

#include <stdexcept>

#include "rnnwb/core/train/char_lm_task.hpp"
#include "rnnwb/core/train/synthetic_tasks.hpp"

namespace rnnwb::train {

std::unique_ptr<Task> makeTask(const TaskConfig& config, StreamShape shape, std::uint64_t seed) {
  if (config.kind == "char-lm") {
    if (config.text.empty())
      throw std::invalid_argument(
          "the char-lm task needs a text file (--text FILE; the project ships "
          "examples/data/kjv-genesis-2samuel.txt, 1.26 MB of the KJV)");
    auto corpus = std::make_shared<const TextCorpus>(TextCorpus::load(config.text));
    return std::make_unique<CharLmTask>(std::move(corpus), config.validFraction, shape);
  }
  if (config.kind == "adding")
    return std::make_unique<AddingTask>(config.sequenceLength, config.validSequences, seed, shape);
  if (config.kind == "copy")
    return std::make_unique<CopyTask>(config.length, config.delay, config.alphabet,
                                      config.validSequences, seed, shape);
  throw std::invalid_argument("unknown task '" + config.kind + "' (use char-lm, adding or copy)");
}

}  // namespace rnnwb::train

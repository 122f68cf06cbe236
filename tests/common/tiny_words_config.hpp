#pragma once
// A words run small enough for a GUI or budget test: 8 synthetic words of the small vocabulary (4
// held out), batches of 4, 14-16 px, validated and checkpointed every 2 of `steps` updates.
#include "rnnwb/core/train/train_config.hpp"

inline rnnwb::train::TrainConfig tinyWordsConfig(std::int64_t steps) {
  rnnwb::train::TrainConfig words;
  words.task.kind = "words";
  words.task.syntheticWords = 8;
  words.task.validWords = 4;
  words.task.batch = 4;
  words.task.wordList = RNNWB_EXAMPLES_DIR "/data/words-small.txt";
  words.task.minFontSize = 14;
  words.task.maxFontSize = 16;
  words.steps = steps;
  words.validEvery = 2;
  words.checkpointEvery = 2;
  words.reportEvery = 1;
  words.threads = 1;
  return words;
}

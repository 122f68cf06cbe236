// The budget of a words run (words_budget.hpp): its parts add up, its worst case is the batch of
// the largest words, and the engine holds, for that batch, the bytes it says.
#include <QTest>

#include <algorithm>

#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/packing/word_images.hpp"
#include "rnnwb/core/train/words_budget.hpp"
#include "rnnwb/core/train/words_data.hpp"
#include "tiny_words_config.hpp"

using namespace rnnwb;

namespace {

/// tinyWordsConfig's words run of the small recogniser, with 12 training words of 14-24 px.
train::TrainConfig smallRun() {
  train::TrainConfig c = tinyWordsConfig(0);
  c.graph = RNNWB_EXAMPLES_DIR "/mdlstm-words-small.rnn.json";
  c.task.syntheticWords = 12;
  c.task.maxFontSize = 24;
  return c;
}

}  // namespace

class TestWordsBudget : public QObject {
  Q_OBJECT
 private slots:
  void partsAddUp();
  void worstCaseIsWhatTheEngineHolds();
  void timesUpdatesOnlyWhenTheyFit();
  void refusesWhatTheRunRefuses();
  void defaultWordListGivesWordsOfTheAlphabet();
};

void TestWordsBudget::partsAddUp() {
  const train::WordsBudget b = train::estimateWordsBudget(smallRun(), {0, 0, {}});
  QCOMPARE(b.trainWords, 12);
  QCOMPARE(b.validWords, 4);
  QCOMPARE(b.stepsPerEpoch, 3);
  QCOMPARE(b.packer, std::string("shelf"));
  QVERIFY(b.parameters > 0);
  QCOMPARE(b.sharedBytes, static_cast<std::uint64_t>(b.parameters) * 4 * 4);  // Adam: 2 moments
  QVERIFY(b.dataBytes > 0);
  QCOMPARE(b.worstCase.words, 4);
  QVERIFY(b.largestOfFirstEpoch.positions <= b.worstCase.positions);
  QVERIFY(b.typicalTotal() <= b.worstTotal());
  QCOMPARE(b.worstTotal(),
           b.sharedBytes + b.dataBytes + b.worstCase.tensorBytes + b.worstCase.engine.total());
  QVERIFY(b.fits());
  QCOMPARE(b.timedUpdates, 0);
  // SGD with momentum keeps one float a parameter, not two.
  train::TrainConfig sgd = smallRun();
  sgd.optimizer.kind = train::OptimizerKind::Sgd;
  QCOMPARE(train::estimateWordsBudget(sgd, {0, 0, {}}).sharedBytes,
           static_cast<std::uint64_t>(b.parameters) * 4 * 3);
}

void TestWordsBudget::worstCaseIsWhatTheEngineHolds() {
  const train::TrainConfig config = smallRun();
  const train::WordsBudget b = train::estimateWordsBudget(config, {0, 0, {}});
  // The same words, rendered again, the largest four as one batch through a fresh engine.
  const CompiledPlan plan(loadValidGraph(config.graph));
  // The run's alphabet: the output's classes but the blank, a-z then A-Z.
  const int classes = plan.graph().layers[train::wordsOutputLayer(plan, config.graph)].size;
  const std::string alphabet =
      std::string("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ").substr(0, classes - 1);
  const train::WordsData data = train::loadWordsData(config.task, alphabet, config.seed);
  std::vector<const mdlstm::WordExample*> words;
  for (const mdlstm::WordExample& w : data.train) words.push_back(&w);
  std::stable_sort(words.begin(), words.end(), [](const auto* a, const auto* c) {
    return a->image.height * a->image.width > c->image.height * c->image.width;
  });
  ExampleBatch batch;
  std::int64_t pixels = 0;
  for (int i = 0; i < config.task.batch; ++i) {
    batch.examples.push_back(train::inkExample(packing::inkFeatures(words[i]->image), {}, false));
    pixels += static_cast<std::int64_t>(words[i]->image.height) * words[i]->image.width;
  }
  QCOMPARE(b.worstCase.positions, pixels);
  // On the run's threads: each of the engine's lanes has its own stack (grid_lanes.hpp).
  const GridEngine engine(plan, {"shelf", config.threads});
  engine.forward(initParameters(plan, 1), batch, false, false);
  const GridMemory held = engine.lastBatchMemory();
  // A forward sizes every per-row buffer as forwardBackward does; its scratch and row maps are
  // those of the forward regions only, within the estimate's.
  for (std::size_t p = 0; p < held.parts.size(); ++p) {
    const MemoryPart& h = held.parts[p];
    const MemoryPart& e = b.worstCase.engine.parts[p];
    QCOMPARE(h.name, e.name);
    if (h.name == "gather scratch" || h.name == "row maps")
      QVERIFY2(h.bytes <= e.bytes, qPrintable(QString::fromStdString(h.name)));
    else
      QVERIFY2(h.bytes == e.bytes,
               qPrintable(QString::fromStdString(h.name) + ": held " + QString::number(h.bytes) +
                          ", estimated " + QString::number(e.bytes)));
  }
}

void TestWordsBudget::timesUpdatesOnlyWhenTheyFit() {
  const train::WordsBudget timed = train::estimateWordsBudget(smallRun(), {0, 2, {}});
  QCOMPARE(timed.timedUpdates, 2);
  QVERIFY(timed.secondsPerUpdate > 0);
  const train::WordsBudget tight = train::estimateWordsBudget(smallRun(), {1024, 2, {}});
  QVERIFY(!tight.fits());
  QCOMPARE(tight.timedUpdates, 0);
  QVERIFY(std::any_of(tight.notes.begin(), tight.notes.end(), [](const std::string& n) {
    return n.starts_with("the time of an update was not measured: the worst case");
  }));
}

void TestWordsBudget::refusesWhatTheRunRefuses() {
  train::TrainConfig noCtc = smallRun();
  noCtc.graph = RNNWB_EXAMPLES_DIR "/lstm-peephole.rnn.json";  // 1-D, no ctc output
  try {
    train::estimateWordsBudget(noCtc, {0, 0, {}});
    QFAIL("a graph without a ctc output was sized as a words run");
  } catch (const std::invalid_argument& e) {
    QVERIFY2(QString(e.what()).contains("lstm-peephole.rnn.json"), e.what());
  }
}

void TestWordsBudget::defaultWordListGivesWordsOfTheAlphabet() {
  // The graph reads a-z: of wamerican's words, those without capitals (an explicit list must
  // be written in the alphabet: tst_words_train errorsAreClear).
  train::TaskConfig task = smallRun().task;
  task.wordList.clear();
  task.maxFontSize = 20;
  const train::WordsData data = train::loadWordsData(task, "abcdefghijklmnopqrstuvwxyz", 1);
  QCOMPARE(int(data.train.size()), 12);
  for (const auto* set : {&data.train, &data.valid})
    for (const mdlstm::WordExample& w : *set)
      QVERIFY2(
          std::all_of(w.text.begin(), w.text.end(), [](char c) { return c >= 'a' && c <= 'z'; }),
          w.text.c_str());
  try {
    train::loadWordsData(task, "0", 1);  // no word is written in digits
    QFAIL("a list with no word of the alphabet gave words");
  } catch (const std::runtime_error& e) {
    QVERIFY2(QString(e.what()).contains("no plain words in the list written in '0' alone"),
             e.what());
  }
}

QTEST_GUILESS_MAIN(TestWordsBudget)
#include "tst_wordsbudget.moc"

// The tasks' data: layout, determinism, epochs, validation sets, and the checks against a graph.
#include <QTest>

#include <cmath>
#include <memory>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/train/char_lm_task.hpp"
#include "rnnwb/core/train/synthetic_tasks.hpp"
#include "rnnwb/core/train/text_corpus.hpp"
#include "train_test_support.hpp"

using namespace rnnwb::train;

namespace {

std::shared_ptr<const TextCorpus> corpusOf(const std::string& text) {
  return std::make_shared<const TextCorpus>(TextCorpus::fromText(text, "test.txt"));
}

int hotIndex(const TaskChunk& c, int frame, int stream) {
  const std::size_t base = (static_cast<std::size_t>(frame) * c.streams + stream) * c.inputSize;
  int hot = -1;
  for (int k = 0; k < c.inputSize; ++k) {
    if (c.input[base + k] == 1.0f) {
      if (hot >= 0) return -2;  // two ones: not one-hot
      hot = k;
    } else if (c.input[base + k] != 0.0f) {
      return -3;
    }
  }
  return hot;
}

rnnwb::CompiledPlan planOf(int inputs, int outputs, bool classes) {
  return rnnwb::CompiledPlan(
      rnnwb::parseGraph(train_test::elmanGraph(inputs, 4, outputs, classes)).graph.value());
}

}  // namespace

class TestTasks : public QObject {
  Q_OBJECT
 private slots:
  void vocabularyIsSortedCodePoints();
  void utf8MultiByteAndErrors();
  void unigramEntropy();
  void charLmStreamsReadTheTextInOrder();
  void charLmEpochsAndValidation();
  void charLmTooShortIsAnError();
  void addingSequences();
  void copySequences();
  void generatedDataIsDeterministicAndSeeded();
  void checkGraphNamesTheNeededSize_data();
  void checkGraphNamesTheNeededSize();
};

void TestTasks::vocabularyIsSortedCodePoints() {
  const TextCorpus c = TextCorpus::fromText("banana", "t");
  QCOMPARE(c.vocabulary(), (std::vector<char32_t>{U'a', U'b', U'n'}));
  QCOMPARE(c.symbols(), (std::vector<std::int32_t>{1, 0, 2, 0, 2, 0}));
}

void TestTasks::utf8MultiByteAndErrors() {
  const TextCorpus c = TextCorpus::fromText(
      "\xEF\xBB\xBF"
      "é€😀é",
      "t");  // with a BOM
  QCOMPARE(c.vocabulary(), (std::vector<char32_t>{U'é', U'€', U'😀'}));
  QCOMPARE(c.symbols().size(), std::size_t(4));
  QCOMPARE(encodeUtf8(U'😀'), std::string("😀"));
  try {
    TextCorpus::fromText("ab\xC3(", "bad.txt");
    QFAIL("malformed UTF-8 must be refused");
  } catch (const std::runtime_error& e) {
    QCOMPARE(QString(e.what()), QString("bad.txt: not valid UTF-8 at byte 2"));
  }
  QVERIFY_THROWS_EXCEPTION(std::runtime_error, TextCorpus::fromText("\xC0\x80", "t"));  // overlong
  QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                           TextCorpus::fromText("\xED\xA0\x80", "t"));           // surrogate
  QVERIFY_THROWS_EXCEPTION(std::runtime_error, TextCorpus::fromText("a", "t"));  // too short
}

void TestTasks::unigramEntropy() {
  QCOMPARE(TextCorpus::fromText("abab", "t").unigramEntropy(), std::log(2.0));
  QCOMPARE(TextCorpus::fromText("aaaa", "t").unigramEntropy(), 0.0);
}

void TestTasks::charLmStreamsReadTheTextInOrder() {
  // 40 symbols, valid_fraction 0.25: training part 30 -> 3 streams of 10; h' = 4: an epoch is
  // 8 frames (9 predictable, rounded down to whole chunks).
  std::string text;
  for (int i = 0; i < 40; ++i) text += static_cast<char>('A' + i % 26);
  const auto corpus = corpusOf(text);
  CharLmTask task(corpus, 0.25, {3, 4});
  QCOMPARE(task.framesPerEpoch(), std::int64_t(8));
  QCOMPARE(task.inputSize(), 26);
  const TaskChunk c = task.trainingFrames(4, 4);
  QCOMPARE(c.frames, 4);
  QCOMPARE(c.streams, 3);
  QVERIFY(c.targetMask.empty());
  for (int s = 0; s < 3; ++s) {
    for (int t = 0; t < 4; ++t) {
      const int at = s * 10 + 4 + t;
      QCOMPARE(hotIndex(c, t, s), corpus->symbols()[at]);
      QCOMPARE(c.classTargets[t * 3 + s], std::int64_t(corpus->symbols()[at + 1]));
    }
  }
}

void TestTasks::charLmEpochsAndValidation() {
  const std::string text = train_test::corpusPrefix(2000);
  const auto corpus = corpusOf(text);
  CharLmTask task(corpus, 0.1, {4, 8});
  // Training part 1800 -> 4 streams of 450 -> 449 predictable -> 56 chunks of 8.
  QCOMPARE(task.framesPerEpoch(), std::int64_t(448));
  // Validation: 200 -> 4 streams of 50 -> 49 predicted frames each, in chunks of 20.
  const auto chunks = task.validationChunks(20);
  QCOMPARE(chunks.size(), std::size_t(3));
  QCOMPARE(chunks[0].frames, 20);
  QCOMPARE(chunks[2].frames, 9);
  std::int64_t predicted = 0;
  for (const TaskChunk& c : chunks) predicted += c.predictedFrames();
  QCOMPARE(predicted, std::int64_t(4 * 49));
  // Stream 2 of the validation set starts at training length + 2 * 50.
  QCOMPARE(hotIndex(chunks[0], 0, 2), corpus->symbols()[1800 + 100]);
  QCOMPARE(chunks[2].classTargets.back(), std::int64_t(corpus->symbols()[1800 + 3 * 50 + 49]));
}

void TestTasks::charLmTooShortIsAnError() {
  try {
    CharLmTask task(corpusOf(train_test::corpusPrefix(300)), 0.1, {16, 32});
    QFAIL("a text too short for the streams must be refused");
  } catch (const std::invalid_argument& e) {
    QVERIFY2(QString(e.what()).contains("300 characters are too few to cut the training part "
                                        "into 16 streams of at least h' + 1 = 33 characters"),
             e.what());
  }
}

void TestTasks::addingSequences() {
  const int length = 10;
  AddingTask task(length, 4, 3, {2, 10});
  const TaskChunk c = task.trainingFrames(20, 30);  // sequences 2, 3 and 4 of each stream
  QCOMPARE(c.predictedFrames(), std::int64_t(3 * 2));
  for (int s = 0; s < 2; ++s) {
    for (int q = 0; q < 3; ++q) {
      double sum = 0.0;
      int firstHalf = 0, secondHalf = 0;
      for (int t = q * length; t < (q + 1) * length; ++t) {
        const std::size_t cell = static_cast<std::size_t>(t) * 2 + s;
        const float value = c.input[cell * 2], marker = c.input[cell * 2 + 1];
        QVERIFY(value >= 0.0f && value < 1.0f);
        QVERIFY(marker == 0.0f || marker == 1.0f);
        if (marker == 1.0f) {
          sum += value;
          (t - q * length < length / 2 ? firstHalf : secondHalf) += 1;
        }
        const bool last = t == (q + 1) * length - 1;
        QCOMPARE(c.targetMask[cell], last ? 1.0f : 0.0f);
        if (last) QCOMPARE(c.valueTargets[cell], static_cast<float>(sum));
      }
      QCOMPARE(firstHalf, 1);
      QCOMPARE(secondHalf, 1);
    }
  }
  QCOMPARE(task.validationChunks(25).size(), std::size_t(1));  // 4 sequences / 2 streams = 20
}

void TestTasks::copySequences() {
  // L = 3, delay = 4, K = 5: input s1 s2 s3 _ _ _ D _ _ _, target _ _ _ _ _ _ _ s1 s2 s3.
  CopyTask task(3, 4, 5, 1, 11, {1, 10});
  QCOMPARE(task.inputSize(), 7);
  QCOMPARE(task.outputSize(), 6);
  QCOMPARE(task.memorylessLoss(), 3 * std::log(5.0) / 10);
  const TaskChunk c = task.trainingFrames(0, 10);
  for (int t = 0; t < 3; ++t) {
    const int symbol = hotIndex(c, t, 0);
    QVERIFY(symbol >= 1 && symbol <= 5);
    QCOMPARE(c.classTargets[t + 7], std::int64_t(symbol));
    QCOMPARE(c.classTargets[t], std::int64_t(0));
  }
  for (int t = 3; t < 10; ++t) QCOMPARE(hotIndex(c, t, 0), t == 6 ? 6 : 0);
  for (int t = 3; t < 7; ++t) QCOMPARE(c.classTargets[t], std::int64_t(0));
}

void TestTasks::generatedDataIsDeterministicAndSeeded() {
  CopyTask a(5, 10, 8, 8, 1, {4, 20}), b(5, 10, 8, 8, 1, {4, 20}), other(5, 10, 8, 8, 2, {4, 20});
  const TaskChunk x = a.trainingFrames(40, 20);
  QCOMPARE(x.input, b.trainingFrames(40, 20).input);
  QVERIFY(x.input != other.trainingFrames(40, 20).input);
  // Any window reads the same frames: frames 45..50 of a longer read equal a read of them alone.
  const TaskChunk part = a.trainingFrames(45, 5);
  for (std::size_t i = 0; i < part.classTargets.size(); ++i)
    QCOMPARE(part.classTargets[i], x.classTargets[5 * 4 + i]);
  // Validation sequences are not training sequences.
  QVERIFY(a.validationChunks(20)[0].input != a.trainingFrames(0, 20).input);
}

void TestTasks::checkGraphNamesTheNeededSize_data() {
  QTest::addColumn<int>("inputs");
  QTest::addColumn<int>("outputs");
  QTest::addColumn<bool>("classes");
  QTest::addColumn<QString>("message");
  QTest::newRow("fits") << 7 << 6 << true << "";
  QTest::newRow("input")
      << 8 << 6 << true << "task 'copy' needs an input layer of size 7, input layer 'x' has size 8";
  QTest::newRow("output")
      << 7 << 7 << true
      << "task 'copy' needs an output layer of size 6, output layer 'y' has size 7";
  QTest::newRow("loss")
      << 7 << 6 << false
      << "task 'copy' needs the loss 'cross_entropy' on output layer 'y', it has 'mse'";
}

void TestTasks::checkGraphNamesTheNeededSize() {
  QFETCH(int, inputs);
  QFETCH(int, outputs);
  QFETCH(bool, classes);
  QFETCH(QString, message);
  CopyTask task(3, 4, 5, 1, 11, {1, 10});
  try {
    task.checkGraph(planOf(inputs, outputs, classes));
    QVERIFY2(message.isEmpty(), "expected an error");
  } catch (const std::invalid_argument& e) {
    QCOMPARE(QString(e.what()), message);
  }
}

QTEST_GUILESS_MAIN(TestTasks)
#include "tst_tasks.moc"

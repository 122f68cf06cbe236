// safetensors files: round trips, the exact byte layout of the format, and errors that name the
// file and the key.
#include <QTest>

#include <cstring>

#include "rnnwb/core/safetensors.hpp"

using namespace rnnwb;

class TestSafetensors : public QObject {
  Q_OBJECT
 private slots:
  void roundTripsTensorsAndMetadata();
  void writesTheDocumentedLayout();
  void writesAtomicallyAndReadsBack();
  void reportsErrors_data();
  void reportsErrors();
  void requireChecksDtypeAndShape();
  void unreadTensorsAreRefused();
};

void TestSafetensors::roundTripsTensorsAndMetadata() {
  TensorMap tensors;
  tensors["a.weight"] = Tensor::fromF32({2, 3}, {1, 2, 3, 4, 5, -6.5f});
  tensors["target"] = Tensor::fromI64({3}, {0, 7, -1});
  tensors["loss"] = Tensor::scalarF32(2.5f);
  tensors["empty"] = Tensor::zerosF32({0, 4});
  const std::string bytes = serializeSafetensors(tensors, {{"step", "12"}});
  const TensorFile file = parseSafetensors(bytes, "mem.safetensors");
  QVERIFY(file.tensors == tensors);
  QCOMPARE(file.metadata.at("step"), std::string("12"));
}

void TestSafetensors::writesTheDocumentedLayout() {
  TensorMap tensors;
  tensors["x"] = Tensor::fromF32({2}, {1.0f, 2.0f});
  const std::string bytes = serializeSafetensors(tensors);
  std::uint64_t headerBytes = 0;
  std::memcpy(&headerBytes, bytes.data(), 8);
  QCOMPARE(headerBytes % 8, std::uint64_t(0));
  const std::string header = bytes.substr(8, headerBytes);
  QVERIFY2(
      header.find(R"("x":{"data_offsets":[0,8],"dtype":"F32","shape":[2]})") != std::string::npos,
      header.c_str());
  QCOMPARE(bytes.size(), 8 + headerBytes + 8);
  float values[2];
  std::memcpy(values, bytes.data() + 8 + headerBytes, 8);
  QCOMPARE(values[1], 2.0f);
}

void TestSafetensors::writesAtomicallyAndReadsBack() {
  QTemporaryDir dir;
  const std::filesystem::path path = dir.filePath("w.safetensors").toStdString();
  TensorMap tensors{{"w", Tensor::fromF32({1}, {3.0f})}};
  writeSafetensors(path, tensors);
  QVERIFY(readSafetensors(path).tensors == tensors);
  QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);  // no temporary left behind
}

void TestSafetensors::reportsErrors_data() {
  QTest::addColumn<QByteArray>("bytes");
  QTest::addColumn<QString>("message");
  auto file = [](const std::string& header, std::size_t dataBytes) {
    QByteArray out(8, '\0');
    const std::uint64_t length = header.size();
    std::memcpy(out.data(), &length, 8);
    return out + QByteArray::fromStdString(header) + QByteArray(int(dataBytes), '\0');
  };
  QTest::newRow("short") << QByteArray("abc") << "shorter than 8 bytes";
  QTest::newRow("length") << file("{}", 0).replace(0, 1, "\xff") << "header length";
  QTest::newRow("json") << file("{oops", 0)
                        << "safetensors header, line 1, column 2: malformed JSON: syntax error";
  QTest::newRow("dtype") << file(R"({"h":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}})", 2)
                         << "tensor 'h' has dtype 'F16'";
  QTest::newRow("dtype not a string")
      << file(R"({"h":{"dtype":[2],"shape":[1],"data_offsets":[0,4]}})", 4)
      << "tensor 'h' has a dtype that is not a string: an array of 1";
  QTest::newRow("offsets") << file(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8)
                           << "tensor 'w' has data_offsets [0, 16] outside the 8 data bytes";
  QTest::newRow("size") << file(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8)
                        << "tensor 'w' holds 8 bytes, but F32 [3] needs 12";
  // 2^30 * 2^30 * 16 * 4 bytes wraps to 0 in 64 bits: it must not pass as an empty tensor.
  QTest::newRow("overflow")
      << file(R"({"w":{"dtype":"F32","shape":[1073741824,1073741824,16],"data_offsets":[0,0]}})", 0)
      << "tensor 'w' has shape [1073741824, 1073741824, 16], more elements than 64 bits";
  QTest::newRow("overlap") << file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                   R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                                   12)
                           << "tensors 'a' and 'b' overlap";
  QTest::newRow("gap") << file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8)
                       << "data bytes 0 to 4 belong to no tensor";
  QTest::newRow("trailing") << file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 12)
                            << "8 trailing data bytes after the last tensor";
  QTest::newRow("deep") << file(std::string(100000, '[') + std::string(100000, ']'), 0)
                        << "safetensors header, line 1, column 257: JSON nested deeper than 256";
  QTest::newRow("json position") << file("{\"a\": tru}", 0)
                                 << "safetensors header, line 1, column 10: malformed JSON";
}

void TestSafetensors::reportsErrors() {
  QFETCH(QByteArray, bytes);
  QFETCH(QString, message);
  try {
    parseSafetensors(bytes.toStdString(), "bad.safetensors");
    QFAIL("accepted");
  } catch (const std::runtime_error& e) {
    QVERIFY2(QString(e.what()).startsWith("bad.safetensors: "), e.what());
    QVERIFY2(QString(e.what()).contains(message), e.what());
  }
}

void TestSafetensors::requireChecksDtypeAndShape() {
  TensorFile file;
  file.path = "w.safetensors";
  file.tensors["connections.a.weight"] = Tensor::zerosF32({4, 3});
  QCOMPARE(file.require("connections.a.weight", DType::F32, {4, 3}).elements(), 12);
  try {
    file.require("connections.a.weight", DType::F32, {3, 4});
    QFAIL("accepted");
  } catch (const std::runtime_error& e) {
    QCOMPARE(QString(e.what()),
             QString("w.safetensors: tensor 'connections.a.weight' is F32 [4, 3], "
                     "expected F32 [3, 4]"));
  }
  QVERIFY_THROWS_EXCEPTION(std::runtime_error, file.at("layers.h.bias"));
}

void TestSafetensors::unreadTensorsAreRefused() {
  TensorFile file;
  file.path = "w.safetensors";
  file.tensors["connections.a.weight"] = Tensor::zerosF32({4, 3});
  file.tensors["connections.a.wieght"] = Tensor::zerosF32({4, 3});
  file.tensors["optimizer.m.connections.a.weight"] = Tensor::zerosF32({4, 3});
  file.at("connections.a.weight");
  try {
    file.rejectUnread("the weights of g.rnn.json", {"optimizer."});
    QFAIL("accepted");
  } catch (const std::runtime_error& e) {
    QCOMPARE(QString(e.what()),
             QString("w.safetensors: tensor 'connections.a.wieght' (F32 [4, 3]) is not part of "
                     "the weights of g.rnn.json (a misspelt key, or a file for another graph?)"));
  }
  file.tensors.erase("connections.a.wieght");
  file.rejectUnread("the weights of g.rnn.json", {"optimizer."});
}

QTEST_APPLESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"

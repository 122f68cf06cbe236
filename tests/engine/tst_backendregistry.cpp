// The backend registry: "cpu" by name, registered backends, and errors that list what this
// build has. This executable links no GPU code, so "cuda" is what a build without CUDA sees.
#include <QTest>

#include "engine_test_support.hpp"
#include "rnnwb/core/engine/backend_registry.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/graph_io.hpp"

using namespace rnnwb;

namespace {

CompiledPlan elmanPlan() {
  return CompiledPlan(testing::withLayerSize(
      loadValidGraph(std::string(RNNWB_EXAMPLES_DIR) + "/elman.rnn.json"), 3));
}

QString errorOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

/// A backend that only counts: a stand-in for one an executable registers.
class NamedBackend final : public Backend {
 public:
  explicit NamedBackend(const CompiledPlan& plan) : m_plan(plan) {}
  std::string_view name() const override { return "counting"; }
  const CompiledPlan& plan() const override { return m_plan; }
  double forwardBackward(const ParameterSet&, const SequenceBatch&, const StreamState&,
                         StreamState*, ParameterSet*) override {
    return 1.0;
  }
  double forward(const ParameterSet&, const SequenceBatch&, const StreamState&, StreamState*,
                 std::vector<Tensor>*) override {
    return 2.0;
  }

 private:
  const CompiledPlan& m_plan;
};

}  // namespace

class TestBackendRegistry : public QObject {
  Q_OBJECT
 private slots:
  void cpuByName();
  void unknownNameListsTheKnownOnes();
  void cudaWithoutCudaSaysSo();
  void registeredBackendIsMade();
};

void TestBackendRegistry::cpuByName() {
  const CompiledPlan plan = elmanPlan();
  const auto backend = makeBackend("cpu", plan);
  QCOMPARE(QString::fromUtf8(backend->name().data(), backend->name().size()), QString("cpu"));
  QVERIFY(dynamic_cast<CpuBackend*>(backend.get()) != nullptr);
  QCOMPARE(&backend->plan(), &plan);
  QVERIFY(hasBackend("cpu"));
  requireBackend("cpu");
}

void TestBackendRegistry::unknownNameListsTheKnownOnes() {
  const CompiledPlan plan = elmanPlan();
  const QString error = errorOf([&] { makeBackend("tpu", plan); });
  QCOMPARE(error.left(error.indexOf(')') + 1),
           QString("unknown backend 'tpu' (this build has: cpu" +
                   QString(hasBackend("counting") ? ", counting" : "") + ")"));
  QCOMPARE(errorOf([] { requireBackend("tpu"); }), error);
  QVERIFY(!error.contains("CUDA"));  // only "cuda" gets the build hint
}

void TestBackendRegistry::cudaWithoutCudaSaysSo() {
  const CompiledPlan plan = elmanPlan();
  const QString error = errorOf([&] { makeBackend("cuda", plan); });
  QVERIFY2(error.startsWith("unknown backend 'cuda' (this build has: cpu"), qPrintable(error));
  QVERIFY2(error.contains("built without the CUDA backend"), qPrintable(error));
}

void TestBackendRegistry::registeredBackendIsMade() {
  int made = 0;
  registerBackend("counting", [&made](const CompiledPlan& plan, const BackendOptions&) {
    ++made;
    return std::unique_ptr<Backend>(std::make_unique<NamedBackend>(plan));
  });
  const CompiledPlan plan = elmanPlan();
  const auto backend = makeBackend("counting", plan);
  QCOMPARE(made, 1);
  QCOMPARE(backend->forward(ParameterSet(plan), {}, {}, nullptr, nullptr), 2.0);
  const auto names = backendNames();
  QCOMPARE(names, (std::vector<std::string>{"counting", "cpu"}));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, registerBackend("", nullptr));
}

QTEST_GUILESS_MAIN(TestBackendRegistry)
#include "tst_backendregistry.moc"

// Thousands of random graphs: the analysis against brute-force reachability, and zero-delay
// cycle detection against a brute-force search.
#include <QTest>

#include "random_graph.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/graph_validator.hpp"
#include "rnnwb/core/scc_analysis.hpp"
#include "schedule_checks.hpp"

using namespace rnnwb;

class TestRandomGraphs : public QObject {
  Q_OBJECT
 private slots:
  void analysisMatchesBruteForce();
  void zeroDelayCyclesMatchBruteForce();
  void randomGraphsRoundTrip();
};

void TestRandomGraphs::analysisMatchesBruteForce() {
  for (std::uint64_t seed = 0; seed < 3000; ++seed) {
    testing::RandomGraphOptions options;
    options.layers = 2 + static_cast<int>(seed % 23);
    options.connections = options.layers + static_cast<int>((seed * 7) % (2 * options.layers + 1));
    options.inputs = 1 + static_cast<int>(seed % 2);
    const Graph g = testing::makeRandomGraph(seed, options);
    const auto problems = validateGraph(g);
    QVERIFY2(problems.empty(),
             (g.name + ": " + (problems.empty() ? "" : problems.front().message)).c_str());
    const std::string fault = testing::checkAnalysis(g, analyzeSccs(g));
    QVERIFY2(fault.empty(), (g.name + ": " + fault).c_str());
  }
}

void TestRandomGraphs::zeroDelayCyclesMatchBruteForce() {
  int withCycle = 0;
  for (std::uint64_t seed = 0; seed < 3000; ++seed) {
    testing::RandomGraphOptions options;
    options.layers = 2 + static_cast<int>(seed % 13);
    options.connections = options.layers + static_cast<int>(seed % 5);
    options.allowZeroDelayCycles = true;
    options.delayedFraction = 0.5;
    const Graph g = testing::makeRandomGraph(seed, options);
    const auto reach = testing::bruteForceReach(g, true);
    bool cyclic = false;
    for (std::size_t v = 0; v < reach.size(); ++v) cyclic |= reach[v][v];
    withCycle += cyclic;
    bool reported = false;
    for (const Diagnostic& d : validateGraph(g)) {
      if (d.message.rfind("cycle with no delay: ", 0) != 0) continue;
      reported = true;
      // The cycle named must be a real delay-0 cycle: consecutive connections, back to start.
      for (std::size_t k = 0; k < d.connections.size(); ++k) {
        const Connection& c = g.connections[d.connections[k]];
        const Connection& next = g.connections[d.connections[(k + 1) % d.connections.size()]];
        QCOMPARE(c.delay, 0);
        QCOMPARE(c.to, next.from);
      }
    }
    QVERIFY2(
        reported == cyclic,
        (g.name + (cyclic ? " has an unreported cycle" : " reports a cycle it lacks")).c_str());
    if (!cyclic) {
      const std::string fault = testing::checkAnalysis(g, analyzeSccs(g));
      QVERIFY2(fault.empty(), (g.name + ": " + fault).c_str());
    }
  }
  QVERIFY2(withCycle > 300, "the generator should produce a fair share of cyclic graphs");
}

void TestRandomGraphs::randomGraphsRoundTrip() {
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    testing::RandomGraphOptions options;
    options.layers = 3 + static_cast<int>(seed % 17);
    options.connections = 2 * options.layers;
    const Graph g = testing::makeRandomGraph(seed, options);
    const GraphLoadResult r = parseGraph(serializeGraph(g));
    QVERIFY(r.ok());
    QVERIFY(*r.graph == g);
  }
}

QTEST_APPLESS_MAIN(TestRandomGraphs)
#include "tst_randomgraphs.moc"

#pragma once
// The graph object behind rnnwb.Graph: a graph as read (possibly invalid, as the editor holds
// one), its compiled plan and CPU engine once a computation asks for them. Thread contract: the
// methods that compute lock `mutex` (one computation at a time per graph: a Backend is not
// thread-safe) and release the GIL while the engine runs, so that two graphs compute in two
// Python threads at once.
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "call_arrays.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/diagnostic.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/graph.hpp"

namespace rnnwb::python {

struct PyGraph {
  Graph graph;
  std::vector<Diagnostic> problems;  // the reader's, then the validator's (parseGraph's order)
  std::size_t readerProblems = 0;    // how many of them are the reader's (the first ones)
  std::string path;                  // the file it was read from; empty for JSON text
  std::mutex mutex;
  std::unique_ptr<CompiledPlan> plan;
  std::unique_ptr<CpuBackend> backend;
  std::unique_ptr<GridEngine> gridEngine;  // for 2-D graphs and numbered examples
  std::string gridPacker;                  // the packer gridEngine was made with
  // What a kept forward (forward_kept) computed from: the engine points into them until the
  // backward of that forward (CpuBackend::keepForward).
  std::unique_ptr<ParameterSet> keptParams;
  std::unique_ptr<SequenceBatch> keptBatch;
  std::unique_ptr<CallKeys> keys;  // made on first use (callKeys())
  // The seconds of the engine's forward and backward in the last grad call: the benchmark of
  // the binding's per-call overhead reads it (tests/bench/bench_grad_overhead.py).
  double lastEngineSeconds = 0;

  /// The graph as messages name it: its file, or "graph 'NAME'" for JSON text.
  std::string name() const { return path.empty() ? "graph '" + graph.name + "'" : path; }
  /// The plan of a valid graph; throws GraphError as loadValidGraph does otherwise (each message
  /// prefixed with the file and position where the graph came from a file).
  const CompiledPlan& compiled();
  /// The CPU engine for the plan (threads: the process-wide count), made on first use.
  CpuBackend& cpu();
  /// The grid engine for the plan with `packer` (shelf, baseline, padded), made on first use and
  /// again when the packer changes; call with `mutex` held.
  GridEngine& grid(const std::string& packer);
  /// The plan's parameter keys and layout, made on first use (call_arrays.hpp).
  const CallKeys& callKeys();
};

/// Writes the seconds from its construction to its end into `seconds`.
class EngineClock {
 public:
  explicit EngineClock(double& seconds)
      : m_seconds(seconds), m_start(std::chrono::steady_clock::now()) {}
  ~EngineClock() {
    m_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  }
  EngineClock(const EngineClock&) = delete;
  EngineClock& operator=(const EngineClock&) = delete;

 private:
  double& m_seconds;
  std::chrono::steady_clock::time_point m_start;
};

}  // namespace rnnwb::python

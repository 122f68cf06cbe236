#pragma once
// Which training algorithm fits a memory budget: for a graph, N streams and truncated BPTT's
// window (h; h'), the bytes that BPTT(h; h'), SnAp-1/2/3 and exact RTRL would hold, the floating
// point work each does per frame, and the time per frame that work takes at the rate this machine's
// CPU engine reaches on the graph (measured by measureEngineRate). What the workbench's Memory
// budget dock and `rnnwb budget` show.
//
// Bytes, per algorithm (float32 everywhere):
// - shared by all: the parameters, their gradient and the optimizer's state (Adam: two moments,
//   SGD with momentum: one);
// - BPTT(h; h'): what the CPU engine allocates for a chunk of h frames of N streams: every layer's
//   outputs (with the frames its delays reach back), pre-activations and their gradients, and
//   the products' buffers into multiplicative layers; plus the carried state;
// - RTRL / SnAp-n: Ĵ of every recurrent node for N streams as the learner stores it
//   (rtrlJacobianBytes), and one gradient per stream (the streams run in parallel).
// Work per frame of all N streams, in flops (multiply-add = 2):
// - BPTT: forward + backward products (3 × the forward's), h / h' times over for the overlap;
// - RTRL / SnAp-n: forward and backward of one frame, one VJP of the node's step per colour of I
//   and of D, the masked product M_n ⊙ (D Ĵ) (nnz(M_n) × the mean nonzeros of a row of D), and
//   the read-out.
// The modelled time is a rough estimate (sparse work runs far from the products' rate, and SnAp-1's
// unit-block path does less than the model counts), so measureAlgorithms replaces it with a
// measured time for every algorithm that fits: a short run of the real learner on this machine.
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"

namespace rnnwb::snap {

struct BudgetQuery {
  int streams = 32;        // N
  int window = 64;         // h: the frames BPTT backpropagates through
  int newFrames = 64;      // h': the frames each update advances
  int optimizerSlots = 2;  // floats of optimizer state per parameter (Adam 2, momentum SGD 1)
  std::uint64_t budgetBytes = 0;
};

struct AlgorithmEstimate {
  std::string algorithm;         // the run config's "algo": bptt, snap1, snap2, snap3, rtrl
  std::string label;             // "BPTT(64; 64)", "SnAp-1", "exact RTRL"
  std::uint64_t ownBytes = 0;    // what this algorithm holds beyond the shared part
  std::uint64_t totalBytes = 0;  // ownBytes + the shared part
  double flopsPerFrame = 0;      // one frame of all N streams
  double secondsPerFrame = 0;    // flopsPerFrame at the measured rate; 0 when no rate is given
  bool measured = false;         // secondsPerFrame comes from a run, not from the model
  bool fits = false;             // totalBytes <= budget, and the algorithm can run on the graph
  std::optional<std::string> refusal;  // why it cannot run on this graph (RTRL's refusals)
};

struct BudgetTable {
  std::uint64_t sharedBytes = 0;  // parameters, gradient, optimizer state
  std::int64_t parameters = 0;
  double flopsPerSecond = 0;            // the rate the times are computed at
  std::vector<AlgorithmEstimate> rows;  // bptt, snap1, snap2, snap3, rtrl
  std::vector<std::string> unmeasured;  // what was not measured or sized, and why
};

/// Bytes the CPU engine holds for a BPTT chunk of `frames` frames of `streams` streams.
std::uint64_t bpttChunkBytes(const CompiledPlan& plan, int frames, int streams);

/// Flops of one forward pass of one frame of one stream (every product and element-wise step).
double forwardFlopsPerFrame(const CompiledPlan& plan);

/// The table for the query, computed from the sizes: nothing it counts is allocated (the
/// parameter count comes from the layout, not from a parameter set). SnAp's patterns of a node
/// are built only when they take at most half this machine's memory; otherwise
/// the SnAp and RTRL rows are refused as "not sized", with the least Ĵ can take (one entry per
/// parameter), and the table's `unmeasured` says so. `flopsPerSecond` <= 0 leaves the times at 0.
/// Throws std::invalid_argument naming the field when streams, window or newFrames is < 1 or
/// newFrames > window.
BudgetTable estimateAlgorithms(const CompiledPlan& plan, const BudgetQuery& query,
                               double flopsPerSecond);

/// The rate the CPU engine reaches on this graph: BPTT forward + backward over a short chunk of
/// `streams` streams (best of a few runs, random parameters and inputs), its flops over its time.
/// 0 when `stop` was requested before the last run (nothing then is measured).
double measureEngineRate(const CompiledPlan& plan, int streams, int threads = 1,
                         const std::stop_token& stop = {});

/// How a measurement may be cut short: the workbench's panel stops it when it is hidden or the
/// window closes, and keeps each sample run short enough for that stop to be quick. `rnnwb
/// budget` measures everything.
struct MeasureLimits {
  std::stop_token stop;         // once requested, no further sample run starts
  double maxSampleSeconds = 0;  // > 0: a row whose modelled sample run takes longer stays modelled
};

/// What measureEngineRate holds: two parameter sets, a chunk of its frames and the batch.
std::uint64_t engineRateBytes(const CompiledPlan& plan, int streams);

/// measureEngineRate when what it holds fits the query's budget and this machine's memory;
/// otherwise 0, with the reason added to `unmeasured`.
double measureEngineRateIfItFits(const CompiledPlan& plan, const BudgetQuery& query, int threads,
                                 std::vector<std::string>& unmeasured,
                                 const std::stop_token& stop = {});

/// Replaces the modelled time of every row that fits by the time a short run of that algorithm
/// takes on this machine (a chunk of a few frames of up to `sampleStreams` streams with random
/// parameters, the best of two, scaled to the query's N and, for BPTT, to h / h'). Rows that do
/// not fit the budget or this machine's memory keep their model estimate (nothing that large is
/// allocated), and the table's `unmeasured` names them; so do those `limits` leaves out. False
/// when the stop came first (the rows not measured by then keep the model's).
bool measureAlgorithms(const CompiledPlan& plan, const BudgetQuery& query, BudgetTable& table,
                       int threads = 1, int sampleStreams = 4, const MeasureLimits& limits = {});

}  // namespace rnnwb::snap

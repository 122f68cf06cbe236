#pragma once
// The figures `rnnwb mask` prints for one recurrent node (spec/snap-masks.md, "Counts to report"):
// sizes, nnz(M_n) and density, colours of I and D, and the memory of Ĵ beside dense RTRL and BPTT.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"

namespace rnnwb::snap {

/// One SnAp level. n = 0 stands for the exact mask M_∞.
struct SnapLevel {
  int n = 0;
  std::uint64_t nnz = 0;
  double density = 0.0;        // nnz / (|h|·|θ|), 0 when |θ| = 0
  std::uint64_t cooBytes = 0;  // Ĵ in COO: float32 value + two int32 indices per entry
  std::uint64_t csrBytes = 0;  // Ĵ in CSR with one row per parameter (how SnAp stores it)
};

struct NodeSummary {
  int node = 0;                        // index into plan.nodes()
  std::vector<int> layers;             // member layers, file order
  std::optional<std::string> refusal;  // set when RTRL cannot take the node; nothing else is
  std::vector<int> stateLayers;
  int stateSize = 0;
  std::int64_t parameters = 0;
  std::vector<SnapLevel> levels;  // the requested n in increasing order, then M_∞
  int exactAfter = 0;             // smallest n with M_n = M_∞
  int coloursI = 0;
  int coloursD = 0;
  std::uint64_t denseRtrlBytes = 0;  // |h|·|θ| float32
  int bpttLength = 0;
  std::uint64_t bpttBytes = 0;  // bpttLength frames of every unit of the node, float32
};

/// Indices into `nodes` (plan.nodes() or SccAnalysis::nodes) of the recurrent nodes, in schedule
/// order: entry k - 1 is what `rnnwb analyze` and `rnnwb mask --node k` call recurrent node k.
std::vector<int> recurrentNodes(const std::vector<SccNode>& nodes);

/// The SnAp levels `rnnwb mask` reports: 1, 2, 3, and `extra` too when it is > 0.
std::vector<int> reportedLevels(int extra);

/// "SnAp-n", or "exact (= M_k)" for M_∞ (n = 0) with k = exactAfter.
std::string levelName(const SnapLevel& level, int exactAfter);

/// Bytes BPTT keeps for a node over `frames` frames: one float32 activation per unit per frame.
std::uint64_t bpttBytes(std::uint64_t unitsPerFrame, int frames);

/// Summary of recurrent node `node` (an index into plan.nodes()) for SnAp levels `levels`
/// (each >= 1; duplicates ignored) and BPTT over `bpttLength` frames. A node RTRL cannot take
/// comes back with only node, layers and refusal set.
NodeSummary summarizeNode(const CompiledPlan& plan, int node, std::vector<int> levels,
                          int bpttLength);

}  // namespace rnnwb::snap

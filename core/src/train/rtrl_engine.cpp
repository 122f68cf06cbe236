// The RTRL / SnAp-n engine of the sequence learner (sequence_learner.hpp): an RtrlBackend, whose
// Ĵ the learner's checkpoints carry through the engine's own typed functions.
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/snap/rtrl_backend.hpp"
#include "sequence_learner.hpp"

namespace rnnwb::train {
namespace {

// The online gradient each RTRL stream keeps, so that results do not depend on the threads.
std::uint64_t streamGradientBytes(const CompiledPlan& plan, int streams) {
  return std::uint64_t{4} * static_cast<std::uint64_t>(ParameterLayout(plan).size()) *
         static_cast<std::uint64_t>(std::max(streams, 0));
}

// Exact RTRL and SnAp-n at n >= 2 carry |h|·|θ| entries per stream on dense networks: a run
// that cannot hold them is refused before any is allocated (and before the run folder is made),
// rather than dying out of memory mid-run.
void requireJacobiansFitMemory(const TrainConfig& c, const CompiledPlan& plan) {
  const std::uint64_t physical = physicalMemoryBytes();
  if (physical == 0) return;
  const std::uint64_t own =
      snap::rtrlJacobianBytes(plan, snap::snapLevelOfAlgorithm(c.algo), c.streams) +
      streamGradientBytes(plan, c.streams);
  std::uint64_t needed = 0;
  if (!__builtin_add_overflow(own, sharedTrainingBytes(c, plan), &needed) && needed <= physical)
    return;
  throw std::invalid_argument(
      "algo " + c.algo + " would carry up to " + formatBytes(own) +
      " of Jacobians and gradients for " + std::to_string(c.streams) + " streams, besides " +
      sharedTrainingText(c, plan) + ", more than this machine's " + formatBytes(physical) +
      " of memory: train fewer streams (--streams) or a sparser level (snap1); `rnnwb mask "
      "GRAPH` gives the size of each level's Jacobian per stream");
}

std::string memoryLine(const snap::RtrlBackend& rtrl, const CompiledPlan& plan, int streams) {
  const std::uint64_t perStream = rtrl.learner().bytesPerStream();
  const std::uint64_t gradient = streamGradientBytes(plan, 1);
  return "the Jacobians take " + formatBytes(perStream) + " per stream and its gradient " +
         formatBytes(gradient) + ": " +
         formatBytes((perStream + gradient) * static_cast<std::uint64_t>(streams)) + " for " +
         std::to_string(streams) + " streams";
}

}  // namespace

SequenceEngine rtrlEngine(const TrainConfig& c, const CompiledPlan& plan) {
  requireJacobiansFitMemory(c, plan);
  // Results are bit-for-bit repeatable for one thread count; the resolved config keeps it.
  auto rtrl = std::make_unique<snap::RtrlBackend>(plan, c.algo, c.threads);
  snap::RtrlBackend* typed = rtrl.get();  // owned by the engine, which outlives these functions
  SequenceEngine engine;
  engine.saveCarried = [typed] { return typed->jacobianTensors(); };
  engine.restoreCarried = [typed](const TensorMap& tensors, int streams) {
    typed->restoreJacobians(tensors, streams);
  };
  engine.memoryLines = {memoryLine(*typed, plan, c.streams)};
  engine.backend = std::move(rtrl);
  return engine;
}

}  // namespace rnnwb::train

#pragma once
// Compares a backend with CpuBackend on one plan: forwardBackward (summed loss, every gradient,
// the carried state) and forward (loss, outputs), from a random carried state, with partial
// prediction and a carry point inside the chunk, on fresh random inputs. Used by the CPU test of
// the launch schedule and by the GPU conformance suite.
#include <cstdint>
#include <string>
#include <vector>

#include "rnnwb/core/engine/backend.hpp"
#include "rnnwb/core/graph.hpp"

namespace rnnwb::testing {

struct ComparisonCase {
  int frames = 5, streams = 3;
  int firstPredictedFrame = 1;
  int carryFrames = 3;
  bool carriedState = true;
  std::uint64_t seed = 1;
};

struct ComparisonResult {
  double worst = 0.0;  // largest relative error over all compared quantities
  std::string where;   // which quantity it was ("loss", "connections.c3.weight", ...)
};

/// Norm-wise relative error |a - b| / max(|b|, tiny), over two vectors of the same size.
double relativeError(const float* a, const float* b, std::size_t count);

/// One operation in a minimal graph x -> b -> a -> out (plus x -> a and a -> a delayed): every
/// activation, additive and multiplicative layers, full / diagonal / identity connections,
/// delays 0 to 3, masks, both losses. Every case is a valid graph.
struct OperationCase {
  std::string name;
  std::string json;
};
std::vector<OperationCase> operationCases();

/// The random graphs of the GPU suite (tst_gpu_backend, tst_gpu_steps, and tst_launchschedule on
/// the CPU): 10 layers, 22 connections, layers of 16, and the case each seed runs.
Graph gpuSuiteRandomGraph(int seed);
ComparisonCase gpuSuiteCase(int seed);

/// Runs `backend` and a fresh CpuBackend on the same random parameters, inputs and state.
ComparisonResult compareWithCpu(Backend& backend, const ComparisonCase& c);

}  // namespace rnnwb::testing

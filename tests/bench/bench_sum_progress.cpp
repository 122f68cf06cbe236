// Does a gradient bucket started during the backward pass travel while the backward goes on?
// Open MPI moves a nonblocking collective (MPI_Iallreduce) only inside MPI calls, so the answer
// depends on how often the rank calls into MPI while it computes. Run under `mpirun -np 2`: each
// trial starts a sum of S floats, computes for C ms (standing for the rest of the backward pass),
// then waits for the sum; the wait is what the overlap did not hide. Modes, alternating:
//   after     the sum starts after the computation (--no-overlap)
//   once      started before it, one MPI_Testall right after the start (GradientSum today: one
//             between nodes, and the last nodes of a backward pass are long)
//   polled    started before it, an MPI_Testall every 100 us of the computation (what a progress
//             thread, or a report per layer, would give)
// Prints one JSON line per size and mode (rank 0): the median and mean wait in microseconds.
// The communicator's progress thread (mpi_communicator.cpp) moves started sums by itself; run
// with RNNWB_MPI_PROGRESS_THREAD=0 (mpirun -x) to measure without it.
//   mpirun -np 2 [-x RNNWB_MPI_PROGRESS_THREAD=0] build/tests/bench/bench_sum_progress [COMPUTE_MS]
//   [TRIALS]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_help.hpp"
#include "rnnwb/core/dist/communicator.hpp"
#include "rnnwb/core/dist/launch.hpp"

namespace {

using Clock = std::chrono::steady_clock;

/// Busy work for `ms` milliseconds, calling `between` every `sliceUs` microseconds (0: never).
double compute(double ms, double sliceUs, rnnwb::dist::Communicator* between) {
  const Clock::time_point end = Clock::now() + std::chrono::microseconds(long(ms * 1000));
  Clock::time_point nextCall = Clock::now() + std::chrono::microseconds(long(sliceUs));
  double sink = 0.0;
  while (Clock::now() < end) {
    for (int k = 0; k < 200; ++k) sink += std::sqrt(double(k) + sink * 1e-9);
    if (between && sliceUs > 0 && Clock::now() >= nextCall) {
      between->progressSums();
      nextCall += std::chrono::microseconds(long(sliceUs));
    }
  }
  return sink;
}

double waitUs(rnnwb::dist::Communicator& comm, std::vector<float>& values, const std::string& mode,
              double computeMs, double& sink) {
  std::vector<double> barrier(1, 0.0);
  comm.allreduceSumHost(barrier);  // both ranks start the trial together
  if (mode == "after") {
    sink += compute(computeMs, 0, nullptr);
    comm.startSum(values);
  } else {
    comm.startSum(values);
    comm.progressSums();
    sink += compute(computeMs, mode == "polled" ? 100.0 : 0.0, &comm);
  }
  const Clock::time_point begin = Clock::now();
  comm.finishSums();
  return std::chrono::duration<double, std::micro>(Clock::now() - begin).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (answersBenchHelp(
          argc, argv,
          "Usage: mpirun -np 2 bench_sum_progress [COMPUTE_MS (5)] [TRIALS (40)]\nWhether a "
          "gradient sum started during the backward pass moves while the rank computes.\n"))
    return 0;
  const double computeMs = argc > 1 ? std::atof(argv[1]) : 5.0;
  const int trials = argc > 2 ? std::atoi(argv[2]) : 40;
  const char* thread = std::getenv("RNNWB_MPI_PROGRESS_THREAD");
  const bool progressThread = !(thread && std::string(thread) == "0");
  auto comm = rnnwb::dist::openWorld();
  const std::vector<std::string> modes = {"after", "once", "polled"};
  double sink = 0.0;
  // char-lstm's output layer (the part a backward pass finishes first), its whole gradient, 4 MB.
  for (std::size_t floats : {std::size_t{8064}, std::size_t{105790}, std::size_t{1} << 20}) {
    std::vector<float> values(floats, 1.0f);
    std::vector<std::vector<double>> waits(modes.size());
    for (int t = 0; t < trials; ++t)
      for (std::size_t m = 0; m < modes.size(); ++m) {
        const std::size_t mode = (m + static_cast<std::size_t>(t)) % modes.size();
        waits[mode].push_back(waitUs(*comm, values, modes[mode], computeMs, sink));
      }
    for (std::size_t m = 0; m < modes.size(); ++m) {
      std::vector<double>& w = waits[m];
      std::sort(w.begin(), w.end());
      double mean = 0.0;
      for (double x : w) mean += x / static_cast<double>(w.size());
      if (comm->rank() == 0)
        std::printf(
            "{\"floats\": %zu, \"mode\": \"%s\", \"progress_thread\": %s, \"compute_ms\": "
            "%.1f, \"trials\": %d, \"wait_us_median\": %.1f, \"wait_us_mean\": %.1f}\n",
            floats, modes[m].c_str(), progressThread ? "true" : "false", computeMs, trials,
            w[w.size() / 2], mean);
    }
  }
  if (sink == 42.0) std::printf("\n");  // keeps the work
  return 0;
}

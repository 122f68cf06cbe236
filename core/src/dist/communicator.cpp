#include "rnnwb/core/dist/communicator.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace rnnwb::dist {
namespace {

class SingleProcessCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string name() const override { return "single process"; }
  void allreduceSum(std::span<float>) override {}
  void allreduceSumHost(std::span<double>) override {}
  void broadcast(std::span<std::byte>, int root) override {
    if (root != 0)
      throw std::invalid_argument("broadcast from rank " + std::to_string(root) +
                                  " in a job of 1 rank");
  }
  [[noreturn]] void abortAll(int exitCode) override { std::exit(exitCode); }
};

}  // namespace

std::unique_ptr<Communicator> makeSingleProcessCommunicator() {
  return std::make_unique<SingleProcessCommunicator>();
}

StopAgreement agreeOnStop(Communicator& comm, int localSignal) {
  std::vector<double> slots(static_cast<std::size_t>(comm.size()));
  writeStopSlots(comm, localSignal, slots);
  comm.allreduceSumHost(slots);
  return stopOfSlots(slots);
}

void writeStopSlots(const Communicator& comm, int localSignal, std::span<double> slots) {
  // One slot per rank, so every rank learns who was asked and with which signal: a sum of one
  // non-zero and zeros is exact.
  if (slots.size() != static_cast<std::size_t>(comm.size()))
    throw std::invalid_argument("the stop agreement needs one slot per rank (" +
                                std::to_string(comm.size()) + "), not " +
                                std::to_string(slots.size()));
  std::fill(slots.begin(), slots.end(), 0.0);
  slots[static_cast<std::size_t>(comm.rank())] = localSignal;
}

StopAgreement stopOfSlots(std::span<const double> summed) {
  for (std::size_t r = 0; r < summed.size(); ++r)
    if (summed[r] != 0.0) return {static_cast<int>(summed[r]), static_cast<int>(r)};
  return {};
}

std::uint64_t hashFloats(std::span<const float> values) {
  std::uint64_t hash = 14695981039346656037ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  for (std::size_t i = 0; i < values.size_bytes(); ++i) {
    hash ^= bytes[i];
    hash *= 1099511628211ull;
  }
  return hash;
}

void requireSameHash(Communicator& comm, std::uint64_t hash, const std::string& what) {
  std::uint64_t reference = hash;
  comm.broadcast(std::as_writable_bytes(std::span(&reference, 1)), 0);
  std::vector<double> differs(static_cast<std::size_t>(comm.size()), 0.0);
  differs[static_cast<std::size_t>(comm.rank())] = hash != reference ? 1.0 : 0.0;
  comm.allreduceSumHost(differs);
  std::string ranks;
  for (int r = 0; r < comm.size(); ++r)
    if (differs[static_cast<std::size_t>(r)] != 0.0)
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  if (!ranks.empty())
    throw DivergedRanksError(what + " differ between ranks: rank(s) " + ranks +
                             " no longer hold rank 0's values (the ranks must apply the same "
                             "update; a hardware fault or a non-deterministic reduction breaks "
                             "that)");
}

}  // namespace rnnwb::dist

#include "data_parallel.hpp"

#include <cstdio>
#include <numeric>
#include <string>

#include "rnnwb/core/dist/stream_gather.hpp"
#include "rnnwb/core/train/learner.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/stream_share_task.hpp"

namespace rnnwb::train {

namespace {

dist::StreamShare shareOfRank(const dist::Communicator& world, const TrainConfig& config) {
  // The words task shares each batch's examples instead (WordsLearner); its streams mean nothing.
  if (world.size() == 1 || config.task.kind == "words") return {0, config.streams};
  return dist::streamShare(config.streams, world.size(), world.rank());
}

}  // namespace

DataParallel::DataParallel(dist::Communicator* world, const TrainConfig& config)
    : m_own(world ? nullptr : dist::makeSingleProcessCommunicator()),
      m_world(world ? world : m_own.get()),
      m_streams(config.streams),
      m_examplesShared(config.task.kind == "words"),
      m_share(shareOfRank(*m_world, config)),
      m_sum(single() ? nullptr : std::make_unique<GradientSum>(*m_world, config.overlapSum)),
      m_figures(2 + static_cast<std::size_t>(m_world->size())),
      m_timeline(UpdateTimeline::fromEnvironment(m_world->rank())) {}

std::unique_ptr<Task> DataParallel::shareOf(std::unique_ptr<Task> whole) const {
  if (single()) return whole;
  return std::make_unique<StreamShareTask>(std::move(whole), m_share.first, m_share.count);
}

void DataParallel::attachTo(Backend& backend) {
  GradientListener* listener = m_sum.get();
  if (m_timeline) {  // in front of the sum, or alone with one rank
    m_timeline->forwardTo(m_sum.get());
    listener = m_timeline.get();
  }
  if (listener) m_backendReports = backend.setGradientListener(listener) && m_sum;
}

bool DataParallel::beginGradientSum(std::span<float> gradients) {
  if (m_timeline) m_timeline->mark(UpdateTimeline::kBegin);
  if (!m_sum) return false;
  m_sum->begin(gradients);
  return true;
}

std::string DataParallel::sumDescription(const TrainConfig& config) const {
  if (!m_sum || config.task.kind == "words") return "";
  if (!m_sum->overlaps()) return "gradient summed after the backward pass (--no-overlap)";
  if (m_backendReports)
    return "gradient summed in buckets overlapped with the backward pass (each starts when the "
           "backward has finished its parameters)";
  if (config.algo != "bptt")
    return "gradient summed after the update: algo " + config.algo +
           " accumulates it frame by frame, so no part is final before the end";
  return "gradient summed after the backward pass: backend " + config.backend +
         " hands its gradient back whole";
}

std::string DataParallel::sumCounts() const {
  if (!m_sum || m_examplesShared || m_sum->counts().updates == 0) return "";
  const GradientSum::Counts& c = m_sum->counts();
  char wait[32];
  std::snprintf(wait, sizeof wait, "%.3f", 1e3 * c.waitSeconds / static_cast<double>(c.updates));
  char share[32];
  std::snprintf(share, sizeof share, "%.1f",
                100.0 * static_cast<double>(c.floatsEarly) /
                    static_cast<double>(std::max<std::int64_t>(1, c.floats)));
  return "gradient sum: " + std::to_string(c.startedEarly) + " of " + std::to_string(c.buckets) +
         " buckets started before the backward pass ended (" + share +
         " % of the gradient), over " + std::to_string(c.updates) + " updates; " + wait +
         " ms per update waiting for the sums after the backward pass";
}

void DataParallel::reduce(std::span<float> gradients, BatchGradient& batch) {
  if (single()) return;
  // Pending: the gradient of the summed loss, partly summed already during the backward pass.
  const bool ofMeanLoss = !m_sum->pending();
  if (ofMeanLoss) {
    // The learner divided its summed gradient by its own predicted frames; undo that, sum, and
    // divide by all ranks' frames. Two more roundings than one process makes: within 1e-6.
    const float mine = static_cast<float>(std::max<std::int64_t>(1, batch.predicted));
    for (float& g : gradients) g *= mine;
    m_sum->begin(gradients);  // nothing reported: finish() starts every bucket
  }
  sumWithFigures(batch);
  if (ofMeanLoss) batch.teaches = batch.predicted > 0;  // words: some ranks may have no example
  const float all = 1.0f / static_cast<float>(std::max<std::int64_t>(1, batch.predicted));
  for (float& g : gradients) g *= all;
}

void DataParallel::sumWithFigures(BatchGradient& batch) {
  if (m_timeline) m_timeline->mark(UpdateTimeline::kSumStart);
  m_figures[0] = batch.lossSum;
  m_figures[1] = static_cast<double>(batch.predicted);
  dist::writeStopSlots(*m_world, stopRequested(), std::span(m_figures).subspan(2));
  m_sum->finish(m_figures);
  batch.lossSum = m_figures[0];
  batch.predicted = static_cast<std::int64_t>(m_figures[1]);
  m_summedStop = dist::stopOfSlots(std::span(m_figures).subspan(2)).signal;
  if (m_timeline) m_timeline->mark(UpdateTimeline::kSumDone);
}

void DataParallel::sumLoss(double& loss, std::int64_t& predicted) {
  if (single()) return;
  // Frame counts are far below 2^53, so a double carries them exactly.
  double sums[2] = {loss, static_cast<double>(predicted)};
  m_world->allreduceSumHost(sums);
  loss = sums[0];
  predicted = static_cast<std::int64_t>(sums[1]);
}

int DataParallel::agreedStopSignal() {
  if (single()) return stopRequested();
  if (m_summedStop) {
    const int signal = *m_summedStop;
    m_summedStop.reset();  // asked for once per update, before the next one
    return signal;
  }
  return dist::agreeOnStop(*m_world, stopRequested()).signal;
}

StopAgreement DataParallel::stopAgreement() {
  if (single()) return {};
  return [this](int localSignal) { return dist::agreeOnStop(*m_world, localSignal).signal; };
}

void DataParallel::checkSameParameters(std::span<const float> params, std::int64_t step) {
  if (single() || step % kHashEvery != 0) return;
  dist::requireSameHash(*m_world, dist::hashFloats(params),
                        "the parameters after step " + std::to_string(step));
}

StreamState DataParallel::wholeStreams(const CompiledPlan& plan, const StreamState& mine) {
  if (single()) return mine;
  return dist::gatherStreams(*m_world, plan, mine, m_share, m_streams);
}

StreamState DataParallel::myStreams(const StreamState& whole) const {
  if (single()) return whole;
  std::vector<int> streams(static_cast<std::size_t>(m_share.count));
  std::iota(streams.begin(), streams.end(), m_share.first);
  return whole.selectStreams(streams);
}

TensorMap DataParallel::wholeRows(const TensorMap& mine) {
  if (single()) return mine;
  return dist::gatherStreamRows(*m_world, mine, m_share, m_streams);
}

TensorMap DataParallel::myRows(const TensorMap& whole) const {
  if (single()) return whole;
  return dist::streamRowsOf(whole, m_share);
}

}  // namespace rnnwb::train

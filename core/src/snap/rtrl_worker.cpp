#include "rtrl_worker.hpp"

#include <algorithm>

#include "engine/worker_pool.hpp"
#include "rnnwb/core/engine/products.hpp"

namespace rnnwb::snap {

RtrlLearner::Recurrent::Recurrent(const CompiledPlan& plan, int node, const NodeStep& step,
                                  const ParameterLayout& parameters, int snapLevel,
                                  RtrlJacobianPath path)
    : layout(plan, node), patterns(layout) {
  if (path == RtrlJacobianPath::Fastest)
    if (auto blockLayout = UnitBlockLayout::build(layout, patterns, snapLevel, step, parameters,
                                                  kUnitBlockMaxRows)) {
      blocks = std::make_unique<UnitBlockJacobian>(std::move(*blockLayout), step);
      return;
    }
  immediate = std::make_unique<ImmediateJacobian>(step, layout, patterns, parameters);
  immediatePattern = patterns.expandByParameter(patterns.immediate());
  prototype = std::make_unique<SnapJacobian>(SnapJacobian::forNode(patterns, snapLevel));
  offsets = parameterOffsets(layout, parameters);
}

RtrlLearner::Worker::Worker(const CompiledPlan& plan,
                            const std::vector<std::unique_ptr<NodeStep>>& steps,
                            const std::vector<std::unique_ptr<Recurrent>>& recurrent) {
  const std::size_t nodeCount = steps.size();
  tapes.resize(nodeCount);
  external.resize(nodeCount);
  externalGradient.resize(nodeCount);
  prevState.resize(nodeCount);
  nodes.resize(nodeCount);
  int widestNode = 0;
  for (std::size_t k = 0; k < nodeCount; ++k) {
    if (!steps[k]) continue;
    const NodeStep& step = *steps[k];
    tapes[k] = step.makeTape();
    external[k].resize(step.externalConnections().size());
    externalGradient[k].resize(step.externalConnections().size());
    prevState[k].resize(static_cast<std::size_t>(step.stateSize()));
    widestNode = std::max(widestNode, step.unitCount());
    if (!recurrent[k]) continue;
    const Recurrent& r = *recurrent[k];
    Node& node = nodes[k];
    const auto h = static_cast<std::size_t>(r.layout.stateSize());
    node.g.resize(h);
    if (r.blocks) {
      node.blocks = r.blocks->makeWorkspace();
      continue;
    }
    node.immediate = r.immediate->makeWorkspace();
    node.d.resize(h * h);
    node.iValues.resize(static_cast<std::size_t>(r.immediate->nnz()));
    node.thetaGrad.resize(static_cast<std::size_t>(r.layout.parameterCount()));
  }
  for (const Layer& layer : plan.graph().layers) {
    y.emplace_back(layer.size, 0.0f);
    dy.emplace_back(layer.size, 0.0f);
    ds.emplace_back(layer.size, 0.0f);
  }
  seed.resize(static_cast<std::size_t>(widestNode));
  seedOnSums.resize(static_cast<std::size_t>(widestNode));
}

std::uint64_t RtrlLearner::Worker::denseJacobianBytes() const {
  std::uint64_t total = 0;
  for (const Node& node : nodes) total += std::uint64_t{4} * node.d.size();
  return total;
}

void RtrlLearner::Worker::advanceHistory(int stream, StreamState& history) const {
  for (int l = 0; l < history.layerCount(); ++l) {
    const int frames = history.framesOf(l);
    if (frames == 0) continue;
    const std::size_t size = static_cast<std::size_t>(history.sizeOf(l));
    const std::size_t stride = static_cast<std::size_t>(history.streams()) * size;
    float* base = history.layerFrames(l).data() + static_cast<std::size_t>(stream) * size;
    for (int fr = 0; fr + 1 < frames; ++fr)
      std::copy_n(base + (fr + 1) * stride, size, base + fr * stride);
    std::copy_n(y[l].data(), size, base + (frames - 1) * stride);
  }
}

const float* pastFrame(const StreamState& history, int layer, int delay, int stream) {
  const int frame = history.framesOf(layer) - delay;
  const std::size_t size = static_cast<std::size_t>(history.sizeOf(layer));
  return history.layerFrames(layer).data() +
         (static_cast<std::size_t>(frame) * history.streams() + stream) * size;
}

int RtrlLearner::workersFor(int streams) const { return std::clamp(streams, 1, m_threads); }

double RtrlLearner::frame(const ParameterSet& params, const SequenceBatch& batch, int t, int stream,
                          StreamState& history, std::span<float> gradient) {
  checkStreams(batch, history);
  const ProductThreadsScope products(m_threads);
  return frameOn(*m_workers.front(), {params, batch, t, stream, history, gradient, m_threads});
}

double RtrlLearner::chunk(const ParameterSet& params, const SequenceBatch& batch,
                          StreamState& history, std::span<float> gradient) {
  checkStreams(batch, history);
  const int streams = batch.streams, workers = workersFor(streams);
  // The cores left over when there are fewer streams than threads go to each stream's products.
  const int productThreads = std::max(1, m_threads / workers);
  while (static_cast<int>(m_workers.size()) < workers)
    m_workers.push_back(std::make_unique<Worker>(m_plan, m_steps, m_recurrent));
  // The buffers are zero between calls (sumStreamGradients clears what it reads).
  m_streamGradients.resize(static_cast<std::size_t>(streams));
  for (std::vector<float>& own : m_streamGradients)
    if (own.size() != gradient.size()) own.assign(gradient.size(), 0.0f);
  std::vector<double> losses(static_cast<std::size_t>(streams), 0.0);
  const auto stepStreams = [&](int w) {
    if (w >= workers) return;
    // The workers' share of the cores rather than every core per worker, and the same count for
    // a given share whatever the number of workers, so that results do not depend on it.
    const ProductThreadsScope products(productThreads);
    Worker& worker = *m_workers[w];
    for (int n = w * streams / workers; n < (w + 1) * streams / workers; ++n) {
      std::vector<float>& own = m_streamGradients[n];
      double loss = 0.0;
      for (int t = 0; t < batch.frames; ++t)
        loss += frameOn(worker, {params, batch, t, n, history, own, productThreads});
      finishStream(worker, n);
      losses[n] = loss;
    }
  };
  try {
    m_pool->run(stepStreams);
  } catch (...) {
    for (std::vector<float>& own : m_streamGradients) std::fill(own.begin(), own.end(), 0.0f);
    throw;
  }
  sumStreamGradients(streams, gradient);
  double loss = 0.0;
  for (double streamLoss : losses) loss += streamLoss;
  return loss;
}

void RtrlLearner::sumStreamGradients(int streams, std::span<float> gradient) {
  // Each value gets the streams' in stream order, whichever worker sums it; the buffers are
  // cleared on the way, while in cache, for the next chunk.
  const std::size_t size = gradient.size();
  const auto parts = static_cast<std::size_t>(m_pool->size());
  m_pool->run([&](int w) {
    constexpr std::size_t kBlock = 4096;  // floats of `gradient` kept in L1 over the streams
    const std::size_t first = size * w / parts, last = size * (w + 1) / parts;
    for (std::size_t begin = first; begin < last; begin += kBlock) {
      const std::size_t end = std::min(last, begin + kBlock);
      for (int n = 0; n < streams; ++n) {
        float* own = m_streamGradients[n].data();
        for (std::size_t i = begin; i < end; ++i) {
          gradient[i] += own[i];
          own[i] = 0.0f;
        }
      }
    }
  });
}

}  // namespace rnnwb::snap

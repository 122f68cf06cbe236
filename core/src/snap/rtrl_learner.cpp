#include "rnnwb/core/snap/rtrl_learner.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>

#include "engine/worker_pool.hpp"
#include "rnnwb/core/engine/activation_math.hpp"
#include "rnnwb/core/engine/products.hpp"
#include "rtrl_worker.hpp"

namespace rnnwb::snap {

RtrlLearner::RtrlLearner(const CompiledPlan& plan, const ParameterLayout& layout, int snapLevel,
                         int threads, RtrlJacobianPath path)
    : m_plan(plan),
      m_layout(layout),
      m_snapLevel(snapLevel),
      m_threads(threads > 0 ? threads : computeThreads()),
      m_pool(std::make_unique<WorkerPool>(m_threads)) {
  if (snapLevel < 0)
    throw std::invalid_argument("SnAp-n needs n >= 1 (0 for exact RTRL), got " +
                                std::to_string(snapLevel));
  const Graph& g = plan.graph();
  const int nodes = static_cast<int>(plan.nodes().size());
  m_steps.resize(nodes);
  m_recurrent.resize(nodes);
  for (int k = 0; k < nodes; ++k) {
    const SccNode& node = plan.nodes()[k];
    if (g.layers[node.layers.front()].isInput()) continue;
    if (node.recurrent) {
      if (auto refusal = rtrlRefusal(plan, k)) throw RtrlRefusal(*refusal);
    }
    m_steps[k] = std::make_unique<NodeStep>(plan, layout, k);
    if (!node.recurrent) continue;
    m_recurrent[k] = std::make_unique<Recurrent>(plan, k, *m_steps[k], layout, snapLevel, path);
    const Recurrent& r = *m_recurrent[k];
    m_figures.push_back({k, r.layout.stateSize(), r.layout.parameterCount(), r.nnz(), r.colours(),
                         r.blocks != nullptr});
  }
  // Worker 0 serves frame() and finish(); chunk() adds the others when it first needs them.
  m_workers.push_back(std::make_unique<Worker>(plan, m_steps, m_recurrent));
}

RtrlLearner::~RtrlLearner() = default;

void RtrlLearner::reset(int streams) {
  m_streams = streams;
  for (auto& r : m_recurrent) {
    if (!r) continue;
    if (r->blocks) {
      r->blockStreams.assign(static_cast<std::size_t>(streams), r->blocks->makeStream());
      continue;
    }
    r->perStream.assign(static_cast<std::size_t>(streams), *r->prototype);
    for (SnapJacobian& j : r->perStream) j.reset();
  }
}

namespace {

std::uint64_t floatBytes(const std::vector<float>& v) { return std::uint64_t{4} * v.size(); }

/// A unit-block stream: Ĵ's values and the queued frames.
std::uint64_t streamBytes(const UnitBlockJacobian::Stream& stream) {
  std::uint64_t total = floatBytes(stream.values);
  for (const UnitBlockJacobian::Stream::Frame& f : stream.frames)
    total += floatBytes(f.exports) + floatBytes(f.d) + floatBytes(f.g) + floatBytes(f.sources);
  return total;
}

/// A general-path stream: Ĵ in CSR by parameter and the masked product's output.
std::uint64_t streamBytes(const SnapJacobian& j) {
  const auto nnz = static_cast<std::uint64_t>(j.nnz());
  return csrBytes(nnz, static_cast<std::uint64_t>(j.parameterCount())) + std::uint64_t{4} * nnz;
}

}  // namespace

std::uint64_t RtrlLearner::carriedBytes() const {
  std::uint64_t total = 0;
  for (const auto& r : m_recurrent) {
    if (!r) continue;
    for (const UnitBlockJacobian::Stream& stream : r->blockStreams) total += streamBytes(stream);
    for (const SnapJacobian& j : r->perStream) total += streamBytes(j);
  }
  for (const auto& worker : m_workers) total += worker->denseJacobianBytes();
  return total;
}

std::uint64_t RtrlLearner::bytesPerStream() const {
  std::uint64_t total = 0;
  for (const auto& r : m_recurrent)
    if (r) total += r->blocks ? streamBytes(r->blocks->makeStream()) : streamBytes(*r->prototype);
  return total;
}

RtrlLearner::Recurrent& RtrlLearner::settledStream(int index, int stream) {
  if (index < 0 || index >= static_cast<int>(m_figures.size()))
    throw std::out_of_range("RTRL: no recurrent node " + std::to_string(index) + " (there are " +
                            std::to_string(m_figures.size()) + ")");
  if (stream < 0 || stream >= m_streams)
    throw std::out_of_range("RTRL: no stream " + std::to_string(stream));
  Recurrent& r = *m_recurrent[m_figures[index].node];
  if (r.blocks)
    r.blocks->finish(r.blockStreams[static_cast<std::size_t>(stream)],
                     m_workers.front()->nodes[m_figures[index].node].blocks);
  return r;
}

void RtrlLearner::finish() {
  for (int n = 0; n < m_streams; ++n) finishStream(*m_workers.front(), n);
}

void RtrlLearner::finishStream(Worker& worker, int stream) {
  for (std::size_t k = 0; k < m_recurrent.size(); ++k)
    if (m_recurrent[k] && m_recurrent[k]->blocks) {
      Recurrent& r = *m_recurrent[k];
      r.blocks->finish(r.blockStreams[static_cast<std::size_t>(stream)], worker.nodes[k].blocks);
    }
}

std::vector<float> RtrlLearner::jacobian(int index, int stream) {
  const Recurrent& r = settledStream(index, stream);
  const auto at = static_cast<std::size_t>(stream);
  return r.blocks ? r.blocks->toByParameter(r.blockStreams[at])
                  : r.perStream[at].byParameter().values;
}

void RtrlLearner::setJacobian(int index, int stream, std::span<const float> byParameter) {
  Recurrent& r = settledStream(index, stream);
  const auto at = static_cast<std::size_t>(stream);
  if (r.blocks)
    r.blocks->fromByParameter(byParameter, r.blockStreams[at]);
  else
    r.perStream[at].setValues(byParameter);
}

void RtrlLearner::forwardNode(Worker& f, const FrameContext& frame, int k, bool predicted) {
  const NodeStep& step = *m_steps[k];
  const ParameterSet& params = frame.params;
  const auto& externals = step.externalConnections();
  for (std::size_t i = 0; i < externals.size(); ++i) {
    const int c = externals[i], from = m_plan.fromLayer(c);
    const int delay = m_plan.graph().connections[c].delay;
    f.external[k][i] =
        delay == 0 ? f.y[from].data() : pastFrame(frame.history, from, delay, frame.stream);
  }
  for (int l : step.stateLayers())
    std::copy_n(pastFrame(frame.history, l, 1, frame.stream), m_plan.graph().layers[l].size,
                f.prevState[k].data() + step.stateOffset(l));
  NodeStep::Tape& tape = f.tapes[k];
  step.forward(params, f.external[k], f.prevState[k], tape);
  for (int l : step.layers())
    std::copy_n(tape.y.data() + step.unitOffset(l), f.y[l].size(), f.y[l].data());
  if (!m_recurrent[k]) return;
  Recurrent& r = *m_recurrent[k];
  Worker::Node& scratch = f.nodes[k];
  if (r.blocks) {
    // The frame is queued; its read-out's g comes in backwardUnitBlocks when it predicts.
    UnitBlockJacobian::Stream& queue = r.blockStreams[frame.stream];
    r.blocks->prepare(queue, params, f.external[k], f.prevState[k], tape, scratch.blocks);
    if (!predicted) r.blocks->commit(queue, {}, {}, scratch.blocks);
    return;
  }
  r.immediate->compute(params, f.external[k], f.prevState[k], tape, scratch.iValues,
                       scratch.immediate);
  step.stateJacobian(params, tape, scratch.d, scratch.scratch);
  r.perStream[frame.stream].step(scratch.d.data(), scratch.iValues, frame.productThreads);
}

double RtrlLearner::frameLoss(Worker& f, const SequenceBatch& batch, int t, int stream) const {
  if (t < batch.firstPredictedFrame) return 0.0;
  double loss = 0.0;
  const auto& outputs = m_plan.outputLayers();
  const std::size_t cell = static_cast<std::size_t>(t) * batch.streams + stream;
  for (std::size_t o = 0; o < outputs.size() && o < batch.targets.size(); ++o) {
    const int l = outputs[o];
    const Layer& layer = m_plan.graph().layers[l];
    const std::vector<float>& y = f.y[l];
    if (layer.loss == LossKind::CrossEntropy) {
      const int k = m_plan.nodeOfLayer(l);
      const float* s = f.tapes[k].s.data() + m_steps[k]->unitOffset(l);
      const int target = static_cast<int>(batch.targets[o].i64()[cell]);
      loss += math::crossEntropyFromLogits(s, layer.size, target);
      for (int i = 0; i < layer.size; ++i) f.ds[l][i] += y[i] - (i == target ? 1.0f : 0.0f);
    } else {
      const float* target = batch.targets[o].f32().data() + cell * layer.size;
      for (int i = 0; i < layer.size; ++i) {
        const double diff = static_cast<double>(y[i]) - target[i];
        loss += 0.5 * diff * diff;
        f.dy[l][i] += y[i] - target[i];
      }
    }
  }
  return loss;
}

void RtrlLearner::backwardNode(Worker& f, const FrameContext& frame, int k) {
  const NodeStep& step = *m_steps[k];
  for (int l : step.layers()) {
    std::copy(f.dy[l].begin(), f.dy[l].end(), f.seed.begin() + step.unitOffset(l));
    std::copy(f.ds[l].begin(), f.ds[l].end(), f.seedOnSums.begin() + step.unitOffset(l));
  }
  // Same-frame gradients flow into the sources of delay-0 connections only: a delayed one reads
  // an earlier frame, whose influence RTRL cuts (or carries in Ĵ, for the node's own state).
  std::vector<float*>& into = f.externalGradient[k];
  for (std::size_t i = 0; i < into.size(); ++i) {
    const int c = step.externalConnections()[i], from = m_plan.fromLayer(c);
    const bool sameFrame =
        m_plan.graph().connections[c].delay == 0 && !m_plan.graph().layers[from].isInput();
    into[i] = sameFrame ? f.dy[from].data() : nullptr;
  }
  if (m_recurrent[k] && m_recurrent[k]->blocks) {
    backwardUnitBlocks(f, frame, k);
    return;
  }
  const std::span<float> gradient = frame.gradient;
  const NodeStep::Cotangents out{.params = gradient, .external = into};
  const std::span<const float> seed(f.seed.data(), static_cast<std::size_t>(step.unitCount()));
  const std::span<const float> onSums(f.seedOnSums.data(), seed.size());
  step.vjp(frame.params, f.external[k], f.prevState[k], f.tapes[k], seed, out, f.scratch, onSums);
  if (!m_recurrent[k]) return;
  // θ_R: add gᵀ(Ĵ_t − I_t), g = dL_t/dh_t from outside the node, to the same-frame part.
  Recurrent& r = *m_recurrent[k];
  Worker::Node& n = f.nodes[k];
  for (int l : step.stateLayers())
    std::copy(f.dy[l].begin(), f.dy[l].end(), n.g.begin() + step.stateOffset(l));
  std::fill(n.thetaGrad.begin(), n.thetaGrad.end(), 0.0f);
  r.perStream[frame.stream].accumulateGradient(n.g, n.thetaGrad);
  const SparseCsr& pattern = r.immediatePattern;
  for (int p = 0; p < pattern.rows; ++p) {
    float sum = n.thetaGrad[p];
    for (std::int32_t q = pattern.rowStart[p]; q < pattern.rowStart[p + 1]; ++q)
      sum -= n.g[pattern.colIndex[q]] * n.iValues[q];
    gradient[r.offsets[p]] += sum;
  }
}

void RtrlLearner::backwardUnitBlocks(Worker& f, const FrameContext& frame, int k) {
  // θ_R gets (same-frame ∂L_t/∂θ_R) + gᵀ(Ĵ_t − I_t) = gᵀĴ_t + VJP_θ(v − g): the same-frame part
  // of g on the state is gᵀI_t, so only the rest of v (a loss on a non-state layer of the node,
  // a cotangent on its sums) needs a VJP to θ, and the sources outside get theirs from all of v.
  const NodeStep& step = *m_steps[k];
  const ParameterSet& params = frame.params;
  Recurrent& r = *m_recurrent[k];
  Worker::Node& n = f.nodes[k];
  const auto units = static_cast<std::size_t>(step.unitCount());
  const std::span<float> seed(f.seed.data(), units);
  const std::span<const float> onSums(f.seedOnSums.data(), units);
  const std::vector<float*>& into = f.externalGradient[k];
  if (std::any_of(into.begin(), into.end(), [](float* p) { return p != nullptr; })) {
    const NodeStep::Cotangents out{.external = into};
    step.vjp(params, f.external[k], f.prevState[k], f.tapes[k], seed, out, f.scratch, onSums);
  }
  for (int l : step.stateLayers()) {
    std::copy(f.dy[l].begin(), f.dy[l].end(), n.g.begin() + step.stateOffset(l));
    std::fill_n(seed.begin() + step.unitOffset(l), f.dy[l].size(), 0.0f);
  }
  auto nonzero = [](float x) { return x != 0.0f; };
  if (std::any_of(seed.begin(), seed.end(), nonzero) ||
      std::any_of(onSums.begin(), onSums.end(), nonzero)) {
    const NodeStep::Cotangents out{.params = frame.gradient};
    step.vjp(params, f.external[k], f.prevState[k], f.tapes[k], seed, out, f.scratch, onSums);
  }
  r.blocks->commit(r.blockStreams[frame.stream], n.g, frame.gradient, n.blocks);
}

double RtrlLearner::frameOn(Worker& f, const FrameContext& frame) {
  for (auto* buffers : {&f.dy, &f.ds})
    for (auto& b : *buffers) std::fill(b.begin(), b.end(), 0.0f);
  const SequenceBatch& batch = frame.batch;
  const auto& inputs = m_plan.inputLayers();
  const std::size_t cell = static_cast<std::size_t>(frame.t) * batch.streams + frame.stream;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    std::copy_n(batch.inputs[i].f32().data() + cell * f.y[inputs[i]].size(), f.y[inputs[i]].size(),
                f.y[inputs[i]].data());
  const int nodes = static_cast<int>(m_steps.size());
  const bool predicted = frame.t >= batch.firstPredictedFrame;
  for (int k = 0; k < nodes; ++k)
    if (m_steps[k]) forwardNode(f, frame, k, predicted);
  const double loss = frameLoss(f, batch, frame.t, frame.stream);
  if (predicted)
    for (int k = nodes - 1; k >= 0; --k)
      if (m_steps[k]) backwardNode(f, frame, k);
  f.advanceHistory(frame.stream, frame.history);
  return loss;
}

void RtrlLearner::checkStreams(const SequenceBatch& batch, const StreamState& history) const {
  if (history.streams() != batch.streams || m_streams != batch.streams)
    throw std::invalid_argument("RTRL: the batch has " + std::to_string(batch.streams) +
                                " streams, the carried state " + std::to_string(history.streams()) +
                                " and Ĵ " + std::to_string(m_streams));
}

}  // namespace rnnwb::snap

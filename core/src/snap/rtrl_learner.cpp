#include "rnnwb/core/snap/rtrl_learner.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "rnnwb/core/engine/activation_math.hpp"
#include "rnnwb/core/snap/unit_block_jacobian.hpp"

namespace rnnwb::snap {

/// What RTRL carries for one recurrent node: its layout and patterns, and either the unit-block
/// path (one UnitBlockJacobian, Ĵ's values per stream) or the general one (the compressed I_t,
/// D_t and one SnapJacobian per stream).
struct RtrlLearner::Recurrent {
  Recurrent(const CompiledPlan& plan, int node, const NodeStep& step,
            const ParameterLayout& parameters, int snapLevel, RtrlJacobianPath path)
      : layout(plan, node), patterns(layout) {
    const auto h = static_cast<std::size_t>(layout.stateSize());
    g.resize(h);
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
    d.resize(h * h);
    iValues.resize(static_cast<std::size_t>(immediate->nnz()));
    thetaGrad.resize(static_cast<std::size_t>(layout.parameterCount()));
  }
  std::int64_t nnz() const { return blocks ? blocks->nnz() : prototype->nnz(); }
  int colours() const { return blocks ? blocks->layout().colouring.colours : immediate->colours(); }

  RtrlNodeLayout layout;
  SnapPatterns patterns;
  std::vector<float> g;  // dL_t/dh_t from outside the node
  // The unit-block path.
  std::unique_ptr<UnitBlockJacobian> blocks;
  std::vector<UnitBlockJacobian::Stream> blockStreams;
  // The general path.
  std::unique_ptr<ImmediateJacobian> immediate;
  SparseCsr immediatePattern;  // I by parameter, for gᵀ I_t
  std::unique_ptr<SnapJacobian> prototype;
  std::vector<SnapJacobian> perStream;
  std::vector<std::int64_t> offsets;  // θ_R -> flat buffer
  std::vector<float> d, iValues, thetaGrad, scratch;
};

/// The values of one frame of one stream: y, dL/dy and dL/ds of every layer, each node's tape,
/// external inputs and previous state.
struct RtrlLearner::FrameBuffers {
  std::vector<std::vector<float>> y, dy, ds;  // per layer
  std::vector<NodeStep::Tape> tapes;          // per node
  std::vector<std::vector<const float*>> external;
  std::vector<std::vector<float*>> externalGradient;  // per node: where dL/dx goes, or null
  std::vector<std::vector<float>> prevState;
  std::vector<float> seed, seedOnSums, scratch;
};

RtrlLearner::RtrlLearner(const CompiledPlan& plan, const ParameterLayout& layout, int snapLevel,
                         int threads, RtrlJacobianPath path)
    : m_plan(plan),
      m_layout(layout),
      m_snapLevel(snapLevel),
      m_threads(threads),
      m_frame(std::make_unique<FrameBuffers>()) {
  if (snapLevel < 0)
    throw std::invalid_argument("SnAp-n needs n >= 1 (0 for exact RTRL), got " +
                                std::to_string(snapLevel));
  const Graph& g = plan.graph();
  const int nodes = static_cast<int>(plan.nodes().size());
  m_steps.resize(nodes);
  m_recurrent.resize(nodes);
  m_frame->tapes.resize(nodes);
  m_frame->external.resize(nodes);
  m_frame->externalGradient.resize(nodes);
  m_frame->prevState.resize(nodes);
  int widestNode = 0;
  for (int k = 0; k < nodes; ++k) {
    const SccNode& node = plan.nodes()[k];
    if (g.layers[node.layers.front()].isInput()) continue;
    if (node.recurrent) {
      if (auto refusal = rtrlRefusal(plan, k)) throw RtrlRefusal(*refusal);
    }
    m_steps[k] = std::make_unique<NodeStep>(plan, layout, k);
    const NodeStep& step = *m_steps[k];
    m_frame->tapes[k] = step.makeTape();
    m_frame->external[k].resize(step.externalConnections().size());
    m_frame->externalGradient[k].resize(step.externalConnections().size());
    m_frame->prevState[k].resize(static_cast<std::size_t>(step.stateSize()));
    widestNode = std::max(widestNode, step.unitCount());
    if (!node.recurrent) continue;
    m_recurrent[k] = std::make_unique<Recurrent>(plan, k, step, layout, snapLevel, path);
    const Recurrent& r = *m_recurrent[k];
    m_figures.push_back({k, r.layout.stateSize(), r.layout.parameterCount(), r.nnz(), r.colours(),
                         r.blocks != nullptr});
  }
  for (const Layer& layer : g.layers) {
    m_frame->y.emplace_back(layer.size, 0.0f);
    m_frame->dy.emplace_back(layer.size, 0.0f);
    m_frame->ds.emplace_back(layer.size, 0.0f);
  }
  m_frame->seed.resize(static_cast<std::size_t>(widestNode));
  m_frame->seedOnSums.resize(static_cast<std::size_t>(widestNode));
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
    if (!r->blocks) total += floatBytes(r->d);
  }
  return total;
}

std::uint64_t RtrlLearner::bytesPerStream() const {
  std::uint64_t total = 0;
  for (const auto& r : m_recurrent)
    if (r) total += r->blocks ? streamBytes(r->blocks->makeStream()) : streamBytes(*r->prototype);
  return total;
}

RtrlLearner::Recurrent& RtrlLearner::recurrentOfFigure(int index) const {
  if (index < 0 || index >= static_cast<int>(m_figures.size()))
    throw std::out_of_range("RTRL: no recurrent node " + std::to_string(index) + " (there are " +
                            std::to_string(m_figures.size()) + ")");
  return *m_recurrent[m_figures[index].node];
}

void RtrlLearner::finish() {
  for (auto& r : m_recurrent)
    if (r && r->blocks)
      for (UnitBlockJacobian::Stream& stream : r->blockStreams) r->blocks->finish(stream);
}

std::vector<float> RtrlLearner::jacobian(int index, int stream) {
  Recurrent& r = recurrentOfFigure(index);
  const auto at = static_cast<std::size_t>(stream);
  if (stream < 0 || stream >= m_streams)
    throw std::out_of_range("RTRL: no stream " + std::to_string(stream));
  if (r.blocks) {
    r.blocks->finish(r.blockStreams[at]);
    return r.blocks->toByParameter(r.blockStreams[at]);
  }
  return r.perStream[at].byParameter().values;
}

void RtrlLearner::setJacobian(int index, int stream, std::span<const float> byParameter) {
  Recurrent& r = recurrentOfFigure(index);
  const auto at = static_cast<std::size_t>(stream);
  if (stream < 0 || stream >= m_streams)
    throw std::out_of_range("RTRL: no stream " + std::to_string(stream));
  if (r.blocks) {
    r.blocks->finish(r.blockStreams[at]);
    r.blocks->fromByParameter(byParameter, r.blockStreams[at]);
  } else
    r.perStream[at].setValues(byParameter);
}

std::uint64_t RtrlLearner::jacobianBytes() const {
  std::uint64_t total = 0;
  for (const auto& r : m_recurrent)
    if (r)
      total += static_cast<std::uint64_t>(m_streams) *
               csrBytes(static_cast<std::uint64_t>(r->nnz()),
                        static_cast<std::uint64_t>(r->layout.parameterCount()));
  return total;
}

namespace {

/// y of `layer` at frame t - delay of `stream`, from the frames a StreamState keeps.
const float* pastFrame(const StreamState& history, int layer, int delay, int stream) {
  const int frame = history.framesOf(layer) - delay;
  const std::size_t size = static_cast<std::size_t>(history.sizeOf(layer));
  return history.layerFrames(layer).data() +
         (static_cast<std::size_t>(frame) * history.streams() + stream) * size;
}

}  // namespace

void RtrlLearner::forwardNode(const ParameterSet& params, int k, int stream,
                              const StreamState& history, bool predicted) {
  const NodeStep& step = *m_steps[k];
  FrameBuffers& f = *m_frame;
  const auto& externals = step.externalConnections();
  for (std::size_t i = 0; i < externals.size(); ++i) {
    const int c = externals[i], from = m_plan.fromLayer(c);
    const int delay = m_plan.graph().connections[c].delay;
    f.external[k][i] = delay == 0 ? f.y[from].data() : pastFrame(history, from, delay, stream);
  }
  for (int l : step.stateLayers())
    std::copy_n(pastFrame(history, l, 1, stream), m_plan.graph().layers[l].size,
                f.prevState[k].data() + step.stateOffset(l));
  NodeStep::Tape& tape = f.tapes[k];
  step.forward(params, f.external[k], f.prevState[k], tape);
  for (int l : step.layers())
    std::copy_n(tape.y.data() + step.unitOffset(l), f.y[l].size(), f.y[l].data());
  if (!m_recurrent[k]) return;
  Recurrent& r = *m_recurrent[k];
  if (r.blocks) {
    // The frame is queued; its read-out's g comes in backwardUnitBlocks when it predicts.
    UnitBlockJacobian::Stream& queue = r.blockStreams[stream];
    r.blocks->prepare(queue, params, f.external[k], f.prevState[k], tape);
    if (!predicted) r.blocks->commit(queue, {}, {});
    return;
  }
  r.immediate->compute(params, f.external[k], f.prevState[k], tape, r.iValues);
  step.stateJacobian(params, tape, r.d, r.scratch);
  r.perStream[stream].step(r.d.data(), r.iValues, m_threads);
}

double RtrlLearner::frameLoss(const SequenceBatch& batch, int t, int stream) {
  if (t < batch.firstPredictedFrame) return 0.0;
  double loss = 0.0;
  const auto& outputs = m_plan.outputLayers();
  const std::size_t cell = static_cast<std::size_t>(t) * batch.streams + stream;
  for (std::size_t o = 0; o < outputs.size() && o < batch.targets.size(); ++o) {
    const int l = outputs[o];
    const Layer& layer = m_plan.graph().layers[l];
    const std::vector<float>& y = m_frame->y[l];
    if (layer.loss == LossKind::CrossEntropy) {
      const int k = m_plan.nodeOfLayer(l);
      const float* s = m_frame->tapes[k].s.data() + m_steps[k]->unitOffset(l);
      const int target = static_cast<int>(batch.targets[o].i64()[cell]);
      loss += math::crossEntropyFromLogits(s, layer.size, target);
      for (int i = 0; i < layer.size; ++i) m_frame->ds[l][i] += y[i] - (i == target ? 1.0f : 0.0f);
    } else {
      const float* target = batch.targets[o].f32().data() + cell * layer.size;
      for (int i = 0; i < layer.size; ++i) {
        const double diff = static_cast<double>(y[i]) - target[i];
        loss += 0.5 * diff * diff;
        m_frame->dy[l][i] += y[i] - target[i];
      }
    }
  }
  return loss;
}

void RtrlLearner::backwardNode(const ParameterSet& params, int k, int stream,
                               std::span<float> gradient) {
  const NodeStep& step = *m_steps[k];
  FrameBuffers& f = *m_frame;
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
    backwardUnitBlocks(params, k, stream, gradient);
    return;
  }
  const NodeStep::Cotangents out{.params = gradient, .external = into};
  const std::span<const float> seed(f.seed.data(), static_cast<std::size_t>(step.unitCount()));
  const std::span<const float> onSums(f.seedOnSums.data(), seed.size());
  step.vjp(params, f.external[k], f.prevState[k], f.tapes[k], seed, out, f.scratch, onSums);
  if (!m_recurrent[k]) return;
  // θ_R: add gᵀ(Ĵ_t − I_t), g = dL_t/dh_t from outside the node, to the same-frame part.
  Recurrent& r = *m_recurrent[k];
  for (int l : step.stateLayers())
    std::copy(f.dy[l].begin(), f.dy[l].end(), r.g.begin() + step.stateOffset(l));
  std::fill(r.thetaGrad.begin(), r.thetaGrad.end(), 0.0f);
  r.perStream[stream].accumulateGradient(r.g, r.thetaGrad);
  const SparseCsr& pattern = r.immediatePattern;
  for (int p = 0; p < pattern.rows; ++p) {
    float sum = r.thetaGrad[p];
    for (std::int32_t q = pattern.rowStart[p]; q < pattern.rowStart[p + 1]; ++q)
      sum -= r.g[pattern.colIndex[q]] * r.iValues[q];
    gradient[r.offsets[p]] += sum;
  }
}

void RtrlLearner::backwardUnitBlocks(const ParameterSet& params, int k, int stream,
                                     std::span<float> gradient) {
  // θ_R gets (same-frame ∂L_t/∂θ_R) + gᵀ(Ĵ_t − I_t) = gᵀĴ_t + VJP_θ(v − g): the same-frame part
  // of g on the state is gᵀI_t, so only the rest of v (a loss on a non-state layer of the node,
  // a cotangent on its sums) needs a VJP to θ, and the sources outside get theirs from all of v.
  const NodeStep& step = *m_steps[k];
  FrameBuffers& f = *m_frame;
  Recurrent& r = *m_recurrent[k];
  const auto units = static_cast<std::size_t>(step.unitCount());
  const std::span<float> seed(f.seed.data(), units);
  const std::span<const float> onSums(f.seedOnSums.data(), units);
  const std::vector<float*>& into = f.externalGradient[k];
  if (std::any_of(into.begin(), into.end(), [](float* p) { return p != nullptr; })) {
    const NodeStep::Cotangents out{.external = into};
    step.vjp(params, f.external[k], f.prevState[k], f.tapes[k], seed, out, f.scratch, onSums);
  }
  for (int l : step.stateLayers()) {
    std::copy(f.dy[l].begin(), f.dy[l].end(), r.g.begin() + step.stateOffset(l));
    std::fill_n(seed.begin() + step.unitOffset(l), f.dy[l].size(), 0.0f);
  }
  auto nonzero = [](float x) { return x != 0.0f; };
  if (std::any_of(seed.begin(), seed.end(), nonzero) ||
      std::any_of(onSums.begin(), onSums.end(), nonzero)) {
    const NodeStep::Cotangents out{.params = gradient};
    step.vjp(params, f.external[k], f.prevState[k], f.tapes[k], seed, out, f.scratch, onSums);
  }
  r.blocks->commit(r.blockStreams[stream], r.g, gradient);
}

void RtrlLearner::advanceHistory(int stream, StreamState& history) const {
  for (int l = 0; l < history.layerCount(); ++l) {
    const int frames = history.framesOf(l);
    if (frames == 0) continue;
    const std::size_t size = static_cast<std::size_t>(history.sizeOf(l));
    const std::size_t stride = static_cast<std::size_t>(history.streams()) * size;
    float* base = history.layerFrames(l).data() + static_cast<std::size_t>(stream) * size;
    for (int fr = 0; fr + 1 < frames; ++fr)
      std::copy_n(base + (fr + 1) * stride, size, base + fr * stride);
    std::copy_n(m_frame->y[l].data(), size, base + (frames - 1) * stride);
  }
}

double RtrlLearner::frame(const ParameterSet& params, const SequenceBatch& batch, int t, int stream,
                          StreamState& history, std::span<float> gradient) {
  if (history.streams() != batch.streams || m_streams != batch.streams)
    throw std::invalid_argument("RTRL: the batch has " + std::to_string(batch.streams) +
                                " streams, the carried state " + std::to_string(history.streams()) +
                                " and Ĵ " + std::to_string(m_streams));
  FrameBuffers& f = *m_frame;
  for (auto* buffers : {&f.dy, &f.ds})
    for (auto& b : *buffers) std::fill(b.begin(), b.end(), 0.0f);
  const auto& inputs = m_plan.inputLayers();
  const std::size_t cell = static_cast<std::size_t>(t) * batch.streams + stream;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    std::copy_n(batch.inputs[i].f32().data() + cell * f.y[inputs[i]].size(), f.y[inputs[i]].size(),
                f.y[inputs[i]].data());
  const int nodes = static_cast<int>(m_steps.size());
  const bool predicted = t >= batch.firstPredictedFrame;
  for (int k = 0; k < nodes; ++k)
    if (m_steps[k]) forwardNode(params, k, stream, history, predicted);
  const double loss = frameLoss(batch, t, stream);
  if (predicted)
    for (int k = nodes - 1; k >= 0; --k)
      if (m_steps[k]) backwardNode(params, k, stream, gradient);
  advanceHistory(stream, history);
  return loss;
}

}  // namespace rnnwb::snap

#include "rnnwb/core/snap/rtrl_backend.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>

#include "rnnwb/core/snap/rtrl_node_layout.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"
#include "rnnwb/core/snap/sparse_matrix.hpp"

namespace rnnwb::snap {

int snapLevelOfAlgorithm(std::string_view algorithm) {
  if (algorithm == "rtrl") return 0;
  int n = 0;
  if (algorithm.starts_with("snap") && algorithm.size() > 4) {
    const char* first = algorithm.data() + 4;
    const char* last = algorithm.data() + algorithm.size();
    const auto [end, error] = std::from_chars(first, last, n);
    if (error == std::errc() && end == last && n >= 1) return n;
  }
  throw std::invalid_argument("unknown RTRL algorithm '" + std::string(algorithm) +
                              "' (rtrl for exact RTRL, snapN with N >= 1 for SnAp-N)");
}

std::uint64_t rtrlJacobianBytes(const CompiledPlan& plan, int snapLevel, int streams) {
  std::uint64_t perStream = 0;
  for (int node = 0; node < static_cast<int>(plan.nodes().size()); ++node) {
    if (!plan.nodes()[node].recurrent || rtrlRefusal(plan, node)) continue;
    const RtrlNodeLayout layout(plan, node);
    perStream += nodeJacobianBytes(SnapPatterns(layout), snapLevel);
  }
  return perStream * (static_cast<std::uint64_t>(std::max(streams, 0)) + 1);
}

std::uint64_t nodeJacobianBytes(const SnapPatterns& patterns, int snapLevel) {
  const std::uint64_t nnz =
      patterns.nnz(snapLevel == 0 ? patterns.exactMask() : patterns.mask(snapLevel));
  return csrBytes(nnz, static_cast<std::uint64_t>(patterns.parameterCount())) + 4 * nnz;
}

RtrlBackend::RtrlBackend(const CompiledPlan& plan, std::string_view algorithm, int threads)
    : m_cpu(plan, CpuBackendOptions{threads, false}),
      m_layout(plan),
      m_learner(
          std::make_unique<RtrlLearner>(plan, m_layout, snapLevelOfAlgorithm(algorithm), threads)),
      m_name("cpu, " + std::string(algorithm)) {}

RtrlBackend::~RtrlBackend() = default;

double RtrlBackend::forwardBackward(const ParameterSet& params, const SequenceBatch& batch,
                                    const StreamState& stateIn, StreamState* stateOut,
                                    ParameterSet* gradients) {
  batch.check(plan());
  const int carry = batch.carryFrameCount();
  if (stateOut && carry != batch.frames && carry != 0)
    throw std::invalid_argument(
        std::string(m_name) +
        ": RTRL carries its Jacobian forward and cannot rewind, so a chunk "
        "must carry the state after all its frames (h = h'); got carryFrames = " +
        std::to_string(carry) + " of " + std::to_string(batch.frames));
  if (!stateIn.empty() && stateIn.streams() != batch.streams)
    throw std::invalid_argument("the carried state has " + std::to_string(stateIn.streams()) +
                                " streams, the batch " + std::to_string(batch.streams));
  if (stateIn.empty() || m_learner->streams() != batch.streams) m_learner->reset(batch.streams);
  StreamState history = stateIn.empty() ? StreamState(plan(), batch.streams) : stateIn;
  ParameterSet local = ParameterSet::zerosLike(params);
  ParameterSet& grads = gradients ? *gradients : local;
  grads.fill(0.0f);
  const double loss = m_learner->chunk(params, batch, history, grads.values());
  if (stateOut) *stateOut = carry == 0 ? stateIn : std::move(history);
  return loss;
}

TensorMap RtrlBackend::jacobianTensors() {
  TensorMap tensors;
  const int streams = m_learner->streams();
  if (streams == 0) return tensors;
  const auto& figures = m_learner->figures();
  for (int i = 0; i < static_cast<int>(figures.size()); ++i) {
    const std::int64_t nnz = figures[i].jacobianNnz;
    std::vector<float> values;
    values.reserve(static_cast<std::size_t>(nnz * streams));
    for (int n = 0; n < streams; ++n) {
      const std::vector<float> one = m_learner->jacobian(i, n);
      values.insert(values.end(), one.begin(), one.end());
    }
    tensors.emplace("rtrl.jacobian." + std::to_string(figures[i].node),
                    Tensor::fromF32({streams, nnz}, std::move(values)));
  }
  return tensors;
}

void RtrlBackend::restoreJacobians(const TensorMap& tensors, int streams) {
  m_learner->reset(streams);
  const auto& figures = m_learner->figures();
  for (int i = 0; i < static_cast<int>(figures.size()); ++i) {
    const std::string key = "rtrl.jacobian." + std::to_string(figures[i].node);
    const auto it = tensors.find(key);
    const std::int64_t nnz = figures[i].jacobianNnz;
    if (it == tensors.end() || it->second.shape() != Shape{streams, nnz})
      throw std::runtime_error("the checkpoint's '" + key + "' " +
                               (it == tensors.end() ? std::string("is missing")
                                                    : "does not hold " + std::to_string(streams) +
                                                          " x " + std::to_string(nnz) + " values") +
                               " (" + std::string(m_name) +
                               " of this graph needs it to continue Ĵ)");
    const std::span<const float> values = it->second.f32();
    for (int n = 0; n < streams; ++n)
      m_learner->setJacobian(
          i, n, values.subspan(static_cast<std::size_t>(n * nnz), static_cast<std::size_t>(nnz)));
  }
}

double RtrlBackend::forward(const ParameterSet& params, const SequenceBatch& batch,
                            const StreamState& stateIn, StreamState* stateOut,
                            std::vector<Tensor>* outputs) {
  return m_cpu.forward(params, batch, stateIn, stateOut, outputs);
}

}  // namespace rnnwb::snap

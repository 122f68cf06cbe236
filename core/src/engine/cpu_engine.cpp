#include "cpu_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "rnnwb/core/engine/activation_math.hpp"
#include "rnnwb/core/engine/op_lowering.hpp"
#include "rnnwb/core/engine/products.hpp"

namespace rnnwb {
namespace {

int workerCount(const CpuBackendOptions& options) {
  return options.threads > 0 ? options.threads : computeThreads();
}

}  // namespace

CpuBackend::Engine::Engine(const CompiledPlan& plan, CpuBackendOptions options)
    : m_plan(plan),
      m_options(options),
      m_layout(std::make_shared<const ParameterLayout>(plan)),
      m_pool(workerCount(options)) {
  const auto& layers = plan.graph().layers;
  m_layers.resize(layers.size());
  for (std::size_t l = 0; l < layers.size(); ++l) {
    m_layers[l].delay = plan.maxDelayFrom(static_cast<int>(l));
    m_layers[l].size = layers[l].size;
    m_zeroRow.resize(std::max<std::size_t>(m_zeroRow.size(), layers[l].size), 0.0f);
    m_layers[l].sumIsOutput = op::sumIsValue(layers[l]);
  }
  buildProgram(false, false);
  nodeTimes.forwardSeconds.assign(m_program.nodes.size(), 0.0);
  nodeTimes.backwardSeconds.assign(m_program.nodes.size(), 0.0);
}

void CpuBackend::Engine::prepare(int frames, int streams, bool backward) {
  m_frames = frames;
  m_streams = streams;
  const std::size_t rows = static_cast<std::size_t>(frames) * streams;
  for (LayerBuffers& b : m_layers) {
    const std::size_t padded = (static_cast<std::size_t>(b.delay) * streams + rows) * b.size;
    b.y.resize(padded);
    if (!b.sumIsOutput) b.s.resize(rows * b.size);
    if (backward) {
      b.dy.resize(padded);  // the rows no first writer overwrites: clearGradients()
      if (!b.sumIsOutput) b.ds.resize(rows * b.size);
    }
  }
  for (std::size_t z = 0; z < m_program.factors.size(); ++z) {
    const op::Factor& factor = m_program.factors[z];
    const std::size_t size = rows * static_cast<std::size_t>(factor.units);
    if (!factor.readsSource) m_z[z].resize(size);
    if (backward) m_dz[z].resize(size);
  }
  m_stack.resize(static_cast<std::size_t>(streams) * m_stackWidth);
}

void CpuBackend::Engine::loadInputs(const SequenceBatch& batch, const StreamState& stateIn) {
  for (std::size_t l = 0; l < m_layers.size(); ++l) {
    LayerBuffers& b = m_layers[l];
    const std::size_t carried = static_cast<std::size_t>(b.delay) * m_streams * b.size;
    if (stateIn.empty()) {
      std::fill(b.y.begin(), b.y.begin() + carried, 0.0f);
    } else {
      const auto frames = stateIn.layerFrames(static_cast<int>(l));
      std::copy(frames.begin(), frames.end(), b.y.begin());
    }
  }
  const auto& inputs = m_plan.inputLayers();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto values = batch.inputs[i].f32();
    std::copy(values.begin(), values.end(), y(inputs[i], 0));
  }
}

void CpuBackend::Engine::saveState(int carryFrames, StreamState& stateOut) const {
  StreamState state(m_plan, m_streams);
  for (std::size_t l = 0; l < m_layers.size(); ++l) {
    const LayerBuffers& b = m_layers[l];
    if (b.delay == 0) continue;
    // The state after c frames is chunk frames [c - D, c): buffer frames [c, c + D).
    const std::size_t row = static_cast<std::size_t>(m_streams) * b.size;
    auto target = state.layerFrames(static_cast<int>(l));
    std::copy_n(b.y.begin() + carryFrames * row, target.size(), target.begin());
  }
  stateOut = std::move(state);
}

double CpuBackend::Engine::loss() {
  // Each worker sums its rows; the parts are added in worker order (one worker: row order).
  std::vector<double> parts(m_pool.size(), 0.0);
  m_pool.run([&](int worker) { parts[worker] = loss(rowPart(worker)); });
  double total = 0.0;
  for (double part : parts) total += part;
  return total;
}

double CpuBackend::Engine::loss(Rows range) const {
  double total = 0.0;
  const auto& outputs = m_plan.outputLayers();
  const auto& layers = m_plan.graph().layers;
  const std::size_t end = static_cast<std::size_t>(range.first + range.count);
  const std::size_t first = std::max<std::size_t>(
      static_cast<std::size_t>(m_batch->firstPredictedFrame) * m_streams, range.first);
  for (std::size_t o = 0; o < outputs.size() && o < m_batch->targets.size(); ++o) {
    const int l = outputs[o];
    const int size = layers[l].size;
    const LayerBuffers& b = m_layers[l];
    if (layers[l].loss == LossKind::CrossEntropy) {
      const auto classes = m_batch->targets[o].i64();
      for (std::size_t r = first; r < end; ++r)
        total +=
            math::crossEntropyFromLogits(b.s.data() + r * size, size, static_cast<int>(classes[r]));
    } else {
      const auto targets = m_batch->targets[o].f32();
      const float* out = b.y.data() + static_cast<std::size_t>(b.delay) * m_streams * size;
      for (std::size_t i = first * size; i < end * size; ++i) {
        const double diff = static_cast<double>(out[i]) - targets[i];
        total += 0.5 * diff * diff;
      }
    }
  }
  return total;
}

void CpuBackend::Engine::gemm(bool transA, bool transB, int m, int n, int k, const float* a,
                              int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  if (m == 0 || n == 0 || k == 0) return;
  // Each worker multiplies its own part on one thread: the engine's workers split every product
  // themselves, which beat oneDNN's own (OpenMP) threads on these shapes (docs/benchmarks.md).
  const ProductThreadsScope oneThread(1);
  if (!m_options.profile) {
    sgemm(transA, transB, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  timedProduct(2.0 * m * n * k,
               [&] { sgemm(transA, transB, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc); });
}

void CpuBackend::Engine::timedProduct(double flops, const std::function<void()>& product) {
  const ProductThreadsScope oneThread(1);
  if (!m_options.profile) {
    product();
    return;
  }
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  {
    const std::lock_guard<std::mutex> lock(m_statsMutex);
    if (m_productsRunning++ == 0) m_productsSince = start;
  }
  product();
  const auto end = Clock::now();
  const std::lock_guard<std::mutex> lock(m_statsMutex);
  // blasSeconds counts the time during which any thread is in a product once: with several
  // workers, flops / blasSeconds is what the products reach on all the cores together.
  if (--m_productsRunning == 0)
    stats.blasSeconds += std::chrono::duration<double>(end - m_productsSince).count();
  stats.blasThreadSeconds += std::chrono::duration<double>(end - start).count();
  stats.blasFlops += flops;
  ++stats.blasCalls;
}

void CpuBackend::Engine::onStreamParts(const std::function<void(int, int, int)>& step) {
  const ScopeClock clock(m_options.profile, stats.stepSeconds);
  m_pool.run([&](int worker) {
    const auto [first, count] = part(m_streams, worker);
    if (count > 0) step(worker, first, count);
  });
}

void CpuBackend::Engine::onRowParts(const std::function<void(Rows)>& pass) {
  m_pool.run([&](int worker) {
    const Rows rows = rowPart(worker);
    if (rows.count > 0) pass(rows);
  });
}

double CpuBackend::Engine::run(const ParameterSet& params, const SequenceBatch& batch,
                               const StreamState& stateIn, StreamState* stateOut,
                               ParameterSet* gradients, std::vector<Tensor>* outputs,
                               const std::vector<Tensor>* outputGradients,
                               std::vector<Tensor>* inputGradients) {
  const ScopeClock clock(m_options.profile, stats.runSeconds);
  m_keptRun = 0;  // whatever a kept forward left is overwritten now
  batch.check(m_plan, gradients != nullptr && outputGradients == nullptr);
  if (outputGradients) checkOutputGradients(batch, *outputGradients);
  if (outputGradients && !batch.targets.empty())
    throw std::invalid_argument("a batch with targets given gradients of its outputs too");
  m_outputGradients = outputGradients;
  const double total = runForward(params, batch, stateIn, gradients != nullptr,
                                  outputGradients != nullptr, inputGradients != nullptr, outputs);
  if (gradients) runBackward(params, *gradients, inputGradients);
  if (stateOut) saveState(batch.carryFrameCount(), *stateOut);
  m_outputGradients = nullptr;
  return total;
}

std::uint64_t CpuBackend::Engine::keepForward(const ParameterSet& params,
                                              const SequenceBatch& batch,
                                              std::vector<Tensor>* outputs, bool inputGradients) {
  const ScopeClock clock(m_options.profile, stats.runSeconds);
  m_keptRun = 0;
  batch.check(m_plan, false);
  if (!batch.targets.empty())
    throw std::invalid_argument("a batch with targets given gradients of its outputs too");
  runForward(params, batch, {}, true, true, inputGradients, outputs);
  m_keptParams = &params;
  m_keptInputGradients = inputGradients;
  m_keptRun = ++m_runs;
  return m_keptRun;
}

void CpuBackend::Engine::backwardFromKept(std::uint64_t run,
                                          const std::vector<Tensor>& outputGradients,
                                          ParameterSet& gradients,
                                          std::vector<Tensor>* inputGradients) {
  const ScopeClock clock(m_options.profile, stats.runSeconds);
  if (run == 0 || run != m_keptRun)
    throw std::logic_error("no kept forward " + std::to_string(run) +
                           ": the engine has computed something else since");
  if ((inputGradients != nullptr) != m_keptInputGradients)
    throw std::invalid_argument("the kept forward was made for " +
                                std::string(m_keptInputGradients ? "" : "no ") + "input gradients");
  checkOutputGradients(*m_batch, outputGradients);
  m_keptRun = 0;  // one backward per forward: the backward changes the buffers
  m_outputGradients = &outputGradients;
  runBackward(*m_keptParams, gradients, inputGradients);
  m_outputGradients = nullptr;
}

double CpuBackend::Engine::runForward(const ParameterSet& params, const SequenceBatch& batch,
                                      const StreamState& stateIn, bool backward, bool external,
                                      bool inputs, std::vector<Tensor>* outputs) {
  if (m_programExternal != external || m_programInputGradients != inputs)
    buildProgram(external, inputs);
  if (!(params.layout() == *m_layout))
    throw std::invalid_argument(
        "parameters of another graph (their layout differs from the "
        "plan's)");
  if (!stateIn.empty() && stateIn.streams() != batch.streams)
    throw std::invalid_argument("a state of " + std::to_string(stateIn.streams()) +
                                " streams for a batch of " + std::to_string(batch.streams));
  m_params = params.values().data();
  m_batch = &batch;
  prepare(batch.frames, batch.streams, backward);
  loadInputs(batch, stateIn);
  bindProgram();  // it points into this chunk's buffers
  for (std::size_t n = 0; n < m_program.nodes.size(); ++n) {
    const ScopeClock nodeClock(true, nodeTimes.forwardSeconds[n]);
    forwardNode(n);
  }
  ++nodeTimes.forwardPasses;
  const double total = loss();
  if (outputs) {
    outputs->clear();
    for (int l : m_plan.outputLayers()) outputs->push_back(chunkRows(y(l, 0), l));
  }
  return total;
}

void CpuBackend::Engine::runBackward(const ParameterSet& params, ParameterSet& gradients,
                                     std::vector<Tensor>* inputGradients) {
  if (!(gradients.layout() == *m_layout))
    throw std::invalid_argument("a gradient buffer of another graph");
  gradients.fill(0.0f);
  clearGradients();
  startBackward();
  for (std::size_t n = m_program.nodes.size(); n-- > 0;) {
    const ScopeClock nodeClock(true, nodeTimes.backwardSeconds[n]);
    backwardNode(n);
    const ScopeClock gradientClock(m_options.profile, stats.gradientSeconds);
    parameterGradients(n, gradients.values().data());
    if (gradientListener) reportFinalGradients(n, params.mask(), gradients);
  }
  ++nodeTimes.backwardPasses;
  // The parameters' masks decide which gradients exist (the gradient buffer may have been
  // made for the graph's own masks while the weights came with others).
  const auto mask = params.mask();
  auto values = gradients.values();
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i] == 0.0f) values[i] = 0.0f;
  if (inputGradients) {
    inputGradients->clear();
    for (int l : m_plan.inputLayers()) inputGradients->push_back(chunkRows(dy(l, 0), l));
  }
}

Tensor CpuBackend::Engine::chunkRows(const float* first, int layer) const {
  const int size = m_layers[layer].size;
  const std::size_t count = static_cast<std::size_t>(m_frames) * m_streams * size;
  return Tensor::fromF32({m_frames, m_streams, size}, std::vector<float>(first, first + count));
}

void CpuBackend::Engine::checkOutputGradients(const SequenceBatch& batch,
                                              const std::vector<Tensor>& outputGradients) const {
  const auto& outputs = m_plan.outputLayers();
  if (outputGradients.size() != outputs.size())
    throw std::invalid_argument("gradients of " + std::to_string(outputGradients.size()) +
                                " outputs for a graph of " + std::to_string(outputs.size()));
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const Layer& layer = m_plan.graph().layers[outputs[o]];
    const Shape shape{batch.frames, batch.streams, layer.size};
    const Tensor& given = outputGradients[o];
    if (given.dtype() != DType::F32 || given.shape() != shape)
      throw std::invalid_argument("the gradient of output layer '" + layer.id + "' is " +
                                  given.describe() + ", expected F32 " + shapeToString(shape));
  }
}

}  // namespace rnnwb

#include "chunk_executor.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace rnnwb::gpu {
namespace {

constexpr std::size_t kKeptSchedules = 4;

std::int64_t rowOffset(std::int64_t base, int delay, int streams, std::int64_t row, int size) {
  return base + (row + static_cast<std::int64_t>(delay) * streams) * size;
}

}  // namespace

ChunkExecutor::ChunkExecutor(const CompiledPlan& plan, StepRunner& runner)
    : m_plan(plan),
      m_runner(runner),
      m_layout(std::make_shared<const ParameterLayout>(plan)),
      m_program(deviceProgram(plan, *m_layout)) {}

const ChunkSchedule& ChunkExecutor::scheduleFor(const ChunkShape& shape, std::uint64_t& key) {
  for (auto& [k, chunk] : m_schedules)
    if (chunk->shape == shape) {
      key = k;
      return *chunk;
    }
  if (m_schedules.size() == kKeptSchedules) m_schedules.erase(m_schedules.begin());
  key = m_nextKey++;
  m_schedules.emplace_back(key, std::make_unique<ChunkSchedule>(
                                    buildChunkSchedule(m_plan, *m_layout, m_program, shape)));
  return *m_schedules.back().second;
}

void ChunkExecutor::upload(const ChunkSchedule& chunk, const ParameterSet& params,
                           const SequenceBatch& batch, const StreamState& stateIn) {
  const auto& layers = m_plan.graph().layers;
  const int n = chunk.shape.streams;
  const auto values = params.values();
  m_runner.uploadFloats(chunk.offsets.params, values.data(), values.size());
  if (chunk.shape.masks) {
    const auto mask = params.mask();
    m_runner.uploadFloats(chunk.offsets.mask, mask.data(), mask.size());
  }
  for (int l = 0; l < static_cast<int>(layers.size()); ++l) {
    const int delay = m_plan.maxDelayFrom(l);
    if (delay == 0) continue;
    const std::size_t count = static_cast<std::size_t>(delay) * n * layers[l].size;
    const std::vector<float> zeros(stateIn.empty() ? count : 0, 0.0f);
    m_runner.uploadFloats(chunk.offsets.y[l],
                          stateIn.empty() ? zeros.data() : stateIn.layerFrames(l).data(), count);
  }
  const auto& inputs = m_plan.inputLayers();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const int l = inputs[i];
    const auto x = batch.inputs[i].f32();
    m_runner.uploadFloats(
        rowOffset(chunk.offsets.y[l], m_plan.maxDelayFrom(l), n, 0, layers[l].size), x.data(),
        x.size());
  }
  if (!chunk.shape.targets) return;
  const auto& outputs = m_plan.outputLayers();
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    if (layers[outputs[o]].loss == LossKind::CrossEntropy) {
      const auto classes = batch.targets[o].i64();
      const std::vector<std::int32_t> narrow(classes.begin(), classes.end());
      m_runner.uploadInts(chunk.offsets.targets[o], narrow.data(), narrow.size());
    } else {
      const auto targets = batch.targets[o].f32();
      m_runner.uploadFloats(chunk.offsets.targets[o], targets.data(), targets.size());
    }
  }
}

double ChunkExecutor::downloadLoss(const ChunkSchedule& chunk) {
  const std::int64_t first =
      static_cast<std::int64_t>(chunk.shape.firstPredictedFrame) * chunk.shape.streams;
  const std::int64_t rows = static_cast<std::int64_t>(chunk.shape.frames) * chunk.shape.streams;
  double total = 0.0;
  std::vector<double> losses(static_cast<std::size_t>(rows - first));
  for (std::int64_t base : chunk.offsets.loss) {
    if (losses.empty()) break;
    m_runner.downloadDoubles(base + first, losses.data(), losses.size());
    for (double value : losses) total += value;
  }
  return total;
}

void ChunkExecutor::downloadState(const ChunkSchedule& chunk, int carryFrames,
                                  StreamState& stateOut) {
  const int n = chunk.shape.streams;
  StreamState state(m_plan, n);
  const auto& layers = m_plan.graph().layers;
  for (int l = 0; l < static_cast<int>(layers.size()); ++l) {
    const int delay = m_plan.maxDelayFrom(l);
    if (delay == 0) continue;
    // The state after c frames is chunk frames [c - D, c).
    auto target = state.layerFrames(l);
    m_runner.downloadFloats(
        rowOffset(chunk.offsets.y[l], delay, n, static_cast<std::int64_t>(carryFrames - delay) * n,
                  layers[l].size),
        target.data(), target.size());
  }
  stateOut = std::move(state);
}

double ChunkExecutor::run(const ParameterSet& params, const SequenceBatch& batch,
                          const StreamState& stateIn, StreamState* stateOut,
                          ParameterSet* gradients, std::vector<Tensor>* outputs) {
  batch.check(m_plan, gradients != nullptr);
  if (!(params.layout() == *m_layout))
    throw std::invalid_argument(
        "parameters of another graph (their layout differs from the "
        "plan's)");
  if (gradients && !(gradients->layout() == *m_layout))
    throw std::invalid_argument("a gradient buffer of another graph");
  if (!stateIn.empty() && stateIn.streams() != batch.streams)
    throw std::invalid_argument("a state of " + std::to_string(stateIn.streams()) +
                                " streams for a batch of " + std::to_string(batch.streams));
  ChunkShape shape;
  shape.frames = batch.frames;
  shape.streams = batch.streams;
  shape.firstPredictedFrame = batch.firstPredictedFrame;
  shape.backward = gradients != nullptr;
  shape.targets = !batch.targets.empty();
  shape.masks = gradients != nullptr && params.hasMasks();
  std::uint64_t key = 0;
  const ChunkSchedule& chunk = scheduleFor(shape, key);
  m_last = &chunk;
  const LaunchSchedule& s = chunk.schedule;
  m_runner.reserve(s.floatArena, s.intArena, s.doubleArena);
  upload(chunk, params, batch, stateIn);
  m_runner.execute(s, key);
  const double total = shape.targets ? downloadLoss(chunk) : 0.0;
  if (outputs) {
    outputs->clear();
    for (int l : m_plan.outputLayers()) {
      const int size = m_plan.graph().layers[l].size;
      std::vector<float> y(static_cast<std::size_t>(batch.frames) * batch.streams * size);
      m_runner.downloadFloats(
          rowOffset(chunk.offsets.y[l], m_plan.maxDelayFrom(l), batch.streams, 0, size), y.data(),
          y.size());
      outputs->push_back(Tensor::fromF32({batch.frames, batch.streams, size}, std::move(y)));
    }
  }
  if (gradients) {
    auto values = gradients->values();
    m_runner.downloadFloats(chunk.offsets.grads, values.data(), values.size());
  }
  if (stateOut) downloadState(chunk, batch.carryFrameCount(), *stateOut);
  return total;
}

}  // namespace rnnwb::gpu

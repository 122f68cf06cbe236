#include "rnnwb/core/snap/unit_block_jacobian.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "unit_block_pass.hpp"

namespace rnnwb::snap {

UnitBlockJacobian::UnitBlockJacobian(UnitBlockLayout layout, const NodeStep& step)
    : m_layout(std::move(layout)), m_step(step) {
  const RowColouring& colouring = m_layout.colouring;
  m_seeds.assign(static_cast<std::size_t>(colouring.colours),
                 std::vector<float>(static_cast<std::size_t>(m_layout.unitCount), 0.0f));
  // Seed of colour c: 1 on the y of every state unit of colour c (state layers are in file
  // order, so each one's rows end where the next one's begin).
  const auto& stateLayers = step.stateLayers();
  for (std::size_t k = 0; k < stateLayers.size(); ++k) {
    const int first = step.stateOffset(stateLayers[k]);
    const int end =
        k + 1 < stateLayers.size() ? step.stateOffset(stateLayers[k + 1]) : m_layout.stateSize;
    for (int s = first; s < end; ++s)
      m_seeds[colouring.colourOfRow[s]][step.unitOffset(stateLayers[k]) + s - first] = 1.0f;
  }
  for (const UnitBlockSource& source : m_layout.sources) {
    m_sourceOffset.push_back(m_sourceFloats);
    m_sourceFloats += source.size;
  }
}

UnitBlockJacobian::Workspace::Workspace() = default;
UnitBlockJacobian::Workspace::~Workspace() = default;
UnitBlockJacobian::Workspace::Workspace(Workspace&&) noexcept = default;
UnitBlockJacobian::Workspace& UnitBlockJacobian::Workspace::operator=(Workspace&&) noexcept =
    default;

UnitBlockJacobian::Workspace UnitBlockJacobian::makeWorkspace() const {
  Workspace workspace;
  workspace.pairs.resize(m_layout.termStart.empty() ? 0 : m_layout.termStart.size() - 1);
  workspace.folded.resize(m_layout.blocks.size());
  return workspace;
}

UnitBlockJacobian::Stream UnitBlockJacobian::makeStream() const {
  Stream stream;
  stream.values.assign(static_cast<std::size_t>(nnz()), 0.0f);
  Stream::Frame frame;
  frame.exports.resize(static_cast<std::size_t>(m_layout.colouring.colours) * m_layout.exportSize);
  frame.d.resize(static_cast<std::size_t>(m_layout.dSize));
  frame.g.resize(static_cast<std::size_t>(m_layout.stateSize));
  frame.sources.resize(static_cast<std::size_t>(m_sourceFloats));
  stream.frames.assign(kFramesPerPass, frame);
  return stream;
}

void UnitBlockJacobian::prepare(Stream& stream, const ParameterSet& params,
                                std::span<const float* const> external,
                                std::span<const float> prevState, const NodeStep::Tape& tape,
                                Workspace& workspace) const {
  Stream::Frame& frame = stream.frames[stream.queued];
  std::fill(frame.exports.begin(), frame.exports.end(), 0.0f);
  const auto units = static_cast<std::size_t>(m_layout.unitCount);
  const std::size_t products = static_cast<std::size_t>(m_layout.exportSize) - units;
  for (std::size_t c = 0; c < m_seeds.size(); ++c) {
    float* exported = frame.exports.data() + c * m_layout.exportSize;
    const NodeStep::Cotangents out{.sums = {exported, units},
                                   .products = {exported + units, products}};
    m_step.vjp(params, external, prevState, tape, m_seeds[c], out, workspace.scratch);
  }
  const float* theta = params.values().data();
  std::vector<float>& pairs = workspace.pairs;
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    float sum = 0.0f;
    for (std::int32_t t = m_layout.termStart[p]; t < m_layout.termStart[p + 1]; ++t) {
      const std::int64_t w = m_layout.termWeight[t];
      const float coefficient = w < 0 ? m_layout.termSign[t] : m_layout.termSign[t] * theta[w];
      sum += frame.exports[m_layout.termExport[t]] * coefficient;
    }
    pairs[p] = sum;
  }
  for (std::size_t e = 0; e < frame.d.size(); ++e) {
    const std::int32_t pair = m_layout.pairOfEntry[e];
    frame.d[e] = pair < 0 ? 0.0f : pairs[pair];
  }
  // The sources are overwritten by the next frame: the pass reads copies.
  for (std::size_t k = 0; k < m_layout.sources.size(); ++k) {
    const UnitBlockSource& source = m_layout.sources[k];
    const float* from = source.kind == UnitBlockSource::Kind::External ? external[source.index]
                        : source.kind == UnitBlockSource::Kind::PreviousState
                            ? prevState.data() + source.index
                            : tape.y.data() + source.index;
    std::copy_n(from, source.size, frame.sources.data() + m_sourceOffset[k]);
  }
}

void UnitBlockJacobian::commit(Stream& stream, std::span<const float> dLossDState,
                               std::span<float> gradient, Workspace& workspace) const {
  const bool readOut = !dLossDState.empty();
  if (readOut && static_cast<int>(dLossDState.size()) != m_layout.stateSize)
    throw std::invalid_argument("unit-block Jacobian: got " + std::to_string(dLossDState.size()) +
                                " state cotangents, expected " +
                                std::to_string(m_layout.stateSize));
  if (readOut && stream.gradient && stream.gradient != gradient.data()) {
    // The queued frames read out elsewhere: apply them, then queue this one alone.
    runPass(stream, stream.queued, workspace);
    std::swap(stream.frames[0], stream.frames[stream.queued]);
    stream.queued = 0;
    stream.gradient = nullptr;
  }
  Stream::Frame& frame = stream.frames[stream.queued];
  frame.readOut = readOut;
  if (readOut) {
    std::copy(dLossDState.begin(), dLossDState.end(), frame.g.begin());
    stream.gradient = gradient.data();
  }
  if (++stream.queued == kFramesPerPass) finish(stream, workspace);
}

void UnitBlockJacobian::finish(Stream& stream, Workspace& workspace) const {
  runPass(stream, stream.queued, workspace);
  stream.queued = 0;
  stream.gradient = nullptr;
}

void UnitBlockJacobian::runPass(Stream& stream, int frames, Workspace& workspace) const {
  if (frames == 0) return;
  detail::foldBlocks(m_layout, stream.frames.data(), frames, workspace.folded.data());
  const detail::Pass pass{&m_layout,
                          stream.frames.data(),
                          frames,
                          m_sourceOffset.data(),
                          stream.gradient,
                          stream.values.data(),
                          workspace.folded.data()};
  detail::advanceQueuedFrames(pass);
}

UnitBlockJacobian::~UnitBlockJacobian() = default;

std::vector<float> UnitBlockJacobian::toByParameter(const Stream& stream) const {
  if (stream.queued > 0)
    throw std::logic_error("unit-block Jacobian: " + std::to_string(stream.queued) +
                           " frames are queued; finish() them first");
  std::vector<float> out(static_cast<std::size_t>(nnz()));
  std::int64_t position = 0;  // segments are in θ_R order, rows of R ascending: CSR order
  for (const UnitBlockSegment& segment : m_layout.segments)
    for (int p = 0; p < segment.count; ++p)
      for (int r = 0; r < segment.size; ++r)
        out[position++] = stream.values[segment.values + std::int64_t{r} * segment.count + p];
  return out;
}

void UnitBlockJacobian::fromByParameter(std::span<const float> byParameter, Stream& stream) const {
  if (stream.queued > 0)
    throw std::logic_error("unit-block Jacobian: " + std::to_string(stream.queued) +
                           " frames are queued; finish() them first");
  if (static_cast<std::int64_t>(byParameter.size()) != nnz())
    throw std::invalid_argument("unit-block Jacobian: got " + std::to_string(byParameter.size()) +
                                " values by parameter, expected " + std::to_string(nnz()));
  std::int64_t position = 0;
  for (const UnitBlockSegment& segment : m_layout.segments)
    for (int p = 0; p < segment.count; ++p)
      for (int r = 0; r < segment.size; ++r)
        stream.values[segment.values + std::int64_t{r} * segment.count + p] =
            byParameter[position++];
}

}  // namespace rnnwb::snap

#pragma once
// The CPU engine behind CpuBackend: buffers for one chunk and the forward / backward passes over
// the lowered program. Private to the CPU engine.
//
// Buffers, all row-major with one row per (frame, stream):
//   y, dy of layer k   [D_k + T, N, size]  the D_k = maxDelayFrom(k) carried frames in front, so a
//                                          connection with delay d over frames [t0, t1) reads the
//                                          contiguous rows of frames [t0 - d, t1 - d)
//   s, ds of layer k   [T, N, size]        pre-activation (sum, or product for multiplicative)
//   z, dz of a connection into a multiplicative layer  [T, N, size]
#include <functional>
#include <mutex>
#include <vector>

#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/engine_program.hpp"

// The element-wise loops are built twice, for plain x86-64 and for AVX2 + FMA (x86-64-v3), and
// the loader picks the clone that the machine runs (GCC's function multi-versioning): about 10 %
// of a training step on an LSTM, without tying the binary to the build machine.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define RNNWB_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define RNNWB_VECTOR_CLONES
#endif

namespace rnnwb {

class CpuBackend::Engine {
 public:
  Engine(const CompiledPlan& plan, CpuBackendOptions options);

  double run(const ParameterSet& params, const SequenceBatch& batch, const StreamState& stateIn,
             StreamState* stateOut, ParameterSet* gradients, std::vector<Tensor>* outputs);

  const CompiledPlan& plan() const { return m_plan; }
  CpuBackendStats stats;

 private:
  struct LayerBuffers {
    int delay = 0;
    int size = 0;
    std::vector<float> y, s, dy, ds;
  };

  /// Rows [first, first + count) of the [T, N, ...] buffers, row = frame * N + stream; `first`
  /// may be negative (carried frames) for y and dy. Every kernel works on a row range: all frames
  /// of a chunk at once, or one frame of some of the streams.
  struct Rows {
    std::ptrdiff_t first = 0;
    int count = 0;
  };
  Rows frames(int t0, int t1) const {
    return {static_cast<std::ptrdiff_t>(t0) * m_streams, (t1 - t0) * m_streams};
  }
  /// The same rows `delay` frames earlier.
  Rows earlier(Rows rows, int delay) const {
    return {rows.first - static_cast<std::ptrdiff_t>(delay) * m_streams, rows.count};
  }

  // cpu_engine.cpp: buffers, inputs, state, loss
  void prepare(int frames, int streams, bool backward);
  void loadInputs(const SequenceBatch& batch, const StreamState& stateIn);
  void saveState(int carryFrames, StreamState& stateOut) const;
  double loss() const;
  void gemm(bool transA, bool transB, int m, int n, int k, const float* a, int lda, const float* b,
            int ldb, float beta, float* c, int ldc);
  float* y(int layer, std::ptrdiff_t row) { return at(m_layers[layer].y, layer, row, true); }
  float* dy(int layer, std::ptrdiff_t row) { return at(m_layers[layer].dy, layer, row, true); }
  float* s(int layer, std::ptrdiff_t row) { return at(m_layers[layer].s, layer, row, false); }
  float* ds(int layer, std::ptrdiff_t row) { return at(m_layers[layer].ds, layer, row, false); }
  float* at(std::vector<float>& buffer, int layer, std::ptrdiff_t row, bool padded) {
    const LayerBuffers& b = m_layers[layer];
    const std::ptrdiff_t carried = padded ? static_cast<std::ptrdiff_t>(b.delay) * m_streams : 0;
    return buffer.data() + (row + carried) * b.size;
  }
  /// Where connection c's z goes: the target's s (additive) or the connection's own z.
  float* destination(const cpu::ConnectionOp& op, std::ptrdiff_t row);
  float* destinationGrad(const cpu::ConnectionOp& op, std::ptrdiff_t row);
  const float* weights(const cpu::ConnectionOp& op) const { return m_params + op.weightOffset; }
  /// The workspace rows of a stacked group for these rows (one frame of some streams). Each stream
  /// owns a slot as wide as the widest group: workers stepping other streams may be in another
  /// group at the same time, so a slot must not depend on the group's width.
  float* stackRows(Rows rows) {
    return m_stack.data() +
           static_cast<std::size_t>(rows.first % m_streams) * m_program.widestGroupRows;
  }

  // cpu_forward.cpp
  void forwardNode(const cpu::NodeOp& node);
  void forwardSteps(const cpu::NodeOp& node, int firstStream, int streamCount);
  void initDestinations(int layer);
  void forwardConnection(const cpu::ConnectionOp& op, Rows rows);
  void forwardGroup(const cpu::StackedGroup& group, Rows rows);
  void finishLayer(int layer, Rows rows);

  // cpu_backward.cpp
  void startBackward();
  void backwardNode(const cpu::NodeOp& node);
  void backwardSteps(const cpu::NodeOp& node, int firstStream, int streamCount);
  void finishLayerBackward(int layer, Rows rows);
  void backwardConnection(const cpu::ConnectionOp& op, Rows rows);
  void backwardGroup(const cpu::StackedGroup& group, Rows rows);
  void parameterGradients(const cpu::NodeOp& node, float* gradients);

  /// Runs step(firstStream, streamCount) over the streams split among the workers (the calling
  /// thread takes the first part), with single-threaded BLAS inside.
  void inParallel(const std::function<void(int, int)>& step);

  const CompiledPlan& m_plan;
  CpuBackendOptions m_options;
  std::shared_ptr<const ParameterLayout> m_layout;
  cpu::Program m_program;
  std::vector<LayerBuffers> m_layers;
  std::vector<std::vector<float>> m_z, m_dz;
  std::vector<float> m_stack;  // [N, widest stacked group]
  const float* m_params = nullptr;
  const SequenceBatch* m_batch = nullptr;
  int m_frames = 0, m_streams = 0;
  int m_workers = 1;
  std::mutex m_statsMutex;
};

}  // namespace rnnwb

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
#include <vector>

#include "cpu_program.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"

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

  // cpu_engine.cpp: buffers, inputs, state, loss
  void prepare(int frames, int streams, bool backward);
  void loadInputs(const SequenceBatch& batch, const StreamState& stateIn);
  void saveState(int carryFrames, StreamState& stateOut) const;
  double loss() const;
  void gemm(bool transA, bool transB, int m, int n, int k, const float* a, int lda,
            const float* b, int ldb, float beta, float* c, int ldc);
  float* y(int layer, int t) { return rowsAt(m_layers[layer].y, layer, t + m_layers[layer].delay); }
  float* dy(int layer, int t) { return rowsAt(m_layers[layer].dy, layer, t + m_layers[layer].delay); }
  float* s(int layer, int t) { return rowsAt(m_layers[layer].s, layer, t); }
  float* ds(int layer, int t) { return rowsAt(m_layers[layer].ds, layer, t); }
  float* rowsAt(std::vector<float>& buffer, int layer, int frame) {
    return buffer.data() + static_cast<std::size_t>(frame) * m_streams * m_layers[layer].size;
  }
  /// Where connection c's z(t) goes: the target's s (additive) or the connection's own z.
  float* destination(const cpu::ConnectionOp& op, int t);
  float* destinationGrad(const cpu::ConnectionOp& op, int t);
  const float* weights(const cpu::ConnectionOp& op) const { return m_params + op.weightOffset; }

  // cpu_forward.cpp
  void forwardNode(const cpu::NodeOp& node);
  void initDestinations(int layer);
  void forwardConnection(const cpu::ConnectionOp& op, int t0, int t1);
  void forwardGroup(const cpu::StackedGroup& group, int t);
  void finishLayer(int layer, int t0, int t1);

  // cpu_backward.cpp
  void startBackward();
  void backwardNode(const cpu::NodeOp& node);
  void finishLayerBackward(int layer, int t0, int t1);
  void backwardConnection(const cpu::ConnectionOp& op, int t0, int t1);
  void backwardGroup(const cpu::StackedGroup& group, int t);
  void parameterGradients(const cpu::NodeOp& node, float* gradients);

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
};

}  // namespace rnnwb

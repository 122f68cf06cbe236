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
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "fused_step.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/op_program.hpp"
#include "rnnwb/core/engine/packed_product.hpp"
#include "worker_pool.hpp"

// The element-wise loops are built three times, for plain x86-64, for AVX2 + FMA (x86-64-v3) and
// for AVX-512 (x86-64-v4), and the loader picks the clone that the machine runs (GCC's function
// multi-versioning): about 10 % of a training step on an LSTM, without tying the binary to the
// build machine. The v3 and v4 clones contract the same products into FMAs and reduce nothing
// across lanes, so they give the same floats; only plain x86-64 (no FMA) rounds otherwise. Not
// under ThreadSanitizer, whose instrumented resolvers would run before it is initialized.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define RNNWB_VECTOR_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define RNNWB_VECTOR_CLONES
#endif

namespace rnnwb {

/// Adds the wall time of its scope to `total` (profiling only; one thread at a time per total).
class ScopeClock {
 public:
  ScopeClock(bool on, double& total)
      : m_total(on ? &total : nullptr), m_start(on ? Clock::now() : Clock::time_point()) {}
  ~ScopeClock() {
    if (m_total) *m_total += std::chrono::duration<double>(Clock::now() - m_start).count();
  }
  ScopeClock(const ScopeClock&) = delete;
  ScopeClock& operator=(const ScopeClock&) = delete;

 private:
  using Clock = std::chrono::steady_clock;
  double* m_total;
  Clock::time_point m_start;
};

class CpuBackend::Engine {
 public:
  Engine(const CompiledPlan& plan, CpuBackendOptions options);

  double run(const ParameterSet& params, const SequenceBatch& batch, const StreamState& stateIn,
             StreamState* stateOut, ParameterSet* gradients, std::vector<Tensor>* outputs,
             const std::vector<Tensor>* outputGradients = nullptr,
             std::vector<Tensor>* inputGradients = nullptr);
  /// CpuBackend::keepForward and backwardFromKeptForward (cpu_backend.hpp).
  std::uint64_t keepForward(const ParameterSet& params, const SequenceBatch& batch,
                            std::vector<Tensor>* outputs, bool inputGradients);
  void backwardFromKept(std::uint64_t run, const std::vector<Tensor>& outputGradients,
                        ParameterSet& gradients, std::vector<Tensor>* inputGradients);

  const CompiledPlan& plan() const { return m_plan; }
  CpuBackendStats stats;
  NodeTimes nodeTimes;  // per node of m_program.nodes (= plan.nodes()), see Backend::nodeTimes
  GradientListener* gradientListener = nullptr;  // see Backend::setGradientListener

 private:
  struct LayerBuffers {
    int delay = 0;
    int size = 0;
    // Identity activation and no loss: y is s and dy is ds, so s and ds are y's and dy's rows
    // (not copied into y after the sum, nor dy into ds before the backward of the connections).
    bool sumIsOutput = false;
    std::vector<float> y, s, dy, ds;
  };

  /// Rows [first, first + count) of the [T, N, ...] buffers, row = frame * N + stream; `first`
  /// may be negative (carried frames) for y and dy. Every kernel works on a row range: all frames
  /// of a chunk at once, or one frame of some of the streams.
  struct Rows {
    std::ptrdiff_t first = 0;
    int count = 0;
  };
  /// Worker w's part of `count` items split among the workers (contiguous, in order).
  std::pair<int, int> part(int count, int worker) const {
    const int workers = m_pool.size();
    const auto at = [&](int w) { return static_cast<int>(std::int64_t(count) * w / workers); };
    return {at(worker), at(worker + 1) - at(worker)};
  }
  /// Worker w's part of all the rows of the chunk.
  Rows rowPart(int worker) const {
    const auto [first, count] = part(m_frames * m_streams, worker);
    return {first, count};
  }

  // cpu_engine.cpp: buffers, inputs, state, loss
  /// The forward half of run(): the program for `external` output gradients and `inputs`, the
  /// buffers (with gradients when `backward`), every node forward; returns the loss.
  double runForward(const ParameterSet& params, const SequenceBatch& batch,
                    const StreamState& stateIn, bool backward, bool external, bool inputs,
                    std::vector<Tensor>* outputs);
  /// The backward half, on what runForward left in the buffers.
  void runBackward(const ParameterSet& params, ParameterSet& gradients,
                   std::vector<Tensor>* inputGradients);
  void prepare(int frames, int streams, bool backward);
  void loadInputs(const SequenceBatch& batch, const StreamState& stateIn);
  /// backwardFromOutputs' gradients of the outputs: each [T, N, size] of its output layer.
  void checkOutputGradients(const SequenceBatch& batch,
                            const std::vector<Tensor>& outputGradients) const;
  void saveState(int carryFrames, StreamState& stateOut) const;
  /// A copy of a layer's rows of this chunk, [T, N, size], from its row 0 (y or dy).
  Tensor chunkRows(const float* first, int layer) const;
  double loss();
  double loss(Rows rows) const;  // the summed loss of these rows (one part of the chunk)
  void gemm(bool transA, bool transB, int m, int n, int k, const float* a, int lda, const float* b,
            int ldb, float beta, float* c, int ldc);
  float* y(int layer, std::ptrdiff_t row) { return at(m_layers[layer].y, layer, row, true); }
  float* dy(int layer, std::ptrdiff_t row) { return at(m_layers[layer].dy, layer, row, true); }
  float* s(int layer, std::ptrdiff_t row) {
    if (m_layers[layer].sumIsOutput) return y(layer, row);
    return at(m_layers[layer].s, layer, row, false);
  }
  float* ds(int layer, std::ptrdiff_t row) {
    if (m_layers[layer].sumIsOutput) return dy(layer, row);
    return at(m_layers[layer].ds, layer, row, false);
  }
  float* at(std::vector<float>& buffer, int layer, std::ptrdiff_t row, bool padded) {
    const LayerBuffers& b = m_layers[layer];
    // A buffer this layer does not keep (the fused step leaves some rows out) is empty: its
    // address is null, and an offset from null is undefined even when nothing reads it.
    if (buffer.empty()) return nullptr;
    const std::ptrdiff_t carried = padded ? static_cast<std::ptrdiff_t>(b.delay) * m_streams : 0;
    return buffer.data() + (row + carried) * b.size;
  }
  // cpu_op_binder.cpp: the op program (op_program.hpp) bound to this chunk's buffers and run
  /// Lowers the plan and runs the passes (again when the output or input gradients' mode
  /// changes): for gradients of the outputs given (external) and of the inputs asked (inputs).
  void buildProgram(bool external, bool inputs);
  /// Binds every region to this chunk's buffers, parameters and targets.
  void bindProgram();
  cpu::RowOperand bind(const op::Ref& ref);
  std::vector<cpu::FusedStep> bindRegion(const std::vector<op::Op>& ops);
  /// A region over rows of the chunk (all frames): each op over all of these rows in turn.
  void runOverRows(const std::vector<cpu::FusedStep>& region, Rows rows);
  void forwardNode(std::size_t node);
  void backwardNode(std::size_t node);
  void backwardExternal(std::size_t node);
  /// Worker `worker`'s streams [first, first + count) of node n through all frames: fused,
  /// every block stream by stream; else every op over all the worker's streams in turn.
  void runSteps(std::size_t node, bool backward, int worker, int first, int count);
  /// This worker's packed products of a node's step, in program order (packed with this
  /// chunk's weights); made once per shape (bindProgram), since a primitive takes milliseconds.
  std::vector<PackedProduct*> packedProducts(std::size_t node, bool backward, int worker);
  void makePackedProducts(std::size_t node, bool backward);
  cpu::RowOperand rowsOf(float* atRowZero, int width) const;

  // cpu_backward.cpp: the loss's gradients, clearing dy, the parameter gradients
  void startBackward();
  void clearGradients();  // the dy rows that no first writer overwrites
  void parameterGradients(std::size_t node, float* gradients);
  void parameterGradientPart(const std::vector<op::Op>& ops, float* gradients, int worker);
  void reportFinalGradients(std::size_t node, std::span<const float> mask, ParameterSet& gradients);

  /// Runs step(worker, firstStream, streamCount) on every worker, each with its part of the
  /// streams.
  void onStreamParts(const std::function<void(int, int, int)>& step);
  /// Times a product of `flops` (profile only) and runs it on one thread.
  void timedProduct(double flops, const std::function<void()>& product);
  /// Runs pass(rows) on every worker, each with its part of all the rows of the chunk.
  void onRowParts(const std::function<void(Rows)>& pass);

  const CompiledPlan& m_plan;
  CpuBackendOptions m_options;
  std::shared_ptr<const ParameterLayout> m_layout;
  op::Program m_program;  // the lowered program after the passes (buildProgram)
  std::vector<LayerBuffers> m_layers;
  std::vector<std::vector<float>> m_z, m_dz;  // per factor buffer (m_program.factors)
  std::vector<float> m_zeroRow;               // zeros, as wide as the widest layer: f(0 + x), Fill
  // [N, m_stackWidth]: per stream, the columns of every stacked group of the widest node.
  std::vector<float> m_stack;
  int m_stackWidth = 0;
  // Per node of the schedule, its regions bound to this chunk (bindProgram).
  struct BoundNode {
    std::vector<cpu::FusedStep> forwardAll, forwardStep, backwardAll, backwardStep,
        backwardExternal;
  };
  std::vector<BoundNode> m_bound;
  // The fused steps' products with their weights packed (options.packedStepProducts), by
  // (node, backward, product in program order, worker); each with the shape it was made for.
  struct PackedSlot {
    std::array<long long, 8> shape{};
    PackedProduct product;
  };
  std::map<std::tuple<std::size_t, bool, std::size_t, int>, PackedSlot> m_packed;
  const float* m_params = nullptr;
  const SequenceBatch* m_batch = nullptr;
  // The caller's gradients of the outputs during backwardFromOutputs (null otherwise): they
  // replace the built-in losses' (startBackward), and the first writers are planned for them
  // (m_programExternal: the program was built for them, op::LoweringOptions).
  const std::vector<Tensor>* m_outputGradients = nullptr;
  // A forward kept for the backward that follows (keepForward): its number (0: none), its
  // parameters and whether it was made for input gradients. Every run() drops it.
  std::uint64_t m_runs = 0, m_keptRun = 0;
  const ParameterSet* m_keptParams = nullptr;
  bool m_keptInputGradients = false;
  bool m_programExternal = false;
  bool m_programInputGradients = false;  // the backward carries on into the input layers' dy
  int m_frames = 0, m_streams = 0;
  // Every pass that the workers share writes disjoint rows or parameters, and the parts depend
  // only on the shapes and the worker count: results repeat bit for bit for one count.
  WorkerPool m_pool;
  std::mutex m_statsMutex;
  int m_productsRunning = 0;  // threads inside sgemm (profiling), under m_statsMutex
  std::chrono::steady_clock::time_point m_productsSince;
};

}  // namespace rnnwb

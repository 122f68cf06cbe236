#include "cuda_step_runner.hpp"

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <cublas_v2.h>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "step_kernels.hpp"

#define WB_CUBLAS_CHECK(expr)                                                  \
  do {                                                                         \
    const cublasStatus_t wbStatus = (expr);                                    \
    if (wbStatus != CUBLAS_STATUS_SUCCESS)                                     \
      ::rnnwb::gpu::detail::throwCudaFailure(__FILE__, __LINE__, #expr,        \
                                             cublasGetStatusString(wbStatus)); \
  } while (false)

namespace rnnwb::gpu {

using detail::DeviceBuffer;

constexpr std::size_t kKeptGraphs = 8;

class CudaStepRunner::Device {
 public:
  explicit Device(CudaStepRunnerOptions options) : m_options(options) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      cudaGetLastError();
      throw std::runtime_error(std::string("no CUDA device: ") + cudaGetErrorString(status));
    }
    if (count <= options.device)
      throw std::runtime_error("no CUDA device: device " + std::to_string(options.device) +
                               " asked for, the runtime sees " + std::to_string(count));
    WB_CUDA_CHECK(cudaSetDevice(options.device));
    WB_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
    WB_CUBLAS_CHECK(cublasCreate(&m_blas));
    WB_CUBLAS_CHECK(cublasSetStream(m_blas, m_stream));
    // A workspace of our own, so that cuBLAS allocates nothing while a graph is captured.
    m_blasWorkspace.resize(32u << 20);
    WB_CUBLAS_CHECK(cublasSetWorkspace(m_blas, m_blasWorkspace.data(), m_blasWorkspace.size()));
    // Full float32 products (no TF32): the engine is compared with the CPU at 1e-4.
    WB_CUBLAS_CHECK(cublasSetMathMode(m_blas, CUBLAS_PEDANTIC_MATH));
  }
  ~Device() {
    for (cudaEvent_t event : m_events) cudaEventDestroy(event);
    dropGraphs();
    if (m_blas) cublasDestroy(m_blas);
    if (m_stream) WB_CUDA_CHECK_NOTHROW(cudaStreamDestroy(m_stream));
  }

  void reserve(std::size_t floats, std::size_t ints, std::size_t doubles) {
    bool moved = grow(m_floats, floats);
    moved = grow(m_ints, ints) || moved;
    moved = grow(m_doubles, doubles) || moved;
    if (moved) dropGraphs();  // captured graphs hold the old addresses
  }

  template <class T>
  void upload(DeviceBuffer<T>& arena, std::int64_t offset, const T* values, std::size_t count) {
    if (count == 0) return;
    const HostTimer timer(m_options.profile ? &m_profile["upload"] : nullptr);
    WB_CUDA_CHECK(cudaMemcpyAsync(arena.data() + offset, values, count * sizeof(T),
                                  cudaMemcpyHostToDevice, m_stream));
    // The host buffer may go away when we return.
    WB_CUDA_CHECK(cudaStreamSynchronize(m_stream));
  }
  template <class T>
  void download(const DeviceBuffer<T>& arena, std::int64_t offset, T* values, std::size_t count) {
    if (count == 0) return;
    const HostTimer timer(m_options.profile ? &m_profile["download"] : nullptr);
    WB_CUDA_CHECK(cudaMemcpyAsync(values, arena.data() + offset, count * sizeof(T),
                                  cudaMemcpyDeviceToHost, m_stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(m_stream));
  }

  void execute(const LaunchSchedule& schedule, std::uint64_t key) {
    if (m_options.profile) {
      profiledLaunch(schedule);
      return;
    }
    if (!m_options.graphs) {
      launchAll(schedule);
      WB_CUDA_CHECK(cudaStreamSynchronize(m_stream));
      return;
    }
    auto found = m_graphs.find(key);
    if (found == m_graphs.end()) {
      // The executor keeps a few schedules; keys only grow, so the oldest graph goes first.
      if (m_graphs.size() >= kKeptGraphs) {
        WB_CUDA_CHECK_NOTHROW(cudaGraphExecDestroy(m_graphs.begin()->second));
        m_graphs.erase(m_graphs.begin());
      }
      cudaGraph_t graph = nullptr;
      WB_CUDA_CHECK(cudaStreamBeginCapture(m_stream, cudaStreamCaptureModeThreadLocal));
      try {
        launchAll(schedule);
      } catch (...) {
        cudaStreamEndCapture(m_stream, &graph);
        if (graph) cudaGraphDestroy(graph);
        throw;
      }
      WB_CUDA_CHECK(cudaStreamEndCapture(m_stream, &graph));
      cudaGraphExec_t exec = nullptr;
      const cudaError_t status = cudaGraphInstantiate(&exec, graph, 0);
      cudaGraphDestroy(graph);
      WB_CUDA_CHECK(status);
      found = m_graphs.emplace(key, exec).first;
    }
    WB_CUDA_CHECK(cudaGraphLaunch(found->second, m_stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(m_stream));
  }

  DeviceBuffer<float> m_floats;
  DeviceBuffer<int> m_ints;
  DeviceBuffer<double> m_doubles;
  std::map<std::string, double> m_profile;

 private:
  /// Adds the wall time of its scope to *total (ms) when total is not null.
  struct HostTimer {
    explicit HostTimer(double* total) : total(total) {}
    ~HostTimer() {
      if (total)
        *total +=
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
    }
    double* total;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  };

  static std::string profileName(const LaunchStep& step) {
    if (!isProduct(step.kind)) return toString(step.kind);
    return std::string(toString(step.kind)) + " " + std::to_string(step.m) + "x" +
           std::to_string(step.n) + "x" + std::to_string(step.k) + (step.transA ? " T" : " N") +
           (step.transB ? "T" : "N");
  }

  // One event before each step and one after the last, read once the stream has finished.
  void profiledLaunch(const LaunchSchedule& schedule) {
    const HostTimer timer(&m_profile["execute (wall)"]);
    while (m_events.size() < schedule.steps.size() + 1) {
      cudaEvent_t event = nullptr;
      WB_CUDA_CHECK(cudaEventCreate(&event));
      m_events.push_back(event);
    }
    float* f = m_floats.data();
    for (std::size_t i = 0; i < schedule.steps.size(); ++i) {
      const LaunchStep& step = schedule.steps[i];
      WB_CUDA_CHECK(cudaEventRecord(m_events[i], m_stream));
      if (isProduct(step.kind))
        gemm(step, f);
      else
        detail::launchElementwise(step, f, m_ints.data(), m_doubles.data(), m_stream);
    }
    WB_CUDA_CHECK(cudaEventRecord(m_events[schedule.steps.size()], m_stream));
    WB_CUDA_CHECK(cudaStreamSynchronize(m_stream));
    for (std::size_t i = 0; i < schedule.steps.size(); ++i) {
      float ms = 0.0f;
      WB_CUDA_CHECK(cudaEventElapsedTime(&ms, m_events[i], m_events[i + 1]));
      m_profile[profileName(schedule.steps[i])] += ms;
    }
  }

  template <class T>
  static bool grow(DeviceBuffer<T>& arena, std::size_t count) {
    if (count <= arena.size()) return false;
    arena.resize(count + count / 4);  // room for a slightly larger chunk without reallocating
    return true;
  }

  void dropGraphs() {
    for (auto& [key, exec] : m_graphs) WB_CUDA_CHECK_NOTHROW(cudaGraphExecDestroy(exec));
    m_graphs.clear();
  }

  void launchAll(const LaunchSchedule& schedule) {
    float* f = m_floats.data();
    for (const LaunchStep& step : schedule.steps) {
      if (isProduct(step.kind))
        gemm(step, f);
      else
        detail::launchElementwise(step, f, m_ints.data(), m_doubles.data(), m_stream);
    }
  }

  // Row-major C = A' B' is column-major C^T = B'^T A'^T: swap the operands, keep the flags.
  void gemm(const LaunchStep& st, float* f) {
    const float one = 1.0f;
    WB_CUBLAS_CHECK(cublasSgemm(
        m_blas, st.transB ? CUBLAS_OP_T : CUBLAS_OP_N, st.transA ? CUBLAS_OP_T : CUBLAS_OP_N, st.n,
        st.m, st.k, &one, f + st.aux, st.ldb, f + st.src, st.lda, &st.beta, f + st.dst, st.ldc));
  }

  CudaStepRunnerOptions m_options;
  cudaStream_t m_stream = nullptr;
  cublasHandle_t m_blas = nullptr;
  DeviceBuffer<unsigned char> m_blasWorkspace;
  std::map<std::uint64_t, cudaGraphExec_t> m_graphs;
  std::vector<cudaEvent_t> m_events;  // profiling only
};

CudaStepRunner::CudaStepRunner(CudaStepRunnerOptions options)
    : m_device(std::make_unique<Device>(options)) {}
CudaStepRunner::~CudaStepRunner() = default;

void CudaStepRunner::reserve(std::size_t floats, std::size_t ints, std::size_t doubles) {
  m_device->reserve(floats, ints, doubles);
}
void CudaStepRunner::uploadFloats(std::int64_t offset, const float* values, std::size_t count) {
  m_device->upload(m_device->m_floats, offset, values, count);
}
void CudaStepRunner::uploadInts(std::int64_t offset, const std::int32_t* values,
                                std::size_t count) {
  m_device->upload(m_device->m_ints, offset, values, count);
}
void CudaStepRunner::downloadFloats(std::int64_t offset, float* values, std::size_t count) {
  m_device->download(m_device->m_floats, offset, values, count);
}
void CudaStepRunner::downloadDoubles(std::int64_t offset, double* values, std::size_t count) {
  m_device->download(m_device->m_doubles, offset, values, count);
}
void CudaStepRunner::execute(const LaunchSchedule& schedule, std::uint64_t key) {
  m_device->execute(schedule, key);
}
std::map<std::string, double> CudaStepRunner::profile() const { return m_device->m_profile; }

}  // namespace rnnwb::gpu

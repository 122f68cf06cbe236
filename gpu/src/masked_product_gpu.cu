#include "rnnwb/gpu/masked_product_gpu.hpp"

#include <stdexcept>
#include <string>

#include <cublas_v2.h>

#include "device_buffer.hpp"
#include "masked_product_kernels.hpp"
#include "sddmm_plan.hpp"

namespace rnnwb::gpu {

using detail::DeviceBuffer;

constexpr double kTiledFromEntriesPerColumn = 32.0;

struct MaskedProductGpu::State {
  int m = 0, k = 0, p = 0;
  std::int64_t nnzX = 0, nnzM = 0;
  int group = 32;
  DeviceBuffer<float> d, dT, xValues, xDense, dense, out;
  DeviceBuffer<std::int32_t> xStart, xRows, xCols, mStart, mRows, mCols;
  detail::SddmmPlan sddmm;
  bool sddmmReady = false;
  bool xDenseReady = false;
  cublasHandle_t blas = nullptr;  // made on the first dense-then-mask run, kept
  float preprocessMs = 0.0f;
  cudaEvent_t begin = nullptr, end = nullptr;

  void uploadD(const float* host);
  void scatterDenseX();
  void prepareSddmm();
  void denseThenMask();
};

namespace {

void checkView(const CsrView& v, const char* name, bool needValues) {
  const std::string what = std::string("masked product (GPU): ") + name;
  if (v.rows < 0 || v.cols < 0 || v.rowStart == nullptr)
    throw std::invalid_argument(what + " has no row starts");
  if (v.rowStart[v.rows] != v.nnz)
    throw std::invalid_argument(what + ": row starts end at " + std::to_string(v.rowStart[v.rows]) +
                                ", not at nnz " + std::to_string(v.nnz));
  if (needValues && v.nnz > 0 && v.values == nullptr)
    throw std::invalid_argument(what + " has no values");
}

/// The row of each entry of a CSR: the column of X or M it belongs to.
std::vector<std::int32_t> entryRows(const CsrView& v) {
  std::vector<std::int32_t> rows(static_cast<std::size_t>(v.nnz));
  for (int r = 0; r < v.rows; ++r)
    for (std::int32_t q = v.rowStart[r]; q < v.rowStart[r + 1]; ++q) rows[q] = r;
  return rows;
}

}  // namespace

const char* toString(MaskedProductKernel kernel) {
  switch (kernel) {
    case MaskedProductKernel::Tiled:
      return "tiled";
    case MaskedProductKernel::Naive:
      return "naive";
    case MaskedProductKernel::CusparseSddmm:
      return "cusparse-sddmm";
    case MaskedProductKernel::Flat:
      return "flat";
    case MaskedProductKernel::Auto:
      return "auto";
    case MaskedProductKernel::DenseThenMask:
      return "dense-then-mask";
  }
  return "?";
}

MaskedProductGpu::MaskedProductGpu() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    throw std::runtime_error("masked product (GPU): no CUDA device");
  }
  m_state = std::make_unique<State>();
  WB_CUDA_CHECK(cudaEventCreate(&m_state->begin));
  WB_CUDA_CHECK(cudaEventCreate(&m_state->end));
}

MaskedProductGpu::~MaskedProductGpu() {
  if (!m_state) return;
  if (m_state->blas) cublasDestroy(m_state->blas);
  if (m_state->begin) cudaEventDestroy(m_state->begin);
  if (m_state->end) cudaEventDestroy(m_state->end);
}

void MaskedProductGpu::State::uploadD(const float* host) {
  d.upload(host, static_cast<std::size_t>(m) * k);
  std::vector<float> transposed(static_cast<std::size_t>(m) * k);
  for (int s = 0; s < m; ++s)
    for (int r = 0; r < k; ++r)
      transposed[static_cast<std::size_t>(r) * m + s] = host[static_cast<std::size_t>(s) * k + r];
  dT.upload(transposed);
}

void MaskedProductGpu::State::scatterDenseX() {
  xDense.resize(static_cast<std::size_t>(p) * k);
  xDense.zero();
  detail::launchScatterToDense(xCols.data(), xRows.data(), xValues.data(), nnzX, k, xDense.data(),
                               nullptr);
  xDenseReady = true;
}

// cuBLAS is column-major: dT's array (k x m row-major) is D (m x k, ld m) to it and xDense's
// (p x k row-major) is X (k x p, ld k), so D X comes out as an m x p column-major array, which
// is (D X)ᵀ row-major, one row per column of X: no transposes.
void MaskedProductGpu::State::denseThenMask() {
  if (!blas) {
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error("masked product (GPU): cublasCreate failed");
    cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH);  // float32, as the other kernels
  }
  dense.resize(static_cast<std::size_t>(p) * m);
  const float one = 1.0f, zero = 0.0f;
  const cublasStatus_t status = cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, m, p, k, &one,
                                            dT.data(), m, xDense.data(), k, &zero, dense.data(), m);
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("masked product (GPU): cublasSgemm: ") +
                             cublasGetStatusString(status));
  detail::launchGatherEntries(dense.data(), m, mCols.data(), mRows.data(), nnzM, out.data(),
                              nullptr);
}

void MaskedProductGpu::State::prepareSddmm() {
  scatterDenseX();
  WB_CUDA_CHECK(cudaEventRecord(begin));
  sddmm.prepare(p, k, m, xDense.data(), d.data(), mStart.data(), mRows.data(), nnzM, out.data(),
                nullptr);
  WB_CUDA_CHECK(cudaEventRecord(end));
  WB_CUDA_CHECK(cudaEventSynchronize(end));
  WB_CUDA_CHECK(cudaEventElapsedTime(&preprocessMs, begin, end));
  sddmmReady = true;
}

void MaskedProductGpu::setOperands(const float* d, int m, int k, const CsrView& xT,
                                   const CsrView& mT) {
  checkView(xT, "X", true);
  checkView(mT, "M", false);
  if (xT.cols != k || mT.cols != m || xT.rows != mT.rows)
    throw std::invalid_argument("masked product (GPU): D is " + std::to_string(m) + " x " +
                                std::to_string(k) + ", X " + std::to_string(xT.cols) + " x " +
                                std::to_string(xT.rows) + ", M " + std::to_string(mT.cols) + " x " +
                                std::to_string(mT.rows));
  State& s = *m_state;
  s.m = m, s.k = k, s.p = xT.rows, s.nnzX = xT.nnz, s.nnzM = mT.nnz;
  s.uploadD(d);
  s.xStart.upload(xT.rowStart, static_cast<std::size_t>(xT.rows) + 1);
  s.xRows.upload(xT.colIndex, static_cast<std::size_t>(xT.nnz));
  s.xValues.upload(xT.values, static_cast<std::size_t>(xT.nnz));
  s.xCols.upload(entryRows(xT));
  s.mStart.upload(mT.rowStart, static_cast<std::size_t>(mT.rows) + 1);
  s.mRows.upload(mT.colIndex, static_cast<std::size_t>(mT.nnz));
  s.mCols.upload(entryRows(mT));
  s.out.resize(static_cast<std::size_t>(mT.nnz));
  s.out.zero();
  s.group = detail::tiledGroupSizeFor(s.p > 0 ? double(s.nnzM) / s.p : 0.0);
  // cuSPARSE needs X dense (p x k floats): prepared on its first run, so that the other kernels
  // can work on shapes whose dense X would not fit.
  s.xDense.resize(0);
  s.dense.resize(0);
  s.xDenseReady = false;
  s.sddmmReady = false;
  s.preprocessMs = 0.0f;
}

void MaskedProductGpu::updateValues(const float* d, const float* xValues) {
  State& s = *m_state;
  s.uploadD(d);
  s.xValues.upload(xValues, static_cast<std::size_t>(s.nnzX));
  if (s.xDenseReady) s.scatterDenseX();
}

float MaskedProductGpu::run(MaskedProductKernel kernel) {
  State& s = *m_state;
  if (kernel == MaskedProductKernel::Auto) kernel = autoKernel();
  if (kernel == MaskedProductKernel::CusparseSddmm && !s.sddmmReady) s.prepareSddmm();
  // X dense is given to dense-then-mask, as to the CPU's sgemm: made before the clock starts.
  if (kernel == MaskedProductKernel::DenseThenMask && !s.xDenseReady) s.scatterDenseX();
  WB_CUDA_CHECK(cudaEventRecord(s.begin));
  switch (kernel) {
    case MaskedProductKernel::Tiled:
      detail::launchTiledMaskedProduct(s.group, s.dT.data(), s.m, s.p, s.xStart.data(),
                                       s.xRows.data(), s.xValues.data(), s.mStart.data(),
                                       s.mRows.data(), s.out.data(), nullptr);
      break;
    case MaskedProductKernel::Flat:
      detail::launchFlatMaskedProduct(s.dT.data(), s.m, s.xStart.data(), s.xRows.data(),
                                      s.xValues.data(), s.mCols.data(), s.mRows.data(), s.nnzM,
                                      s.out.data(), nullptr);
      break;
    case MaskedProductKernel::Auto:
      break;  // resolved above
    case MaskedProductKernel::DenseThenMask:
      s.denseThenMask();
      break;
    case MaskedProductKernel::Naive:
      detail::launchNaiveMaskedProduct(s.d.data(), s.k, s.xStart.data(), s.xRows.data(),
                                       s.xValues.data(), s.mCols.data(), s.mRows.data(), s.nnzM,
                                       s.out.data(), nullptr);
      break;
    case MaskedProductKernel::CusparseSddmm:
      s.sddmm.run();
      break;
  }
  WB_CUDA_CHECK(cudaEventRecord(s.end));
  WB_CUDA_CHECK(cudaEventSynchronize(s.end));
  float ms = 0.0f;
  WB_CUDA_CHECK(cudaEventElapsedTime(&ms, s.begin, s.end));
  return ms;
}

std::vector<float> MaskedProductGpu::result() const { return m_state->out.download(); }
float MaskedProductGpu::sddmmPreprocessMs() const { return m_state->preprocessMs; }
int MaskedProductGpu::tiledGroupSize() const { return m_state->group; }

MaskedProductKernel MaskedProductGpu::autoKernel() const {
  // Measured on an H200 (docs/benchmarks.md): a group of lanes per column pays for its shared
  // staging and synchronisation only when columns hold enough entries to keep its lanes busy.
  const State& s = *m_state;
  const double perColumn = s.p > 0 ? double(s.nnzM) / s.p : 0.0;
  return perColumn >= kTiledFromEntriesPerColumn ? MaskedProductKernel::Tiled
                                                 : MaskedProductKernel::Flat;
}

}  // namespace rnnwb::gpu

#pragma once
// An owning device array of T (cudaMalloc / cudaFree), moved, never copied.
#include <cstddef>
#include <utility>
#include <vector>

#include "cuda_check.hpp"

namespace rnnwb::gpu::detail {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { resize(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : m_data(std::exchange(other.m_data, nullptr)), m_count(std::exchange(other.m_count, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    release();
    m_data = std::exchange(other.m_data, nullptr);
    m_count = std::exchange(other.m_count, 0);
    return *this;
  }

  /// Reallocates (contents lost) unless the size is already `count`.
  void resize(std::size_t count) {
    if (count == m_count) return;
    release();
    if (count > 0) WB_CUDA_CHECK(cudaMalloc(&m_data, count * sizeof(T)));
    m_count = count;
  }
  void upload(const T* host, std::size_t count) {
    resize(count);
    if (count > 0)
      WB_CUDA_CHECK(cudaMemcpy(m_data, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }
  std::vector<T> download() const {
    std::vector<T> host(m_count);
    if (m_count > 0)
      WB_CUDA_CHECK(cudaMemcpy(host.data(), m_data, m_count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  void zero() {
    if (m_count > 0) WB_CUDA_CHECK(cudaMemset(m_data, 0, m_count * sizeof(T)));
  }

  T* data() { return m_data; }
  const T* data() const { return m_data; }
  std::size_t size() const { return m_count; }

 private:
  void release() {
    if (m_data) WB_CUDA_CHECK_NOTHROW(cudaFree(m_data));
    m_data = nullptr;
    m_count = 0;
  }

  T* m_data = nullptr;
  std::size_t m_count = 0;
};

}  // namespace rnnwb::gpu::detail

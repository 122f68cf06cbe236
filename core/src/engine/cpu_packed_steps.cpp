// The fused recurrent steps' products on packed weights (packed_product.hpp,
// CpuBackendOptions::packedStepProducts): each worker's primitives, made once per shape, and
// packed with each chunk's weights.
#include "cpu_engine.hpp"

namespace rnnwb {

void CpuBackend::Engine::makePackedProducts(std::size_t node, bool backward) {
  const std::vector<cpu::FusedStep>& program =
      backward ? m_bound[node].backwardStep : m_bound[node].forwardStep;
  std::size_t index = 0;
  for (const cpu::FusedStep& step : program) {
    if (!step.isProduct) continue;
    const cpu::FusedProduct& p = step.product;
    for (int worker = 0; worker < m_pool.size(); ++worker) {
      const int rows = part(m_streams, worker).second;
      if (rows == 0) continue;
      const std::array<long long, 8> shape{rows,
                                           p.n,
                                           p.k,
                                           p.transposeWeights,
                                           p.a.streamStride,
                                           p.ldw,
                                           p.c.streamStride,
                                           static_cast<long long>(p.beta)};
      const auto key = std::make_tuple(node, backward, index, worker);
      const auto it = m_packed.find(key);
      if (it != m_packed.end() && it->second.shape == shape) continue;
      if (it != m_packed.end()) m_packed.erase(it);
      m_packed.emplace(
          key, PackedSlot{shape, PackedProduct(rows, p.n, p.k, p.transposeWeights,
                                               static_cast<int>(p.a.streamStride), p.ldw,
                                               static_cast<int>(p.c.streamStride), p.beta)});
    }
    ++index;
  }
}

std::vector<PackedProduct*> CpuBackend::Engine::packedProducts(std::size_t node, bool backward,
                                                               int worker) {
  std::vector<PackedProduct*> products;
  if (!m_options.packedStepProducts) return products;
  const std::vector<cpu::FusedStep>& program =
      backward ? m_bound[node].backwardStep : m_bound[node].forwardStep;
  for (const cpu::FusedStep& step : program) {
    if (!step.isProduct) continue;
    PackedProduct& product =
        m_packed.at(std::make_tuple(node, backward, products.size(), worker)).product;
    product.pack(step.product.weights);  // this chunk's weights
    products.push_back(&product);
  }
  return products;
}

}  // namespace rnnwb

#include "rnnwb/core/engine/product_precision.hpp"

#include <atomic>
#include <stdexcept>

#if RNNWB_WITH_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif

namespace rnnwb {
namespace {

std::atomic<ProductPrecision> processPrecision{ProductPrecision::F32};

#if RNNWB_WITH_ONEDNN
const char* isaName(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_sse41:
      return "sse41";
    case dnnl_cpu_isa_avx:
      return "avx";
    case dnnl_cpu_isa_avx2:
      return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
      return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core:
      return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "other";
  }
}
#endif

}  // namespace

ProductPrecision productPrecisionFromName(const std::string& name) {
  if (name == "f32") return ProductPrecision::F32;
  if (name == "bf16") return ProductPrecision::Bf16;
  throw std::invalid_argument("precision must be f32 or bf16, got '" + name + "'");
}

const char* productPrecisionName(ProductPrecision precision) {
  return precision == ProductPrecision::Bf16 ? "bf16" : "f32";
}

std::string productIsa() {
#if RNNWB_WITH_ONEDNN
  return isaName(dnnl_get_effective_cpu_isa());
#else
  return "none (OpenBLAS build)";
#endif
}

std::string bf16Unavailable() {
#if RNNWB_WITH_ONEDNN
  // The ISA values are nested bit sets: AMX's holds AVX-512 BF16's.
  const unsigned isa = dnnl_get_effective_cpu_isa();
  if ((isa & dnnl_cpu_isa_avx512_core_bf16) == dnnl_cpu_isa_avx512_core_bf16) return {};
  return "bf16 products need a processor with AVX-512 BF16 or AMX (oneDNN's avx512_core_bf16 or "
         "avx512_core_amx); oneDNN reports " +
         productIsa() + " on this one";
#else
  return "bf16 products need the oneDNN build; this one multiplies with OpenBLAS's sgemm only";
#endif
}

void setProductPrecision(ProductPrecision precision) {
  if (precision == ProductPrecision::Bf16) {
    if (const std::string why = bf16Unavailable(); !why.empty())
      throw std::runtime_error("--precision bf16 refused: " + why);
  }
  processPrecision.store(precision);
}

ProductPrecision productPrecision() { return processPrecision.load(); }

ProductPrecisionScope::ProductPrecisionScope(ProductPrecision precision)
    : m_saved(productPrecision()) {
  setProductPrecision(precision);
}

ProductPrecisionScope::~ProductPrecisionScope() { processPrecision.store(m_saved); }

}  // namespace rnnwb

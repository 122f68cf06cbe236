#pragma once
// The precision of the dense products (products.hpp's sgemm and packed_product.hpp): f32, or,
// opt-in, bf16 inputs with f32 accumulation (`--precision bf16`, docs/engine.md). In bf16 both
// factors are rounded to bfloat16 as they enter the product (oneDNN's reorder, round to nearest
// even) and the product sums and writes f32, so the weights the optimizer keeps, its state and
// every element-wise op stay f32. It needs a processor whose bf16 instructions oneDNN uses
// (AVX-512 BF16 or AMX: its avx512_core_bf16 and avx512_core_amx); elsewhere it is refused,
// naming the instruction set found. sgemv and sger (RTRL's per-stream steps) stay f32.
//
// Process-wide, as the product thread count is: a training run sets it for the run
// (ProductPrecisionScope) and puts the previous one back after. A PackedProduct takes the
// precision in force when it is made.
#include <string>

namespace rnnwb {

enum class ProductPrecision { F32, Bf16 };

/// "f32" or "bf16"; anything else throws std::invalid_argument naming the choices.
ProductPrecision productPrecisionFromName(const std::string& name);
const char* productPrecisionName(ProductPrecision precision);

/// The instruction set oneDNN's kernels use on this processor (honouring ONEDNN_MAX_CPU_ISA),
/// e.g. "avx512_core_amx"; "none (OpenBLAS build)" without oneDNN.
std::string productIsa();
/// Empty where bf16 products run, else why not, naming the instruction set found.
std::string bf16Unavailable();

/// Throws std::runtime_error with bf16Unavailable()'s reason when bf16 cannot run here.
void setProductPrecision(ProductPrecision precision);
ProductPrecision productPrecision();

/// Sets a precision for its scope (throwing as setProductPrecision does) and puts the previous
/// one back after.
class ProductPrecisionScope {
 public:
  explicit ProductPrecisionScope(ProductPrecision precision);
  ~ProductPrecisionScope();
  ProductPrecisionScope(const ProductPrecisionScope&) = delete;
  ProductPrecisionScope& operator=(const ProductPrecisionScope&) = delete;

 private:
  ProductPrecision m_saved;
};

}  // namespace rnnwb

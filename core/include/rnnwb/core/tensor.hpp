#pragma once
// A dense, owned, row-major tensor of F32 or I64 values with a shape: the unit that weights,
// gradients, data and checkpoints are exchanged in (safetensors.hpp reads and writes them).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rnnwb {

enum class DType { F32, I64 };

/// "F32" or "I64", the safetensors spelling.
std::string_view toString(DType dtype);

/// Dimensions, outermost first; an empty shape is a scalar (one element).
using Shape = std::vector<std::int64_t>;

/// Number of elements of a shape (1 for a scalar). Dimensions must be >= 0.
std::int64_t elementCount(const Shape& shape);
/// "[3, 4]"; "[]" for a scalar.
std::string shapeToString(const Shape& shape);

class Tensor {
 public:
  /// An F32 tensor of shape [0].
  Tensor() : m_shape{0} {}

  static Tensor zerosF32(Shape shape);
  static Tensor zerosI64(Shape shape);
  /// values.size() must equal elementCount(shape) (WB_CHECK).
  static Tensor fromF32(Shape shape, std::vector<float> values);
  static Tensor fromI64(Shape shape, std::vector<std::int64_t> values);
  static Tensor scalarF32(float value) { return fromF32({}, {value}); }

  DType dtype() const { return m_dtype; }
  const Shape& shape() const { return m_shape; }
  std::int64_t elements() const { return elementCount(m_shape); }
  /// "F32 [3, 4]", for messages.
  std::string describe() const;

  /// The values; the dtype must match (WB_CHECK).
  std::span<float> f32();
  std::span<const float> f32() const;
  std::span<std::int64_t> i64();
  std::span<const std::int64_t> i64() const;

  bool operator==(const Tensor&) const = default;

 private:
  DType m_dtype = DType::F32;
  Shape m_shape;
  std::vector<float> m_f32;
  std::vector<std::int64_t> m_i64;
};

}  // namespace rnnwb

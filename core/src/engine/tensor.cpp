#include "rnnwb/core/tensor.hpp"

#include "rnnwb/core/check.hpp"

namespace rnnwb {

std::string_view toString(DType dtype) { return dtype == DType::F32 ? "F32" : "I64"; }

std::int64_t elementCount(const Shape& shape) {
  std::int64_t count = 1;
  for (std::int64_t d : shape) {
    WB_CHECK(d >= 0, "negative dimension in shape " + shapeToString(shape));
    count *= d;
  }
  return count;
}

std::string shapeToString(const Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

Tensor Tensor::zerosF32(Shape shape) {
  const auto count = static_cast<std::size_t>(elementCount(shape));
  return fromF32(std::move(shape), std::vector<float>(count, 0.0f));
}

Tensor Tensor::zerosI64(Shape shape) {
  const auto count = static_cast<std::size_t>(elementCount(shape));
  return fromI64(std::move(shape), std::vector<std::int64_t>(count, 0));
}

Tensor Tensor::fromF32(Shape shape, std::vector<float> values) {
  WB_CHECK(static_cast<std::int64_t>(values.size()) == elementCount(shape),
           std::to_string(values.size()) + " values for shape " + shapeToString(shape));
  Tensor t;
  t.m_dtype = DType::F32;
  t.m_shape = std::move(shape);
  t.m_f32 = std::move(values);
  return t;
}

Tensor Tensor::fromI64(Shape shape, std::vector<std::int64_t> values) {
  WB_CHECK(static_cast<std::int64_t>(values.size()) == elementCount(shape),
           std::to_string(values.size()) + " values for shape " + shapeToString(shape));
  Tensor t;
  t.m_dtype = DType::I64;
  t.m_shape = std::move(shape);
  t.m_i64 = std::move(values);
  return t;
}

std::string Tensor::describe() const {
  return std::string(toString(m_dtype)) + " " + shapeToString(m_shape);
}

std::span<float> Tensor::f32() {
  WB_CHECK(m_dtype == DType::F32, "an " + describe() + " tensor read as F32");
  return m_f32;
}

std::span<const float> Tensor::f32() const {
  WB_CHECK(m_dtype == DType::F32, "an " + describe() + " tensor read as F32");
  return m_f32;
}

std::span<std::int64_t> Tensor::i64() {
  WB_CHECK(m_dtype == DType::I64, "an " + describe() + " tensor read as I64");
  return m_i64;
}

std::span<const std::int64_t> Tensor::i64() const {
  WB_CHECK(m_dtype == DType::I64, "an " + describe() + " tensor read as I64");
  return m_i64;
}

}  // namespace rnnwb

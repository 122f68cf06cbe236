// ONNX tensors and attributes (onnx_protos.hpp).
#include "onnx_protos.hpp"

#include <cstring>
#include <stdexcept>

namespace rnnwb::onnx_import {

namespace {

template <typename T>
std::vector<T> rawValues(const std::string& raw, std::int64_t count, const std::string& name) {
  if (raw.size() != static_cast<std::size_t>(count) * sizeof(T))
    throw std::invalid_argument("tensor '" + name + "' has " + std::to_string(raw.size()) +
                                " bytes of data for " + std::to_string(count) + " values");
  std::vector<T> values(static_cast<std::size_t>(count));
  std::memcpy(values.data(), raw.data(), raw.size());  // little-endian, as ONNX stores it
  return values;
}

template <typename To, typename Field>
std::vector<To> fieldValues(const Field& field) {
  return std::vector<To>(field.begin(), field.end());
}

}  // namespace

Tensor tensorFromProto(const onnx::TensorProto& proto) {
  const std::string& name = proto.name();
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    throw std::invalid_argument("tensor '" + name +
                                "' keeps its data in an external file, which "
                                "the importer does not read");
  Shape shape(proto.dims().begin(), proto.dims().end());
  for (std::int64_t d : shape)
    if (d < 0) throw std::invalid_argument("tensor '" + name + "' has a negative dimension");
  const std::int64_t count = elementCount(shape);
  const bool raw = proto.has_raw_data();
  std::vector<float> f32;
  std::vector<std::int64_t> i64;
  switch (proto.data_type()) {
    case onnx::TensorProto::FLOAT:
      f32 = raw ? rawValues<float>(proto.raw_data(), count, name)
                : fieldValues<float>(proto.float_data());
      break;
    case onnx::TensorProto::DOUBLE: {
      const auto d = raw ? rawValues<double>(proto.raw_data(), count, name)
                         : fieldValues<double>(proto.double_data());
      f32.assign(d.begin(), d.end());
      break;
    }
    case onnx::TensorProto::INT64:
      i64 = raw ? rawValues<std::int64_t>(proto.raw_data(), count, name)
                : fieldValues<std::int64_t>(proto.int64_data());
      break;
    case onnx::TensorProto::INT32: {
      const auto v = raw ? rawValues<std::int32_t>(proto.raw_data(), count, name)
                         : fieldValues<std::int32_t>(proto.int32_data());
      i64.assign(v.begin(), v.end());
      break;
    }
    case onnx::TensorProto::BOOL: {
      const auto v = raw ? rawValues<std::uint8_t>(proto.raw_data(), count, name)
                         : fieldValues<std::uint8_t>(proto.int32_data());
      i64.assign(v.begin(), v.end());
      break;
    }
    default:
      throw std::invalid_argument("tensor '" + name + "' has ONNX data type " +
                                  std::to_string(proto.data_type()) +
                                  " (the importer reads float, double and integers)");
  }
  const bool isFloat = proto.data_type() == onnx::TensorProto::FLOAT ||
                       proto.data_type() == onnx::TensorProto::DOUBLE;
  const std::size_t have = isFloat ? f32.size() : i64.size();
  if (static_cast<std::int64_t>(have) != count)
    throw std::invalid_argument("tensor '" + name + "' has " + std::to_string(have) +
                                " values for shape " + shapeToString(shape));
  return isFloat ? Tensor::fromF32(shape, std::move(f32)) : Tensor::fromI64(shape, std::move(i64));
}

const onnx::AttributeProto* findAttribute(const onnx::NodeProto& node, const std::string& name) {
  for (const onnx::AttributeProto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::int64_t attributeInt(const onnx::NodeProto& node, const std::string& name,
                          std::int64_t otherwise) {
  const onnx::AttributeProto* a = findAttribute(node, name);
  return a ? a->i() : otherwise;
}

float attributeFloat(const onnx::NodeProto& node, const std::string& name, float otherwise) {
  const onnx::AttributeProto* a = findAttribute(node, name);
  return a ? a->f() : otherwise;
}

std::string attributeString(const onnx::NodeProto& node, const std::string& name,
                            const std::string& otherwise) {
  const onnx::AttributeProto* a = findAttribute(node, name);
  return a ? a->s() : otherwise;
}

std::vector<std::int64_t> attributeInts(const onnx::NodeProto& node, const std::string& name) {
  const onnx::AttributeProto* a = findAttribute(node, name);
  return a ? std::vector<std::int64_t>(a->ints().begin(), a->ints().end())
           : std::vector<std::int64_t>{};
}

std::vector<std::string> attributeStrings(const onnx::NodeProto& node, const std::string& name) {
  const onnx::AttributeProto* a = findAttribute(node, name);
  return a ? std::vector<std::string>(a->strings().begin(), a->strings().end())
           : std::vector<std::string>{};
}

}  // namespace rnnwb::onnx_import

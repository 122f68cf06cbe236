#include "convert.hpp"

#include <nanobind/stl/string.h>

#include <cstring>
#include <stdexcept>

namespace rnnwb::python {

namespace {

using AnyArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

template <typename T>
nb::object ownedArray(std::span<const T> values, const Shape& shape) {
  T* data = new T[values.size() ? values.size() : 1];
  std::memcpy(data, values.data(), values.size() * sizeof(T));
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  std::vector<std::size_t> dims(shape.begin(), shape.end());
  return nb::cast(nb::ndarray<nb::numpy, T>(data, dims.size(), dims.data(), owner));
}

}  // namespace

nb::object toNumpy(const Tensor& tensor) {
  if (tensor.dtype() == DType::F32) return ownedArray<float>(tensor.f32(), tensor.shape());
  return ownedArray<std::int64_t>(tensor.i64(), tensor.shape());
}

Tensor fromArray(const nb::handle& array, const std::string& what) {
  AnyArray a;
  if (!nb::try_cast(array, a))
    throw std::invalid_argument(what + " is not a C-contiguous NumPy array");
  Shape shape;
  for (std::size_t d = 0; d < a.ndim(); ++d) shape.push_back(static_cast<std::int64_t>(a.shape(d)));
  const std::size_t count = a.size();
  if (a.dtype() == nb::dtype<float>()) {
    const auto* p = static_cast<const float*>(a.data());
    return Tensor::fromF32(shape, std::vector<float>(p, p + count));
  }
  if (a.dtype() == nb::dtype<std::int64_t>()) {
    const auto* p = static_cast<const std::int64_t*>(a.data());
    return Tensor::fromI64(shape, std::vector<std::int64_t>(p, p + count));
  }
  throw std::invalid_argument(what + " is neither float32 nor int64");
}

TensorFile tensorFileFromDict(const nb::dict& arrays, const std::string& origin) {
  TensorFile file;
  file.path = origin;
  for (auto [key, value] : arrays) {
    const std::string name = nb::cast<std::string>(key);
    file.tensors[name] = fromArray(value, origin + ": tensor '" + name + "'");
  }
  return file;
}

TensorFile convertedTensorFile(const nb::dict& arrays, const std::string& origin) {
  try {
    return tensorFileFromDict(arrays, origin);
  } catch (const std::invalid_argument&) {  // a dtype or layout NumPy can convert
  } catch (const nb::cast_error&) {         // a key that is no str
  }
  const nb::object convert = nb::module_::import_("rnnwb.graph").attr("_arrays");
  return tensorFileFromDict(nb::cast<nb::dict>(convert(arrays)), origin);
}

nb::dict toDict(const TensorMap& tensors) {
  nb::dict out;
  for (const auto& [key, tensor] : tensors) out[key.c_str()] = toNumpy(tensor);
  return out;
}

nlohmann::json toJson(const nb::handle& value) {
  // Through the json module: its rules are Python's own (no NaN tricks, keys as strings).
  const nb::object dumps = nb::module_::import_("json").attr("dumps");
  return nlohmann::json::parse(nb::cast<std::string>(dumps(value)));
}

nb::object fromJson(const nlohmann::json& value) {
  return nb::module_::import_("json").attr("loads")(value.dump());
}

}  // namespace rnnwb::python

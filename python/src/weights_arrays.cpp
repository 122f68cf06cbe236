#include "weights_arrays.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "py_graph.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"

namespace rnnwb::python {

namespace {

/// The float32 C-contiguous values of `object` with exactly `shape`, through the buffer
/// protocol (a NumPy array's own buffer: no copy, no conversion); null for anything else.
class F32Buffer {
 public:
  F32Buffer(const nb::handle& object, const Shape& shape) {
    if (PyObject_GetBuffer(object.ptr(), &m_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
      PyErr_Clear();
      return;
    }
    m_held = true;
    if (m_view.itemsize != 4 || m_view.format == nullptr || std::strcmp(m_view.format, "f") != 0 ||
        m_view.ndim != static_cast<int>(shape.size()))
      return;
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (m_view.shape[d] != shape[d]) return;
    m_values = static_cast<const float*>(m_view.buf);
  }
  ~F32Buffer() {
    if (m_held) PyBuffer_Release(&m_view);
  }
  F32Buffer(const F32Buffer&) = delete;
  F32Buffer& operator=(const F32Buffer&) = delete;

  const float* values() const { return m_values; }

 private:
  Py_buffer m_view{};
  bool m_held = false;
  const float* m_values = nullptr;
};

/// The weights copied straight from the dict, or nothing when the dict is not exactly the
/// plan's keys as float32 C-contiguous arrays of their shapes, or when the graph has masks
/// (those are read and checked by the file path). Never throws for bad input: the file path
/// gives the message.
std::optional<ParameterSet> copiedWeights(const WeightKeys& keys, const nb::dict& weights) {
  if (keys.zeros.hasMasks() || weights.size() != keys.byKey.size()) return std::nullopt;
  ParameterSet params = keys.zeros;  // every value is written below
  for (auto [key, value] : weights) {
    Py_ssize_t length = 0;
    const char* text =
        PyUnicode_Check(key.ptr()) ? PyUnicode_AsUTF8AndSize(key.ptr(), &length) : nullptr;
    if (text == nullptr) {
      PyErr_Clear();
      return std::nullopt;
    }
    const auto found = keys.byKey.find(std::string_view(text, static_cast<std::size_t>(length)));
    if (found == keys.byKey.end()) return std::nullopt;
    const F32Buffer array(value, found->second->shape);
    // Unique dict keys, as many as the plan's, each one of them: every view is written once.
    if (array.values() == nullptr) return std::nullopt;
    std::memcpy(params.view(*found->second).data(), array.values(),
                found->second->size * sizeof(float));
  }
  return params;
}

}  // namespace

WeightKeys::WeightKeys(const CompiledPlan& plan) : zeros(plan) {
  std::vector<const ParameterView*> trainable;
  for (const ParameterView& view : zeros.layout().views()) {
    byKey.emplace(view.key, &view);
    if (view.trainable) trainable.push_back(&view);
  }
  std::sort(trainable.begin(), trainable.end(),
            [](const ParameterView* a, const ParameterView* b) { return a->key < b->key; });
  for (const ParameterView* view : trainable) {
    const auto first = static_cast<Py_ssize_t>(view->offset);
    nb::list shape;
    for (const std::int64_t extent : view->shape) shape.append(extent);
    gradientCuts.push_back(
        {nb::str(view->key.c_str()),
         nb::steal(PySlice_New(nb::int_(first).ptr(),
                               nb::int_(first + static_cast<Py_ssize_t>(view->size)).ptr(),
                               nullptr)),
         view->shape.size() == 1 ? nb::none() : nb::object(nb::tuple(shape))});
  }
}

ParameterSet weightsFromDict(PyGraph& g, const nb::dict& weights) {
  if (auto params = copiedWeights(g.weightKeys(), weights)) return std::move(*params);
  const TensorFile file = convertedTensorFile(weights, "weights");
  ParameterSet params = parametersFromTensors(g.compiled(), file);
  // A checkpoint is a weights file too: its optimizer, stream and RTRL state are not extra.
  file.rejectUnread("the weights of " + g.name(), {"optimizer.", "streams.", "rtrl."});
  return params;
}

nb::dict gradientArrays(const WeightKeys& keys, ParameterSet gradients) {
  auto* block = new ParameterSet(std::move(gradients));
  const nb::capsule owner(block, [](void* p) noexcept { delete static_cast<ParameterSet*>(p); });
  const std::size_t size = block->size();
  const nb::object flat =
      nb::cast(nb::ndarray<nb::numpy, float>(block->values().data(), 1, &size, owner));
  nb::dict out;
  for (const WeightKeys::GradientCut& cut : keys.gradientCuts) {
    nb::object array = nb::steal(PyObject_GetItem(flat.ptr(), cut.slice.ptr()));
    if (!array.is_valid()) throw nb::python_error();
    if (!cut.shape.is_none()) array = array.attr("reshape")(cut.shape);
    out[cut.key] = array;
  }
  return out;
}

}  // namespace rnnwb::python

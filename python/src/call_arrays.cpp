#include "call_arrays.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "py_graph.hpp"
#include "rnnwb/core/engine/engine_support.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"

namespace rnnwb::python {

namespace {

/// The C-contiguous values of `object` through the buffer protocol (a NumPy array's own
/// buffer: no copy, no conversion), when they are float32 (`kind` 'f') or int64 ('i'); null
/// values() for anything else.
class ArrayBuffer {
 public:
  ArrayBuffer(const nb::handle& object, char kind) {
    if (PyObject_GetBuffer(object.ptr(), &m_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
      PyErr_Clear();
      return;
    }
    m_held = true;
    const char* f = m_view.format;
    const bool typed =
        f != nullptr &&
        (kind == 'f' ? m_view.itemsize == 4 && !std::strcmp(f, "f")
                     : m_view.itemsize == 8 && (!std::strcmp(f, "l") || !std::strcmp(f, "q")));
    if (typed) m_values = m_view.buf;
  }
  ~ArrayBuffer() {
    if (m_held) PyBuffer_Release(&m_view);
  }
  ArrayBuffer(const ArrayBuffer&) = delete;
  ArrayBuffer& operator=(const ArrayBuffer&) = delete;

  const void* values() const { return m_values; }
  std::size_t count() const { return static_cast<std::size_t>(m_view.len / m_view.itemsize); }
  Shape shape() const { return Shape(m_view.shape, m_view.shape + m_view.ndim); }
  bool hasShape(const Shape& shape) const {
    return m_values && m_view.ndim == static_cast<int>(shape.size()) &&
           std::equal(shape.begin(), shape.end(), m_view.shape);
  }

 private:
  Py_buffer m_view{};
  bool m_held = false;
  const void* m_values = nullptr;
};

/// The tensor of a buffer, copied.
Tensor copiedTensor(const ArrayBuffer& array, char kind) {
  if (kind == 'f') {
    const auto* p = static_cast<const float*>(array.values());
    return Tensor::fromF32(array.shape(), std::vector<float>(p, p + array.count()));
  }
  const auto* p = static_cast<const std::int64_t*>(array.values());
  return Tensor::fromI64(array.shape(), std::vector<std::int64_t>(p, p + array.count()));
}

/// The dict's array under `key` (a borrowed reference), or null.
PyObject* item(const nb::dict& dict, const std::string& key) {
  return PyDict_GetItemString(dict.ptr(), key.c_str());
}

/// The weights copied straight from the dict, or nothing when the dict is not exactly the
/// plan's keys as float32 C-contiguous arrays of their shapes, or when the graph has masks
/// (those are read and checked by the file path). Never throws for bad input: the file path
/// gives the message.
std::optional<ParameterSet> copiedWeights(const CallKeys& keys, const nb::dict& weights) {
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
    const ArrayBuffer array(value, 'f');
    // Unique dict keys, as many as the plan's, each one of them: every view is written once.
    if (!array.hasShape(found->second->shape)) return std::nullopt;
    std::memcpy(params.view(*found->second).data(), array.values(),
                found->second->size * sizeof(float));
  }
  return params;
}

}  // namespace

CallKeys::CallKeys(const CompiledPlan& plan)
    : plan(plan),
      reshape(nb::str("reshape")),
      zeros(plan),
      chunkEngine(engineLimitations(plan).empty() && !plan.needsWholeSequences()) {
  for (int l : plan.inputLayers()) inputKeys.push_back(inputKey(plan, l));
  for (int l : plan.outputLayers()) targetKeys.push_back(targetKey(plan, l));
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
  if (auto params = copiedWeights(g.callKeys(), weights)) return std::move(*params);
  const TensorFile file = convertedTensorFile(weights, "weights");
  ParameterSet params = parametersFromTensors(g.compiled(), file);
  // A checkpoint is a weights file too: its optimizer, stream and RTRL state are not extra.
  file.rejectUnread("the weights of " + g.name(), {"optimizer.", "streams.", "rtrl."});
  return params;
}

std::optional<SequenceBatch> copiedBatch(const CallKeys& keys, const nb::dict& data,
                                         bool withTargets) {
  const std::size_t targets = withTargets ? keys.targetKeys.size() : 0;
  if (!keys.chunkEngine || data.size() != keys.inputKeys.size() + targets) return std::nullopt;
  SequenceBatch batch;
  const auto& layers = keys.plan.graph().layers;
  for (const std::string& key : keys.inputKeys) {
    PyObject* value = item(data, key);
    if (value == nullptr) return std::nullopt;
    const ArrayBuffer array(value, 'f');
    if (!array.values()) return std::nullopt;
    batch.inputs.push_back(copiedTensor(array, 'f'));
  }
  for (std::size_t o = 0; o < targets; ++o) {
    PyObject* value = item(data, keys.targetKeys[o]);
    const bool classes = layers[keys.plan.outputLayers()[o]].loss == LossKind::CrossEntropy;
    if (value == nullptr) return std::nullopt;
    const ArrayBuffer array(value, classes ? 'i' : 'f');
    if (!array.values()) return std::nullopt;
    batch.targets.push_back(copiedTensor(array, classes ? 'i' : 'f'));
  }
  const Shape& first = batch.inputs.front().shape();
  if (first.size() != 3) return std::nullopt;
  batch.frames = static_cast<int>(first[0]);
  batch.streams = static_cast<int>(first[1]);
  try {
    batch.check(keys.plan, withTargets);  // shapes, sizes, classes in range
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // the file path names it as `rnnwb grad` does
  }
  return batch;
}

nb::dict gradientArrays(const CallKeys& keys, ParameterSet gradients) {
  auto* block = new ParameterSet(std::move(gradients));
  const nb::capsule owner(block, [](void* p) noexcept { delete static_cast<ParameterSet*>(p); });
  const std::size_t size = block->size();
  const nb::object flat =
      nb::cast(nb::ndarray<nb::numpy, float>(block->values().data(), 1, &size, owner));
  nb::dict out;
  for (const CallKeys::GradientCut& cut : keys.gradientCuts) {
    nb::object array = nb::steal(PyObject_GetItem(flat.ptr(), cut.slice.ptr()));
    if (!array.is_valid()) throw nb::python_error();
    if (!cut.shape.is_none()) {
      array =
          nb::steal(PyObject_CallMethodOneArg(array.ptr(), keys.reshape.ptr(), cut.shape.ptr()));
      if (!array.is_valid()) throw nb::python_error();
    }
    out[cut.key] = array;
  }
  return out;
}

}  // namespace rnnwb::python

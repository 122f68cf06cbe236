#include "call_arrays.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

// NumPy's C API, in this file alone: its table is loaded once by importNumpyApi().
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "py_graph.hpp"
#include "rnnwb/core/engine/engine_support.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"

namespace rnnwb::python {

namespace {

/// The values of `object` when it is a NumPy array the engine takes as it is: C-contiguous,
/// aligned, in native byte order, of float32 (`kind` 'f') or 8-byte signed integers ('i'); null
/// values() for anything else (the file path converts it). Read through NumPy's C API, not the
/// buffer protocol: a buffer export per array was a third of a small graph's per-call overhead.
class ArrayBuffer {
 public:
  ArrayBuffer(const nb::handle& object, char kind) {
    if (!PyArray_Check(object.ptr())) return;
    auto* array = reinterpret_cast<PyArrayObject*>(object.ptr());
    const int type = PyArray_TYPE(array);
    const bool typed =
        kind == 'f' ? type == NPY_FLOAT32
                    : PyArray_ITEMSIZE(array) == 8 && (type == NPY_LONG || type == NPY_LONGLONG);
    if (!typed || !PyArray_IS_C_CONTIGUOUS(array) || !PyArray_ISALIGNED(array) ||
        !PyArray_ISNOTSWAPPED(array))
      return;
    m_array = array;
    m_values = PyArray_DATA(array);
  }

  const void* values() const { return m_values; }
  std::size_t count() const { return static_cast<std::size_t>(PyArray_SIZE(m_array)); }
  Shape shape() const {
    const npy_intp* dims = PyArray_DIMS(m_array);
    return Shape(dims, dims + PyArray_NDIM(m_array));
  }
  bool hasShape(const Shape& shape) const {
    return m_values && PyArray_NDIM(m_array) == static_cast<int>(shape.size()) &&
           std::equal(shape.begin(), shape.end(), PyArray_DIMS(m_array));
  }

 private:
  PyArrayObject* m_array = nullptr;  // borrowed: the caller's dict holds it
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

/// The dict's array under `key` (a borrowed reference), or null with no Python error left set
/// (a key whose comparison raised is missing too: the file path then names it). The key is a
/// str made once, whose hash Python keeps: no string is made or hashed per call.
PyObject* item(const nb::dict& dict, const nb::str& key) {
  PyObject* value = PyDict_GetItemWithError(dict.ptr(), key.ptr());
  if (value == nullptr) PyErr_Clear();
  return value;
}

/// The weights copied straight from the dict, or nothing when the dict is not exactly the
/// plan's keys as float32 C-contiguous arrays of their shapes, or when the graph has masks
/// (those are read and checked by the file path). Never throws for bad input: the file path
/// gives the message.
std::optional<ParameterSet> copiedWeights(const CallKeys& keys, const nb::dict& weights) {
  if (keys.zeros.hasMasks() || weights.size() != keys.weightKeys.size()) return std::nullopt;
  ParameterSet params = keys.zeros;  // every value is written below
  // As many keys as the plan's, each of them found: the dict holds exactly the plan's keys.
  for (const auto& [key, view] : keys.weightKeys) {
    PyObject* value = item(weights, key);
    if (value == nullptr) return std::nullopt;
    const ArrayBuffer array(value, 'f');
    if (!array.hasShape(view->shape)) return std::nullopt;
    std::memcpy(params.view(*view).data(), array.values(), view->size * sizeof(float));
  }
  return params;
}

}  // namespace

CallKeys::CallKeys(const CompiledPlan& plan)
    : plan(plan),
      zeros(plan),
      chunkEngine(engineLimitations(plan).empty() && !plan.needsWholeSequences()) {
  for (int l : plan.inputLayers()) inputKeys.emplace_back(inputKey(plan, l).c_str());
  for (int l : plan.outputLayers()) targetKeys.emplace_back(targetKey(plan, l).c_str());
  std::vector<const ParameterView*> trainable;
  for (const ParameterView& view : zeros.layout().views()) {
    weightKeys.emplace_back(nb::str(view.key.c_str()), &view);
    if (view.trainable) trainable.push_back(&view);
  }
  std::sort(trainable.begin(), trainable.end(),
            [](const ParameterView* a, const ParameterView* b) { return a->key < b->key; });
  for (const ParameterView* view : trainable)
    gradientCuts.push_back({nb::str(view->key.c_str()), view->offset,
                            std::vector<npy_intp>(view->shape.begin(), view->shape.end())});
}

void importNumpyApi() {
  if (_import_array() < 0) throw nb::python_error();
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
  for (const nb::str& key : keys.inputKeys) {
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
  float* values = block->values().data();
  nb::dict out;
  for (const CallKeys::GradientCut& cut : keys.gradientCuts) {
    // A writeable float32 view of the block, which it keeps alive (its base).
    PyObject* view = PyArray_New(&PyArray_Type, static_cast<int>(cut.shape.size()),
                                 const_cast<npy_intp*>(cut.shape.data()), NPY_FLOAT32, nullptr,
                                 values + cut.offset, 0, NPY_ARRAY_CARRAY, nullptr);
    if (view == nullptr) throw nb::python_error();
    nb::object array = nb::steal(view);
    if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(view), owner.inc_ref().ptr()) < 0)
      throw nb::python_error();
    out[cut.key] = array;
  }
  return out;
}

}  // namespace rnnwb::python

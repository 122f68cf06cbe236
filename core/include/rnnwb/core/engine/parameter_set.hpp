#pragma once
// All trainable values of a CompiledPlan (weights of `full` and `diagonal` connections, biases of
// additive layers) in ONE flat float buffer, with a named view per tensor, so that optimizers,
// clipping and checkpoints work on a single span while the engines address tensors by index.
//
// Keys are those of graph-format.md: "connections.<id>.weight" ([to.size, from.size] row-major
// for `full`, [size] for `diagonal`) and "layers.<id>.bias" ([size]). `identity` connections
// have no weight.
//
// Masks: a connection with density < 1 (or one given a mask by a weights file) has a 0/1 mask.
// Invariant kept by the engines and by everything that writes a ParameterSet: a masked-out
// weight is 0 in a parameter set and its gradient is 0. An optimizer that could move it (weight
// decay) must call applyMasks() after its update.
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/tensor.hpp"

namespace rnnwb {

/// Where one named tensor lives in the flat buffer.
struct ParameterView {
  std::string key;         // "connections.<id>.weight" or "layers.<id>.bias"
  Shape shape;             // [rows, cols] full, [to, from, by, bx] block, [size] otherwise
  std::size_t offset = 0;  // first element in the flat buffer
  std::size_t size = 0;    // number of elements
  int connection = -1;     // index into graph().connections for a weight, else -1
  int layer = -1;          // index into graph().layers for a bias, else -1
  bool trainable = true;   // false: "trainable" / "bias_trainable" false; no gradient entry
};

/// The order of tensors in the flat buffer, fixed by the plan alone (the same graph always gives
/// the same layout). Full weights with the same source layer and delay into the same node of the
/// schedule are adjacent, in file order, so that an engine can use them as one stacked matrix
/// [sum of rows, from.size] without copying. views() is in buffer order; use the lookups below
/// rather than assuming an order.
class ParameterLayout {
 public:
  explicit ParameterLayout(const CompiledPlan& plan);

  const std::vector<ParameterView>& views() const { return m_views; }
  std::size_t size() const { return m_size; }
  /// The view of connection c's weight, or nullptr for an identity connection.
  const ParameterView* connectionWeight(int connection) const;
  /// The view of layer l's bias, or nullptr when it has none.
  const ParameterView* layerBias(int layer) const;
  /// The view with this key, or nullptr.
  const ParameterView* find(std::string_view key) const;

  bool operator==(const ParameterLayout& other) const;

 private:
  std::vector<ParameterView> m_views;
  std::vector<int> m_viewOfConnection, m_viewOfLayer;                    // -1 where none
  static constexpr std::size_t kTooMany = static_cast<std::size_t>(-1);  // the sum overflowed
  void addToSize(std::size_t count);
  std::size_t m_size = 0;
};

/// Values (or gradients, or optimizer moments) laid out by a ParameterLayout, with the masks.
/// Copyable; copies share the immutable layout and masks, not the values.
class ParameterSet {
 public:
  /// All zeros, with the masks the graph defines (connectionMask() for density < 1).
  explicit ParameterSet(const CompiledPlan& plan);
  /// All zeros, with the layout and masks of `other`: a gradient buffer for `other`.
  static ParameterSet zerosLike(const ParameterSet& other);

  const ParameterLayout& layout() const { return *m_layout; }
  std::span<float> values() { return m_values; }
  std::span<const float> values() const { return m_values; }
  std::size_t size() const { return m_values.size(); }

  /// The elements of one view (row-major), e.g. weight(c) for connection c.
  std::span<float> view(const ParameterView& view);
  std::span<const float> view(const ParameterView& view) const;
  /// The elements under a key; throws std::out_of_range naming the key when there is none.
  std::span<float> at(std::string_view key);
  std::span<const float> at(std::string_view key) const;

  /// True when any connection has a mask.
  bool hasMasks() const { return m_mask != nullptr; }
  /// 1 where a parameter exists, 0 where a mask removes it; flat like values(). Empty when
  /// hasMasks() is false (every parameter exists).
  std::span<const float> mask() const;
  /// The mask of connection c ([rows * cols], row-major), or empty when it has none.
  std::span<const float> connectionMask(int connection) const;
  /// Replaces the masks (0/1 values, flat like values(); empty = no masks) and applies them.
  void setMask(std::vector<float> mask);
  /// Sets every masked-out value to 0.
  void applyMasks();

  void fill(float value);
  /// False if any value is NaN or infinite.
  bool allFinite() const;

 private:
  // All zeros, sharing a layout and masks (zerosLike: no copy of the values first).
  ParameterSet(std::shared_ptr<const ParameterLayout> layout,
               std::shared_ptr<const std::vector<float>> mask);

  std::shared_ptr<const ParameterLayout> m_layout;
  std::shared_ptr<const std::vector<float>> m_mask;  // null: no masks
  std::vector<float> m_values;
};

/// False if any value is NaN or infinite.
bool allFinite(std::span<const float> values);

}  // namespace rnnwb

#include "rnnwb/core/engine/parameter_io.hpp"

#include <stdexcept>

namespace rnnwb {
namespace {

std::string maskKey(const Connection& connection) {
  return "connections." + connection.id + ".mask";
}

// The masks a file gives, flat like the layout; empty when the file has none. Sparse connections
// must have one.
std::vector<float> masksFromFile(const CompiledPlan& plan, const ParameterLayout& layout,
                                 const TensorFile& file, const std::string& prefix) {
  std::vector<float> mask;
  const Graph& graph = plan.graph();
  for (const ParameterView& view : layout.views()) {
    if (view.connection < 0) continue;
    const Connection& connection = graph.connections[view.connection];
    const std::string key = prefix + maskKey(connection);
    if (!file.contains(key)) {
      if (connection.isSparse())
        throw std::runtime_error(file.path.string() + ": no tensor '" + key + "' (connection '" +
                                 connection.id + "' has density " +
                                 std::to_string(connection.density) + ", so its mask is needed)");
      continue;
    }
    if (connection.type != ConnectionType::Full)
      throw std::runtime_error(file.path.string() + ": tensor '" + key + "': connection '" +
                               connection.id + "' is " + std::string(toString(connection.type)) +
                               ", only full connections have masks");
    const auto values = file.require(key, DType::F32, view.shape).f32();
    if (mask.empty()) mask.assign(layout.size(), 1.0f);
    for (std::size_t i = 0; i < view.size; ++i) {
      if (values[i] != 0.0f && values[i] != 1.0f)
        throw std::runtime_error(file.path.string() + ": tensor '" + key + "' has the value " +
                                 std::to_string(values[i]) + " at index " + std::to_string(i) +
                                 " (a mask holds 0 or 1)");
      mask[view.offset + i] = values[i];
    }
  }
  return mask;
}

}  // namespace

TensorMap parametersToTensors(const ParameterSet& parameters, bool withMasks,
                              const std::string& prefix) {
  TensorMap tensors;
  for (const ParameterView& view : parameters.layout().views()) {
    const auto values = parameters.view(view);
    tensors[prefix + view.key] =
        Tensor::fromF32(view.shape, std::vector<float>(values.begin(), values.end()));
    if (!withMasks || view.connection < 0 || !parameters.hasMasks()) continue;
    const auto mask = parameters.mask().subspan(view.offset, view.size);
    const std::string key = view.key.substr(0, view.key.size() - 6) + "mask";  // "weight"
    const auto exists = parameters.connectionMask(view.connection);
    if (exists.empty()) continue;
    tensors[prefix + key] =
        Tensor::fromF32(view.shape, std::vector<float>(mask.begin(), mask.end()));
  }
  return tensors;
}

void readParameterValues(const TensorFile& file, const std::string& prefix, ParameterSet& target) {
  for (const ParameterView& view : target.layout().views()) {
    const auto values = file.require(prefix + view.key, DType::F32, view.shape).f32();
    std::copy(values.begin(), values.end(), target.view(view).begin());
  }
  target.applyMasks();
}

ParameterSet parametersFromTensors(const CompiledPlan& plan, const TensorFile& file,
                                   const std::string& prefix) {
  ParameterSet parameters(plan);
  parameters.setMask(masksFromFile(plan, parameters.layout(), file, prefix));
  readParameterValues(file, prefix, parameters);
  return parameters;
}

TensorMap gradientsToTensors(const ParameterSet& gradients, double loss) {
  TensorMap tensors = parametersToTensors(gradients, false);
  for (const ParameterView& view : gradients.layout().views())
    if (!view.trainable) tensors.erase(view.key);  // a fixed tensor has no gradient entry
  tensors["loss"] = Tensor::scalarF32(static_cast<float>(loss));
  return tensors;
}

}  // namespace rnnwb

#include "rnnwb/core/graph.hpp"

#include <array>
#include <sstream>
#include <utility>

#include "rnnwb/core/check.hpp"
#include "rnnwb/core/diagnostic.hpp"

namespace rnnwb {
namespace {

template <typename Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, std::string_view>, N>;

constexpr NameTable<LayerKind, 3> kLayerKinds{{{LayerKind::Input, "input"},
                                               {LayerKind::Additive, "additive"},
                                               {LayerKind::Multiplicative, "multiplicative"}}};
constexpr NameTable<Activation, 5> kActivations{{{Activation::Identity, "identity"},
                                                 {Activation::Sigmoid, "sigmoid"},
                                                 {Activation::Tanh, "tanh"},
                                                 {Activation::Relu, "relu"},
                                                 {Activation::Softmax, "softmax"}}};
constexpr NameTable<LossKind, 4> kLosses{{{LossKind::None, "none"},
                                          {LossKind::CrossEntropy, "cross_entropy"},
                                          {LossKind::Mse, "mse"},
                                          {LossKind::Ctc, "ctc"}}};
constexpr NameTable<ConnectionType, 5> kTypes{{{ConnectionType::Full, "full"},
                                               {ConnectionType::Diagonal, "diagonal"},
                                               {ConnectionType::Identity, "identity"},
                                               {ConnectionType::Complement, "complement"},
                                               {ConnectionType::Block, "block"}}};
constexpr NameTable<ReduceAxis, 2> kReduceAxes{{{ReduceAxis::None, "none"}, {ReduceAxis::Y, "y"}}};

template <typename Enum, std::size_t N>
std::string_view nameOf(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return "?";
}

template <typename Enum, std::size_t N>
std::optional<Enum> valueOf(const NameTable<Enum, N>& table, std::string_view text) {
  for (const auto& [e, name] : table)
    if (name == text) return e;
  return std::nullopt;
}

}  // namespace

std::string_view toString(LayerKind kind) { return nameOf(kLayerKinds, kind); }
std::string_view toString(Activation activation) { return nameOf(kActivations, activation); }
std::string_view toString(LossKind loss) { return nameOf(kLosses, loss); }
std::string_view toString(ConnectionType type) { return nameOf(kTypes, type); }
std::string_view toString(ReduceAxis axis) { return nameOf(kReduceAxes, axis); }

std::optional<LayerKind> layerKindFromString(std::string_view text) {
  return valueOf(kLayerKinds, text);
}
std::optional<Activation> activationFromString(std::string_view text) {
  return valueOf(kActivations, text);
}
std::optional<LossKind> lossFromString(std::string_view text) {
  if (text == "none") return std::nullopt;
  return valueOf(kLosses, text);
}
std::optional<ConnectionType> connectionTypeFromString(std::string_view text) {
  return valueOf(kTypes, text);
}

std::optional<ReduceAxis> reduceAxisFromString(std::string_view text) {
  if (text == "none") return std::nullopt;
  return valueOf(kReduceAxes, text);
}

bool defaultBias(LayerKind kind) { return kind == LayerKind::Additive; }

bool Connection::hasWeight() const {
  return type == ConnectionType::Full || type == ConnectionType::Diagonal ||
         type == ConnectionType::Block;
}

std::string defaultConnectionId(std::string_view from, std::string_view to, int delay) {
  return defaultConnectionId(from, to, std::span<const int>(&delay, 1));
}

std::string defaultConnectionId(std::string_view from, std::string_view to,
                                std::span<const int> delay) {
  std::string id;
  id.reserve(from.size() + to.size() + 8);
  id.append(from).append("->").append(to);
  bool delayed = false;
  for (int d : delay) delayed |= d != 0;
  if (!delayed) return id;
  for (std::size_t i = 0; i < delay.size(); ++i)
    id.append(i ? "," : "@").append(std::to_string(delay[i]));
  return id;
}

bool usesVersion2(const Graph& graph) {
  if (graph.dimensions != 1) return true;
  for (const Layer& l : graph.layers)
    if (l.loss == LossKind::Ctc || l.biasInit || !l.biasTrainable) return true;
  for (const Connection& c : graph.connections)
    if (c.delay < 0 || c.delayY != 0 || c.type == ConnectionType::Complement ||
        c.type == ConnectionType::Block || c.block != std::array<int, 2>{0, 0} ||
        c.reduce != ReduceAxis::None || !c.trainable || c.init)
      return true;
  return false;
}

std::unordered_map<std::string, int> layerIndexById(const Graph& graph) {
  std::unordered_map<std::string, int> index;
  index.reserve(graph.layers.size() * 2);
  for (int i = 0; i < static_cast<int>(graph.layers.size()); ++i)
    index.emplace(graph.layers[i].id, i);
  return index;
}

std::unordered_map<std::string_view, int> layerIndexViewById(const Graph& graph) {
  std::unordered_map<std::string_view, int> index;
  index.reserve(graph.layers.size() * 2);
  for (int i = 0; i < static_cast<int>(graph.layers.size()); ++i)
    index.emplace(graph.layers[i].id, i);
  return index;
}

bool isValidLayerId(std::string_view id) {
  if (id.empty()) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool isValidConnectionId(std::string_view id) {
  if (id.empty()) return false;
  for (char c : id)
    if (c == '.' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
      return false;
  return true;
}

namespace {
std::string joinMessages(const std::vector<Diagnostic>& problems) {
  std::ostringstream out;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    if (i) out << '\n';
    out << problems[i].message;
  }
  return out.str();
}
}  // namespace

GraphError::GraphError(std::vector<Diagnostic> problems)
    : std::runtime_error(joinMessages(problems)), m_problems(std::move(problems)) {}

namespace detail {
void throwCheckFailure(const char* file, int line, const char* expr, const std::string& message) {
  std::ostringstream out;
  out << message << " (check '" << expr << "' failed at " << file << ':' << line << ')';
  throw std::logic_error(out.str());
}
}  // namespace detail

}  // namespace rnnwb

#include "rnnwb/core/engine/backend_registry.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

#include "rnnwb/core/engine/cpu_backend.hpp"

namespace rnnwb {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, BackendFactory, std::less<>> factories;

  Registry() {
    factories["cpu"] = [](const CompiledPlan& plan, const BackendOptions& options) {
      // Results are bit-for-bit repeatable for one thread count; a run config keeps it. 0:
      // computeThreads(), the process-wide count.
      return std::unique_ptr<Backend>(
          std::make_unique<CpuBackend>(plan, CpuBackendOptions{.threads = options.threads}));
    };
  }
};

Registry& registry() {
  static Registry instance;
  return instance;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

[[noreturn]] void throwUnknown(std::string_view name) {
  std::string message = "unknown backend '" + std::string(name) +
                        "' (this build has: " + joined(backendNames()) + ")";
  if (name == "cuda")
    message +=
        "; this rnnwb was built without the CUDA backend (configure with nvcc "
        "available and RNNWB_ENABLE_CUDA=ON)";
  throw std::invalid_argument(message);
}

}  // namespace

void registerBackend(std::string name, BackendFactory factory) {
  if (name.empty()) throw std::invalid_argument("a backend needs a name");
  if (!factory) throw std::invalid_argument("backend '" + name + "' registered without a factory");
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.factories[std::move(name)] = std::move(factory);
}

std::vector<std::string> backendNames() {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, factory] : r.factories) names.push_back(name);
  return names;
}

bool hasBackend(std::string_view name) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  return r.factories.find(name) != r.factories.end();
}

void requireBackend(std::string_view name) {
  if (!hasBackend(name)) throwUnknown(name);
}

std::unique_ptr<Backend> makeBackend(std::string_view name, const CompiledPlan& plan,
                                     const BackendOptions& options) {
  BackendFactory factory;
  {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    const auto found = r.factories.find(name);
    if (found != r.factories.end()) factory = found->second;
  }
  if (!factory) throwUnknown(name);
  return factory(plan, options);
}

}  // namespace rnnwb

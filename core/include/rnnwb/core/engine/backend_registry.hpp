#pragma once
// Backends by name: "cpu" is always there; an executable that links another backend (the CUDA
// one lives in gpu/, which core may not link) registers it at start-up, before any lookup.
// Code above the engine asks for a backend by the name a user gave (`--backend cuda`) and never
// includes a backend's own header.
//
// Thread-safety: registration and lookups are guarded by one mutex; a factory runs outside it.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rnnwb/core/engine/backend.hpp"

namespace rnnwb {

/// What a backend is built with besides its plan. `threads` is the CPU backend's thread count
/// (0: computeThreads(), products.hpp); other backends may ignore it.
struct BackendOptions {
  int threads = 0;
};

/// Builds a backend for `plan` (which must outlive it). Throws with a precise message when the
/// backend cannot run here (e.g. "no CUDA device: ...").
using BackendFactory =
    std::function<std::unique_ptr<Backend>(const CompiledPlan& plan, const BackendOptions&)>;

/// Adds or replaces the backend `name`. Throws std::invalid_argument for an empty name.
void registerBackend(std::string name, BackendFactory factory);

/// The registered names, sorted ("cpu" always among them).
std::vector<std::string> backendNames();

/// True when a backend of this name is registered.
bool hasBackend(std::string_view name);

/// The backend `name` for `plan`. Throws std::invalid_argument for an unknown name:
/// "unknown backend 'tpu' (this build has: cpu, cuda)"; for "cuda" in a build without it the
/// message says so.
std::unique_ptr<Backend> makeBackend(std::string_view name, const CompiledPlan& plan,
                                     const BackendOptions& options = {});

/// Throws the same std::invalid_argument as makeBackend when `name` is not registered.
void requireBackend(std::string_view name);

}  // namespace rnnwb

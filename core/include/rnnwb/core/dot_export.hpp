#pragma once
#include <string>

#include "rnnwb/core/compiled_plan.hpp"

namespace rnnwb {

/// Graphviz DOT: recurrent nodes as clusters, delayed connections dashed and labelled.
std::string exportDot(const CompiledPlan& plan);

}  // namespace rnnwb

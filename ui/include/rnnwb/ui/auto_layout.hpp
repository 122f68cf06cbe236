#pragma once
// Layered left-to-right layout in schedule order: a layer's column is the longest path of
// delay-0 connections that reaches it, so every delay-0 connection points right and delayed
// connections (the loops) point back; within a column, layers follow the schedule.
#include "rnnwb/core/graph.hpp"
#include "rnnwb/ui/graph_document.hpp"

namespace rnnwb::ui {

inline constexpr double kLayoutColumnStep = 190.0;
inline constexpr double kLayoutRowStep = 120.0;

/// A position for every layer of the graph (also one that is invalid: a zero-delay cycle is cut
/// where it closes). Positions are whole numbers; the first column is at x = 0.
PositionMap autoLayout(const Graph& graph);

}  // namespace rnnwb::ui

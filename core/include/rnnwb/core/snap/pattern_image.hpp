#pragma once
// Pictures of a node's SnAp patterns for `rnnwb mask --png`: I, D and M_n side by side, each
// nonzero drawn in the colour of its row's class (M_n's entries outside I in grey), with thin
// lines between state layers (rows) and parameter blocks (columns). Wide patterns are binned:
// a pixel column shows whether any parameter in its bin has the entry.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "rnnwb/core/snap/bit_matrix.hpp"
#include "rnnwb/core/snap/row_colouring.hpp"
#include "rnnwb/core/snap/rtrl_node_layout.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"

namespace rnnwb::snap {

/// 8-bit RGB, row-major, 3 bytes per pixel.
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;

  RgbImage() = default;
  RgbImage(int w, int h, std::uint32_t rgb);
  void fillRect(int x, int y, int w, int h, std::uint32_t rgb);
};

/// The picture of one node: panels I | D | M_n (n = 0 draws M_∞).
RgbImage drawNodePatterns(const RtrlNodeLayout& layout, const SnapPatterns& patterns, int n,
                          const RowColouring& coloursI, const RowColouring& coloursD);

/// What one pixel of drawNodePatterns's picture shows (the workbench's hover readout).
struct PatternPixel {
  enum class Panel { None, Immediate, Dynamics, Mask };  // margins and gaps: None
  Panel panel = Panel::None;
  int row = -1;  // the row of h
  // Immediate and Mask: the parameters [firstParameter, lastParameter) of θ its pixel column
  // stands for (more than one when wide patterns are binned).
  std::int64_t firstParameter = -1, lastParameter = -1;
  int column = -1;  // Dynamics: the column of D (a row of h)
};

/// Where pixel (x, y) of drawNodePatterns(…, patterns, …) falls.
PatternPixel locatePatternPixel(const SnapPatterns& patterns, int x, int y);

/// The same picture for recurrent node `node` (an index into plan.nodes()), with the layout, the
/// patterns and the row colourings built here. Throws RtrlRefusal for a node RTRL cannot take.
RgbImage drawRecurrentNode(const CompiledPlan& plan, int node, int n);

/// Images stacked top to bottom, left-aligned, on a white background with a gap between them.
RgbImage stackImages(const std::vector<RgbImage>& images, int gap);

/// Writes an 8-bit RGB PNG (libpng). Throws std::runtime_error naming the file on failure.
void writePng(const RgbImage& image, const std::filesystem::path& path);

/// A distinct, saturated colour for colour class c (golden-angle hues).
std::uint32_t classColour(int c);

}  // namespace rnnwb::snap

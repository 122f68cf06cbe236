#include "rnnwb/core/snap/pattern_image.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "rnnwb/core/png_file.hpp"

namespace rnnwb::snap {
namespace {

constexpr std::uint32_t kWhite = 0xFFFFFF, kFrame = 0xB0B0B0, kGrid = 0xE4E4E4, kGrey = 0x8C8C8C;
constexpr int kMargin = 8, kGap = 16;
constexpr int kMaxColumns = 1024;  // pixel columns of a parameter panel before binning

struct Scale {
  int bin = 1;   // parameters per pixel column
  int cell = 1;  // pixels per pixel column
};

Scale parameterScale(std::int64_t parameters) {
  if (parameters > kMaxColumns)
    return {static_cast<int>((parameters + kMaxColumns - 1) / kMaxColumns), 1};
  return {1, std::clamp(static_cast<int>(480 / std::max<std::int64_t>(parameters, 1)), 1, 8)};
}

/// Union of the unit columns of the parameters in [first, last).
void binColumn(const BitMatrix& pattern, const std::vector<std::int32_t>& columnOf,
               std::int64_t first, std::int64_t last, std::vector<std::uint64_t>& out) {
  std::fill(out.begin(), out.end(), 0);
  std::int32_t previous = -1;
  for (std::int64_t p = first; p < last; ++p) {
    if (columnOf[p] == previous) continue;
    previous = columnOf[p];
    const std::uint64_t* bits = pattern.word(previous);
    for (int w = 0; w < pattern.words(); ++w) out[w] |= bits[w];
  }
}

struct Panel {
  int x = 0, y = 0, rowPx = 1;
};

/// Where drawNodePatterns puts its three panels: one place for drawing and for locating pixels.
struct PatternGeometry {
  int rowPx = 1;
  Scale scale;
  int columns = 0;     // pixel columns of a parameter panel (binned)
  int paramWidth = 0;  // columns * scale.cell
  int xImmediate = kMargin, xDynamics = 0, xMask = 0, y = kMargin;
  int width = 0, height = 0;  // of the picture
};

PatternGeometry patternGeometry(const SnapPatterns& patterns) {
  PatternGeometry g;
  const int rows = patterns.stateSize();
  g.rowPx = std::clamp(320 / std::max(rows, 1), 1, 8);
  g.scale = parameterScale(patterns.parameterCount());
  g.columns = static_cast<int>((patterns.parameterCount() + g.scale.bin - 1) / g.scale.bin);
  g.paramWidth = g.columns * g.scale.cell;
  g.xDynamics = g.xImmediate + g.paramWidth + kGap;
  g.xMask = g.xDynamics + rows * g.rowPx + kGap;
  g.width = 2 * kMargin + 2 * g.paramWidth + rows * g.rowPx + 2 * kGap;
  g.height = 2 * kMargin + rows * g.rowPx;
  return g;
}

void drawFrame(RgbImage& image, const Panel& at, int width, int height) {
  image.fillRect(at.x - 1, at.y - 1, width + 2, height + 2, kFrame);
  image.fillRect(at.x, at.y, width, height, kWhite);
}

void drawStateLines(RgbImage& image, const RtrlNodeLayout& layout, const Panel& at, int width) {
  for (const StateLayer& s : layout.stateLayers())
    if (s.offset > 0) image.fillRect(at.x, at.y + s.offset * at.rowPx, width, 1, kGrid);
}

/// A |h| x |θ| pattern, binned; entries of `highlight` (a subset) in their row's class colour.
int drawParameterPanel(RgbImage& image, const RtrlNodeLayout& layout, const SnapPatterns& patterns,
                       const BitMatrix& pattern, const BitMatrix* highlight,
                       const RowColouring& colours, const Panel& at) {
  const Scale scale = parameterScale(patterns.parameterCount());
  const std::int64_t parameters = patterns.parameterCount();
  const int columns = static_cast<int>((parameters + scale.bin - 1) / scale.bin);
  const int width = columns * scale.cell, height = pattern.rows() * at.rowPx;
  drawFrame(image, at, width, height);
  drawStateLines(image, layout, at, width);
  for (const ParameterBlock& b : layout.parameterBlocks())
    if (b.offset > 0)
      image.fillRect(at.x + static_cast<int>(b.offset / scale.bin) * scale.cell, at.y, 1, height,
                     kGrid);
  std::vector<std::uint64_t> all(pattern.words()), lit(pattern.words());
  for (int x = 0; x < columns; ++x) {
    const std::int64_t first = std::int64_t(x) * scale.bin,
                       last = std::min(parameters, first + scale.bin);
    binColumn(pattern, patterns.parameterColumns(), first, last, all);
    if (highlight) binColumn(*highlight, patterns.parameterColumns(), first, last, lit);
    for (int r = 0; r < pattern.rows(); ++r) {
      if (!((all[r >> 6] >> (r & 63)) & 1u)) continue;
      const bool inHighlight = !highlight || ((lit[r >> 6] >> (r & 63)) & 1u);
      const std::uint32_t rgb = inHighlight ? classColour(colours.colourOfRow[r]) : kGrey;
      image.fillRect(at.x + x * scale.cell, at.y + r * at.rowPx, scale.cell, at.rowPx, rgb);
    }
  }
  return width;
}

int drawDynamicsPanel(RgbImage& image, const RtrlNodeLayout& layout, const BitMatrix& d,
                      const RowColouring& colours, const Panel& at) {
  const int size = d.rows() * at.rowPx;
  drawFrame(image, at, size, size);
  drawStateLines(image, layout, at, size);
  for (const StateLayer& s : layout.stateLayers())
    if (s.offset > 0) image.fillRect(at.x + s.offset * at.rowPx, at.y, 1, size, kGrid);
  for (int col = 0; col < d.columns(); ++col)
    for (int r : d.rowsOf(col))
      image.fillRect(at.x + col * at.rowPx, at.y + r * at.rowPx, at.rowPx, at.rowPx,
                     classColour(colours.colourOfRow[r]));
  return size;
}

}  // namespace

RgbImage::RgbImage(int w, int h, std::uint32_t rgb) : width(w), height(h) {
  pixels.resize(static_cast<std::size_t>(w) * h * 3);
  fillRect(0, 0, w, h, rgb);
}

void RgbImage::fillRect(int x, int y, int w, int h, std::uint32_t rgb) {
  const int x0 = std::max(x, 0), y0 = std::max(y, 0);
  const int x1 = std::min(x + w, width), y1 = std::min(y + h, height);
  for (int yy = y0; yy < y1; ++yy)
    for (int xx = x0; xx < x1; ++xx) {
      std::uint8_t* p = pixels.data() + (static_cast<std::size_t>(yy) * width + xx) * 3;
      p[0] = static_cast<std::uint8_t>(rgb >> 16);
      p[1] = static_cast<std::uint8_t>(rgb >> 8);
      p[2] = static_cast<std::uint8_t>(rgb);
    }
}

RgbImage drawNodePatterns(const RtrlNodeLayout& layout, const SnapPatterns& patterns, int n,
                          const RowColouring& coloursI, const RowColouring& coloursD) {
  const PatternGeometry g = patternGeometry(patterns);
  RgbImage image(g.width, g.height, kWhite);
  drawParameterPanel(image, layout, patterns, patterns.immediate(), nullptr, coloursI,
                     {g.xImmediate, g.y, g.rowPx});
  drawDynamicsPanel(image, layout, patterns.dynamics(), coloursD, {g.xDynamics, g.y, g.rowPx});
  const BitMatrix mask = n == 0 ? patterns.exactMask() : patterns.mask(n);
  drawParameterPanel(image, layout, patterns, mask, &patterns.immediate(), coloursI,
                     {g.xMask, g.y, g.rowPx});
  return image;
}

PatternPixel locatePatternPixel(const SnapPatterns& patterns, int x, int y) {
  const PatternGeometry g = patternGeometry(patterns);
  const int rows = patterns.stateSize();
  PatternPixel at;
  if (y < g.y || y >= g.y + rows * g.rowPx) return at;
  const int row = (y - g.y) / g.rowPx;
  auto parameters = [&](PatternPixel::Panel panel, int x0) {
    const std::int64_t column = (x - x0) / g.scale.cell;
    at.panel = panel;
    at.row = row;
    at.firstParameter = column * g.scale.bin;
    at.lastParameter = std::min(patterns.parameterCount(), at.firstParameter + g.scale.bin);
  };
  if (x >= g.xImmediate && x < g.xImmediate + g.paramWidth) {
    parameters(PatternPixel::Panel::Immediate, g.xImmediate);
  } else if (x >= g.xMask && x < g.xMask + g.paramWidth) {
    parameters(PatternPixel::Panel::Mask, g.xMask);
  } else if (x >= g.xDynamics && x < g.xDynamics + rows * g.rowPx) {
    at.panel = PatternPixel::Panel::Dynamics;
    at.row = row;
    at.column = (x - g.xDynamics) / g.rowPx;
  }
  return at;
}

RgbImage drawRecurrentNode(const CompiledPlan& plan, int node, int n) {
  const RtrlNodeLayout layout(plan, node);
  const SnapPatterns patterns(layout);
  return drawNodePatterns(layout, patterns, n, colourRows(patterns.immediate()),
                          colourRows(patterns.dynamics()));
}

RgbImage stackImages(const std::vector<RgbImage>& images, int gap) {
  int width = 1, height = 0;
  for (const RgbImage& im : images) {
    width = std::max(width, im.width);
    height += im.height + (height > 0 ? gap : 0);
  }
  RgbImage out(width, std::max(height, 1), kWhite);
  int y = 0;
  for (const RgbImage& im : images) {
    for (int r = 0; r < im.height; ++r)
      std::memcpy(out.pixels.data() + (static_cast<std::size_t>(y + r) * width) * 3,
                  im.pixels.data() + static_cast<std::size_t>(r) * im.width * 3,
                  static_cast<std::size_t>(im.width) * 3);
    y += im.height + gap;
  }
  return out;
}

void writePng(const RgbImage& image, const std::filesystem::path& path) {
  writePngFile(path, image.width, image.height, 3, image.pixels.data());
}

std::uint32_t classColour(int c) {
  const double hue = std::fmod(c * 137.50776405, 360.0) / 60.0;
  const double s = 0.75, v = c % 2 ? 0.70 : 0.90;
  const double chroma = v * s, x = chroma * (1 - std::fabs(std::fmod(hue, 2.0) - 1)),
               m = v - chroma;
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(hue)) {
    case 0:
      r = chroma, g = x;
      break;
    case 1:
      r = x, g = chroma;
      break;
    case 2:
      g = chroma, b = x;
      break;
    case 3:
      g = x, b = chroma;
      break;
    case 4:
      r = x, b = chroma;
      break;
    default:
      r = chroma, b = x;
      break;
  }
  auto byte = [m](double u) { return static_cast<std::uint32_t>(std::lround((u + m) * 255)); };
  return byte(r) << 16 | byte(g) << 8 | byte(b);
}

}  // namespace rnnwb::snap

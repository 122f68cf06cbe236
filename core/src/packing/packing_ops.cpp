#include "rnnwb/core/packing/packing_ops.hpp"

#include <algorithm>
#include <stdexcept>

namespace rnnwb::packing {
namespace {

void copyCells(const FeatureMap& from, int fromY, int fromX, FeatureMap& to, int toY, int toX,
               int height, int width) {
  const std::size_t run = static_cast<std::size_t>(height) * from.channels;
  for (int x = 0; x < width; ++x)
    std::copy_n(from.data.begin() + from.offset(fromY, fromX + x), run,
                to.data.begin() + to.offset(toY, toX + x));
}

void requireShape(const FeatureMap& map, int height, int width, const char* what) {
  if (map.height != height || map.width != width)
    throw std::invalid_argument(std::string(what) + ": expected a " + std::to_string(height) +
                                " x " + std::to_string(width) + " map, got " +
                                std::to_string(map.height) + " x " + std::to_string(map.width));
}

}  // namespace

FeatureMap pack(const PackedLayout& layout, const std::vector<FeatureMap>& examples) {
  if (examples.size() != layout.places.size())
    throw std::invalid_argument("pack: " + std::to_string(examples.size()) +
                                " examples for a layout of " +
                                std::to_string(layout.places.size()));
  const int channels = examples.empty() ? 1 : examples.front().channels;
  FeatureMap packed(layout.height, layout.width, channels);
  for (const ExamplePlace& p : layout.places) {
    const FeatureMap& e = examples[p.index];
    if (e.height != p.height || e.width != p.width || e.channels != channels)
      throw std::invalid_argument("pack: example " + std::to_string(p.index) + " is " +
                                  std::to_string(e.height) + " x " + std::to_string(e.width) +
                                  " x " + std::to_string(e.channels) + ", its place is " +
                                  std::to_string(p.height) + " x " + std::to_string(p.width) +
                                  " x " + std::to_string(channels));
    copyCells(e, 0, 0, packed, p.y, p.x, p.height, p.width);
  }
  return packed;
}

std::vector<FeatureMap> unpack(const PackedLayout& layout, const FeatureMap& packed) {
  requireShape(packed, layout.height, layout.width, "unpack");
  std::vector<FeatureMap> examples;
  examples.reserve(layout.places.size());
  for (const ExamplePlace& p : layout.places) {
    FeatureMap& e = examples.emplace_back(p.height, p.width, packed.channels);
    copyCells(packed, p.y, p.x, e, 0, 0, p.height, p.width);
  }
  return examples;
}

FeatureMap packedMask(const PackedLayout& layout) {
  FeatureMap mask(layout.height, layout.width, 1);
  for (const ExamplePlace& p : layout.places)
    for (int x = p.x; x < p.x + p.width; ++x)
      std::fill_n(mask.data.begin() + mask.offset(p.y, x), p.height, 1.0f);
  return mask;
}

FeatureMap skewedMask(const PackedLayout& layout, ScanDirection direction) {
  const bool horizontal =
      direction == ScanDirection::TopRight || direction == ScanDirection::BottomRight;
  const bool vertical =
      direction == ScanDirection::BottomLeft || direction == ScanDirection::BottomRight;
  FeatureMap mask(layout.height, layout.skewedWidth, 1);
  for (const ExamplePlace& p : layout.places) {
    const PackedRow& r = layout.rows[p.row];
    const int x0 = horizontal ? r.length - p.x - p.width : p.x;
    const int y0 = vertical ? 2 * r.top + r.height - p.y - p.height : p.y;
    for (int y = y0; y < y0 + p.height; ++y)
      for (int x = x0; x < x0 + p.width; ++x) mask.at(y, x + y - r.top) = 1.0f;
  }
  return mask;
}

FeatureMap skew(const PackedLayout& layout, const FeatureMap& packed) {
  requireShape(packed, layout.height, layout.width, "skew");
  FeatureMap skewed(layout.height, layout.skewedWidth, packed.channels);
  for (const PackedRow& r : layout.rows)
    for (int dy = 0; dy < r.height; ++dy)
      for (int x = 0; x < r.length; ++x)
        std::copy_n(packed.data.begin() + packed.offset(r.top + dy, x), packed.channels,
                    skewed.data.begin() + skewed.offset(r.top + dy, x + dy));
  return skewed;
}

FeatureMap unskew(const PackedLayout& layout, const FeatureMap& skewed) {
  requireShape(skewed, layout.height, layout.skewedWidth, "unskew");
  FeatureMap packed(layout.height, layout.width, skewed.channels);
  for (const PackedRow& r : layout.rows)
    for (int dy = 0; dy < r.height; ++dy)
      for (int x = 0; x < r.length; ++x)
        std::copy_n(skewed.data.begin() + skewed.offset(r.top + dy, x + dy), skewed.channels,
                    packed.data.begin() + packed.offset(r.top + dy, x));
  return packed;
}

const char* scanDirectionName(ScanDirection direction) {
  switch (direction) {
    case ScanDirection::TopLeft:
      return "top-left";
    case ScanDirection::TopRight:
      return "top-right";
    case ScanDirection::BottomLeft:
      return "bottom-left";
    case ScanDirection::BottomRight:
      return "bottom-right";
  }
  return "?";
}

FeatureMap flip(const PackedLayout& layout, const FeatureMap& packed, ScanDirection direction) {
  requireShape(packed, layout.height, layout.width, "flip");
  if (direction == ScanDirection::TopLeft) return packed;
  const bool horizontal =
      direction == ScanDirection::TopRight || direction == ScanDirection::BottomRight;
  const bool vertical =
      direction == ScanDirection::BottomLeft || direction == ScanDirection::BottomRight;
  FeatureMap out(packed.height, packed.width, packed.channels);
  for (const PackedRow& r : layout.rows)
    for (int dy = 0; dy < r.height; ++dy)
      for (int x = 0; x < r.length; ++x) {
        const int fromY = r.top + (vertical ? r.height - 1 - dy : dy);
        const int fromX = horizontal ? r.length - 1 - x : x;
        std::copy_n(packed.data.begin() + packed.offset(fromY, fromX), packed.channels,
                    out.data.begin() + out.offset(r.top + dy, x));
      }
  return out;
}

}  // namespace rnnwb::packing

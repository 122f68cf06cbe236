#include "rnnwb/core/packing/packing_picture.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/packing/packers.hpp"
#include "rnnwb/core/packing/packing_ops.hpp"

namespace rnnwb::packing {
namespace {

using Rgb = std::array<std::uint8_t, 3>;

// A 3 x 5 bitmap font for the digits 0-9: one row per 3-bit value, top row first.
constexpr std::uint8_t kDigits[10][5] = {
    {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
    {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7}};

void put(Image& img, int y, int x, const Rgb& c) {
  if (y < 0 || x < 0 || y >= img.height || x >= img.width) return;
  std::copy(c.begin(), c.end(), img.pixel(y, x));
}

void fillRect(Image& img, int y, int x, int h, int w, const Rgb& c) {
  for (int dy = 0; dy < h; ++dy)
    for (int dx = 0; dx < w; ++dx) put(img, y + dy, x + dx, c);
}

void outline(Image& img, int y, int x, int h, int w, const Rgb& c) {
  fillRect(img, y, x, 1, w, c);
  fillRect(img, y + h - 1, x, 1, w, c);
  fillRect(img, y, x, h, 1, c);
  fillRect(img, y, x + w - 1, h, 1, c);
}

// Draws `number` with its top-left at (y, x), each font pixel a dot x dot square, on a white box.
void drawNumber(Image& img, int y, int x, int number, int dot) {
  const std::string text = std::to_string(number);
  fillRect(img, y, x, 7 * dot, (4 * static_cast<int>(text.size()) + 1) * dot, {255, 255, 255});
  for (std::size_t k = 0; k < text.size(); ++k)
    for (int r = 0; r < 5; ++r)
      for (int b = 0; b < 3; ++b)
        if (kDigits[text[k] - '0'][r] & (4 >> b))
          fillRect(img, y + (r + 1) * dot, x + (4 * static_cast<int>(k) + b + 1) * dot, dot, dot,
                   {200, 0, 0});
}

// Paints a one-channel map at panel row `top`: ink dark on white where masked in, grey outside.
void paintMap(Image& img, int top, const FeatureMap& values, const FeatureMap& mask, int scale,
              const Rgb& inside) {
  for (int y = 0; y < values.height; ++y)
    for (int x = 0; x < values.width; ++x) {
      const float v = std::clamp(values.at(y, x), 0.0f, 1.0f);
      Rgb c{90, 90, 90};
      if (mask.at(y, x) > 0.5f)
        for (int k = 0; k < 3; ++k) c[k] = static_cast<std::uint8_t>(inside[k] * (1.0f - v));
      fillRect(img, top + y * scale, x * scale, scale, scale, c);
    }
}

// The ink of the packed batch (a float per cell) and the picture (the batch, its mask and its
// skewed form at `scale` pixels a cell, RGB): refused from the layout's sizes before either is
// allocated (huge sizes ended in bad_alloc).
void requirePictureMemory(const PackedLayout& layout, int scale, std::size_t batch) {
  const auto h = static_cast<std::uint64_t>(std::max(layout.height, 0));
  const auto w = static_cast<std::uint64_t>(std::max(layout.width, 0));
  const auto skewed = static_cast<std::uint64_t>(std::max(layout.skewedWidth, 0));
  const auto s = static_cast<std::uint64_t>(std::max(scale, 1));
  const auto ink = checkedProduct({h, w, sizeof(float)});
  const auto picture = checkedProduct({h, 2 * w + skewed, s, s, 3});
  std::optional<std::uint64_t> bytes;
  if (ink && picture && *ink <= ~std::uint64_t{0} - *picture) bytes = *ink + *picture;
  requireMemory(bytes, "the picture of batch " + std::to_string(batch + 1) + " (" +
                           std::to_string(h) + " x " + std::to_string(w) + " cells)");
}

}  // namespace

Image drawPackedBatch(const PackedLayout& layout, const FeatureMap& ink, int scale) {
  scale = std::max(scale, 1);
  const int bar = kPictureTitleBar, gap = kPicturePanelGap;
  const int panelH = layout.height * scale;
  Image img(3 * (panelH + bar + gap), std::max(layout.width, layout.skewedWidth) * scale, 3, 255);
  const FeatureMap mask = packedMask(layout);
  const Rgb titles[3] = {{30, 110, 220}, {40, 160, 60}, {220, 130, 20}};
  int top = 0;
  for (const Rgb& t : titles) {
    fillRect(img, top, 0, bar, img.width, t);
    top += panelH + bar + gap;
  }
  // Panel 1: the packed batch, outlines and indices.
  paintMap(img, bar, ink, mask, scale, {255, 255, 255});
  const int dot = std::max(2, scale);
  for (const ExamplePlace& p : layout.places) {
    outline(img, bar + p.y * scale, p.x * scale, p.height * scale, p.width * scale, {30, 110, 220});
    drawNumber(img, bar + p.y * scale + 1, p.x * scale + 1, p.index, dot);
  }
  // Panel 2: the mask.
  paintMap(img, 2 * bar + panelH + gap, FeatureMap(layout.height, layout.width, 1), mask, scale,
           {255, 255, 255});
  // Panel 3: the skewed batch, its skewed mask showing where cells are computed for nothing.
  const int third = 3 * bar + 2 * (panelH + gap);
  paintMap(img, third, skew(layout, ink), skew(layout, mask), scale, {255, 240, 210});
  return img;
}

PackedPixel locatePackedPixel(const PackedLayout& layout, int scale, int x, int y) {
  scale = std::max(scale, 1);
  const int panelH = layout.height * scale, step = panelH + kPictureTitleBar + kPicturePanelGap;
  PackedPixel at;
  const int panel = y / step, inside = y % step - kPictureTitleBar;
  if (y < 0 || x < 0 || panel > 2 || inside < 0 || inside >= panelH) return at;
  at.y = inside / scale;
  const int column = x / scale;
  if (column >= (panel == 2 ? layout.skewedWidth : layout.width)) return at;
  for (int r = 0; r < int(layout.rows.size()); ++r)
    if (at.y >= layout.rows[r].top && at.y < layout.rows[r].top + layout.rows[r].height) at.row = r;
  at.panel = panel == 0   ? PackedPixel::Panel::Packed
             : panel == 1 ? PackedPixel::Panel::Mask
                          : PackedPixel::Panel::Skewed;
  // The skewed panel shifts row dy of a row block right by dy: back to packed coordinates (a
  // cell the skew only pads lands outside the row, on no example).
  at.x = panel == 2 && at.row >= 0 ? column - (at.y - layout.rows[at.row].top) : column;
  for (const ExamplePlace& p : layout.places)
    if (at.x >= p.x && at.x < p.x + p.width && at.y >= p.y && at.y < p.y + p.height)
      at.place = p.index;
  return at;
}

int pictureScale(const PackedLayout& layout) {
  const int longest = std::max(layout.height, layout.skewedWidth);
  return longest < 60 ? 8 : longest < 200 ? 3 : 1;
}

ExampleSize sizeAtGrid(const ExampleSize& size, GridDivisor divide) {
  const auto ceilDiv = [](long long n, long long d) { return static_cast<int>((n + d - 1) / d); };
  return {ceilDiv(size.height, divide.y), ceilDiv(size.width, divide.x)};
}

std::vector<ExampleSize> sizesAtGrid(std::span<const ExampleSize> sizes, GridDivisor divide) {
  std::vector<ExampleSize> at;
  at.reserve(sizes.size());
  for (const ExampleSize& size : sizes) at.push_back(sizeAtGrid(size, divide));
  return at;
}

FeatureMap inkAtGrid(const FeatureMap& ink, GridDivisor divide) {
  if (divide == GridDivisor{}) return ink;
  const ExampleSize at = sizeAtGrid({ink.height, ink.width}, divide);
  FeatureMap coarse(at.height, at.width, 1);
  for (int y = 0; y < at.height; ++y)
    for (int x = 0; x < at.width; ++x) {
      const long long y1 = std::min<long long>(ink.height, (y + 1) * divide.y);
      const long long x1 = std::min<long long>(ink.width, (x + 1) * divide.x);
      double sum = 0;
      for (long long v = y * divide.y; v < y1; ++v)
        for (long long u = x * divide.x; u < x1; ++u)
          sum += ink.data[ink.offset(static_cast<int>(v), static_cast<int>(u))];
      const double cells = static_cast<double>((y1 - y * divide.y) * (x1 - x * divide.x));
      coarse.data[coarse.offset(y, x)] = static_cast<float>(sum / cells);
    }
  return coarse;
}

BatchPicture drawSourceBatch(const ExampleSource& source, std::size_t batch, int batchSize,
                             const std::string& packer, int rowWidth, GridDivisor divide) {
  const std::size_t batches = batchCount(source.sizes.size(), batchSize);
  if (batch >= batches)
    throw std::out_of_range("batch " + std::to_string(batch + 1) + " of " +
                            std::to_string(batches));
  BatchPicture picture;
  picture.first = batch * static_cast<std::size_t>(batchSize);
  const std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(batchSize),
                                                  source.sizes.size() - picture.first);
  const std::vector<ExampleSize> sizes =
      sizesAtGrid(std::span<const ExampleSize>(source.sizes.data() + picture.first, count), divide);
  picture.layout = packWith(packer, sizes, rowWidth, static_cast<int>(picture.first));
  picture.scale = pictureScale(picture.layout);
  requirePictureMemory(picture.layout, picture.scale, batch);
  std::vector<FeatureMap> ink = source.ink(picture.first, count);
  for (FeatureMap& example : ink) example = inkAtGrid(example, divide);
  picture.image = drawPackedBatch(picture.layout, pack(picture.layout, ink), picture.scale);
  return picture;
}

}  // namespace rnnwb::packing

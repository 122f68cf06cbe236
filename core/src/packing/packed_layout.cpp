#include "rnnwb/core/packing/packed_layout.hpp"

#include <algorithm>
#include <stdexcept>

namespace rnnwb::packing {
namespace {

std::string exampleName(const ExamplePlace& p) { return "example " + std::to_string(p.index); }

void checkPlaceInRow(const PackedLayout& layout, const ExamplePlace& p) {
  if (p.row < 0 || p.row >= static_cast<int>(layout.rows.size()))
    throw std::invalid_argument(exampleName(p) + ": row " + std::to_string(p.row) +
                                " does not exist");
  const PackedRow& r = layout.rows[p.row];
  if (p.height <= 0 || p.width <= 0)
    throw std::invalid_argument(exampleName(p) + ": empty size " + std::to_string(p.height) +
                                " x " + std::to_string(p.width));
  if (p.y < r.top || p.y + p.height > r.top + r.height || p.x < 0 || p.x + p.width > r.length)
    throw std::invalid_argument(exampleName(p) + " at (x " + std::to_string(p.x) + ", y " +
                                std::to_string(p.y) + ") leaves row block " +
                                std::to_string(p.row));
}

// Examples of one row must keep a separator column between them (the 2-D recurrence relies on it).
void checkSeparatedInRow(std::vector<const ExamplePlace*> inRow) {
  std::sort(inRow.begin(), inRow.end(), [](auto* a, auto* b) { return a->x < b->x; });
  for (std::size_t k = 1; k < inRow.size(); ++k)
    if (inRow[k]->x < inRow[k - 1]->x + inRow[k - 1]->width + kSeparator)
      throw std::invalid_argument(exampleName(*inRow[k]) + " touches or overlaps " +
                                  exampleName(*inRow[k - 1]));
}

}  // namespace

void finishLayout(PackedLayout& layout) {
  layout.height = layout.width = layout.skewedWidth = 0;
  int top = 0;
  for (PackedRow& r : layout.rows) {
    if (r.height <= 0) throw std::invalid_argument("packed layout: a row block of no height");
    r.top = top;
    top += r.height + kSeparator;
    layout.width = std::max(layout.width, r.length);
    layout.skewedWidth = std::max(layout.skewedWidth, r.length + r.height - 1);
  }
  layout.height = layout.rows.empty() ? 0 : top - kSeparator;
  std::vector<std::vector<const ExamplePlace*>> byRow(layout.rows.size());
  for (std::size_t i = 0; i < layout.places.size(); ++i) {
    ExamplePlace& p = layout.places[i];
    if (p.row >= 0 && p.row < static_cast<int>(layout.rows.size())) p.y += layout.rows[p.row].top;
    if (p.index != static_cast<int>(i))
      throw std::invalid_argument("packed layout: place " + std::to_string(i) + " holds " +
                                  exampleName(p));
    checkPlaceInRow(layout, p);
    byRow[p.row].push_back(&p);
  }
  for (auto& inRow : byRow) checkSeparatedInRow(std::move(inRow));
}

int resolveRowWidth(std::span<const ExampleSize> sizes, int rowWidth, int firstIndex) {
  int widest = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const ExampleSize& s = sizes[i];
    const std::string name = "example " + std::to_string(firstIndex + static_cast<int>(i));
    if (s.height <= 0 || s.width <= 0)
      throw std::invalid_argument(name + ": size " + std::to_string(s.height) + " x " +
                                  std::to_string(s.width) + " is empty");
    if (rowWidth > 0 && s.width > rowWidth)
      throw std::invalid_argument(name + " is " + std::to_string(s.width) +
                                  " pixels wide, wider than the row width " +
                                  std::to_string(rowWidth));
    widest = std::max(widest, s.width);
  }
  return rowWidth > 0 ? rowWidth : widest;
}

}  // namespace rnnwb::packing

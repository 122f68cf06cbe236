// The symbolic sequences of the importer (import_values.hpp): units moved by the glue operators.
#include "import_values.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace rnnwb::onnx_import {

namespace {

std::int64_t product(const std::vector<std::int64_t>& dims, std::size_t from, std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < to; ++i) p *= dims[i];
  return p;
}

/// The index among the Known axes of `axis`; throws for the frames and the streams.
std::size_t knownIndex(const Sequence& s, std::int64_t axis) {
  if (s.axes[axis] != Axis::Known)
    throw std::invalid_argument(std::string("it works on the ") +
                                (s.axes[axis] == Axis::Frames ? "frames" : "streams") +
                                " axis of " + s.describe() +
                                ", and a graph computes every frame "
                                "of every stream alike");
  return static_cast<std::size_t>(std::count(s.axes.begin(), s.axes.begin() + axis, Axis::Known));
}

/// The units at `indices` of known axis `k`.
Sequence select(const Sequence& s, std::size_t k, const std::vector<std::int64_t>& indices) {
  const std::int64_t outer = product(s.dims, 0, k), inner = product(s.dims, k + 1, s.dims.size());
  Sequence r = s;
  r.units.clear();
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i : indices)
      for (std::int64_t in = 0; in < inner; ++in)
        r.units.push_back(s.units[(o * s.dims[k] + i) * inner + in]);
  r.dims[k] = static_cast<std::int64_t>(indices.size());
  return r;
}

std::vector<Axis> nonKnown(const std::vector<Axis>& axes) {
  std::vector<Axis> r;
  std::copy_if(axes.begin(), axes.end(), std::back_inserter(r),
               [](Axis a) { return a != Axis::Known; });
  return r;
}

}  // namespace

bool Sequence::isFlat() const {
  return axes == std::vector<Axis>{Axis::Frames, Axis::Streams, Axis::Known};
}

std::string Sequence::describe() const {
  std::string text = "[";
  std::size_t k = 0;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (i > 0) text += ", ";
    text += axes[i] == Axis::Frames    ? "T"
            : axes[i] == Axis::Streams ? "N"
                                       : std::to_string(dims[k++]);
  }
  return text + "]";
}

Sequence flatSequence(std::vector<Unit> units) {
  Sequence s;
  s.axes = {Axis::Frames, Axis::Streams, Axis::Known};
  s.dims = {static_cast<std::int64_t>(units.size())};
  s.units = std::move(units);
  return s;
}

std::int64_t normalizeAxis(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    throw std::invalid_argument("axis " + std::to_string(axis) + " is outside a tensor of rank " +
                                std::to_string(rank));
  return axis < 0 ? axis + r : axis;
}

Sequence transposeSequence(const Sequence& s, const std::vector<std::int64_t>& perm) {
  if (perm.size() != s.axes.size())
    throw std::invalid_argument("its perm has " + std::to_string(perm.size()) + " axes for " +
                                s.describe());
  std::vector<std::size_t> knownOf(s.axes.size());  // axis -> its index among the known ones
  for (std::size_t i = 0, k = 0; i < s.axes.size(); ++i)
    if (s.axes[i] == Axis::Known) knownOf[i] = k++;
  Sequence r;
  std::vector<std::size_t> from;  // new known axis -> old known axis
  for (std::int64_t p : perm) {
    r.axes.push_back(s.axes[normalizeAxis(p, perm.size())]);
    if (r.axes.back() == Axis::Known) from.push_back(knownOf[normalizeAxis(p, perm.size())]);
  }
  for (std::size_t k : from) r.dims.push_back(s.dims[k]);
  std::vector<std::int64_t> oldStride(s.dims.size(), 1);
  for (std::size_t k = s.dims.size(); k-- > 1;) oldStride[k - 1] = oldStride[k] * s.dims[k];
  r.units.resize(s.units.size());
  for (std::size_t flat = 0; flat < r.units.size(); ++flat) {
    std::int64_t rest = static_cast<std::int64_t>(flat), old = 0;
    for (std::size_t k = r.dims.size(); k-- > 0;) {
      old += (rest % r.dims[k]) * oldStride[from[k]];
      rest /= r.dims[k];
    }
    r.units[flat] = s.units[old];
  }
  return r;
}

Sequence squeezeSequence(const Sequence& s, std::vector<std::int64_t> axes) {
  if (axes.empty())
    for (std::size_t i = 0, k = 0; i < s.axes.size(); ++i)
      if (s.axes[i] == Axis::Known && s.dims[k++] == 1) axes.push_back(static_cast<int>(i));
  for (auto& a : axes) a = normalizeAxis(a, s.axes.size());
  Sequence r;
  for (std::size_t i = 0, k = 0; i < s.axes.size(); ++i) {
    const bool squeezed = std::count(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) > 0;
    if (squeezed && (s.axes[i] != Axis::Known || s.dims[k] != 1))
      throw std::invalid_argument("it squeezes axis " + std::to_string(i) + " of " + s.describe() +
                                  ", which is not of size 1");
    if (!squeezed) r.axes.push_back(s.axes[i]);
    if (s.axes[i] == Axis::Known && !squeezed) r.dims.push_back(s.dims[k]);
    if (s.axes[i] == Axis::Known) ++k;
  }
  r.units = s.units;
  return r;
}

Sequence unsqueezeSequence(const Sequence& s, std::vector<std::int64_t> axes) {
  const std::size_t rank = s.axes.size() + axes.size();
  for (auto& a : axes) a = normalizeAxis(a, rank);
  Sequence r;
  for (std::size_t i = 0, from = 0, k = 0; i < rank; ++i) {
    if (std::count(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) > 0) {
      r.axes.push_back(Axis::Known);
      r.dims.push_back(1);
      continue;
    }
    r.axes.push_back(s.axes[from]);
    if (s.axes[from++] == Axis::Known) r.dims.push_back(s.dims[k++]);
  }
  r.units = s.units;
  return r;
}

Sequence reshapeSequence(const Sequence& s, const std::vector<std::int64_t>& shape) {
  // The frames and the streams stay where they are (shape 0: "as the input"); the known axes
  // between them regroup, which keeps the row-major order of the units.
  Sequence r;
  r.units = s.units;
  std::vector<int> segmentOf;  // per output known axis
  int segment = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && i < s.axes.size() && s.axes[i] != Axis::Known) {
      r.axes.push_back(s.axes[i]);
      ++segment;
      continue;
    }
    std::int64_t size = shape[i];
    if (shape[i] == 0) {
      if (i >= s.axes.size()) throw std::invalid_argument("its shape has a 0 past the input");
      size = s.dims[knownIndex(s, static_cast<std::int64_t>(i))];
    }
    r.axes.push_back(Axis::Known);
    r.dims.push_back(size);
    segmentOf.push_back(segment);
  }
  if (nonKnown(r.axes) != nonKnown(s.axes))
    throw std::invalid_argument("it reshapes " + s.describe() +
                                " across the frames or the "
                                "streams (shape entries 0 keep them)");
  std::vector<std::int64_t> inSegment(segment + 1, 1), outSegment(segment + 1, 1);
  for (std::size_t i = 0, k = 0, seg = 0; i < s.axes.size(); ++i)
    s.axes[i] == Axis::Known ? void(inSegment[seg] *= s.dims[k++]) : void(++seg);
  int inferred = -1;
  for (std::size_t k = 0; k < r.dims.size(); ++k) {
    if (r.dims[k] == -1 && inferred < 0)
      inferred = static_cast<int>(k);
    else if (r.dims[k] <= 0)
      throw std::invalid_argument("its shape has a size of " + std::to_string(r.dims[k]));
    else
      outSegment[segmentOf[k]] *= r.dims[k];
  }
  if (inferred >= 0) {
    const int seg = segmentOf[inferred];
    r.dims[inferred] = outSegment[seg] > 0 ? inSegment[seg] / outSegment[seg] : 0;
    outSegment[seg] *= r.dims[inferred];
  }
  if (inSegment != outSegment)
    throw std::invalid_argument("its shape does not fit " + s.describe());
  return r;
}

Sequence concatSequences(const std::vector<Sequence>& parts, std::int64_t axis) {
  const Sequence& first = parts.front();
  axis = normalizeAxis(axis, first.axes.size());
  const std::size_t k = knownIndex(first, axis);
  Sequence r = first;
  r.units.clear();
  r.dims[k] = 0;
  for (const Sequence& p : parts) {
    bool fits = p.axes == first.axes;
    for (std::size_t j = 0; fits && j < p.dims.size(); ++j)
      fits = j == k || p.dims[j] == first.dims[j];
    if (!fits)
      throw std::invalid_argument("it joins " + first.describe() + " and " + p.describe() +
                                  " along axis " + std::to_string(axis));
    r.dims[k] += p.dims[k];
  }
  const std::int64_t outer = product(first.dims, 0, k);
  for (std::int64_t o = 0; o < outer; ++o)
    for (const Sequence& p : parts) {
      const std::int64_t slab = product(p.dims, k, p.dims.size());
      r.units.insert(r.units.end(), p.units.begin() + o * slab, p.units.begin() + (o + 1) * slab);
    }
  return r;
}

Sequence sliceSequence(const Sequence& s, std::int64_t axis, std::int64_t start, std::int64_t end,
                       std::int64_t step) {
  axis = normalizeAxis(axis, s.axes.size());
  const std::size_t k = knownIndex(s, axis);
  const std::int64_t dim = s.dims[k];
  if (step == 0) throw std::invalid_argument("its step is 0");
  auto clampIndex = [&](std::int64_t v) {
    if (v < 0) v += dim;
    return step > 0 ? std::clamp<std::int64_t>(v, 0, dim)
                    : std::clamp<std::int64_t>(v, -1, dim - 1);
  };
  std::vector<std::int64_t> indices;
  for (std::int64_t i = clampIndex(start), e = clampIndex(end); step > 0 ? i < e : i > e; i += step)
    indices.push_back(i);
  return select(s, k, indices);
}

Sequence gatherSequence(const Sequence& s, std::int64_t axis,
                        const std::vector<std::int64_t>& indices, bool scalar) {
  axis = normalizeAxis(axis, s.axes.size());
  const std::size_t k = knownIndex(s, axis);
  std::vector<std::int64_t> at;
  for (std::int64_t i : indices) at.push_back(normalizeAxis(i, s.dims[k]));
  Sequence r = select(s, k, at);
  if (!scalar) return r;
  r.axes.erase(r.axes.begin() + axis);
  r.dims.erase(r.dims.begin() + static_cast<std::ptrdiff_t>(k));
  return r;
}

}  // namespace rnnwb::onnx_import

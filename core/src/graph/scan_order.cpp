#include "rnnwb/core/scan_order.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <tuple>

namespace rnnwb {
namespace {

using Wide = __int128;  // products of delays and σ components of up to 2^32 stay exact

constexpr int kSearchNorm = 64;

long long cross(const DelayVector& a, const DelayVector& b) {
  return static_cast<long long>(a[0]) * b[1] - static_cast<long long>(a[1]) * b[0];
}
long long dot(const DelayVector& a, const DelayVector& b) {
  return static_cast<long long>(a[0]) * b[0] + static_cast<long long>(a[1]) * b[1];
}
int sign(long long v) { return (v > 0) - (v < 0); }

bool scans(long long sx, long long sy, const std::vector<DelayVector>& delays) {
  for (const DelayVector& d : delays)
    if (Wide(sx) * d[0] + Wide(sy) * d[1] < 1) return false;
  return true;
}

// Every σ of norm 1..kSearchNorm, in the canonical order findScanOrder's contract states.
const std::vector<std::array<int, 2>>& candidates() {
  static const std::vector<std::array<int, 2>> all = [] {
    std::vector<std::array<int, 2>> list;
    for (int x = -kSearchNorm; x <= kSearchNorm; ++x)
      for (int y = -kSearchNorm; y <= kSearchNorm; ++y)
        if (x != 0 || y != 0) {
          if (std::abs(x) + std::abs(y) <= kSearchNorm) list.push_back({x, y});
        }
    const auto key = [](const std::array<int, 2>& s) {
      return std::make_tuple(std::abs(s[0]) + std::abs(s[1]), (s[0] != 0) + (s[1] != 0),
                             std::abs(s[1]), s[0] < 0, s[1] < 0);
    };
    std::sort(list.begin(), list.end(),
              [&](const auto& a, const auto& b) { return key(a) < key(b); });
    return list;
  }();
  return all;
}

// Two opposite delays, or three with 0 strictly inside their triangle (Carathéodory: when no
// σ exists, 0 lies in the convex hull of at most three of the delays).
std::vector<int> blockingSet(const std::vector<DelayVector>& d) {
  const int n = static_cast<int>(d.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i)
      if (cross(d[i], d[j]) == 0 && dot(d[i], d[j]) < 0) return {i, j};
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < j; ++i) {
        const int a = sign(cross(d[i], d[j])), b = sign(cross(d[j], d[k])),
                  c = sign(cross(d[k], d[i]));
        if (a != 0 && a == b && b == c) return {i, j, k};
      }
  return {};
}

// A feasible σ from a vertex of {σ : σ · d >= 1}, for delays that admit one but none of small
// norm. The vertex on the lines of d_i and d_j is (d_j.y - d_i.y, d_i.x - d_j.x) / det.
std::vector<long long> vertexSigma(const std::vector<DelayVector>& d) {
  for (std::size_t i = 0; i < d.size(); ++i)
    for (std::size_t j = i + 1; j < d.size(); ++j) {
      const long long det = cross(d[i], d[j]);
      if (det == 0) continue;
      long long sx = static_cast<long long>(d[j][1]) - d[i][1];
      long long sy = static_cast<long long>(d[i][0]) - d[j][0];
      if (det < 0) sx = -sx, sy = -sy;
      const long long g = std::gcd(std::llabs(sx), std::llabs(sy));
      if (g == 0) continue;
      // σ · d >= |det| > 0 for every d at a vertex; after dividing by g it is a positive integer.
      if (scans(sx / g, sy / g, d)) return {sx / g, sy / g};
    }
  return {};
}

const char* direction(long long v) { return v > 0 ? "forward" : "backward"; }

}  // namespace

ScanSearch findScanOrder(const std::vector<DelayVector>& delays, int dimensions) {
  ScanSearch result;
  if (dimensions != 2) {
    int positive = -1, negative = -1;
    for (int i = 0; i < static_cast<int>(delays.size()); ++i) {
      int& first = delays[i][0] > 0 ? positive : negative;
      if (first < 0) first = i;
      if (positive >= 0 && negative >= 0) {
        result.blocking = {std::min(positive, negative), std::max(positive, negative)};
        return result;
      }
    }
    result.sigma = {negative >= 0 ? -1 : 1};
    return result;
  }
  for (const auto& s : candidates())
    if (scans(s[0], s[1], delays)) {
      result.sigma = {s[0], s[1]};
      return result;
    }
  result.blocking = blockingSet(delays);
  if (result.blocking.empty()) result.sigma = vertexSigma(delays);
  return result;
}

bool isForwardInTime(const std::vector<long long>& sigma) {
  return sigma.empty() || sigma == std::vector<long long>{1};
}

std::string formatSigma(const std::vector<long long>& sigma) {
  std::string out = "(";
  for (std::size_t i = 0; i < sigma.size(); ++i) out += (i ? ", " : "") + std::to_string(sigma[i]);
  return out + ")";
}

std::string describeScan(const std::vector<long long>& sigma) {
  if (sigma.size() == 1) return std::string(direction(sigma[0])) + " in time";
  if (sigma.size() != 2) return "no scan order";
  const long long x = sigma[0], y = sigma[1];
  if (y == 0) return std::string("rows at once, x ") + direction(x);
  if (x == 0) return std::string("columns at once, y ") + direction(y);
  const std::string both = std::string("x ") + direction(x) + ", y " + direction(y);
  if (std::llabs(x) == std::llabs(y)) return "diagonal wavefront: " + both;
  return "skewed wavefront σ = " + formatSigma(sigma) + ": " + both;
}

}  // namespace rnnwb

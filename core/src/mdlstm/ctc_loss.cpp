#include "rnnwb/core/mdlstm/ctc_loss.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace rnnwb::mdlstm {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double logAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

std::vector<double> logSoftmax(const std::vector<float>& logits, int frames, int classes) {
  std::vector<double> y(logits.begin(), logits.end());
  for (int t = 0; t < frames; ++t) {
    double* row = y.data() + static_cast<std::ptrdiff_t>(t) * classes;
    const double m = *std::max_element(row, row + classes);
    double sum = 0;
    for (int k = 0; k < classes; ++k) sum += std::exp(row[k] - m);
    const double lse = m + std::log(sum);
    for (int k = 0; k < classes; ++k) row[k] -= lse;
  }
  return y;
}

// May state s be entered from s - 2 (skipping a blank)? Only between different labels.
bool canSkip(const std::vector<int>& ext, int s) {
  return s >= 2 && ext[s] != 0 && ext[s] != ext[s - 2];
}

}  // namespace

CtcResult ctcLoss(const std::vector<float>& logits, int frames, int classes,
                  const std::vector<int>& labels) {
  if (frames <= 0 || classes < 2 || logits.size() != static_cast<std::size_t>(frames) * classes)
    throw std::invalid_argument("ctcLoss: logits are not frames x classes");
  std::vector<int> ext{0};
  for (int l : labels) {
    if (l <= 0 || l >= classes)
      throw std::invalid_argument("ctcLoss: label " + std::to_string(l) + " outside [1, " +
                                  std::to_string(classes) + ")");
    ext.push_back(l);
    ext.push_back(0);
  }
  const int S = static_cast<int>(ext.size());
  const std::vector<double> y = logSoftmax(logits, frames, classes);
  auto ly = [&](int t, int s) { return y[static_cast<std::size_t>(t) * classes + ext[s]]; };
  std::vector<double> alpha(static_cast<std::size_t>(frames) * S, kNegInf), beta = alpha;
  auto a = [&](int t, int s) -> double& { return alpha[static_cast<std::size_t>(t) * S + s]; };
  auto b = [&](int t, int s) -> double& { return beta[static_cast<std::size_t>(t) * S + s]; };
  a(0, 0) = ly(0, 0);
  if (S > 1) a(0, 1) = ly(0, 1);
  for (int t = 1; t < frames; ++t)
    for (int s = 0; s < S; ++s) {
      double v = a(t - 1, s);
      if (s >= 1) v = logAdd(v, a(t - 1, s - 1));
      if (canSkip(ext, s)) v = logAdd(v, a(t - 1, s - 2));
      a(t, s) = v == kNegInf ? kNegInf : v + ly(t, s);
    }
  b(frames - 1, S - 1) = ly(frames - 1, S - 1);
  if (S > 1) b(frames - 1, S - 2) = ly(frames - 1, S - 2);
  for (int t = frames - 2; t >= 0; --t)
    for (int s = 0; s < S; ++s) {
      double v = b(t + 1, s);
      if (s + 1 < S) v = logAdd(v, b(t + 1, s + 1));
      if (s + 2 < S && canSkip(ext, s + 2)) v = logAdd(v, b(t + 1, s + 2));
      b(t, s) = v == kNegInf ? kNegInf : v + ly(t, s);
    }
  double logP = a(frames - 1, S - 1);
  if (S > 1) logP = logAdd(logP, a(frames - 1, S - 2));
  CtcResult r;
  r.gradient.assign(logits.size(), 0.0f);
  if (logP == kNegInf) {
    r.loss = std::numeric_limits<double>::infinity();
    return r;
  }
  r.loss = -logP;
  std::vector<double> gamma(classes);
  for (int t = 0; t < frames; ++t) {
    std::fill(gamma.begin(), gamma.end(), kNegInf);
    for (int s = 0; s < S; ++s) gamma[ext[s]] = logAdd(gamma[ext[s]], a(t, s) + b(t, s));
    for (int k = 0; k < classes; ++k) {
      const double logY = y[static_cast<std::size_t>(t) * classes + k];
      const double occupancy = gamma[k] == kNegInf ? 0.0 : std::exp(gamma[k] - logY - logP);
      r.gradient[static_cast<std::size_t>(t) * classes + k] =
          static_cast<float>(std::exp(logY) - occupancy);
    }
  }
  return r;
}

std::vector<int> ctcGreedyDecode(const std::vector<float>& logits, int frames, int classes) {
  std::vector<int> out;
  int previous = 0;
  for (int t = 0; t < frames; ++t) {
    const float* row = logits.data() + static_cast<std::ptrdiff_t>(t) * classes;
    const int best = static_cast<int>(std::max_element(row, row + classes) - row);
    if (best != 0 && best != previous) out.push_back(best);
    previous = best;
  }
  return out;
}

int editDistance(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace rnnwb::mdlstm

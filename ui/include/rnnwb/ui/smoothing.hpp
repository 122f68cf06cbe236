#pragma once
// TensorBoard's smoothing of scalar curves, so that a curve here reads as it would there: an
// exponential moving average with weight w in [0, 1), debiased as Adam debiases its moments (the
// first points are not pulled towards 0). Non-finite values pass through unsmoothed and do not
// enter the average; a constant series is left as it is (TensorBoard's rule).
#include <vector>

namespace rnnwb::ui {

/// The smoothed values, one per input value (TensorBoard's resmoothDataset).
std::vector<double> smoothedValues(const std::vector<double>& values, double weight);

}  // namespace rnnwb::ui

// The median and quartiles of a sample, for the benchmark tools that judge
// rounds of timings: the element a fraction q of the way through the sorted
// sample, at index q * size (the median: the upper middle element for an even
// count).
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace ridge_bench {

inline double quantile(std::vector<double> v, double q) {
    const auto at = v.begin() + std::ptrdiff_t(q * double(v.size()));
    std::nth_element(v.begin(), at, v.end());
    return *at;
}

inline double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

}  // namespace ridge_bench

// The median of a sample (the upper middle element for an even count), for the
// benchmark tools that judge rounds of timings.
#pragma once

#include <algorithm>
#include <vector>

namespace ridge_bench {

inline double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

}  // namespace ridge_bench

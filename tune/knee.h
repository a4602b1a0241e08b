// Where a read-bandwidth sweep's plateau ends: the size ridge-tune takes for a
// cache level that hwloc misreports.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ridge_tune {

// One point of the sweep: one thread reading a buffer of `bytes` over and over.
struct BandwidthPoint {
    int64_t bytes = 0;
    double gbps = 0;  // median of the repetitions
};

// A plateau ends where the bandwidth falls below this share of it: a cache
// level's edge halves the bandwidth or worse on x86 cores (L2 -> L3 -> DRAM),
// while noise on a shared VM moves single points by 10-20%.
constexpr double kKneeFraction = 0.75;

// The knee of the sweep after `start_bytes`: the largest size before the first
// point that falls below 75% of the plateau beginning there (the median of its
// first three points) and stays below at the next point too. A cache's edge
// lowers every size beyond it, while one slow point is the host: on the Xeon
// VM a sweep with L3 at 24-28 GB/s read 20.1 GB/s once at 23 MiB and 25.1 at
// 32 MiB, and a single-point rule put the L3 knee at 16 MiB where the other
// sweeps on that machine found 64-181 MiB. A drop at the sweep's last point
// counts on its own. 0 when no drop follows the plateau.
inline int64_t knee_after(const std::vector<BandwidthPoint>& sweep, int64_t start_bytes) {
    size_t first = 0;
    while (first < sweep.size() && sweep[first].bytes < start_bytes) ++first;
    if (sweep.size() - first < 4) return 0;
    double head[3] = {sweep[first].gbps, sweep[first + 1].gbps, sweep[first + 2].gbps};
    std::sort(head, head + 3);
    const double floor_gbps = kKneeFraction * head[1];
    for (size_t i = first; i < sweep.size(); ++i) {
        const bool below = sweep[i].gbps < floor_gbps;
        const bool next_below = i + 1 == sweep.size() || sweep[i + 1].gbps < floor_gbps;
        if (below && next_below) return i == first ? 0 : sweep[i - 1].bytes;
    }
    return 0;
}

// Two sweeps over the same sizes as one: each size's faster reading. Other
// tenants of a shared host only ever slow a reading down, and a slow stretch
// lasting a second or two (the Xeon VM's L3 plateau read 17.6-30.4 GB/s in one
// sweep, its knee then at 16 MiB against 64-181 MiB in the others) rarely hits
// the same size in both sweeps. Sizes missing from `second` keep `first`'s.
inline std::vector<BandwidthPoint> faster_per_size(std::vector<BandwidthPoint> first,
                                                   const std::vector<BandwidthPoint>& second) {
    for (size_t i = 0; i < first.size() && i < second.size(); ++i)
        if (first[i].bytes == second[i].bytes) first[i].gbps = std::max(first[i].gbps, second[i].gbps);
    return first;
}

}  // namespace ridge_tune

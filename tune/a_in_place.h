// ridge-tune's step for the blocked path's block of A read in place
// (blocked_schedule.cpp: reads_a_in_place): whether reading it where the caller
// keeps it beats packing it on this machine. It did on the Zen 4 (1-6%) and
// lost on the Intel VM (5-30%), so the library leaves it off unless a
// profile says otherwise (RuntimeConfig::blocked_a_in_place).
#pragma once

#include <string>
#include <vector>

#include "gemm/gemm.h"

namespace ridge_tune {

struct AInPlaceChoice {
    int in_place = -1;               // the profile's blocked_path.a_in_place: 1 yes, 0 no; -1 not measured
    std::vector<std::string> lines;  // what was measured, for the log and the profile
};

// The rows of A (= lda) the step times: at most 512 (the Zen 4's measurements,
// two thirds of its MC of 768), and the largest lda the rule takes (two thirds
// of MC, in whole MR panels), where its columns lie furthest apart and it
// loses first. On the Intel VMs (MC 1792: lda up to 1194) it lost at 1024^3 by
// 11-14% where 512 rows showed less; timed at 512 rows only, a tuner run on a
// loaded host turned it on. Both 0 where MC holds no panel at two thirds.
struct AInPlaceRows {
    int64_t fewer = 0, largest = 0;
};
inline AInPlaceRows a_in_place_rows(int64_t mc, int64_t mr) {
    constexpr int64_t kZen4Rows = 512;
    const int64_t largest = 2 * mc / 3 / mr * mr;
    if (largest < mr) return {};
    return {largest < kZen4Rows ? largest : kZen4Rows, largest};
}

// fp32 on `kernel` with `blocking`, one thread, the blocked path's order for
// one block of A: A read in place against A packed, interleaved call by call
// over `rounds` rounds, on two shapes, one at each of a_in_place_rows. In
// place is chosen where its paired speed-up, the geometric mean over the
// shapes, is at least 1% twice over (rule_pays). Not measured for a kernel
// without the small kernel the in-place block runs on.
AInPlaceChoice search_a_in_place(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking, int rounds);

}  // namespace ridge_tune

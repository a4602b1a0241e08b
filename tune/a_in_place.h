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

// fp32 on `kernel` with `blocking`, one thread, the blocked path's order for
// one block of A (m = lda up to two thirds of MC, at most 512): A read in
// place against A packed, interleaved call by call over `rounds` rounds, on
// two shapes. In place is chosen where its paired speed-up, the geometric mean
// over the shapes, is at least 1% (rule_pays). Not measured for a kernel without
// the small kernel the in-place block runs on.
AInPlaceChoice search_a_in_place(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking, int rounds);

}  // namespace ridge_tune

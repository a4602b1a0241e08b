// ridge-tune's step for the blocked path with A from memory and few columns
// of C (paths.cpp: a_rows_within_cache): whether the first micro-panel's
// tiles packing each block of A as they compute (the packing kernel,
// blocked_schedule.cpp: packs_a_in_first_micro_panel) beat the packing pass
// before them on this machine, at a stride of a multiple of 4 KiB (elsewhere
// the pass runs 1.1x as fast and the twin gained nothing). It did on the Zen
// 4 VM (4096 x 80 / 96 / 128 x 4096: 1.04-1.07) and lost on the Intel VM
// (8192 x 256 x 4096: 0.98), so the library leaves it off unless a profile
// says otherwise (RuntimeConfig::blocked_a_packed_while_computing_from_memory).
#pragma once

#include <string>
#include <vector>

#include "gemm/gemm.h"

namespace ridge_tune {

struct APackedWhileComputingChoice {
    // The profile's blocked_path.a_packed_while_computing_from_memory: 1 yes, 0 no; -1 not measured.
    int from_memory = -1;
    std::vector<std::string> lines;  // what was measured, for the log and the profile
};

// fp32 on `kernel` with `blocking`, one thread, A of k = 4096 and more rows
// than the last-level cache holds, a multiple of 1024 (A's leading
// dimension): A packed by the first micro-panel against the packing pass,
// interleaved call by call over `rounds` rounds, at two widths of C within
// the rule's limit, each with A off and on a cache line. Chosen where its
// paired speed-up, the geometric mean over the shapes, is at least 1%
// (rule_pays).
APackedWhileComputingChoice search_a_packed_while_computing(const ridge::GemmKernel& kernel,
                                                            const ridge::BlockingParams& blocking, int rounds);

}  // namespace ridge_tune

// ridge-tune's step for the blocked path's one block of A (blocked_schedule.cpp:
// packs_all_rows_as_one_block): whether one thread packing all of a KC step's
// op(A) as one block in L3, the k steps outside jc (oneDNN's order), beats the
// five loops' blocks of MC rows on this machine. It did on the Zen 4 VM
// (1024^3 1.007-1.028, 2048^3 1.021-1.023) and lost on the Zen 5 VM (1024^3
// 0.97-0.99; 1536^3-2560^3 0.97-0.98 in an experiment build given the L3
// this step's sweep measures there), so the library keeps it on unless a
// profile says otherwise (RuntimeConfig::blocked_one_block_of_a). The rows it
// applies to come from the library's own L3 (machine_topology: hwloc's, or
// the fallback where hwloc's is rejected), as do the rows timed here: on the
// Zen 5 VM the fallback admits 1024 rows, below the floor, so neither runs it.
#pragma once

#include <string>
#include <vector>

#include "gemm/gemm.h"

namespace ridge_tune {

struct OneBlockOfAChoice {
    int one_block = -1;              // the profile's blocked_path.one_block_of_a: 1 yes, 0 no; -1 not measured
    std::vector<std::string> lines;  // what was measured, for the log and the profile
};

// fp32 on `kernel` with `blocking`, one thread, m x m x min(m, 1024) with m the
// rows the library packs as one block (at most 2048): the five loops' blocks
// against the one block, interleaved call by call over `rounds` rounds, A
// off and on a cache line. The five loops are chosen where their paired
// speed-up, the geometric mean over the shapes, is at least 1% (rule_pays);
// not measured where one block of the library's rows is no more than MC.
OneBlockOfAChoice search_one_block_of_a(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking,
                                        int rounds);

}  // namespace ridge_tune

// ridge-tune's step for the blocked path's loop order with A from memory
// (blocked_schedule.cpp: runs_ir_outside_jr): whether running each block's ir
// loop outside its jr loop (A packed panel by panel, each against the whole
// B panel) beats the five loops' order on this machine. It did on the Zen
// VMs (2-7%) and lost on the Intel VM (4-22%), so the library leaves it off
// unless a profile says otherwise (RuntimeConfig::blocked_ir_outside_jr).
#pragma once

#include <string>
#include <vector>

#include "gemm/gemm.h"

namespace ridge_tune {

struct IrOutsideJrChoice {
    int ir_outside = -1;             // the profile's blocked_path.ir_outside_jr: 1 yes, 0 no; -1 not measured
    std::vector<std::string> lines;  // what was measured, for the log and the profile
};

// fp32 on `kernel` with `blocking`, one thread, A of k = 4096 and more rows
// than the library packs as one block (so that it runs blocks of MC rows):
// the ir loop outside jr against inside, interleaved call by call over
// `rounds` rounds, on two B widths within the order's panel limit. Outside is
// chosen where its paired speed-up, the geometric mean over the shapes, is at
// least 1% (rule_pays).
IrOutsideJrChoice search_ir_outside_jr(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking,
                                       int rounds);

}  // namespace ridge_tune

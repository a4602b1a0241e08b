// What the blocked driver (gemm_blocked.cpp) takes from its schedule rules
// (blocked_schedule.cpp): the Schedule every thread of a team runs the loops
// by, and make_schedule, which decides it.
#pragma once

#include <cstdint>

#include "gemm/gemm.h"

namespace ridge {

// How the team of threads divides the work; the same for every thread.
struct Schedule {
    int threads = 1;
    int ic_ways = 1;  // groups of threads, each with its own block of A
    int jr_ways = 1;  // threads within a group, splitting the NR panels of the block
    int64_t mc = 0;   // rows per block of A (a multiple of MR, at most MC but for packs_all_rows_as_one_block)
    int64_t blocks_per_group = 0;
    int64_t kc_max = 0, nc_max = 0;
    int64_t nc_bound = 0;  // the NC nc_max comes from: the plan's, or L2's (runs_k_steps_outside_jc)
    bool b_per_micro_panel = false;  // see packs_b_per_micro_panel
    bool first_tile_reads_b = false;  // see first_tile_reads_b_source
    bool all_tiles_read_b = false;    // see all_tiles_read_b_source
    bool tiles_read_b_from_l2 = false;  // see all_tiles_read_b_from_l2
    bool first_tile_packs_b = false;  // see packs_b_in_first_tile
    bool k_steps_outside_jc = false;  // see runs_k_steps_outside_jc
    bool a_in_place = false;          // see reads_a_in_place
    bool ir_outside_jr = false;       // see runs_ir_outside_jr
    bool a_packed_by_first_micro_panel = false;  // see packs_a_in_first_micro_panel
    int64_t prefetch_c_below_kc = 0;  // see next_tile_of_c_prefetched_below_kc (0: never)
    int64_t tiles_in_one_call_below_kc = 0;  // see runs_tiles_in_one_call_below_kc (0: never)
};

// The schedule of g for a team of `threads` (1: one thread, alone or a team's slice).
Schedule make_schedule(const GemmArgs& g, const GemmPlan& plan, int threads);

}  // namespace ridge

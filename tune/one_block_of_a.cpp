#include "one_block_of_a.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "dispatch/dispatch.h"
#include "timing.h"

namespace ridge_tune {
namespace {

// The shapes' rows at most (2048^3 on one thread: about 45 ms a call at the
// FMA peak of these VMs), and their depth at most: several KC steps, so that
// the order of the k steps matters, without timing a large m for long.
constexpr int64_t kMaxRows = 2048;
constexpr int64_t kMaxDepth = 1024;

}  // namespace

OneBlockOfAChoice search_one_block_of_a(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking,
                                        int rounds) {
    OneBlockOfAChoice out;
    if (kernel.input != ridge::Dtype::f32) return out;
    const ridge::BlockingParams model = blocked_plan(kernel, blocking).blocking;  // MR and NR filled in
    const int64_t m = std::min(ridge::a_rows_in_l3(model, kernel), kMaxRows) / kernel.MR * kernel.MR;
    if (m <= model.MC) return out;  // one block of MC rows either way
    const int64_t floor_rows = ridge::a_rows_past_l2(model, kernel);
    if (m < floor_rows) {  // the library runs blocks of MC rows there whatever the profile says
        out.lines.push_back("blocked path: one block of all rows not measured: the L3 used here admits " +
                            std::to_string(m) + " rows, below the " + std::to_string(floor_rows) +
                            " whose block overflows L2 by half");
        return out;
    }
    const int64_t k = std::min(m, kMaxDepth);
    // The library's plan for the call, with and without the rule: the
    // dispatcher's (B within L2, C outgrowing the cache, ...), as the calls
    // the rule applies to get it. Its limit from the call's own blocking (a
    // k within two KC steps can become one step: blocked_path_blocking).
    Problem problem(ridge::Dtype::f32, m, m, k);
    ridge::GemmPlan one_block = dispatched_blocked_plan(kernel, blocking, 1, problem);
    one_block.a_rows_in_l3 = ridge::a_rows_in_l3(one_block.blocking, kernel);
    one_block.a_rows_past_l2 = ridge::a_rows_past_l2(one_block.blocking, kernel);
    if (m <= one_block.blocking.MC || m < one_block.a_rows_past_l2 || m > one_block.a_rows_in_l3)
        return out;  // the call would not run the order
    ridge::GemmPlan five_loops = one_block;
    five_loops.a_rows_in_l3 = 0;
    const std::vector<RuleShape> shapes = {{m, m, k, Placement::off_line}, {m, m, k, Placement::on_line}};
    const bool pays = rule_pays(one_block, five_loops, shapes, rounds, "blocks of MC rows",
                                "one block of all rows", &out.lines);
    out.one_block = pays ? 0 : 1;
    return out;
}

}  // namespace ridge_tune

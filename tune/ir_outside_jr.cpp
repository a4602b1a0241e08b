#include "ir_outside_jr.h"

#include <algorithm>

#include "dispatch/dispatch.h"
#include "timing.h"

namespace ridge_tune {
namespace {

// Depth of the shapes: several KC steps, and with the rows below an A of
// 64 MiB or more (kRuleMinABytesFromMemory): past the last-level cache the
// library sees, so a_from_memory holds there as it does for the calls the
// rule would run.
constexpr int64_t kDepth = 4096;

}  // namespace

IrOutsideJrChoice search_ir_outside_jr(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking,
                                       int rounds) {
    IrOutsideJrChoice out;
    if (kernel.input != ridge::Dtype::f32) return out;
    ridge::GemmPlan inside = blocked_plan(kernel, blocking);
    const int64_t limit = ridge::b_panel_columns_for_ir_outside_jr(inside.blocking, kernel);
    // More rows than one block in L3 (packs_all_rows_as_one_block) and than
    // one block of MC: the order's own territory, blocks of A from memory.
    const int64_t rows = std::max<int64_t>(inside.a_rows_in_l3, inside.blocking.MC);
    // And A from memory on any machine measured.
    const int64_t from_memory_rows = int64_t(kRuleMinABytesFromMemory / (4.0 * double(kDepth)));
    const int64_t m = (std::max(2 * rows, from_memory_rows) + kernel.MR - 1) / kernel.MR * kernel.MR;
    inside.a_from_memory = true;
    inside.a_rows_within_cache = 0;  // the packing pass, not the first micro-panel packing A (which takes precedence)
    inside.b_panel_columns_for_ir_outside_jr = 0;
    ridge::GemmPlan outside = inside;
    outside.b_panel_columns_for_ir_outside_jr = limit;
    const std::vector<RuleShape> shapes = {{m, std::min<int64_t>(limit, 192), kDepth},
                                           {m, std::min<int64_t>(limit, 96), kDepth}};
    const bool pays = rule_pays(inside, outside, shapes, rounds, "ir loop outside jr", "ir loop inside jr", &out.lines);
    out.ir_outside = pays ? 1 : 0;
    return out;
}

}  // namespace ridge_tune

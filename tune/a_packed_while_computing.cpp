#include "a_packed_while_computing.h"

#include <algorithm>
#include <cstdint>

#include "dispatch/dispatch.h"
#include "timing.h"

namespace ridge_tune {
namespace {

// Depth and rows as search_ir_outside_jr's (ir_outside_jr.cpp): several KC
// steps, and an A past the last-level cache the library sees.
constexpr int64_t kDepth = 4096;
// Two widths of C within the library's limit for the rule (paths.cpp:
// kTwinFromMemoryMaxColumns, 256): 8 and 16 micro-panels of 12 columns.
constexpr int64_t kNarrow = 96, kWide = 192;
constexpr int64_t kColumnRows = 1024;  // fp32: 4 KiB

}  // namespace

APackedWhileComputingChoice search_a_packed_while_computing(const ridge::GemmKernel& kernel,
                                                            const ridge::BlockingParams& blocking, int rounds) {
    APackedWhileComputingChoice out;
    if (kernel.input != ridge::Dtype::f32 || kernel.ukr_packing_a == nullptr) return out;
    ridge::GemmPlan pass = blocked_plan(kernel, blocking);
    const int64_t rows = std::max<int64_t>(pass.a_rows_in_l3, pass.blocking.MC);
    // Rows (A's leading dimension) a multiple of 1024: its columns 4 KiB
    // apart, the only stride the library applies the rule at (paths.cpp).
    const int64_t m = (2 * rows + kColumnRows - 1) / kColumnRows * kColumnRows;
    pass.a_from_memory = true;
    pass.a_rows_within_cache = 0;  // the packing pass for every block
    ridge::GemmPlan while_computing = pass;
    while_computing.a_rows_within_cache = m;  // all rows: the first micro-panel packs every block
    const std::vector<std::vector<int64_t>> shapes = {{m, kNarrow, kDepth}, {m, kWide, kDepth}};
    const bool pays = rule_pays(pass, while_computing, shapes, rounds, "A packed while computing",
                                "A packed in a pass", &out.lines);
    out.from_memory = pays ? 1 : 0;
    return out;
}

}  // namespace ridge_tune

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
    const int64_t from_memory_rows = int64_t(kRuleMinABytesFromMemory / (4.0 * double(kDepth)));
    const int64_t m = (std::max(2 * rows, from_memory_rows) + kColumnRows - 1) / kColumnRows * kColumnRows;
    pass.a_from_memory = true;
    pass.a_rows_within_cache = 0;  // the packing pass for every block
    // Not the ir loop outside jr, which a profile from an earlier run may have
    // turned on: the first plan would run that order rather than the packing
    // pass the rule replaces.
    pass.b_panel_columns_for_ir_outside_jr = 0;
    ridge::GemmPlan while_computing = pass;
    while_computing.a_rows_within_cache = m;  // all rows: the first micro-panel packs every block
    // Each width with A 16 bytes past a cache line (where glibc's malloc puts
    // a large block) and on a line (where a caller that aligns its matrices
    // has it). The twin reads A's columns as the kernel computes, in 128-byte
    // runs of three lines off-line and two on a line, and gains more on a line:
    // on the Zen 5 VM 1.01-1.04x of the pass off-line and 1.03-1.06x on a line,
    // where it had been 0.98-0.99x off-line before the twin prefetched all
    // three lines. The step had left the placement to malloc (16 bytes past a
    // line for a fresh 64 MiB block, anywhere on 16 bytes once freed blocks
    // raise glibc's mmap threshold): its verdict went from 0.99 to 1.06 from
    // run to run on the Zen 5 VM.
    const std::vector<RuleShape> shapes = {{m, kNarrow, kDepth, Placement::off_line},
                                           {m, kNarrow, kDepth, Placement::on_line},
                                           {m, kWide, kDepth, Placement::off_line},
                                           {m, kWide, kDepth, Placement::on_line}};
    const bool pays = rule_pays(pass, while_computing, shapes, rounds, "A packed while computing",
                                "A packed in a pass", &out.lines);
    out.from_memory = pays ? 1 : 0;
    return out;
}

}  // namespace ridge_tune

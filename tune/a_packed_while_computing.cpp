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
// At least this much of A (fp32, k = kDepth: 4096 rows), so that it comes
// from memory on any machine measured (32 MiB of L3 per CCD on the Zen VMs).
// The library's own L3 while it is being tuned can be the 4 MiB fallback (the
// Zen 5 VM's hwloc figure is rejected; the measured one reaches the library
// through the profile this run writes): rows from that alone timed the rule
// at 1024 and 2048 rows (A of 16 and 32 MiB, within the real L3).
constexpr double kMinABytes = 64.0 * 1024 * 1024;

}  // namespace

APackedWhileComputingChoice search_a_packed_while_computing(const ridge::GemmKernel& kernel,
                                                            const ridge::BlockingParams& blocking, int rounds) {
    APackedWhileComputingChoice out;
    if (kernel.input != ridge::Dtype::f32 || kernel.ukr_packing_a == nullptr) return out;
    ridge::GemmPlan pass = blocked_plan(kernel, blocking);
    const int64_t rows = std::max<int64_t>(pass.a_rows_in_l3, pass.blocking.MC);
    // Rows (A's leading dimension) a multiple of 1024: its columns 4 KiB
    // apart, the only stride the library applies the rule at (paths.cpp).
    const int64_t from_memory_rows = int64_t(kMinABytes / (4.0 * double(kDepth)));
    const int64_t m = (std::max(2 * rows, from_memory_rows) + kColumnRows - 1) / kColumnRows * kColumnRows;
    pass.a_from_memory = true;
    pass.a_rows_within_cache = 0;  // the packing pass for every block
    // Not the ir loop outside jr, which a profile from an earlier run may have
    // turned on: the first plan would run that order rather than the packing
    // pass the rule replaces. (On the Zen 5 this step still reads 0.99-1.06
    // from run to run where the library's calls gain 5-8% with the rule: README,
    // "Where op(A) fits L2"; not understood yet.)
    pass.b_panel_columns_for_ir_outside_jr = 0;
    ridge::GemmPlan while_computing = pass;
    while_computing.a_rows_within_cache = m;  // all rows: the first micro-panel packs every block
    const std::vector<std::vector<int64_t>> shapes = {{m, kNarrow, kDepth}, {m, kWide, kDepth}};
    const bool pays = rule_pays(pass, while_computing, shapes, rounds, "A packed while computing",
                                "A packed in a pass", &out.lines);
    out.from_memory = pays ? 1 : 0;
    return out;
}

}  // namespace ridge_tune

#include "a_in_place.h"

#include <algorithm>

#include "timing.h"

namespace ridge_tune {
namespace {

// Rows of A (and its leading dimension): the Zen 4's measurements were at
// 512 rows (two thirds of its MC of 768), the rule's largest lda there.
constexpr int64_t kMaxRows = 512;

}  // namespace

AInPlaceChoice search_a_in_place(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking, int rounds) {
    AInPlaceChoice out;
    if (kernel.input != ridge::Dtype::f32 || kernel.small_f32 == nullptr || kernel.small_kernel_max_volume != 0 ||
        kernel.packed_bytes != 4)
        return out;
    const int64_t m = std::min(kMaxRows, 2 * blocking.MC / 3 / kernel.MR * kernel.MR);
    if (m < kernel.MR) return out;
    ridge::GemmPlan packed = blocked_plan(kernel, blocking);
    packed.a_in_place_max_lda = 0;
    ridge::GemmPlan in_place = packed;
    in_place.a_in_place_max_lda = m;
    // Two B widths at k = 2048 (several KC steps): a C past L2 either way, so
    // that the dispatcher would run these on the blocked path.
    const bool pays = rule_pays(packed, in_place, {{m, 2048, 2048}, {m, 1024, 2048}}, rounds, "A read in place",
                                "A packed", &out.lines);
    out.in_place = pays ? 1 : 0;
    return out;
}

}  // namespace ridge_tune

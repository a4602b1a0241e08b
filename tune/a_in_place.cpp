#include "a_in_place.h"

#include "timing.h"

namespace ridge_tune {

AInPlaceChoice search_a_in_place(const ridge::GemmKernel& kernel, const ridge::BlockingParams& blocking, int rounds) {
    AInPlaceChoice out;
    if (kernel.input != ridge::Dtype::f32 || kernel.small_f32 == nullptr || kernel.small_kernel_max_volume != 0 ||
        kernel.packed_bytes != 4)
        return out;
    const AInPlaceRows rows = a_in_place_rows(blocking.MC, kernel.MR);
    if (rows.largest == 0) return out;
    ridge::GemmPlan packed = blocked_plan(kernel, blocking);
    packed.a_in_place_max_lda = 0;
    ridge::GemmPlan in_place = packed;
    in_place.a_in_place_max_lda = rows.largest;
    // Two B widths at k = 2048 (several KC steps): a C past L2 either way, so
    // that the dispatcher would run these on the blocked path.
    const bool pays = rule_pays(packed, in_place, {{rows.fewer, 2048, 2048}, {rows.largest, 1024, 2048}}, rounds,
                                "A read in place", "A packed", &out.lines);
    out.in_place = pays ? 1 : 0;
    return out;
}

}  // namespace ridge_tune

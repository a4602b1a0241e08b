// Bytes a GEMM schedule moved across each level of the memory hierarchy,
// counted by the driver as it runs (lib/gemm), read by the report (report.cpp).
#pragma once

#include <cstdint>

namespace ridge {

struct Traffic {
    double memory = 0;    // between memory and the caches: operands read by packing or
                          // in place, C read and written once per KC block
    double l3_to_l2 = 0;  // passes of the packed B panel into L2 (once per block of A)
    double l2_to_l1 = 0;  // passes of the packed A block into L1 (once per B micro-panel),
                          // plus each B micro-panel once
    // Not bytes: the NC the blocked schedule bounded its B panels by (the plan's,
    // or one sized for L2 where the k steps run outside jc), for the report; 0: none ran.
    int64_t b_panel_nc = 0;
    Traffic& operator+=(const Traffic& o) {
        memory += o.memory;
        l3_to_l2 += o.l3_to_l2;
        l2_to_l1 += o.l2_to_l1;
        b_panel_nc = b_panel_nc > o.b_panel_nc ? b_panel_nc : o.b_panel_nc;
        return *this;
    }
};

}  // namespace ridge

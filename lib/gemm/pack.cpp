// Block packing: which panel goes where. The copying itself is the kernel's
// PackPanelF32 (lib/kernels), so each ISA packs with its own instructions.
#include "gemm/pack.h"

#include <algorithm>

namespace ridge {

MatrixView offset(MatrixView x, int64_t row, int64_t col) {
    const int64_t shift = x.trans ? col + row * x.ld : row + col * x.ld;
    return {x.data + shift, x.ld, x.trans};
}

// Untransposed A is packed kChunkA k steps at a time across all its panels,
// not panel by panel over all of kc: a panel by itself reads MR rows of kc
// columns that lie ld apart (one page each for large ld), which the hardware
// prefetchers cannot follow; chunk by chunk, every column of the block is read
// as one sequential run. Transposed, each row is contiguous along k, and whole
// panels (a few long sequential runs) are the prefetch-friendly order.
constexpr int64_t kChunkA = 16;

void pack_a_f32_panels(PackPanelF32 pack, MatrixView a, int64_t mc, int64_t kc, int64_t MR,
                       int64_t first_panel, int64_t last_panel, float* dst) {
    const int64_t chunk = a.trans ? kc : kChunkA;
    for (int64_t p0 = 0; p0 < kc; p0 += chunk) {
        const int64_t steps = std::min(chunk, kc - p0);
        for (int64_t panel = first_panel; panel < last_panel; ++panel) {
            const int64_t row = panel * MR;
            const MatrixView p = offset(a, row, p0);
            // op(A)(i, k) is a[i + k*ld] without transpose: a k step is a run of rows.
            pack(p.data, p.ld, !p.trans, std::min(MR, mc - row), steps, MR,
                 dst + panel * MR * panel_depth(kc) + p0 * MR);
        }
    }
}

void pack_b_f32_panels(PackPanelF32 pack, MatrixView b, int64_t kc, int64_t nc, int64_t NR,
                       int64_t first_panel, int64_t last_panel, float* dst) {
    for (int64_t panel = first_panel; panel < last_panel; ++panel) {
        const int64_t col = panel * NR;
        const MatrixView p = offset(b, 0, col);
        // The panel is op(B)^T: its rows are columns of op(B), contiguous along k
        // unless B is transposed, when a k step (a row of op(B)) is the contiguous run.
        pack(p.data, p.ld, p.trans, std::min(NR, nc - col), kc, NR, dst + panel * NR * panel_depth(kc));
    }
}

}  // namespace ridge

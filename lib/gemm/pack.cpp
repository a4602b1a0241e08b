// Block packing: which panel goes where. The copying itself is the kernel's
// PackPanel (lib/kernels), so each ISA and input type packs with its own instructions.
#include "gemm/pack.h"

#include <algorithm>

namespace ridge {
namespace {

// Untransposed A is packed kChunkA k steps at a time across all its panels,
// not panel by panel over all of kc: a panel by itself reads MR rows of kc
// columns that lie ld apart (one page each for large ld), which the hardware
// prefetchers cannot follow; chunk by chunk, every column of the block is read
// as one sequential run. Transposed, each row is contiguous along k, and whole
// panels (a few long sequential runs) are the prefetch-friendly order.
// 32 is a whole number of K-pairs and of 64-byte packed rows for every kernel.
constexpr int64_t kChunkA = 32;

char* at(void* base, int64_t bytes) { return static_cast<char*>(base) + bytes; }

}  // namespace

MatrixView offset(MatrixView x, int64_t row, int64_t col) {
    const int64_t shift = x.trans ? col + row * x.ld : row + col * x.ld;
    return {static_cast<const char*>(x.data) + shift * x.elem_bytes, x.ld, x.trans, x.elem_bytes};
}

void pack_a_panels(PackPanel pack, int64_t packed_bytes, MatrixView a, int64_t mc, int64_t kc,
                   int64_t MR, int64_t first_panel, int64_t last_panel, void* dst) {
    const int64_t stride = panel_bytes(MR, kc, packed_bytes);
    const int64_t chunk = a.trans ? kc : kChunkA;
    for (int64_t p0 = 0; p0 < kc; p0 += chunk) {
        const int64_t steps = std::min(chunk, kc - p0);
        for (int64_t panel = first_panel; panel < last_panel; ++panel) {
            const int64_t row = panel * MR;
            const MatrixView p = offset(a, row, p0);
            // op(A)(i, k) is a[i + k*ld] without transpose: a k step is a run of rows.
            // p0 is a multiple of every k group, so the chunk starts a whole packed row.
            pack(p.data, p.ld, !p.trans, std::min(MR, mc - row), steps, MR,
                 at(dst, panel * stride + p0 * MR * packed_bytes));
        }
    }
}

void pack_b_panels(PackPanel pack, int64_t packed_bytes, MatrixView b, int64_t kc, int64_t nc,
                   int64_t NR, int64_t first_panel, int64_t last_panel, void* dst) {
    const int64_t stride = panel_bytes(NR, kc, packed_bytes);
    for (int64_t panel = first_panel; panel < last_panel; ++panel) {
        const int64_t col = panel * NR;
        const MatrixView p = offset(b, 0, col);
        // The panel is op(B)^T: its rows are columns of op(B), contiguous along k
        // unless B is transposed, when a k step (a row of op(B)) is the contiguous run.
        pack(p.data, p.ld, p.trans, std::min(NR, nc - col), kc, NR, at(dst, panel * stride));
    }
}

}  // namespace ridge

// Packing of blocks: splits a block of op(A) or op(B) into the micro-panels
// the microkernel reads, each packed by the kernel's own panel routine.
#pragma once

#include <cstdint>

#include "kernels/gemm_kernel.h"

namespace ridge {

// A view of op(X) for a column-major X of `elem_bytes`-byte elements:
// element (i, j) of op(X) is x[i + j*ld] when !trans, x[j + i*ld] when trans.
struct MatrixView {
    const void* data;
    int64_t ld;
    bool trans;
    int64_t elem_bytes;
};

// The view moved to element (row, col) of op(X).
MatrixView offset(MatrixView x, int64_t row, int64_t col);

// Panels are laid out with their depth rounded up to this many k steps, so
// every panel starts on a 64-byte boundary for any width and kc, with 4-byte
// (fp32) and 2-byte (bf16) packed elements alike: 32 * 2 bytes = 64.
constexpr int64_t kPanelDepthAlign = 32;
inline int64_t panel_depth(int64_t kc) {
    return (kc + kPanelDepthAlign - 1) / kPanelDepthAlign * kPanelDepthAlign;
}
// Bytes from one packed panel of `width` rows to the next.
inline int64_t panel_bytes(int64_t width, int64_t kc, int64_t packed_bytes) {
    return width * panel_depth(kc) * packed_bytes;
}

// Packs the MR-row panels [first_panel, last_panel) of op(A)[0:mc, 0:kc];
// panel q lands at dst + q*panel_bytes(MR, kc, packed_bytes). k_group: the
// kernel's (GemmKernel::k_group): k steps the packer keeps together.
void pack_a_panels(PackPanel pack, int64_t packed_bytes, int64_t k_group, MatrixView a, int64_t mc, int64_t kc,
                   int64_t MR, int64_t first_panel, int64_t last_panel, void* dst);

// Packs MR-row panel `panel` of op(A)[0:mc, 0:kc] alone, at dst.
void pack_a_panel(PackPanel pack, MatrixView a, int64_t mc, int64_t kc, int64_t MR, int64_t panel, void* dst);

// Packs the NR-column panels [first_panel, last_panel) of op(B)[0:kc, 0:nc];
// panel q lands at dst + q*panel_bytes(NR, kc, packed_bytes).
void pack_b_panels(PackPanel pack, int64_t packed_bytes, int64_t k_group, MatrixView b, int64_t kc, int64_t nc,
                   int64_t NR, int64_t first_panel, int64_t last_panel, void* dst);

// Packs NR-column panel `panel` of op(B)[0:kc, 0:nc] alone, at dst.
void pack_b_panel(PackPanel pack, int64_t packed_bytes, int64_t k_group, MatrixView b, int64_t kc, int64_t nc,
                  int64_t NR, int64_t panel, void* dst);

}  // namespace ridge

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
// (fp32) and 2-byte (bf16) packed elements alike: 32 * 2 bytes = 64; and every
// k group (GemmKernel::k_group, at most 32: AMX's chunks) stays whole.
constexpr int64_t kPanelDepthAlign = 32;
inline int64_t panel_depth(int64_t kc) {
    return (kc + kPanelDepthAlign - 1) / kPanelDepthAlign * kPanelDepthAlign;
}
// The depth of a packed panel of `width` rows: for fp32 panels (every kernel
// that packs 4-byte elements takes k one step at a time) only the fewest k
// steps that keep panels 64-byte aligned (one for 32 rows, four for 12: 192
// bytes); 16-bit panels keep panel_depth's 32 (their k groups). Rounded to 32
// steps, a short k doubled the panels (k = 16: a 2 KiB A panel on a 4 KiB
// stride), and every A panel then began at one offset in a page, as every
// column of a C whose ldc is a multiple of 1024 floats does. Packed tight, on
// the Intel VM (`RIDGE_NUM_THREADS=1 [BETA=1] ridge-ab OLD NEW M N K 11`):
// beta = 1 2048 x 2048 x 16 1.053, 4096 x 4096 x 16 1.053, fp16 inputs 1.043,
// AVX2 1.093, 2 threads 1.050, x 48 1.001; beta = 0 4096 x 4096 x 16 1.019,
// 700 x 700 x 72 1.007, 300^3 1.012, 1000^3 0.999.
inline int64_t packed_depth(int64_t width, int64_t kc, int64_t packed_bytes) {
    if (packed_bytes != 4) return panel_depth(kc);
    int64_t steps = 1;
    while ((width * steps * packed_bytes) % 64 != 0) ++steps;
    return (kc + steps - 1) / steps * steps;
}
// Bytes from one packed panel of `width` rows to the next.
inline int64_t panel_bytes(int64_t width, int64_t kc, int64_t packed_bytes) {
    return width * packed_depth(width, kc, packed_bytes) * packed_bytes;
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

// Packing: copies a block of op(A) or op(B) into the contiguous micro-panel
// order the microkernel reads, zero-padding partial panels so the kernel
// always sees full MR x kc or kc x NR panels.
#pragma once

#include <cstdint>

namespace ridge {

// A view of op(X) for a column-major X: element (i, j) of op(X) is
// x[i + j*ld] when !trans, x[j + i*ld] when trans.
struct MatrixView {
    const float* data;
    int64_t ld;
    bool trans;
};

// Packs op(A)[0:mc, 0:kc] into ceil(mc/MR) panels, each kc steps of MR floats.
void pack_a_f32(MatrixView a, int64_t mc, int64_t kc, int64_t MR, float* dst);

// Packs the MR-row panels [first_panel, last_panel) of op(A)[0:mc, 0:kc]
// (used when several threads pack one block of A together).
void pack_a_f32_panels(MatrixView a, int64_t mc, int64_t kc, int64_t MR, int64_t first_panel,
                       int64_t last_panel, float* dst);

// Packs the NR-column panels [first_panel, last_panel) of op(B)[0:kc, 0:nc],
// each kc steps of NR floats, into dst (which points at the first panel of the block).
void pack_b_f32_panels(MatrixView b, int64_t kc, int64_t nc, int64_t NR, int64_t first_panel,
                       int64_t last_panel, float* dst);

}  // namespace ridge

// Packing of blocks: splits a block of op(A) or op(B) into the micro-panels
// the microkernel reads, each packed by the kernel's own panel routine.
#pragma once

#include <cstdint>

#include "kernels/gemm_kernel.h"

namespace ridge {

// A view of op(X) for a column-major X: element (i, j) of op(X) is
// x[i + j*ld] when !trans, x[j + i*ld] when trans.
struct MatrixView {
    const float* data;
    int64_t ld;
    bool trans;
};

// The view moved to element (row, col) of op(X).
MatrixView offset(MatrixView x, int64_t row, int64_t col);

// Panels are laid out kc rounded up to this many steps apart, so that every
// panel starts on a 64-byte boundary (16 floats) whatever MR, NR and kc are.
constexpr int64_t kPanelDepthAlign = 16;
inline int64_t panel_depth(int64_t kc) {
    return (kc + kPanelDepthAlign - 1) / kPanelDepthAlign * kPanelDepthAlign;
}

// Packs the MR-row panels [first_panel, last_panel) of op(A)[0:mc, 0:kc];
// panel q lands at dst + q*MR*panel_depth(kc), each kc steps of MR floats.
void pack_a_f32_panels(PackPanelF32 pack, MatrixView a, int64_t mc, int64_t kc, int64_t MR,
                       int64_t first_panel, int64_t last_panel, float* dst);

// Packs the NR-column panels [first_panel, last_panel) of op(B)[0:kc, 0:nc];
// panel q lands at dst + q*NR*panel_depth(kc), each kc steps of NR floats.
void pack_b_f32_panels(PackPanelF32 pack, MatrixView b, int64_t kc, int64_t nc, int64_t NR,
                       int64_t first_panel, int64_t last_panel, float* dst);

}  // namespace ridge

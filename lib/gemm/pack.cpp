// Packing of fp32 operands into micro-panels. Reads each element of the block once.
#include "gemm/pack.h"

#include <algorithm>
#include <cstring>

namespace ridge {
namespace {

// One MR-row panel of op(A): dst[p*MR + i] = op(A)(i, p), rows >= rows zero.
void pack_a_panel(MatrixView a, int64_t rows, int64_t kc, int64_t MR, float* __restrict dst) {
    if (!a.trans) {
        // op(A)(i, p) = a[i + p*ld]: each k step is a contiguous run of rows.
        for (int64_t p = 0; p < kc; ++p) {
            const float* __restrict src = a.data + p * a.ld;
            float* __restrict d = dst + p * MR;
            for (int64_t i = 0; i < rows; ++i) d[i] = src[i];
            for (int64_t i = rows; i < MR; ++i) d[i] = 0.0f;
        }
    } else {
        // op(A)(i, p) = a[p + i*ld]: each row is a contiguous run along k.
        for (int64_t i = 0; i < rows; ++i) {
            const float* __restrict src = a.data + i * a.ld;
            for (int64_t p = 0; p < kc; ++p) dst[p * MR + i] = src[p];
        }
        for (int64_t p = 0; p < kc; ++p)
            for (int64_t i = rows; i < MR; ++i) dst[p * MR + i] = 0.0f;
    }
}

// One NR-column panel of op(B): dst[p*NR + j] = op(B)(p, j), columns >= cols zero.
void pack_b_panel(MatrixView b, int64_t cols, int64_t kc, int64_t NR, float* __restrict dst) {
    if (b.trans) {
        // op(B)(p, j) = b[j + p*ld]: each k step is a contiguous run of columns.
        for (int64_t p = 0; p < kc; ++p) {
            const float* __restrict src = b.data + p * b.ld;
            float* __restrict d = dst + p * NR;
            for (int64_t j = 0; j < cols; ++j) d[j] = src[j];
            for (int64_t j = cols; j < NR; ++j) d[j] = 0.0f;
        }
    } else {
        // op(B)(p, j) = b[p + j*ld]: each column is a contiguous run along k.
        for (int64_t j = 0; j < cols; ++j) {
            const float* __restrict src = b.data + j * b.ld;
            for (int64_t p = 0; p < kc; ++p) dst[p * NR + j] = src[p];
        }
        for (int64_t p = 0; p < kc; ++p)
            for (int64_t j = cols; j < NR; ++j) dst[p * NR + j] = 0.0f;
    }
}

// The view shifted to element (row, col) of op(X).
MatrixView offset(MatrixView x, int64_t row, int64_t col) {
    const int64_t shift = x.trans ? col + row * x.ld : row + col * x.ld;
    return {x.data + shift, x.ld, x.trans};
}

}  // namespace

void pack_a_f32_panels(MatrixView a, int64_t mc, int64_t kc, int64_t MR, int64_t first_panel,
                       int64_t last_panel, float* dst) {
    for (int64_t panel = first_panel; panel < last_panel; ++panel) {
        const int64_t row = panel * MR;
        pack_a_panel(offset(a, row, 0), std::min(MR, mc - row), kc, MR, dst + panel * MR * kc);
    }
}

void pack_a_f32(MatrixView a, int64_t mc, int64_t kc, int64_t MR, float* dst) {
    pack_a_f32_panels(a, mc, kc, MR, 0, (mc + MR - 1) / MR, dst);
}

void pack_b_f32_panels(MatrixView b, int64_t kc, int64_t nc, int64_t NR, int64_t first_panel,
                       int64_t last_panel, float* dst) {
    for (int64_t panel = first_panel; panel < last_panel; ++panel) {
        const int64_t col = panel * NR;
        pack_b_panel(offset(b, 0, col), std::min(NR, nc - col), kc, NR, dst + panel * NR * kc);
    }
}

}  // namespace ridge

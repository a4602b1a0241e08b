// Block packing: which panel goes where. The copying itself is the kernel's
// PackPanel (lib/kernels), so each ISA and input type packs with its own instructions.
#include "gemm/pack.h"

#include <algorithm>

namespace ridge {
namespace {

// When each k step of a panel is a contiguous run of its rows (A untransposed,
// B transposed), the panels are packed kChunk k steps at a time across all of
// them, not one panel over all of kc: a panel by itself reads kc runs that lie
// ld apart (one page each for large ld), which the hardware prefetchers cannot
// follow; chunk by chunk, each run of the block is read as one sequential
// sweep, kChunk of them at once. When each row is contiguous along k, whole
// panels (a few long sequential runs) are already the prefetch-friendly order.
// 16 (rounded up to the kernel's k group: 32 for AMX's chunks): measured on
// one thread against 32, 8, 4 and 1, A packed from memory (4096 x n x 4096,
// n = 32..128) ran 3-7% faster than with 32 and 1024^3 no slower; 1 (one
// column at a time) was 10-20% slower than 32. Every chunk starts a whole
// 64-byte packed row for every registered kernel (16 x width x bytes).
constexpr int64_t kChunk = 16;

char* at(void* base, int64_t bytes) { return static_cast<char*>(base) + bytes; }

// Panels [first, last) of `width` rows of X (rows_total of them, kc deep),
// X(i, p) read through view x at (row0 + i, p) of op(X) for A, or transposed for B;
// panel q lands at dst + (q - dst_panel) * (its stride).
void pack_panels(PackPanel pack, int64_t packed_bytes, int64_t k_group, MatrixView x, bool panel_rows_are_x_rows,
                 int64_t rows_total, int64_t kc, int64_t width, int64_t first, int64_t last, void* dst,
                 int64_t dst_panel) {
    const int64_t stride = panel_bytes(width, kc, packed_bytes);
    // A panel's rows are rows of op(A) (contiguous k steps when A is not transposed);
    // a B panel's rows are columns of op(B) (contiguous k steps when B is transposed).
    const bool rows_contiguous = panel_rows_are_x_rows ? !x.trans : x.trans;
    const int64_t chunk = rows_contiguous ? (kChunk + k_group - 1) / k_group * k_group : kc;
    for (int64_t p0 = 0; p0 < kc; p0 += chunk) {
        const int64_t steps = std::min(chunk, kc - p0);
        for (int64_t panel = first; panel < last; ++panel) {
            const int64_t row = panel * width;
            const MatrixView p = panel_rows_are_x_rows ? offset(x, row, p0) : offset(x, p0, row);
            // p0 is a multiple of every kernel's k group, so a chunk starts a whole packed row.
            pack(p.data, p.ld, rows_contiguous, std::min(width, rows_total - row), steps, width,
                 at(dst, (panel - dst_panel) * stride + p0 * width * packed_bytes));
        }
    }
}

}  // namespace

MatrixView offset(MatrixView x, int64_t row, int64_t col) {
    const int64_t shift = x.trans ? col + row * x.ld : row + col * x.ld;
    return {static_cast<const char*>(x.data) + shift * x.elem_bytes, x.ld, x.trans, x.elem_bytes};
}

void pack_a_panels(PackPanel pack, int64_t packed_bytes, int64_t k_group, MatrixView a, int64_t mc, int64_t kc,
                   int64_t MR, int64_t first_panel, int64_t last_panel, void* dst) {
    pack_panels(pack, packed_bytes, k_group, a, true, mc, kc, MR, first_panel, last_panel, dst, 0);
}

// One panel in one call over all of kc: the chunks of pack_panels order the
// reads across panels, and one panel has nothing to interleave them with.
void pack_a_panel(PackPanel pack, MatrixView a, int64_t mc, int64_t kc, int64_t MR, int64_t panel, void* dst) {
    const int64_t row = panel * MR;
    pack(offset(a, row, 0).data, a.ld, !a.trans, std::min(MR, mc - row), kc, MR, dst);
}

void pack_b_panels(PackPanel pack, int64_t packed_bytes, int64_t k_group, MatrixView b, int64_t kc, int64_t nc,
                   int64_t NR, int64_t first_panel, int64_t last_panel, void* dst) {
    pack_panels(pack, packed_bytes, k_group, b, false, nc, kc, NR, first_panel, last_panel, dst, 0);
}

void pack_b_panel(PackPanel pack, int64_t packed_bytes, int64_t k_group, MatrixView b, int64_t kc, int64_t nc,
                  int64_t NR, int64_t panel, void* dst) {
    pack_panels(pack, packed_bytes, k_group, b, false, nc, kc, NR, panel, panel + 1, dst, panel);
}

}  // namespace ridge

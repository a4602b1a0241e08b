// Few columns of C with A transposed, read in place by a kernel that takes
// op(A)'s rows straight from memory (GemmKernel::rows_in_place: AMX, bf16):
//   C = alpha * A^T * op(B) + beta * C,  A stored k x m, n small.
//
// This is a decode step in a linear layer's layout (row-major x * W^T, W
// stored [outputs][inputs]), with 16-bit weights. Each row of op(A) is a
// column of A, contiguous along k, which is how the AMX kernel reads its
// first operand; so A, the large operand, streams from memory once, in m / 32
// blocks of 32 columns read side by side from start to end. op(B), k x n, is
// pair-packed once into 32-column panels (from L2 for every block).
//
// The kernel reads whole 32-step chunks of k and all 32 rows of a block, so
// what is not whole is read from zero-padded copies: the last k % 32 steps of
// each block (a 32 x 32 scratch, a second call with beta = 1), and a last
// block of fewer than 32 rows (copied whole, its C through a scratch tile).
// Threads split the blocks; each C element is computed the same way on any
// number of threads.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "gemm/gemm.h"
#include "gemm/workspace.h"
#include "util/int_math.h"

namespace ridge {
namespace {

constexpr int64_t kBlockRows = 32;    // rows of C (columns of A) per kernel call
constexpr int64_t kPanelCols = 32;    // columns of op(B) per packed panel
constexpr int64_t kChunk = 32;        // k steps the kernel takes at a time
constexpr int64_t kElementBytes = 2;  // bf16

// Bytes of one packed 32-column panel of op(B) over all of k (zero-filled to a whole chunk).
int64_t panel_bytes(int64_t k) { return round_up(k, kChunk) / 2 * kPanelCols * 4; }
int64_t panel_count(int64_t n) { return (n + kPanelCols - 1) / kPanelCols; }

// Panel q holds op(B)'s columns 32q .. 32q + 31 (op(B)^T's rows, for the packer).
void pack_b(const GemmArgs& g, const GemmKernel& ker, char* packed) {
    const auto* b = static_cast<const uint16_t*>(g.b);
    for (int64_t q = 0; q < panel_count(g.n); ++q) {
        const int64_t j0 = q * kPanelCols;
        // op(B)^T(j, p) = b[p + j*ldb] (rows contiguous along k), or b[j + p*ldb] when B is transposed
        const uint16_t* src = g.trans_b ? b + j0 : b + j0 * g.ldb;
        ker.pack_panel(src, g.ldb, g.trans_b, std::min(kPanelCols, g.n - j0), g.k, kPanelCols,
                       packed + q * panel_bytes(g.k));
    }
}

// rows x steps of op(A) from row i0, step p0 into a zero-filled rows_out x ld copy.
void copy_rows(const GemmArgs& g, int64_t i0, int64_t rows, int64_t p0, int64_t steps, int64_t ld,
               uint16_t* out) {
    const auto* a = static_cast<const uint16_t*>(g.a);
    std::memset(out, 0, size_t(kBlockRows * ld) * kElementBytes);
    for (int64_t i = 0; i < rows; ++i)
        std::memcpy(out + i * ld, a + (i0 + i) * g.lda + p0, size_t(steps) * kElementBytes);
}

// Rows i0 .. i0 + 31 of C, all of A's 32 columns there readable in place.
void full_block(const GemmArgs& g, const GemmKernel& ker, const char* packed_b, int64_t i0) {
    const auto* a = static_cast<const uint16_t*>(g.a);
    const int64_t whole = g.k / kChunk * kChunk, tail = g.k - whole;
    alignas(64) uint16_t tail_rows[kBlockRows * kChunk];
    if (tail > 0) copy_rows(g, i0, kBlockRows, whole, tail, kChunk, tail_rows);
    for (int64_t q = 0; q < panel_count(g.n); ++q) {
        const int64_t j0 = q * kPanelCols, nr = std::min(kPanelCols, g.n - j0);
        const char* panel = packed_b + q * panel_bytes(g.k);
        float* c = g.c + i0 + j0 * g.ldc;
        if (whole > 0) ker.rows_in_place(whole, nr, g.alpha, a + i0 * g.lda, g.lda, panel, g.beta, c, g.ldc);
        if (tail > 0)  // the tail's pairs start after the whole chunks' (16 pair-rows of 128 bytes each)
            ker.rows_in_place(kChunk, nr, g.alpha, tail_rows, kChunk, panel + whole / 2 * kPanelCols * 4,
                              whole > 0 ? 1.0f : g.beta, c, g.ldc);
    }
}

// The last rows i0 .. m - 1 (fewer than 32), from `rows_copy` (32 x round_up(k, 32)).
void last_block(const GemmArgs& g, const GemmKernel& ker, const char* packed_b, int64_t i0, uint16_t* rows_copy) {
    const int64_t rows = g.m - i0, ld = round_up(g.k, kChunk);
    copy_rows(g, i0, rows, 0, g.k, ld, rows_copy);
    alignas(64) float tile[kBlockRows * kPanelCols];
    for (int64_t q = 0; q < panel_count(g.n); ++q) {
        const int64_t j0 = q * kPanelCols, nr = std::min(kPanelCols, g.n - j0);
        ker.rows_in_place(ld, nr, g.alpha, rows_copy, ld, packed_b + q * panel_bytes(g.k), 0.0f, tile, kBlockRows);
        for (int64_t j = 0; j < nr; ++j) {
            float* cj = g.c + i0 + (j0 + j) * g.ldc;
            for (int64_t i = 0; i < rows; ++i)  // beta == 0: C is written, never read
                cj[i] = g.beta == 0.0f ? tile[i + j * kBlockRows] : tile[i + j * kBlockRows] + g.beta * cj[i];
        }
    }
}

void run_blocks(const GemmArgs& g, const GemmKernel& ker, const char* packed_b, uint16_t* rows_copy,
                int64_t first, int64_t last) {
    if (ker.thread_begin) ker.thread_begin();
    for (int64_t blk = first; blk < last; ++blk) {
        const int64_t i0 = blk * kBlockRows;
        if (i0 + kBlockRows <= g.m)
            full_block(g, ker, packed_b, i0);
        else
            last_block(g, ker, packed_b, i0, rows_copy);
    }
    if (ker.thread_end) ker.thread_end();
}

}  // namespace

size_t rows_in_place_packed_b_bytes(int64_t n, int64_t k) { return size_t(panel_count(n) * panel_bytes(k)); }

ridge_status gemm_rows_in_place(const GemmArgs& g, const GemmKernel& ker, int threads) {
    Workspace* ws = this_thread_workspace();
    if (ws == nullptr) return RIDGE_OUT_OF_MEMORY;
    // Both buffers before any C is written: op(B)'s panels, and the copy of a last partial block.
    auto floats = [](int64_t bytes) { return size_t((bytes + 3) / 4); };
    char* packed_b = reinterpret_cast<char*>(ws->packed_b.reserve(floats(int64_t(rows_in_place_packed_b_bytes(g.n, g.k)))));
    const bool partial = g.m % kBlockRows != 0;
    uint16_t* rows_copy = nullptr;
    if (partial)
        rows_copy = reinterpret_cast<uint16_t*>(
            ws->packed_a.reserve(floats(kBlockRows * round_up(g.k, kChunk) * kElementBytes)));
    if (packed_b == nullptr || (partial && rows_copy == nullptr)) return RIDGE_OUT_OF_MEMORY;
    pack_b(g, ker, packed_b);
    const int64_t blocks = (g.m + kBlockRows - 1) / kBlockRows;
    const int team = int(std::min<int64_t>(std::max(threads, 1), blocks));
    if (team <= 1) {
        run_blocks(g, ker, packed_b, rows_copy, 0, blocks);
        return RIDGE_SUCCESS;
    }
#pragma omp parallel num_threads(team)
    {
        const int64_t t = omp_get_thread_num(), parts = omp_get_num_threads();
        run_blocks(g, ker, packed_b, rows_copy, blocks * t / parts, blocks * (t + 1) / parts);
    }
    return RIDGE_SUCCESS;
}

}  // namespace ridge

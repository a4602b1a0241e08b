// Skinny GEMM, few rows: C (m x n, m <= 48) = alpha * op(A) * op(B) + beta * C.
//
// Here op(B), k x n, is the large operand and each of its elements is used by
// only m rows: packing it would read and write all of B to save nothing. B is
// read in place, once, straight down its columns (what the hardware
// prefetchers follow best); op(A), at most 64 x k, is packed once (64 KiB per
// 1024 of k and 16 rows, from L2) and reused by every group of columns. Two
// kernel forms:
// - 9 to 64 rows, outer products (GemmKernel::few_rows_outer): op(A)
//   packed as a panel of columns 16, 32, 48 or 64 rows tall, groups of 16,
//   12, 8 or 6 columns of B (16, then 24 accumulators; see group_columns);
// - up to 8 rows (or no outer kernel), dot products (few_rows): C(i, j) is
//   row i of op(A) (packed into zero-padded rows) times column j of B, groups
//   of 3 columns (4 up to 6 rows, 6 up to 4). Outer products spend 16 lanes
//   per FMA whatever m is.
// Transposed B (dispatch sends it elsewhere, but the path accepts it) has
// strided columns: each group of columns is copied contiguous first.
// Threads split the groups of columns: each C element is computed by one
// thread, the same way for any thread count.
//
// In the outer form every group of columns reads all of the packed panel of
// op(A) again, so that panel is read from L2 only while it fits there beside
// B's lines: past that (48 rows x 4096 k steps is 768 KiB) the path runs in
// passes over k (GemmPlan::few_rows_k_pass), each group reading its slice of
// the panel, and C read back and added to from the second pass on.
//
// The same path also runs few *columns* of C with A transposed
// (gemm_skinny_n_trans_a_f32): C^T = op(B)^T * A is a few-rows problem whose
// large operand is A itself, read in place down its columns (each a row of
// op(A), contiguous along k). That is a decode step in the layout of a
// row-major x * W^T with W stored [outputs][inputs] (a linear layer's weight),
// which reaches column-major ridge as A transposed.
//
// fp16 and bf16 inputs: op(A) (at most 48 x k) is converted to fp32 while it
// is packed, and both kernels widen B's columns (A's, on C^T) as they read
// them: half the bytes of the large operand streamed. B transposed stays fp32
// only (dispatch sends it elsewhere).
#include <algorithm>

#include "gemm/gemm.h"
#include "gemm/workspace.h"
#include "kernels/convert.h"

namespace ridge {
namespace {

constexpr int64_t kLanes = 16;     // rows per vector of the outer kernel's panel
constexpr int64_t kRowGroup = 8;   // the dot kernel's tile height: rows are packed up to a multiple of 8
constexpr int64_t kKStep = 16;     // one zmm along k: rows are padded to a multiple of this
// Columns per group (one kernel call): the kernels' tile widths. The dot
// kernel's tiles hold 24 accumulators: 8 rows x 3 columns, 6 x 4 up to 6 rows,
// 4 x 6 up to 4 (few_rows_dot_avx512.h).
int64_t dot_group_columns(int64_t m) { return m <= 4 ? 6 : m <= 6 ? 4 : 3; }
constexpr int64_t kOuterAccumulators = 24;  // the outer kernel's tile: 24 / vectors columns,
constexpr int64_t kOuterOneVectorCols = 16;  // except 16 for rows in one vector

bool outer_form(const GemmArgs& g, const GemmKernel& ker) {
    return g.m > kRowGroup && ker.few_rows_outer != nullptr;
}
int64_t outer_vectors(int64_t m) { return (m + kLanes - 1) / kLanes; }
// With one vector of rows (9-16) a group streams 16 columns of B, not 24:
// every column is a stream from memory, and the kernel copies a line of each
// per 16 k steps. Measured, 16 / 24 columns, 1 thread, two builds alternated
// call by call in one process (medians of 21-31 paired ratios; malloc'ed
// matrices, and with 64-byte aligned ones 1.00-1.14, the gain showing while
// the host is busy): 16 x 4096 x 4096 1.100 and 1.141 (20 columns 1.074, 8
// 1.025; 12, run as 8 + 4, 0.863),
// 12 rows 1.129, 2 threads 1.068, fp16 B 1.033, bf16 B 1.044, 4096 x 16 x 4096
// TN (C^T) 1.075. Two to four vectors keep 24 accumulators (fewer columns
// measured 0.86-0.92 at 32 rows, 0.84 at 48).
int64_t group_columns(const GemmArgs& g, const GemmKernel& ker) {
    if (!outer_form(g, ker)) return dot_group_columns(g.m);
    const int64_t vectors = outer_vectors(g.m);
    return vectors == 1 ? kOuterOneVectorCols : kOuterAccumulators / vectors;
}

// Row stride of the packed A: k rounded up to 16, plus 16 floats so that rows
// 64 KiB-multiple apart do not all fall into the same L1 set.
int64_t packed_row_stride(int64_t k) { return (k + kKStep - 1) / kKStep * kKStep + kKStep; }
int64_t packed_rows(int64_t m) { return (m + kRowGroup - 1) / kRowGroup * kRowGroup; }

// op(A)(i, p) of a 16-bit op(A), in fp32 (exact).
float op_a_16(const GemmArgs& g, int64_t i, int64_t p) {
    const uint16_t h = static_cast<const uint16_t*>(g.a)[g.trans_a ? p + i * g.lda : i + p * g.lda];
    return g.input == Dtype::f16 ? f16_to_f32(h) : bf16_to_f32(h);
}

// Ar[i*stride + p] = op(A)(i, p), zeros past k and in rows m .. packed_rows(m).
// A is read in its own order: transposed, a row of op(A) is contiguous;
// untransposed, a column (m contiguous values) is spread across the rows.
void pack_rows(const GemmArgs& g, float* ar) {
    const float* a = static_cast<const float*>(g.a);
    const int64_t stride = packed_row_stride(g.k);
    std::fill(ar, ar + packed_rows(g.m) * stride, 0.0f);
    if (g.input != Dtype::f32) {  // 16-bit: at most 16 x k elements, converted one by one
        for (int64_t i = 0; i < g.m; ++i)
            for (int64_t p = 0; p < g.k; ++p) ar[i * stride + p] = op_a_16(g, i, p);
        return;
    }
    if (g.trans_a) {
        for (int64_t i = 0; i < g.m; ++i) std::copy(a + i * g.lda, a + i * g.lda + g.k, ar + i * stride);
        return;
    }
    for (int64_t p = 0; p < g.k; ++p)
        for (int64_t i = 0; i < g.m; ++i) ar[i * stride + p] = a[i + p * g.lda];
}

// panel[p*R + i] = op(A)(i, p), R = m rounded up to 16, zeros in rows m .. R-1:
// the outer kernel's panel (fp32, whatever the input type).
void pack_columns(const GemmArgs& g, float* panel) {
    const float* a = static_cast<const float*>(g.a);
    const int64_t R = outer_vectors(g.m) * kLanes;
    std::fill(panel, panel + R * g.k, 0.0f);
    if (g.input != Dtype::f32) {  // 16-bit: at most 48 x k elements, converted one by one
        for (int64_t p = 0; p < g.k; ++p)
            for (int64_t i = 0; i < g.m; ++i) panel[p * R + i] = op_a_16(g, i, p);
        return;
    }
    if (g.trans_a) {  // a row of op(A) is contiguous: read it in order
        for (int64_t i = 0; i < g.m; ++i)
            for (int64_t p = 0; p < g.k; ++p) panel[p * R + i] = a[p + i * g.lda];
        return;
    }
    for (int64_t p = 0; p < g.k; ++p) std::copy(a + p * g.lda, a + p * g.lda + g.m, panel + p * R);
}

int64_t packed_floats(const GemmArgs& g, const GemmKernel& ker) {
    return outer_form(g, ker) ? outer_vectors(g.m) * kLanes * g.k : packed_rows(g.m) * packed_row_stride(g.k);
}

// The largest tile one call of either kernel writes: 64 rows x 24 / 4 columns
// (48 x 8 and 32 x 12 as many).
constexpr int64_t kMaxTileFloats = kFewRowsOuterMaxRows * kOuterAccumulators / (kFewRowsOuterMaxRows / kLanes);

// C^T's tile (m x nr, ld m) added into C (g is the transposed problem, so its
// C(i, j) lives at c[j + i*ldc]): rows of the tile are runs of C's columns.
void add_transposed_tile(const GemmArgs& g, const float* tile, int64_t nr, int64_t j0, float beta) {
    for (int64_t i = 0; i < g.m; ++i) {
        float* out = g.c + j0 + i * g.ldc;
        for (int64_t j = 0; j < nr; ++j)
            out[j] = beta == 0.0f ? tile[i + j * g.m] : tile[i + j * g.m] + beta * out[j];
    }
}

// k steps [first, first + count) of one pass over op(B) (the outer form's; the
// dot form takes all of k in one).
struct KPass {
    int64_t first, count;
};

// One group of columns starting at column j0, over the k steps of `pass`,
// from A packed by the form's packer. c_transposed: g's C holds C^T (see
// add_transposed_tile). B of a 16-bit type is passed to the kernel in place,
// which converts it; transposed, B is fp32 only (the pass's k steps gathered
// here; dispatch sends no 16-bit transposed B to this path).
void run_group(const GemmArgs& g, const GemmKernel& ker, const float* packed_a, float* b_copy, int64_t j0,
               bool c_transposed, KPass pass) {
    const float* b = static_cast<const float*>(g.b);
    const int64_t nr = std::min(group_columns(g, ker), g.n - j0);
    // op(B)(p, j) = b[p + j*ldb], elements of the input type
    const void* cols = static_cast<const char*>(g.b) + j0 * g.ldb * dtype_bytes(g.input);
    int64_t ld = g.ldb;
    if (g.trans_b) {  // fp32, op(B)(p, j) = b[j + p*ldb]: gather the columns
        for (int64_t j = 0; j < nr; ++j)
            for (int64_t p = pass.first; p < pass.first + pass.count; ++p)
                b_copy[j * g.k + p] = b[(j0 + j) + p * g.ldb];
        cols = b_copy;
        ld = g.k;
    }
    alignas(64) float tile[kMaxTileFloats];
    float* c = c_transposed ? tile : g.c + j0 * g.ldc;
    const int64_t ldc = c_transposed ? g.m : g.ldc;
    const float pass_beta = pass.first == 0 ? g.beta : 1.0f;  // later passes add to C
    const float beta = c_transposed ? 0.0f : pass_beta;
    if (outer_form(g, ker)) {
        const int64_t b_elem_bytes = g.trans_b ? 4 : dtype_bytes(g.input);  // (gathered: fp32)
        const void* pass_cols = static_cast<const char*>(cols) + pass.first * b_elem_bytes;
        const float* pass_a = packed_a + pass.first * outer_vectors(g.m) * kLanes;
        ker.few_rows_outer(g.m, nr, pass.count, g.alpha, pass_a, pass_cols, ld, beta, c, ldc);
    } else {
        ker.few_rows(g.m, nr, g.k, g.alpha, packed_a, packed_row_stride(g.k), cols, ld, beta, c, ldc);
    }
    if (c_transposed) add_transposed_tile(g, tile, nr, j0, pass_beta);
}

// This thread's buffer for transposed B's gathered columns (none needed otherwise).
float* b_copy_buffer(const GemmArgs& g, const GemmKernel& ker) {
    if (!g.trans_b) return nullptr;
    Workspace* ws = this_thread_workspace();
    return ws == nullptr ? nullptr : ws->packed_b.reserve(size_t(group_columns(g, ker) * g.k));
}

// The few-rows problem g in passes of k_pass k steps (outer form; 0: one
// pass); c_transposed: its C holds C^T.
ridge_status run_few_rows(const GemmArgs& g, const GemmKernel& ker, int threads, bool c_transposed,
                          int64_t k_pass) {
    Workspace* ws = this_thread_workspace();
    float* packed_a = ws == nullptr ? nullptr : ws->packed_a.reserve(size_t(packed_floats(g, ker)));
    if (packed_a == nullptr) return RIDGE_OUT_OF_MEMORY;
    if (outer_form(g, ker))
        pack_columns(g, packed_a);
    else
        pack_rows(g, packed_a);
    const int64_t width = group_columns(g, ker);
    const int64_t groups = (g.n + width - 1) / width;
    const int team = int(std::min<int64_t>(std::max(threads, 1), groups));
    // Every thread gets its buffer before any thread writes C: out of memory in
    // one of them leaves C untouched.
    auto reserve = [&](float*& b_copy) {
        b_copy = b_copy_buffer(g, ker);
        return !g.trans_b || b_copy != nullptr;
    };
    const int64_t pass_steps = outer_form(g, ker) && k_pass > 0 ? k_pass : g.k;
    // Each thread runs every pass over its own groups: C's columns are its own,
    // so passes need no barrier, and each element of C sees the same passes in
    // the same order on any thread count.
    return run_once_every_thread_reserved(team, reserve, [&](float* b_copy, int64_t t, int64_t parts) {
        for (int64_t p0 = 0; p0 < g.k; p0 += pass_steps)
            for (int64_t q = groups * t / parts; q < groups * (t + 1) / parts; ++q)
                run_group(g, ker, packed_a, b_copy, q * width, c_transposed,
                          KPass{p0, std::min(pass_steps, g.k - p0)});
    });
}

// C = alpha * A^T * op(B) + beta * C as C^T = alpha * op(B)^T * A + beta * C^T.
GemmArgs transposed_problem(const GemmArgs& g) {
    GemmArgs t = g;
    t.m = g.n, t.n = g.m;
    t.a = g.b, t.trans_a = !g.trans_b, t.lda = g.ldb;  // op(A') = op(B)^T
    t.b = g.a, t.trans_b = false, t.ldb = g.lda;        // op(B') = A, k x m, read down its columns
    return t;
}

}  // namespace

double skinny_m_l2_to_l1_bytes(const GemmArgs& g, const GemmKernel& ker) {
    const double groups = double((g.n + group_columns(g, ker) - 1) / group_columns(g, ker));
    const double b_bytes = double(dtype_bytes(g.input)) * double(g.k) * double(g.n);  // B as stored; A's panel is fp32
    // Outer form: every group reads the whole panel; B's lines pass once.
    if (outer_form(g, ker)) return 4.0 * double(packed_floats(g, ker)) * groups + b_bytes;
    // Dot form: every group reads every packed row; each 8-row tile reads the group's columns.
    return 4.0 * double(packed_floats(g, ker)) * groups + b_bytes * double(packed_rows(g.m) / kRowGroup);
}

ridge_status gemm_skinny_m_f32(const GemmArgs& g, const GemmKernel& ker, int threads, int64_t k_pass) {
    return run_few_rows(g, ker, threads, false, k_pass);
}

ridge_status gemm_skinny_n_trans_a_f32(const GemmArgs& g, const GemmKernel& ker, int threads, int64_t k_pass) {
    return run_few_rows(transposed_problem(g), ker, threads, true, k_pass);
}

double skinny_n_trans_a_l2_to_l1_bytes(const GemmArgs& g, const GemmKernel& ker) {
    return skinny_m_l2_to_l1_bytes(transposed_problem(g), ker);
}

}  // namespace ridge

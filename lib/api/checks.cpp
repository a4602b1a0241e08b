#include "api/checks.h"

#include <algorithm>

namespace ridge {

bool is_trans_char(char c) { return c == 'T' || c == 't' || c == 'C' || c == 'c'; }
bool is_valid_trans_char(char c) { return c == 'N' || c == 'n' || is_trans_char(c); }

int gemm_netlib_info(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t lda,
                      int64_t ldb, int64_t ldc) {
    const int64_t rows_a = is_trans_char(transa) ? k : m;  // rows of A as stored
    const int64_t rows_b = is_trans_char(transb) ? n : k;
    if (!is_valid_trans_char(transa)) return 1;
    if (!is_valid_trans_char(transb)) return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < std::max<int64_t>(1, rows_a)) return 8;
    if (ldb < std::max<int64_t>(1, rows_b)) return 10;
    if (ldc < std::max<int64_t>(1, m)) return 13;
    return 0;
}

int gemv_netlib_info(char trans, int64_t m, int64_t n, int64_t lda, int64_t incx, int64_t incy) {
    if (!is_valid_trans_char(trans)) return 1;
    if (m < 0) return 2;
    if (n < 0) return 3;
    if (lda < std::max<int64_t>(1, m)) return 6;
    if (incx == 0) return 8;
    if (incy == 0) return 11;
    return 0;
}

bool gemm_changes_nothing(int64_t m, int64_t n, int64_t k, float alpha, float beta) {
    return m == 0 || n == 0 || ((alpha == 0.0f || k == 0) && beta == 1.0f);
}

bool gemv_changes_nothing(int64_t m, int64_t n, float alpha, float beta) {
    return m == 0 || n == 0 || (alpha == 0.0f && beta == 1.0f);
}

namespace {
// The farthest element problem count-1 reaches must be addressable: stride *
// (count - 1) + one matrix within 2^62 elements (in doubles: no overflow here).
bool batch_span_fits(int64_t stride, int64_t count, double matrix_elements) {
    return double(stride) * double(std::max<int64_t>(count - 1, 0)) + matrix_elements < 4.6e18;
}

bool valid_cblas_trans(int t) { return t == 111 || t == 112 || t == 113; }

// Rows (the leading dimension's minimum) and columns of A, B and C as the caller stores them.
struct StoredShapes {
    int64_t rows_a, cols_a, rows_b, cols_b, rows_c, cols_c;
};
StoredShapes stored_shapes(bool row, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k) {
    StoredShapes s;
    s.rows_a = row ? (trans_a ? m : k) : (trans_a ? k : m);
    s.cols_a = row ? (trans_a ? k : m) : (trans_a ? m : k);
    s.rows_b = row ? (trans_b ? k : n) : (trans_b ? n : k);
    s.cols_b = row ? (trans_b ? n : k) : (trans_b ? k : n);
    s.rows_c = row ? n : m, s.cols_c = row ? m : n;
    return s;
}

// The column-major problem of a row-major or column-major call's operands
// (row-major: C^T = op(B)^T op(A)^T, the operands swapped, as for one GEMM).
void column_major_shape(bool row, bool trans_a, bool trans_b, int64_t m, int64_t n, const void* a, int64_t lda,
                        const void* b, int64_t ldb, GemmArgs* g) {
    if (!row) {
        g->trans_a = trans_a, g->trans_b = trans_b, g->m = m, g->n = n;
        g->a = a, g->lda = lda, g->b = b, g->ldb = ldb;
    } else {
        g->trans_a = trans_b, g->trans_b = trans_a, g->m = n, g->n = m;
        g->a = b, g->lda = ldb, g->b = a, g->ldb = lda;
    }
}
}  // namespace

StridedBatchCall strided_batch_call(int layout, int trans_a, int trans_b) {
    StridedBatchCall call;
    call.layout_valid = layout == 101 || layout == 102;
    call.row_major = layout == 101;
    call.trans_a_valid = valid_cblas_trans(trans_a), call.trans_a = trans_a != 111;
    call.trans_b_valid = valid_cblas_trans(trans_b), call.trans_b = trans_b != 111;
    return call;
}

BatchCheck check_gemm_batch_strided(const StridedBatchCall& c, GemmBatch* out) {
    if (!c.layout_valid) return {1, "invalid layout"};
    if (!c.trans_a_valid) return {2, "invalid trans_a"};
    if (!c.trans_b_valid) return {3, "invalid trans_b"};
    if (c.m < 0) return {4, "m < 0"};
    if (c.n < 0) return {5, "n < 0"};
    if (c.k < 0) return {6, "k < 0"};
    const bool row = c.row_major;
    const auto [rows_a, cols_a, rows_b, cols_b, rows_c, cols_c] =
        stored_shapes(row, c.trans_a, c.trans_b, c.m, c.n, c.k);
    if (c.lda < std::max<int64_t>(1, rows_a)) return {9, "lda too small"};
    if (c.stride_a < 0 || !batch_span_fits(c.stride_a, c.count, double(c.lda) * cols_a))
        return {10, "stride_a negative or too large"};
    if (c.ldb < std::max<int64_t>(1, rows_b)) return {12, "ldb too small"};
    if (c.stride_b < 0 || !batch_span_fits(c.stride_b, c.count, double(c.ldb) * cols_b))
        return {13, "stride_b negative or too large"};
    if (c.ldc < std::max<int64_t>(1, rows_c)) return {16, "ldc too small"};
    const bool c_nonempty = c.m > 0 && c.n > 0;
    if (c.count > 1 && c_nonempty && double(c.stride_c) < double(c.ldc) * double(cols_c))  // no int64 overflow
        return {17, "stride_c smaller than one C (the problems' C would overlap)"};
    if (!batch_span_fits(c.stride_c, c.count, double(c.ldc) * cols_c)) return {17, "stride_c too large"};
    if (c.count < 0) return {18, "batch_size < 0"};
    const bool reads_ab = c.count > 0 && c_nonempty && c.k > 0 && c.alpha != 0.0f;
    if (reads_ab && c.a == nullptr) return {8, "a is NULL"};
    if (reads_ab && c.b == nullptr) return {11, "b is NULL"};
    if (c.count > 0 && c_nonempty && c.c == nullptr) return {15, "c is NULL"};

    GemmArgs& g = out->shape;
    g.k = c.k, g.alpha = c.alpha, g.beta = c.beta, g.c = c.c, g.ldc = c.ldc;
    out->stride_c = c.stride_c, out->count = c.count;
    column_major_shape(row, c.trans_a, c.trans_b, c.m, c.n, c.a, c.lda, c.b, c.ldb, &g);
    out->stride_a = row ? c.stride_b : c.stride_a;  // the strides follow their operands
    out->stride_b = row ? c.stride_a : c.stride_b;
    return {};
}

GroupCall group_call(int layout, int trans_a, int trans_b) {
    GroupCall g;
    g.row_major = layout == 101;
    g.trans_a_valid = valid_cblas_trans(trans_a), g.trans_a = trans_a != 111;
    g.trans_b_valid = valid_cblas_trans(trans_b), g.trans_b = trans_b != 111;
    return g;
}

BatchCheck check_gemm_group(const GroupCall& g) {
    if (!g.trans_a_valid) return {2, "invalid transa"};
    if (!g.trans_b_valid) return {3, "invalid transb"};
    if (g.m < 0) return {4, "m < 0"};
    if (g.n < 0) return {5, "n < 0"};
    if (g.k < 0) return {6, "k < 0"};
    const StoredShapes s = stored_shapes(g.row_major, g.trans_a, g.trans_b, g.m, g.n, g.k);
    if (g.lda < std::max<int64_t>(1, s.rows_a)) return {9, "lda too small"};
    if (g.ldb < std::max<int64_t>(1, s.rows_b)) return {11, "ldb too small"};
    if (g.ldc < std::max<int64_t>(1, s.rows_c)) return {14, "ldc too small"};
    if (g.size < 0) return {16, "group_size < 0"};
    return {};
}

bool group_writes_c(const GroupCall& g) {
    return g.size > 0 && !gemm_changes_nothing(g.m, g.n, g.k, g.alpha, g.beta);
}

bool group_reads_ab(const GroupCall& g) { return group_writes_c(g) && g.k > 0 && g.alpha != 0.0f; }

GemmBatch group_batch(const GroupCall& group, const void* a, const void* b, float* const* c) {
    GemmBatch batch;
    GemmArgs& g = batch.shape;
    g.k = group.k, g.alpha = group.alpha, g.beta = group.beta, g.ldc = group.ldc;
    column_major_shape(group.row_major, group.trans_a, group.trans_b, group.m, group.n, nullptr, group.lda,
                       nullptr, group.ldb, &g);
    batch.a_list = group.row_major ? b : a;  // the lists follow their operands
    batch.b_list = group.row_major ? a : b;
    batch.c_list = c;
    batch.count = group.size;
    return batch;
}

}  // namespace ridge

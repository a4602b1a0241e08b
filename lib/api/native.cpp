// The native C API: the same operations, a status instead of xerbla.
#include <algorithm>

#include "api/checks.h"
#include "api/errors.h"
#include "dispatch/dispatch.h"
#include "ridge/ridge.h"

namespace {

bool valid_trans(ridge_transpose t) {
    return t == RIDGE_NO_TRANS || t == RIDGE_TRANS || t == RIDGE_CONJ_TRANS;
}

ridge_status bad_argument(const char* function, int position, const char* what) {
    ridge::report_native_error(RIDGE_INVALID_ARGUMENT, function, position, what);
    return RIDGE_INVALID_ARGUMENT;
}

// Every native GEMM: fp32 C, A and B of `input` elements. Positions are the
// signature's: layout 1, trans_a 2, trans_b 3, m 4, n 5, k 6, a 8, lda 9,
// b 10, ldb 11, c 13, ldc 14.
ridge_status native_gemm(const char* fn, ridge::Dtype input, ridge_layout layout,
                         ridge_transpose trans_a, ridge_transpose trans_b, int64_t m, int64_t n,
                         int64_t k, float alpha, const void* a, int64_t lda, const void* b,
                         int64_t ldb, float beta, float* c, int64_t ldc) {
    if (layout != RIDGE_COL_MAJOR && layout != RIDGE_ROW_MAJOR) return bad_argument(fn, 1, "invalid layout");
    if (!valid_trans(trans_a)) return bad_argument(fn, 2, "invalid trans_a");
    if (!valid_trans(trans_b)) return bad_argument(fn, 3, "invalid trans_b");
    if (m < 0) return bad_argument(fn, 4, "m < 0");
    if (n < 0) return bad_argument(fn, 5, "n < 0");
    if (k < 0) return bad_argument(fn, 6, "k < 0");
    const bool ta = trans_a != RIDGE_NO_TRANS, tb = trans_b != RIDGE_NO_TRANS;
    const bool row = layout == RIDGE_ROW_MAJOR;
    // Rows of each matrix as stored (the leading dimension's minimum).
    const int64_t stored_rows_a = row ? (ta ? m : k) : (ta ? k : m);
    const int64_t stored_rows_b = row ? (tb ? k : n) : (tb ? n : k);
    const int64_t stored_rows_c = row ? n : m;
    if (lda < std::max<int64_t>(1, stored_rows_a)) return bad_argument(fn, 9, "lda too small");
    if (ldb < std::max<int64_t>(1, stored_rows_b)) return bad_argument(fn, 11, "ldb too small");
    if (ldc < std::max<int64_t>(1, stored_rows_c)) return bad_argument(fn, 14, "ldc too small");
    const bool reads_ab = m > 0 && n > 0 && k > 0 && alpha != 0.0f;
    if (reads_ab && a == nullptr) return bad_argument(fn, 8, "a is NULL");
    if (reads_ab && b == nullptr) return bad_argument(fn, 10, "b is NULL");
    if (m > 0 && n > 0 && c == nullptr) return bad_argument(fn, 13, "c is NULL");

    ridge::GemmArgs g;
    g.input = input;
    g.k = k, g.alpha = alpha, g.beta = beta, g.c = c, g.ldc = ldc;
    if (!row) {
        g.trans_a = ta, g.trans_b = tb, g.m = m, g.n = n;
        g.a = a, g.lda = lda, g.b = b, g.ldb = ldb;
    } else {  // C^T = op(B)^T op(A)^T: swap the operands, copy nothing
        g.trans_a = tb, g.trans_b = ta, g.m = n, g.n = m;
        g.a = b, g.lda = ldb, g.b = a, g.ldb = lda;
    }
    if (ridge::gemm_changes_nothing(g.m, g.n, g.k, g.alpha, g.beta)) return RIDGE_SUCCESS;
    const ridge_status status = ridge::dispatch_gemm(g);
    if (status != RIDGE_SUCCESS) ridge::report_native_error(status, fn, 0, ridge_status_string(status));
    return status;
}

// Every native GEMV: fp32 y, A and x of `input` elements. Positions are the
// signature's: layout 1, trans 2, m 3, n 4, a 6, lda 7, x 8, incx 9, y 11, incy 12.
ridge_status native_gemv(const char* fn, ridge::Dtype input, ridge_layout layout, ridge_transpose trans,
                         int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const void* x,
                         int64_t incx, float beta, float* y, int64_t incy) {
    if (layout != RIDGE_COL_MAJOR && layout != RIDGE_ROW_MAJOR) return bad_argument(fn, 1, "invalid layout");
    if (!valid_trans(trans)) return bad_argument(fn, 2, "invalid trans");
    if (m < 0) return bad_argument(fn, 3, "m < 0");
    if (n < 0) return bad_argument(fn, 4, "n < 0");
    const bool row = layout == RIDGE_ROW_MAJOR;
    if (lda < std::max<int64_t>(1, row ? n : m)) return bad_argument(fn, 7, "lda too small");
    if (incx == 0) return bad_argument(fn, 9, "incx == 0");
    if (incy == 0) return bad_argument(fn, 12, "incy == 0");
    const bool t = trans != RIDGE_NO_TRANS;
    const bool work = m > 0 && n > 0;
    if (work && alpha != 0.0f && a == nullptr) return bad_argument(fn, 6, "a is NULL");
    if (work && alpha != 0.0f && x == nullptr) return bad_argument(fn, 8, "x is NULL");
    if (work && y == nullptr) return bad_argument(fn, 11, "y is NULL");
    ridge::GemvArgs g;
    g.input = input;
    g.trans = row ? !t : t;  // row-major A is column-major A^T
    g.m = row ? n : m, g.n = row ? m : n;
    g.alpha = alpha, g.a = a, g.lda = lda, g.x = x, g.incx = incx, g.beta = beta, g.y = y, g.incy = incy;
    if (ridge::gemv_changes_nothing(g.m, g.n, g.alpha, g.beta)) return RIDGE_SUCCESS;
    const ridge_status status = ridge::dispatch_gemv(g);
    if (status != RIDGE_SUCCESS) ridge::report_native_error(status, fn, 0, ridge_status_string(status));
    return status;
}

}  // namespace

extern "C" RIDGE_API ridge_status ridge_sgemv(ridge_layout layout, ridge_transpose trans, int64_t m,
                                              int64_t n, float alpha, const float* a, int64_t lda,
                                              const float* x, int64_t incx, float beta, float* y,
                                              int64_t incy) {
    return native_gemv("ridge_sgemv", ridge::Dtype::f32, layout, trans, m, n, alpha, a, lda, x, incx,
                       beta, y, incy);
}

extern "C" RIDGE_API ridge_status ridge_gemv_f16(ridge_layout layout, ridge_transpose trans, int64_t m,
                                                 int64_t n, float alpha, const uint16_t* a, int64_t lda,
                                                 const uint16_t* x, int64_t incx, float beta, float* y,
                                                 int64_t incy) {
    return native_gemv("ridge_gemv_f16", ridge::Dtype::f16, layout, trans, m, n, alpha, a, lda, x, incx,
                       beta, y, incy);
}

extern "C" RIDGE_API ridge_status ridge_gemv_bf16(ridge_layout layout, ridge_transpose trans, int64_t m,
                                                  int64_t n, float alpha, const uint16_t* a, int64_t lda,
                                                  const uint16_t* x, int64_t incx, float beta, float* y,
                                                  int64_t incy) {
    return native_gemv("ridge_gemv_bf16", ridge::Dtype::bf16, layout, trans, m, n, alpha, a, lda, x, incx,
                       beta, y, incy);
}

extern "C" RIDGE_API ridge_status ridge_sgemm(ridge_layout layout, ridge_transpose trans_a,
                                              ridge_transpose trans_b, int64_t m, int64_t n,
                                              int64_t k, float alpha, const float* a, int64_t lda,
                                              const float* b, int64_t ldb, float beta, float* c,
                                              int64_t ldc) {
    return native_gemm("ridge_sgemm", ridge::Dtype::f32, layout, trans_a, trans_b, m, n, k, alpha, a,
                       lda, b, ldb, beta, c, ldc);
}

extern "C" RIDGE_API ridge_status ridge_sgemm_batch_strided(ridge_layout layout, ridge_transpose trans_a,
                                                            ridge_transpose trans_b, int64_t m, int64_t n,
                                                            int64_t k, float alpha, const float* a, int64_t lda,
                                                            int64_t stride_a, const float* b, int64_t ldb,
                                                            int64_t stride_b, float beta, float* c, int64_t ldc,
                                                            int64_t stride_c, int64_t batch_size) {
    const char* fn = "ridge_sgemm_batch_strided";
    ridge::StridedBatchCall call = ridge::strided_batch_call(layout, trans_a, trans_b);
    call.m = m, call.n = n, call.k = k, call.alpha = alpha, call.beta = beta;
    call.a = a, call.lda = lda, call.stride_a = stride_a;
    call.b = b, call.ldb = ldb, call.stride_b = stride_b;
    call.c = c, call.ldc = ldc, call.stride_c = stride_c, call.count = batch_size;
    ridge::GemmBatch batch;
    const ridge::BatchCheck e = ridge::check_gemm_batch_strided(call, &batch);
    if (e.position != 0) return bad_argument(fn, e.position, e.what);
    const ridge::GemmArgs& g = batch.shape;
    if (batch.count == 0 || ridge::gemm_changes_nothing(g.m, g.n, g.k, g.alpha, g.beta)) return RIDGE_SUCCESS;
    const ridge_status status = ridge::dispatch_gemm_batch(batch);
    if (status != RIDGE_SUCCESS) ridge::report_native_error(status, fn, 0, ridge_status_string(status));
    return status;
}

extern "C" RIDGE_API ridge_status ridge_gemm_f16(ridge_layout layout, ridge_transpose trans_a,
                                                 ridge_transpose trans_b, int64_t m, int64_t n,
                                                 int64_t k, float alpha, const uint16_t* a,
                                                 int64_t lda, const uint16_t* b, int64_t ldb,
                                                 float beta, float* c, int64_t ldc) {
    return native_gemm("ridge_gemm_f16", ridge::Dtype::f16, layout, trans_a, trans_b, m, n, k, alpha,
                       a, lda, b, ldb, beta, c, ldc);
}

extern "C" RIDGE_API ridge_status ridge_gemm_bf16(ridge_layout layout, ridge_transpose trans_a,
                                                  ridge_transpose trans_b, int64_t m, int64_t n,
                                                  int64_t k, float alpha, const uint16_t* a,
                                                  int64_t lda, const uint16_t* b, int64_t ldb,
                                                  float beta, float* c, int64_t ldc) {
    return native_gemm("ridge_gemm_bf16", ridge::Dtype::bf16, layout, trans_a, trans_b, m, n, k, alpha,
                       a, lda, b, ldb, beta, c, ldc);
}

extern "C" RIDGE_API const char* ridge_gemm_kernel_name(ridge_dtype input) {
    switch (input) {
        case RIDGE_F32:
            return ridge::runtime_config().gemm(ridge::Dtype::f32).kernel->name;
        case RIDGE_F16:
            return ridge::runtime_config().gemm(ridge::Dtype::f16).kernel->name;
        case RIDGE_BF16:
            return ridge::runtime_config().gemm(ridge::Dtype::bf16).kernel->name;
    }
    return "unknown";
}

extern "C" RIDGE_API void ridge_set_num_threads(int threads) { ridge::set_thread_count_override(threads); }

extern "C" RIDGE_API void ridge_set_global_num_threads(int threads) { ridge::set_process_thread_count(threads); }

extern "C" RIDGE_API int ridge_get_num_threads(void) { return ridge::wanted_thread_count(); }

extern "C" RIDGE_API const char* ridge_sgemm_kernel_name(void) {
    return ridge::runtime_config().gemm(ridge::Dtype::f32).kernel->name;
}

extern "C" RIDGE_API const char* ridge_status_string(ridge_status status) {
    switch (status) {
        case RIDGE_SUCCESS:
            return "success";
        case RIDGE_INVALID_ARGUMENT:
            return "invalid argument";
        case RIDGE_OUT_OF_MEMORY:
            return "out of memory for packing buffers";
    }
    return "unknown status";
}

extern "C" RIDGE_API const char* ridge_version(void) { return RIDGE_VERSION_STRING; }

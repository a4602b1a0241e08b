// The BLAS and CBLAS entry points, written once for both integer widths.
//
// blas32.cpp instantiates them with 32-bit integers under the standard names
// (libridge.so: sgemm_, cblas_sgemm, ...); blas64.cpp with 64-bit integers
// under LAPACK's ILP64 names (libridge64.so: sgemm_64_, cblas_sgemm_64, ...).
// Each file is a list of one-line extern "C" functions; everything that
// decides something is here, so the two interfaces cannot drift apart.
//
// An Abi is a struct naming what differs between the two:
//   using Int;                                          // int or int64_t
//   static void xerbla(const char* routine, Int info);  // xerbla_ / xerbla_64_, routine 6 chars
//   static void cblas_xerbla(Int info, const char* routine, const char* form, int value);
//                                                       // cblas_xerbla / cblas_xerbla_64
// Both error routines are called through the exported (weak) symbols, so a
// program's own definition replaces ridge's, as with any BLAS.
//
// Out of memory: the BLAS interfaces have no status to return, so a routine
// that could not allocate its packing buffers (nothing written) tells its
// xerbla INFO = kXerblaOutOfMemory (1089, see api/errors.h).
#pragma once

#include <cstdint>
#include <utility>

#include "api/cblas_checks.h"
#include "api/checks.h"
#include "api/errors.h"
#include "dispatch/dispatch.h"
#include "kernels/convert.h"
#include "ridge/cblas.h"

namespace ridge {

// --- Fortran BLAS (every argument by reference; gfortran's hidden string
// lengths follow the last argument and are not read) ---

// Every Fortran GEMM with an fp32 C: sgemm_ (fp32 A and B, routine "SGEMM ")
// and OpenBLAS's sbgemm_ / shgemm_ (16-bit A and B given by `input`), with
// netlib's checks and parameter numbers; `routine` is what xerbla is told.
template <typename Abi>
void fortran_gemm_f32_output(const char* routine, Dtype input, const char* transa, const char* transb,
                             const typename Abi::Int* m, const typename Abi::Int* n, const typename Abi::Int* k,
                             const float* alpha, const void* a, const typename Abi::Int* lda, const void* b,
                             const typename Abi::Int* ldb, const float* beta, float* c,
                             const typename Abi::Int* ldc) {
    const int info = gemm_netlib_info(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc);
    if (info != 0) {
        Abi::xerbla(routine, info);
        return;
    }
    GemmArgs g;
    g.input = input;
    g.trans_a = is_trans_char(*transa);
    g.trans_b = is_trans_char(*transb);
    g.m = *m, g.n = *n, g.k = *k;
    g.alpha = *alpha;
    g.a = a, g.lda = *lda;
    g.b = b, g.ldb = *ldb;
    g.beta = *beta;
    g.c = c, g.ldc = *ldc;
    if (gemm_changes_nothing(g.m, g.n, g.k, g.alpha, g.beta)) return;
    if (dispatch_gemm(g) != RIDGE_SUCCESS) Abi::xerbla(routine, kXerblaOutOfMemory);
}

template <typename Abi>
void sgemm_impl(const char* transa, const char* transb, const typename Abi::Int* m,
                const typename Abi::Int* n, const typename Abi::Int* k, const float* alpha,
                const float* a, const typename Abi::Int* lda, const float* b,
                const typename Abi::Int* ldb, const float* beta, float* c,
                const typename Abi::Int* ldc) {
    fortran_gemm_f32_output<Abi>("SGEMM ", Dtype::f32, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                                 ldc);
}

// Every Fortran GEMV with an fp32 y: sgemv_ ("SGEMV ") and OpenBLAS's sbgemv_ /
// shgemv_ (A and x of `input` elements).
template <typename Abi>
void fortran_gemv_f32_output(const char* routine, Dtype input, const char* trans, const typename Abi::Int* m,
                             const typename Abi::Int* n, const float* alpha, const void* a,
                             const typename Abi::Int* lda, const void* x, const typename Abi::Int* incx,
                             const float* beta, float* y, const typename Abi::Int* incy) {
    const int info = gemv_netlib_info(*trans, *m, *n, *lda, *incx, *incy);
    if (info != 0) {
        Abi::xerbla(routine, info);
        return;
    }
    GemvArgs g;
    g.input = input;
    g.trans = is_trans_char(*trans);
    g.m = *m, g.n = *n, g.alpha = *alpha, g.a = a, g.lda = *lda;
    g.x = x, g.incx = *incx, g.beta = *beta, g.y = y, g.incy = *incy;
    if (gemv_changes_nothing(g.m, g.n, g.alpha, g.beta)) return;
    if (dispatch_gemv(g) != RIDGE_SUCCESS) Abi::xerbla(routine, kXerblaOutOfMemory);
}

template <typename Abi>
void sgemv_impl(const char* trans, const typename Abi::Int* m, const typename Abi::Int* n,
                const float* alpha, const float* a, const typename Abi::Int* lda, const float* x,
                const typename Abi::Int* incx, const float* beta, float* y,
                const typename Abi::Int* incy) {
    fortran_gemv_f32_output<Abi>("SGEMV ", Dtype::f32, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

// --- CBLAS ---

// Reports a failed check to cblas_xerbla; true when the call may go on.
template <typename Abi>
bool cblas_accepts(const char* routine, const CblasError& e) {
    if (e.info == 0) return true;
    Abi::cblas_xerbla(e.info, routine, e.form, e.value);
    return false;
}

// After a checked call ran: only a failed allocation can have stopped it.
template <typename Abi>
void cblas_report_status(const char* routine, ridge_status status) {
    if (status != RIDGE_SUCCESS) Abi::cblas_xerbla(kXerblaOutOfMemory, routine, "", 0);
}

// Every CBLAS GEMM with an fp32 C: cblas_sgemm (fp32 A and B) and the
// mixed-precision ones (16-bit A and B given by `input`).
template <typename Abi>
void cblas_gemm_f32_output(const char* routine, Dtype input, CBLAS_LAYOUT layout,
                           CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, typename Abi::Int m,
                           typename Abi::Int n, typename Abi::Int k, float alpha, const void* a,
                           typename Abi::Int lda, const void* b, typename Abi::Int ldb, float beta,
                           float* c, typename Abi::Int ldc) {
    GemmArgs g;
    if (!cblas_accepts<Abi>(routine, check_cblas_gemm(layout, trans_a, trans_b, m, n, k, a, lda, b,
                                                      ldb, ldc, &g)))
        return;
    g.input = input;
    g.alpha = alpha, g.beta = beta, g.c = c;
    if (gemm_changes_nothing(g.m, g.n, g.k, g.alpha, g.beta)) return;
    cblas_report_status<Abi>(routine, dispatch_gemm(g));
}

// MKL's cblas_sgemm_batch_strided (also OpenBLAS's, and its bf16
// cblas_sbgemm_batch_strided: A and B of `input` elements): `batch_size`
// problems of one shape, problem i at a + i*stridea, b + i*strideb, c +
// i*stridec (elements). Parameter numbers are the signature's positions (see
// check_gemm_batch_strided).
template <typename Abi>
void cblas_gemm_batch_strided_f32_output(const char* routine, Dtype input, CBLAS_LAYOUT layout,
                                         CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, typename Abi::Int m,
                                         typename Abi::Int n, typename Abi::Int k, float alpha, const void* a,
                                         typename Abi::Int lda, typename Abi::Int stride_a, const void* b,
                                         typename Abi::Int ldb, typename Abi::Int stride_b, float beta, float* c,
                                         typename Abi::Int ldc, typename Abi::Int stride_c,
                                         typename Abi::Int batch_size) {
    StridedBatchCall call = strided_batch_call(layout, trans_a, trans_b);
    call.m = m, call.n = n, call.k = k, call.alpha = alpha, call.beta = beta;
    call.a = a, call.lda = lda, call.stride_a = stride_a;
    call.b = b, call.ldb = ldb, call.stride_b = stride_b;
    call.c = c, call.ldc = ldc, call.stride_c = stride_c, call.count = batch_size;
    GemmBatch batch;
    const BatchCheck e = check_gemm_batch_strided(call, &batch);
    if (e.position != 0) {
        set_cblas_row_major(false);  // positions are the caller's own, never swapped
        Abi::cblas_xerbla(e.position, routine, e.what, 0);
        return;
    }
    batch.shape.input = input;
    const GemmArgs& g = batch.shape;
    if (batch.count == 0 || gemm_changes_nothing(g.m, g.n, g.k, g.alpha, g.beta)) return;
    cblas_report_status<Abi>(routine, dispatch_gemm_batch(batch));
}

// MKL's cblas_sgemm_batch (also BLIS's and OpenBLAS's, and OpenBLAS's bf16
// cblas_sbgemm_batch: A and B of T = uint16_t): group_count groups, group i of
// group_size[i] problems sharing transa_array[i] .. ldc_array[i], the
// problems' operands listed in a_array, b_array and c_array group after group.
// Every argument, every listed pointer included, is checked before any C is
// written (positions: check_gemm_group in checks.h); the groups then run in
// order, each as one batch (dispatch_gemm_batch).
template <typename Abi, typename T>
struct GroupBatchArrays {
    using Int = typename Abi::Int;
    CBLAS_LAYOUT layout;
    const CBLAS_TRANSPOSE *trans_a, *trans_b;
    const Int *m, *n, *k;
    const float* alpha;
    const T** a;
    const Int* lda;
    const T** b;
    const Int* ldb;
    const float* beta;
    float** c;
    const Int* ldc;
    Int group_count;
    const Int* group_size;

    GroupCall group(int64_t i) const {
        GroupCall g = group_call(layout, trans_a[i], trans_b[i]);
        g.m = m[i], g.n = n[i], g.k = k[i], g.alpha = alpha[i], g.beta = beta[i];
        g.lda = lda[i], g.ldb = ldb[i], g.ldc = ldc[i], g.size = group_size[i];
        return g;
    }

    // The first bad argument, or position 0.
    BatchCheck check() const {
        if (layout != CblasRowMajor && layout != CblasColMajor) return {1, "invalid layout"};
        if (group_count < 0) return {15, "group_count < 0"};
        if (group_count > 0) {  // the per-group arrays, in positional order
            const std::pair<const void*, BatchCheck> arrays[] = {
                {trans_a, {2, "transa_array is NULL"}}, {trans_b, {3, "transb_array is NULL"}},
                {m, {4, "m_array is NULL"}},            {n, {5, "n_array is NULL"}},
                {k, {6, "k_array is NULL"}},            {alpha, {7, "alpha_array is NULL"}},
                {lda, {9, "lda_array is NULL"}},        {ldb, {11, "ldb_array is NULL"}},
                {beta, {12, "beta_array is NULL"}},     {ldc, {14, "ldc_array is NULL"}},
                {group_size, {16, "group_size is NULL"}}};
            for (const auto& [array, missing] : arrays)
                if (array == nullptr) return missing;
        }
        int64_t total = 0;
        bool reads_ab = false, writes_c = false;
        for (int64_t i = 0; i < group_count; ++i) {
            const GroupCall g = group(i);
            if (const BatchCheck e = check_gemm_group(g); e.position != 0) return e;
            // (the problems are numbered in int64: no sum of sizes may wrap)
            if (g.size > (int64_t{1} << 62) - total) return {16, "group sizes add up to more than 2^62 problems"};
            total += g.size;
            reads_ab = reads_ab || group_reads_ab(g);
            writes_c = writes_c || group_writes_c(g);
        }
        if (reads_ab && a == nullptr) return {8, "a_array is NULL"};
        if (reads_ab && b == nullptr) return {10, "b_array is NULL"};
        if (writes_c && c == nullptr) return {13, "c_array is NULL"};
        for (int64_t i = 0, first = 0; i < group_count; ++i) {  // the listed pointers the groups use
            const GroupCall g = group(i);
            const bool reads = group_reads_ab(g), writes = group_writes_c(g);
            for (int64_t p = first; p < first + g.size; ++p) {
                if (reads && a[p] == nullptr) return {8, "a NULL in a_array"};
                if (reads && b[p] == nullptr) return {10, "b NULL in b_array"};
                if (writes && c[p] == nullptr) return {13, "c NULL in c_array"};
            }
            first += g.size;
        }
        return {};
    }
};

template <typename Abi, typename T>
void cblas_gemm_batch_f32_output(const char* routine, Dtype input, const GroupBatchArrays<Abi, T>& call) {
    if (const BatchCheck e = call.check(); e.position != 0) {
        set_cblas_row_major(false);  // positions are the caller's own, never swapped
        Abi::cblas_xerbla(e.position, routine, e.what, 0);
        return;
    }
    for (int64_t i = 0, first = 0; i < call.group_count; ++i) {
        const GroupCall g = call.group(i);
        if (group_writes_c(g)) {
            const void* a = call.a != nullptr ? call.a + first : nullptr;  // read as T* by GemmBatch::problem
            const void* b = call.b != nullptr ? call.b + first : nullptr;
            GemmBatch batch = group_batch(g, a, b, call.c + first);
            batch.shape.input = input;
            const ridge_status status = dispatch_gemm_batch(batch);
            if (status != RIDGE_SUCCESS) return cblas_report_status<Abi>(routine, status);
        }
        first += g.size;
    }
}

// fp16 in and out (MKL's cblas_hgemm): the product is formed and accumulated
// in fp32 against an fp32 copy of C, then rounded to fp16 once.
template <typename Abi>
void cblas_hgemm_impl(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                      typename Abi::Int m, typename Abi::Int n, typename Abi::Int k, uint16_t alpha,
                      const uint16_t* a, typename Abi::Int lda, const uint16_t* b,
                      typename Abi::Int ldb, uint16_t beta, uint16_t* c, typename Abi::Int ldc) {
    GemmArgs g;
    if (!cblas_accepts<Abi>("cblas_hgemm", check_cblas_gemm(layout, trans_a, trans_b, m, n, k, a, lda,
                                                            b, ldb, ldc, &g)))
        return;
    g.input = Dtype::f16;
    g.alpha = f16_to_f32(alpha);
    g.beta = f16_to_f32(beta);
    if (gemm_changes_nothing(g.m, g.n, g.k, g.alpha, g.beta)) return;
    cblas_report_status<Abi>("cblas_hgemm", dispatch_gemm_f16_output(g, c, ldc));
}

// Every CBLAS GEMV with an fp32 y: cblas_sgemv, and OpenBLAS's 16-bit ones
// (A and x of `input` elements).
template <typename Abi>
void cblas_gemv_f32_output(const char* routine, Dtype input, CBLAS_LAYOUT layout,
                           CBLAS_TRANSPOSE trans, typename Abi::Int m, typename Abi::Int n,
                           float alpha, const void* a, typename Abi::Int lda, const void* x,
                           typename Abi::Int incx, float beta, float* y, typename Abi::Int incy) {
    GemvArgs g;
    if (!cblas_accepts<Abi>(routine, check_cblas_gemv(layout, trans, m, n, a, lda, x, incx, incy, &g)))
        return;
    g.input = input;
    g.alpha = alpha, g.beta = beta, g.y = y;
    if (gemv_changes_nothing(g.m, g.n, g.alpha, g.beta)) return;
    cblas_report_status<Abi>(routine, dispatch_gemv(g));
}

// OpenBLAS's conversions (and ridge's fp16 pair): a BLAS-style strided loop,
// negative increments walk backwards from the far end; n <= 0 does nothing.
template <typename Abi, typename In, typename Out, Out (*convert)(In)>
void convert_strided(typename Abi::Int n, const In* in, typename Abi::Int incin, Out* out,
                     typename Abi::Int incout) {
    if (n <= 0) return;
    const int64_t len = n, in_step = incin, out_step = incout;
    const In* src = in_step < 0 ? in - (len - 1) * in_step : in;
    Out* dst = out_step < 0 ? out - (len - 1) * out_step : out;
    for (int64_t i = 0; i < len; ++i) dst[i * out_step] = convert(src[i * in_step]);
}

}  // namespace ridge

// Argument checks shared by the Fortran, CBLAS and native entry points.
#pragma once

#include <cstdint>

#include "gemm/gemm.h"

namespace ridge {

// BLAS transpose characters: N/n no transpose; T/t and C/c (real types) transpose.
bool is_trans_char(char c);
bool is_valid_trans_char(char c);

// netlib xGEMM's checks (SGEMM's, which every GEMM variant shares), in its order,
// on a column-major call.
// Returns 0 when all is well, else netlib's parameter number:
// 1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc.
int gemm_netlib_info(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t lda,
                      int64_t ldb, int64_t ldc);

// netlib SGEMV's checks, in its order: 0, or 1 trans, 2 m, 3 n, 6 lda, 8 incx, 11 incy.
int gemv_netlib_info(char trans, int64_t m, int64_t n, int64_t lda, int64_t incx, int64_t incy);

// netlib's quick returns: a checked call that changes nothing (C or y has no
// element, or it is only multiplied by beta == 1). Taken at the door, before
// any planning: sizes that are legal but astronomically large along an empty
// dimension (m = 2^63 - 1 with n = 0) never reach arithmetic that could overflow.
bool gemm_changes_nothing(int64_t m, int64_t n, int64_t k, float alpha, float beta);
bool gemv_changes_nothing(int64_t m, int64_t n, float alpha, float beta);

// A strided batch of GEMMs (ridge_sgemm_batch_strided, MKL's
// cblas_sgemm_batch_strided): problem i reads A at a + i*stride_a and B at
// b + i*stride_b and writes C at c + i*stride_c (elements). The caller decodes
// the layout and transposes (valid or not) into `call`.
struct StridedBatchCall {
    bool layout_valid = true, row_major = false;
    bool trans_a_valid = true, trans_a = false;
    bool trans_b_valid = true, trans_b = false;
    int64_t m = 0, n = 0, k = 0;
    float alpha = 1.0f, beta = 0.0f;
    const void* a = nullptr;
    int64_t lda = 0, stride_a = 0;
    const void* b = nullptr;
    int64_t ldb = 0, stride_b = 0;
    float* c = nullptr;
    int64_t ldc = 0, stride_c = 0;
    int64_t count = 0;
};

// A call with its layout and transposes decoded from CBLAS's values, which
// ridge.h's enums share (layout 101 row-major, 102 column-major; transposes
// 111 none, 112 transpose, 113 conjugate transpose); everything else left to fill in.
StridedBatchCall strided_batch_call(int layout, int trans_a, int trans_b);

// The first bad argument of a batch call: its 1-based position in the
// signature (layout 1, trans_a 2, trans_b 3, m 4, n 5, k 6, alpha 7, a 8,
// lda 9, stride_a 10, b 11, ldb 12, stride_b 13, beta 14, c 15, ldc 16,
// stride_c 17, batch_size 18) and what is wrong; position 0 when the call is
// valid, and then *out is the batch to run, column-major (a row-major call
// swaps the operands and their strides, as for one GEMM). Checked in
// positional order, the pointers last (they only matter when the batch reads
// or writes anything).
// Problems' C must not overlap (stride_c at least one C), since they may be
// written concurrently; A and B may be shared (stride 0).
struct BatchCheck {
    int position = 0;
    const char* what = "";
};
BatchCheck check_gemm_batch_strided(const StridedBatchCall& call, GemmBatch* out);

// One group of MKL's group batch (cblas_sgemm_batch): `size` problems of one
// shape, each with its own A, B and C. Positions are that signature's:
// layout 1, transa_array 2, transb_array 3, m_array 4, n_array 5, k_array 6,
// alpha_array 7, a_array 8, lda_array 9, b_array 10, ldb_array 11,
// beta_array 12, c_array 13, ldc_array 14, group_count 15, group_size 16.
struct GroupCall {
    bool row_major = false;
    bool trans_a_valid = true, trans_a = false;
    bool trans_b_valid = true, trans_b = false;
    int64_t m = 0, n = 0, k = 0;
    float alpha = 1.0f, beta = 0.0f;
    int64_t lda = 0, ldb = 0, ldc = 0, size = 0;
};

// A group with its layout (already checked) and transposes decoded from CBLAS's values.
GroupCall group_call(int layout, int trans_a, int trans_b);

// The first bad value of a group, in positional order (transposes, sizes,
// leading dimensions, then its size), or position 0. Its pointers are
// checked by the caller, which holds them.
BatchCheck check_gemm_group(const GroupCall& group);

// Whether the group's problems read A and B, and whether they write C: what
// makes their pointers necessary (a group that changes nothing needs none).
bool group_reads_ab(const GroupCall& group);
bool group_writes_c(const GroupCall& group);

// A checked group as a column-major batch over its problems' operands (the
// lists start at the group's first problem).
// a and b: the group's lists (GemmBatch::a_list, b_list), of any element type.
GemmBatch group_batch(const GroupCall& group, const void* a, const void* b, float* const* c);

}  // namespace ridge

/* ridge: native C API.
 *
 * Every function returns a ridge_status and never aborts, exits or prints
 * (RIDGE_VERBOSE=1 in the environment makes the library say what it chose).
 * Matrices follow BLAS conventions: a layout (column- or row-major), a
 * transpose flag per operand, and a leading dimension per matrix.
 * Sizes and leading dimensions are 64-bit: leading dimensions beyond 2^31
 * elements work (index arithmetic is 64-bit throughout).
 *
 * Both libridge.so and libridge64.so (the ILP64 BLAS, see cblas_64.h) export
 * this API, each under its own symbol version (RIDGE_0, RIDGE64_0): a program
 * reaches the library it was linked against, and the two keep separate
 * settings (error handler, thread counts) when one process loads both.
 *
 * Out of memory: a call whose packing buffers cannot be allocated writes
 * nothing and returns RIDGE_OUT_OF_MEMORY (the handler is told, argument 0).
 * The BLAS and CBLAS interfaces have no status: they report the same event to
 * xerbla_ / cblas_xerbla (or xerbla_64_ / cblas_xerbla_64) with INFO 1089,
 * MKL's number for insufficient workspace, beyond any parameter position.
 *
 * fork(): in the child, the thread that forked runs ridge on one thread
 * (libgomp's thread pool does not survive a fork: a multi-threaded call there
 * would wait forever for threads that do not exist); threads the child starts
 * later use the default. ridge_set_num_threads(n > 1) on the forking thread of
 * a child whose parent already ran multi-threaded calls brings the hang back. */
#ifndef RIDGE_RIDGE_H
#define RIDGE_RIDGE_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define RIDGE_API __declspec(dllexport)
#else
#define RIDGE_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ridge_status {
    RIDGE_SUCCESS = 0,
    RIDGE_INVALID_ARGUMENT = 1, /* nothing was written; see the error handler */
    RIDGE_OUT_OF_MEMORY = 2,    /* packing buffers could not be allocated; C untouched */
} ridge_status;

/* Values match CBLAS's enums so callers can cast between them. */
typedef enum ridge_layout { RIDGE_ROW_MAJOR = 101, RIDGE_COL_MAJOR = 102 } ridge_layout;
typedef enum ridge_transpose {
    RIDGE_NO_TRANS = 111,
    RIDGE_TRANS = 112,
    RIDGE_CONJ_TRANS = 113 /* same as RIDGE_TRANS for real types */
} ridge_transpose;

/* C = alpha * op(A) * op(B) + beta * C, op(A) m x k, op(B) k x n, C m x n.
 * beta == 0 overwrites C without reading it; alpha == 0 never reads A or B.
 * On a bad argument: returns RIDGE_INVALID_ARGUMENT, calls the error handler
 * with the 1-based position of the first bad argument in this signature, and
 * writes nothing. */
RIDGE_API ridge_status ridge_sgemm(ridge_layout layout, ridge_transpose trans_a,
                                   ridge_transpose trans_b, int64_t m, int64_t n, int64_t k,
                                   float alpha, const float *a, int64_t lda, const float *b,
                                   int64_t ldb, float beta, float *c, int64_t ldc);

/* A batch of batch_size problems of one shape (MKL's cblas_sgemm_batch_strided):
 * problem i is ridge_sgemm on a + i*stride_a, b + i*stride_b, c + i*stride_c
 * (elements), with the same C bit for bit. stride_a or stride_b may be 0 (one
 * A or B for all); the problems' C must not overlap (stride_c >= ldc * n
 * column-major, ldc * m row-major), since they may be written concurrently.
 * Small problems are spread over the threads, whole problems per thread; larger
 * ones run one after another, each on the threads one call would use.
 * RIDGE_INVALID_ARGUMENT names the argument's position (layout 1 ... lda 9,
 * stride_a 10, b 11, ldb 12, stride_b 13, beta 14, c 15, ldc 16, stride_c 17,
 * batch_size 18); on any error no C is written. */
RIDGE_API ridge_status ridge_sgemm_batch_strided(ridge_layout layout, ridge_transpose trans_a,
                                                 ridge_transpose trans_b, int64_t m, int64_t n, int64_t k,
                                                 float alpha, const float *a, int64_t lda, int64_t stride_a,
                                                 const float *b, int64_t ldb, int64_t stride_b, float beta,
                                                 float *c, int64_t ldc, int64_t stride_c, int64_t batch_size);

/* 16-bit inputs, fp32 C: C = alpha * op(A) * op(B) + beta * C with A and B
 * in IEEE binary16 (ridge_gemm_f16) or bfloat16 (ridge_gemm_bf16), passed as
 * raw 16-bit patterns (uint16_t: no _Float16 needed). Inputs convert to fp32
 * exactly; products accumulate in fp32. Same checks and statuses as ridge_sgemm.
 * bf16 runs on the fastest path the CPU has: AMX tiles (tdpbf16ps), else
 * vdpbf16ps where it outruns fp32 FMA (measured at first use), else a
 * conversion to fp32 while packing. tdpbf16ps and vdpbf16ps treat bf16
 * subnormal inputs as zero and flush subnormal results to zero (Intel SDM);
 * the conversion path honours them, and so do problems with one row or column
 * of C (computed as GEMV) and, where bf16 runs on vdpbf16ps, the paths that
 * read an operand in place, which take most problems with at most 16 rows or
 * columns of C and convert as they read (RIDGE_REPORT=1 names each call's
 * path and kernel). fp16 subnormals are honoured everywhere. */
RIDGE_API ridge_status ridge_gemm_f16(ridge_layout layout, ridge_transpose trans_a,
                                      ridge_transpose trans_b, int64_t m, int64_t n, int64_t k,
                                      float alpha, const uint16_t *a, int64_t lda, const uint16_t *b,
                                      int64_t ldb, float beta, float *c, int64_t ldc);
RIDGE_API ridge_status ridge_gemm_bf16(ridge_layout layout, ridge_transpose trans_a,
                                       ridge_transpose trans_b, int64_t m, int64_t n, int64_t k,
                                       float alpha, const uint16_t *a, int64_t lda, const uint16_t *b,
                                       int64_t ldb, float beta, float *c, int64_t ldc);

/* y = alpha * op(A) * x + beta * y, A m x n. x has length n (m when
 * transposed), y length m (n), with BLAS increments (negative: walk from the
 * far end; zero is an error). beta == 0 overwrites y without reading it.
 * ridge_gemv_f16/bf16: A and x 16-bit (raw patterns), y fp32, fp32 accumulation.
 * Argument positions for the error handler: layout 1, trans 2, m 3, n 4,
 * a 6, lda 7, x 8, incx 9, y 11, incy 12. */
RIDGE_API ridge_status ridge_sgemv(ridge_layout layout, ridge_transpose trans, int64_t m, int64_t n,
                                   float alpha, const float *a, int64_t lda, const float *x,
                                   int64_t incx, float beta, float *y, int64_t incy);
RIDGE_API ridge_status ridge_gemv_f16(ridge_layout layout, ridge_transpose trans, int64_t m, int64_t n,
                                      float alpha, const uint16_t *a, int64_t lda, const uint16_t *x,
                                      int64_t incx, float beta, float *y, int64_t incy);
RIDGE_API ridge_status ridge_gemv_bf16(ridge_layout layout, ridge_transpose trans, int64_t m, int64_t n,
                                       float alpha, const uint16_t *a, int64_t lda, const uint16_t *x,
                                       int64_t incx, float beta, float *y, int64_t incy);

/* Called on every invalid argument or failed allocation of the native API.
 * 'function' is e.g. "ridge_sgemm", 'argument' the 1-based position of the
 * offending parameter (0 when the error is not about one argument, e.g.
 * RIDGE_OUT_OF_MEMORY). 'user_data' is passed back as given. The handler is
 * process-wide, runs on the calling thread, outside any lock of ridge's (it may
 * call ridge, even ridge_set_error_handler). BLAS and CBLAS calls never reach
 * it: they report to xerbla_ and cblas_xerbla.
 * NULL restores the default, which is silent (it prints under RIDGE_VERBOSE);
 * the status is returned either way. */
typedef void (*ridge_error_handler)(ridge_status status, const char *function, int argument,
                                    const char *message, void *user_data);
RIDGE_API void ridge_set_error_handler(ridge_error_handler handler, void *user_data);

/* Threads used by calls made from the calling thread: 0 restores the default
 * (the global count below if set, else RIDGE_NUM_THREADS, then
 * OMP_NUM_THREADS, then the number of cores).
 * Inside a caller's OpenMP parallel region ridge always runs on one thread. */
RIDGE_API void ridge_set_num_threads(int threads);
/* Threads used by calls from every thread that has not set its own count with
 * ridge_set_num_threads; 0 restores the default. What OpenBLAS's
 * openblas_set_num_threads and MKL's mkl_set_num_threads set (cblas.h). */
RIDGE_API void ridge_set_global_num_threads(int threads);
/* The threads a call from the calling thread may use (fewer when the problem
 * is too small to pay for them). */
RIDGE_API int ridge_get_num_threads(void);

/* The kernel ridge runs for fp32 GEMM on this CPU, e.g. "ukr_f32_gemm_32x12__avx512". */
RIDGE_API const char *ridge_sgemm_kernel_name(void);

typedef enum ridge_dtype { RIDGE_F32 = 0, RIDGE_F16 = 1, RIDGE_BF16 = 2 } ridge_dtype;
/* The kernel GEMM with inputs of this type runs on (16-bit inputs converted to
 * fp32 while packing run on an fp32 kernel). */
RIDGE_API const char *ridge_gemm_kernel_name(ridge_dtype input);

/* The report of a call: what ran and how much data its schedule moved across
 * each level of the memory hierarchy, counted by the library while it ran
 * (edges and threads included), against the ideal of moving each matrix once.
 * Intensity at a level = flops / bytes at that level (FLOP per byte). */
typedef struct ridge_report {
    const char *routine;  /* "gemm", "gemm_batch" (m, n, k of one problem; flops,
                             bytes and seconds of the whole batch) or "gemv" */
    const char *input;    /* "f32", "f16", "bf16": A's and B's (x's) element type */
    const char *path;     /* "blocked", "blocked_stream_c" (C written with
                             non-temporal stores), "small", "skinny", "skinny_m",
                             "skinny_trans_a", "rows_in_place", "gemv" or
                             "gemv_prefetch" (A beyond the L3, prefetched) */
    const char *kernel;   /* the microkernel that ran (GEMV: its kernels' name, e.g.
                             "gemv_f32__avx512", or the N that runs an A beyond the
                             L3 where it has its own: "gemv_n_f32_from_memory__avx512") */
    int threads;
    int64_t m, n, k;      /* as ridge ran it: column-major (row-major calls swap m and n); k = 1 for GEMV */
    int64_t MR, NR, KC, MC, NC; /* the blocking of the blocked path; 0 elsewhere */
    double flops;         /* 2mnk */
    double ideal_bytes;   /* p(mk + kn) + 4mn, twice 4mn when C is read (beta != 0) */
    double memory_bytes;  /* counted: between memory and the caches */
    double l3_to_l2_bytes; /* counted: packed B panel passes into L2 (blocked path) */
    double l2_to_l1_bytes; /* counted: packed A block passes into L1 and B micro-panels
                              (small path: op(A) once per NR columns of C, and B;
                              skinny path: C read and written once per chunk of k;
                              few-rows path: packed op(A) once per group of columns,
                              and op(B)) */
    double seconds;       /* wall time of the call */
    double measured_memory_bytes; /* hardware counter (LLC misses x 64 B), -1 when unavailable */
    const char *hw_counters;      /* what measured_memory_bytes is, or why it is unavailable */
} ridge_report;

/* Reports are opt-in: RIDGE_REPORT=1 records every call and prints one line
 * per call to stderr; ridge_set_report(1) records the calling thread's calls
 * silently (0 stops, for this thread). Off, nothing is counted. */
RIDGE_API void ridge_set_report(int enabled);
/* The calling thread's last recorded call; RIDGE_INVALID_ARGUMENT when out is
 * NULL or nothing has been recorded on this thread. */
RIDGE_API ridge_status ridge_last_report(ridge_report *out);

RIDGE_API const char *ridge_status_string(ridge_status status);
RIDGE_API const char *ridge_version(void);

#ifdef __cplusplus
}
#endif

#endif /* RIDGE_RIDGE_H */

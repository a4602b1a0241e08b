/* ScaLAPACK's PSGEMM on a 1 x 2 BLACS grid (2 MPI ranks), with ridge as the
 * node-level BLAS underneath. The program is linked against Debian's
 * libscalapack-openmpi (and through it the system BLAS) and nothing of ridge:
 * ctest runs it under `mpiexec -x LD_PRELOAD=libridge.so`, as a cluster user
 * would, like test/dropin runs its programs.
 *
 * Every rank
 *   - fills its local pieces of A (M x K), B (K x N) and C (M x N) from
 *     formulas of the global indices, so no data has to be scattered and every
 *     rank can compute the exact answer for the entries it owns;
 *   - runs C = alpha A B + beta C with PSGEMM, sizes not multiples of the
 *     block size so the last blocks are partial;
 *   - checks each of its entries of C against a double-precision dot product,
 *     within a bound that grows with K (float rounding of a K-term sum);
 *   - proves ridge did the local GEMMs: sgemm_ as the dynamic linker resolves
 *     it (the same lookup libscalapack's calls go through) must live in the
 *     same object as ridge_version, that object must be the libridge given
 *     on the command line (when given), and ridge's per-call report, switched
 *     on before PSGEMM, must have recorded a GEMM on this thread.
 * Rank 0 prints PASSED or FAILED for all ranks; any failure exits non-zero.
 *
 * Usage: psgemm_ridge [expected path of libridge.so] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Types only: ridge's functions are looked up at run time (dlsym), so the
 * program links without ridge and runs without it too (failing its check). */
#include <ridge/ridge.h>

/* BLACS's C interface and ScaLAPACK's tools, as libscalapack-openmpi exports
 * them (Debian ships no header for them). */
void Cblacs_pinfo(int *me, int *nprocs);
void Cblacs_get(int context, int what, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int keep_mpi);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *context, const int *lld, int *info);
/* PBLAS is C underneath: the character arguments carry no hidden lengths. */
void psgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const float *alpha, const float *a, const int *ia, const int *ja, const int *desca,
             const float *b, const int *ib, const int *jb, const int *descb, const float *beta, float *c,
             const int *ic, const int *jc, const int *descc);

/* Uneven on purpose: none is a multiple of the 32 x 32 blocks, and the two
 * column owners get different widths (257 = 8 blocks + 1 column). */
enum { M = 301, N = 257, K = 199, MB = 32, NB = 32, NPROW = 1, NPCOL = 2 };
static const float alpha = 1.5f, beta = -0.75f;

/* Entries in [-1/2, 1/2] that float cannot hold exactly (thirteenths,
 * elevenths, sevenths), so products and sums round and the error bound below
 * is put to work; no pattern a wrong transpose or index shift could reproduce. */
static float a_at(int i, int j) { return (float)((i * 7 + j * 3) % 13 - 6) / 13.0f; }
static float b_at(int i, int j) { return (float)((i * 5 + j * 4) % 11 - 5) / 11.0f; }
static float c_at(int i, int j) { return (float)((i * 3 + j * 2) % 7 - 3) / 7.0f; }

/* Global index of local index l on process p of np, blocks of nb dealt from
 * process 0 (the block-cyclic rule descinit_ is given below). */
static int global_index(int l, int nb, int p, int np) { return (l / nb * np + p) * nb + l % nb; }

/* This process's place in the grid. */
typedef struct place { int row, col, nprow, npcol; } place;
static int global_row(int l, const place *me) { return global_index(l, MB, me->row, me->nprow); }
static int global_col(int l, const place *me) { return global_index(l, NB, me->col, me->npcol); }

/* The local piece (rows x cols, leading dimension ld) of the matrix whose
 * global entries are f(i, j). */
static void fill(float *x, int ld, int rows, int cols, float (*f)(int, int), const place *me) {
    for (int lj = 0; lj < cols; ++lj)
        for (int li = 0; li < rows; ++li) x[li + (size_t)lj * ld] = f(global_row(li, me), global_col(lj, me));
}

/* The file name of the object defining `fn`, NULL when none. */
static const char *object_of(void *fn) {
    Dl_info where;
    if (fn == NULL || dladdr(fn, &where) == 0) return NULL;
    return where.dli_fname;
}

/* Same file, however the path was spelled (LD_PRELOAD keeps the caller's spelling). */
static int same_file(const char *x, const char *y) {
    char rx[PATH_MAX], ry[PATH_MAX];
    return x != NULL && y != NULL && realpath(x, rx) != NULL && realpath(y, ry) != NULL && strcmp(rx, ry) == 0;
}

/* Checks that ridge is the sgemm_ of this process, before any work: a run
 * without ridge underneath must fail even though ScaLAPACK would compute the
 * right answer on the system BLAS. */
static int ridge_is_the_blas(int rank, const char *expected) {
    const char *sgemm_from = object_of(dlsym(RTLD_DEFAULT, "sgemm_"));
    void *version = dlsym(RTLD_DEFAULT, "ridge_version");
    if (version == NULL) {
        printf("rank %d: ridge is not loaded (no ridge_version); sgemm_ served by %s\n", rank,
               sgemm_from ? sgemm_from : "nothing");
        return 0;
    }
    const char *ridge_from = object_of(version);
    printf("rank %d: sgemm_ served by %s; ridge %s from %s\n", rank, sgemm_from ? sgemm_from : "nothing",
           ((const char *(*)(void))version)(), ridge_from);
    if (!same_file(sgemm_from, ridge_from)) {
        printf("rank %d: sgemm_ does not resolve to ridge\n", rank);
        return 0;
    }
    if (expected != NULL && !same_file(ridge_from, expected)) {
        printf("rank %d: ridge came from %s, not from %s\n", rank, ridge_from, expected);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, nprocs = 0;
    Cblacs_pinfo(&rank, &nprocs);
    if (nprocs != NPROW * NPCOL) {
        if (rank == 0) printf("FAILED: needs %d ranks, has %d\n", NPROW * NPCOL, nprocs);
        MPI_Finalize();
        return 1;
    }
    int ok = ridge_is_the_blas(rank, argc > 1 ? argv[1] : NULL);

    int context = 0, nprow = 0, npcol = 0, myrow = 0, mycol = 0;
    Cblacs_get(-1, 0, &context); /* the default system context: MPI_COMM_WORLD */
    Cblacs_gridinit(&context, "Row", NPROW, NPCOL);
    Cblacs_gridinfo(context, &nprow, &npcol, &myrow, &mycol);
    const place me = {myrow, mycol, nprow, npcol};

    /* Local shapes: rows split over process rows, columns over process columns. */
    const int m = M, n = N, k = K, mb = MB, nb = NB, zero = 0, one = 1;
    const int a_rows = numroc_(&m, &mb, &myrow, &zero, &nprow);
    const int a_cols = numroc_(&k, &nb, &mycol, &zero, &npcol);
    const int b_rows = numroc_(&k, &mb, &myrow, &zero, &nprow);
    const int b_cols = numroc_(&n, &nb, &mycol, &zero, &npcol);
    const int c_rows = a_rows, c_cols = b_cols;
    /* A leading dimension of at least 1, as descinit_ requires even for an empty piece. */
    const int lda = a_rows > 1 ? a_rows : 1, ldb = b_rows > 1 ? b_rows : 1, ldc = c_rows > 1 ? c_rows : 1;
    int desc_a[9], desc_b[9], desc_c[9], info = 0, bad = 0;
    descinit_(desc_a, &m, &k, &mb, &nb, &zero, &zero, &context, &lda, &info);
    bad |= info;
    descinit_(desc_b, &k, &n, &mb, &nb, &zero, &zero, &context, &ldb, &info);
    bad |= info;
    descinit_(desc_c, &m, &n, &mb, &nb, &zero, &zero, &context, &ldc, &info);
    bad |= info;
    if (bad != 0) {
        printf("rank %d: descinit_ rejected a descriptor\n", rank);
        ok = 0;
    }

    float *a = calloc((size_t)lda * (a_cols > 0 ? a_cols : 1), sizeof(float));
    float *b = calloc((size_t)ldb * (b_cols > 0 ? b_cols : 1), sizeof(float));
    float *c = calloc((size_t)ldc * (c_cols > 0 ? c_cols : 1), sizeof(float));
    if (a == NULL || b == NULL || c == NULL) {
        printf("rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fill(a, lda, a_rows, a_cols, a_at, &me);
    fill(b, ldb, b_rows, b_cols, b_at, &me);
    fill(c, ldc, c_rows, c_cols, c_at, &me);

    /* Record ridge's calls on this thread (silently), so that afterwards the
     * last record shows ridge ran a GEMM for PSGEMM. Looked up at run time:
     * without ridge there is nothing to switch on, and the check below fails. */
    void (*set_report)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "ridge_set_report");
    ridge_status (*last_report)(ridge_report *) =
        (ridge_status(*)(ridge_report *))dlsym(RTLD_DEFAULT, "ridge_last_report");
    if (set_report != NULL) set_report(1);

    const double start = MPI_Wtime();
    psgemm_("N", "N", &m, &n, &k, &alpha, a, &one, &one, desc_a, b, &one, &one, desc_b, &beta, c, &one, &one,
            desc_c);
    const double seconds = MPI_Wtime() - start;

    ridge_report last;
    memset(&last, 0, sizeof last);
    if (last_report == NULL || last_report(&last) != RIDGE_SUCCESS || last.routine == NULL ||
        strcmp(last.routine, "gemm") != 0) {
        printf("rank %d: ridge recorded no GEMM during PSGEMM\n", rank);
        ok = 0;
    } else {
        printf("rank %d: ridge's last GEMM in PSGEMM: %lldx%lldx%lld, kernel %s, %d thread(s)\n", rank,
               (long long)last.m, (long long)last.n, (long long)last.k, last.kernel, last.threads);
    }

    /* Each entry is a K-term float sum: rounding can grow with K, so the bound
     * is a small multiple of K * eps times the magnitudes added (the usual
     * GEMM error bound), never a fixed tolerance; FLT_MIN keeps it above 0
     * where every term is 0. */
    double worst = 0.0; /* largest error / bound seen on this rank */
    int wrong = 0;
    for (int lj = 0; lj < c_cols; ++lj)
        for (int li = 0; li < c_rows; ++li) {
            const int i = global_row(li, &me), j = global_col(lj, &me);
            double sum = 0.0, size = 0.0;
            for (int p = 0; p < K; ++p) {
                sum += (double)a_at(i, p) * b_at(p, j);
                size += fabs((double)a_at(i, p) * b_at(p, j));
            }
            const double want = alpha * sum + beta * (double)c_at(i, j);
            const double bound =
                2.0 * (K + 2) * FLT_EPSILON * (fabs(alpha) * size + fabs(beta * c_at(i, j))) + FLT_MIN;
            const double error = fabs((double)c[li + (size_t)lj * ldc] - want);
            if (error / bound > worst) worst = error / bound;
            if (!(error <= bound) && wrong++ < 5) /* a few, not thousands of lines */
                printf("rank %d: C(%d,%d) = %.9g, expected %.9g (error %.3g > bound %.3g)\n", rank, i, j,
                       c[li + (size_t)lj * ldc], want, error, bound);
        }
    if (wrong > 0) ok = 0;
    printf("rank %d: %d x %d local entries of C checked, %d wrong, worst error %.3g of its bound, "
           "PSGEMM %.3f s\n", rank, c_rows, c_cols, wrong, worst, seconds);

    /* One verdict for the whole grid, printed once. */
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0 && all_ok)
        printf("PASSED: PSGEMM %dx%dx%d, blocks %dx%d, %dx%d grid, ridge's sgemm_ underneath on every rank\n",
               M, N, K, MB, NB, NPROW, NPCOL);
    if (rank == 0 && !all_ok) printf("FAILED: see the rank lines above\n");
    fflush(stdout);

    free(a);
    free(b);
    free(c);
    Cblacs_gridexit(context);
    Cblacs_exit(1); /* 1: leave MPI to MPI_Finalize below */
    MPI_Finalize();
    return all_ok ? 0 : 1;
}

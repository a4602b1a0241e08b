/* A program linked against libridge.so and then another BLAS that defines the
 * same thread setters (other_blas.c): its calls bind to ridge's, which must
 * set ridge's count and pass each call on to the other library, as they do
 * for a program that LD_PRELOADs ridge over OpenBLAS or MKL. Prints every
 * check that fails, naming the setter, and then exits non-zero. */
#include <stdio.h>

#include "ridge/cblas.h"
#include "ridge/ridge.h"

int other_blas_last(int which);

static int failures = 0;
static void expect(int ok, const char *what, long got, long want) {
    if (!ok) {
        printf("FAILED: %s: got %ld, want %ld\n", what, got, want);
        ++failures;
    }
}

/* A global setter (the stand-in's slot `which`) called with n: ridge's count is
 * n and the stand-in received n. */
static void check_global(void (*set)(int), const char *name, int which, int n) {
    set(n);
    if (other_blas_last(which) != n) {
        printf("FAILED: %s(%d) not passed on: the other library got %d\n", name, n, other_blas_last(which));
        ++failures;
    }
    if (ridge_get_num_threads() != n) {
        printf("FAILED: %s(%d) did not set ridge's count: %d\n", name, n, ridge_get_num_threads());
        ++failures;
    }
}

int main(void) {
    check_global(openblas_set_num_threads, "openblas_set_num_threads", 0, 3);
    check_global(goto_set_num_threads, "goto_set_num_threads", 1, 4);
    check_global(mkl_set_num_threads, "mkl_set_num_threads", 2, 5);
    check_global(MKL_Set_Num_Threads, "MKL_Set_Num_Threads", 3, 6);

    /* ridge answers for itself (the other library's answer is -100). */
    int previous = mkl_set_num_threads_local(2);
    expect(other_blas_last(4) == 2, "mkl_set_num_threads_local passed on", other_blas_last(4), 2);
    expect(previous == 0, "mkl_set_num_threads_local's answer is ridge's", previous, 0);
    expect(ridge_get_num_threads() == 2, "mkl_set_num_threads_local set ridge", ridge_get_num_threads(), 2);
    previous = MKL_Set_Num_Threads_Local(0);
    expect(other_blas_last(5) == 0, "MKL_Set_Num_Threads_Local passed on", other_blas_last(5), 0);
    expect(previous == 2, "MKL_Set_Num_Threads_Local's answer is ridge's", previous, 2);
    expect(ridge_get_num_threads() == 6, "MKL_Set_Num_Threads_Local(0) returned to the global count",
           ridge_get_num_threads(), 6);

    /* A count the other libraries ignore still reaches them: theirs to ignore. */
    openblas_set_num_threads(0);
    expect(other_blas_last(0) == 0, "openblas_set_num_threads(0) passed on", other_blas_last(0), 0);
    expect(ridge_get_num_threads() == 6, "openblas_set_num_threads(0) ignored by ridge", ridge_get_num_threads(), 6);

    if (failures == 0) printf("thread setters: ridge set and every call passed on\n");
    return failures == 0 ? 0 : 1;
}

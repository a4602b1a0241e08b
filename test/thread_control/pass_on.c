/* A program linked against libridge.so and then another BLAS that defines the
 * same thread setters (other_blas.c): its calls bind to ridge's, which must
 * set ridge's count and pass each call on to the other library, as they do
 * for a program that LD_PRELOADs ridge over OpenBLAS or MKL. Exits non-zero,
 * naming the setter, on the first thing that does not hold. */
#include <stdint.h>
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

int main(void) {
    openblas_set_num_threads(3);
    expect(other_blas_last(0) == 3, "openblas_set_num_threads passed on", other_blas_last(0), 3);
    expect(ridge_get_num_threads() == 3, "openblas_set_num_threads set ridge", ridge_get_num_threads(), 3);

    goto_set_num_threads(4);
    expect(other_blas_last(1) == 4, "goto_set_num_threads passed on", other_blas_last(1), 4);
    expect(ridge_get_num_threads() == 4, "goto_set_num_threads set ridge", ridge_get_num_threads(), 4);

    mkl_set_num_threads(5);
    expect(other_blas_last(2) == 5, "mkl_set_num_threads passed on", other_blas_last(2), 5);
    expect(ridge_get_num_threads() == 5, "mkl_set_num_threads set ridge", ridge_get_num_threads(), 5);

    MKL_Set_Num_Threads(6);
    expect(other_blas_last(3) == 6, "MKL_Set_Num_Threads passed on", other_blas_last(3), 6);
    expect(ridge_get_num_threads() == 6, "MKL_Set_Num_Threads set ridge", ridge_get_num_threads(), 6);

    /* ridge answers for itself (the other library's answer is -100). */
    int previous = mkl_set_num_threads_local(2);
    expect(other_blas_last(4) == 2, "mkl_set_num_threads_local passed on", other_blas_last(4), 2);
    expect(previous == 0, "mkl_set_num_threads_local's answer is ridge's", previous, 0);
    expect(ridge_get_num_threads() == 2, "mkl_set_num_threads_local set ridge", ridge_get_num_threads(), 2);
    previous = MKL_Set_Num_Threads_Local(0);
    expect(other_blas_last(5) == 0, "MKL_Set_Num_Threads_Local passed on", other_blas_last(5), 0);
    expect(previous == 2, "MKL_Set_Num_Threads_Local's answer is ridge's", previous, 2);

    MKL_Set_Num_Threads(7);

    /* A count the other libraries ignore still reaches them: theirs to ignore. */
    openblas_set_num_threads(0);
    expect(other_blas_last(0) == 0, "openblas_set_num_threads(0) passed on", other_blas_last(0), 0);
    expect(ridge_get_num_threads() == 7, "openblas_set_num_threads(0) ignored by ridge", ridge_get_num_threads(), 7);

    if (failures == 0) printf("thread setters: ridge set and every call passed on\n");
    return failures == 0 ? 0 : 1;
}

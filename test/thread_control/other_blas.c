/* Stands in for the BLAS library a program used before ridge (OpenBLAS, MKL):
 * it defines their thread setters and remembers what each received,
 * so that pass_on.c can see ridge's setters pass the call on. */
static int last_int[6];

void openblas_set_num_threads(int n) { last_int[0] = n; }
void goto_set_num_threads(int n) { last_int[1] = n; }
void mkl_set_num_threads(int n) { last_int[2] = n; }
void MKL_Set_Num_Threads(int n) { last_int[3] = n; }
int mkl_set_num_threads_local(int n) {
    last_int[4] = n;
    return -100; /* never ridge's answer */
}
int MKL_Set_Num_Threads_Local(int n) {
    last_int[5] = n;
    return -100;
}

/* What setter `which` (0-5 in the order above) last received. */
int other_blas_last(int which) { return last_int[which]; }

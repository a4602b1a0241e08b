// Thread control under the names OpenBLAS and MKL give it, so that a program
// calling them links against ridge unchanged (-lridge in place of -lopenblas
// or -lmkl_rt), as it does for the BLAS routines. (Not BLIS's
// bli_thread_set_num_threads: a program calling BLIS's own bli_* API needs
// more of BLIS than ridge stands in for.)
//
// The setters act on ridge's process-wide count (ridge_set_global_num_threads;
// MKL's thread-local setter on ridge's per-thread one), then pass the call on
// to the next library in the process that defines the same name, if any
// (dlsym(RTLD_NEXT)): with ridge preloaded over OpenBLAS, a program's
// openblas_set_num_threads binds to ridge's, and OpenBLAS's own routines (the
// ones ridge does not replace, dgemm say) must still get the setting.
// The getters answer for ridge: what a call from the calling thread may use.
//
// Part of libridge.so only (the LP64 interface object): the ILP64 libridge64.so
// is reached by _64 names these libraries do not define.
#include <dlfcn.h>
#include <omp.h>

#include "dispatch/dispatch.h"
#include "ridge/ridge.h"

namespace {

// The next definition of `name` after libridge.so, called with `value` (its
// result, if any, is ridge's to give); no such definition: nothing.
template <typename Result, typename Arg>
void pass_on(const char* name, Arg value) {
    using Setter = Result (*)(Arg);
    if (void* next = dlsym(RTLD_NEXT, name)) reinterpret_cast<Setter>(next)(value);
}

// Every global setter: ridge's count (OpenBLAS and MKL ignore a count below 1,
// and so does ridge here), then the next library's `name`.
void set_global(const char* name, int threads) {
    if (threads >= 1) ridge_set_global_num_threads(threads);
    pass_on<void>(name, threads);
}

// mkl_set_num_threads_local: nt > 0 sets this thread's count (ridge_set_num_threads's),
// 0 returns the thread to the global one, below 0 changes nothing; returns the
// previous thread-local count (0: none). The next library's `name` gets the call too.
int set_local(const char* name, int threads) {
    pass_on<int>(name, threads);
    const int previous = ridge::thread_count_override();
    if (threads >= 0) ridge::set_thread_count_override(threads);
    return previous;
}

}  // namespace

extern "C" {

// OpenBLAS (its cblas.h). openblas_get_parallel: 2 is OpenBLAS's code for an OpenMP build.
RIDGE_API void openblas_set_num_threads(int threads) { set_global("openblas_set_num_threads", threads); }
RIDGE_API void goto_set_num_threads(int threads) { set_global("goto_set_num_threads", threads); }
RIDGE_API int openblas_get_num_threads(void) { return ridge_get_num_threads(); }
RIDGE_API int openblas_get_num_procs(void) { return omp_get_num_procs(); }
RIDGE_API int openblas_get_parallel(void) { return 2; }

// MKL (mkl_service.h), under both of its spellings: the header maps the
// lower-case names onto the mixed-case ones, so compiled programs reference either.
RIDGE_API void MKL_Set_Num_Threads(int threads) { set_global("MKL_Set_Num_Threads", threads); }
RIDGE_API void mkl_set_num_threads(int threads) { set_global("mkl_set_num_threads", threads); }
RIDGE_API int MKL_Set_Num_Threads_Local(int threads) { return set_local("MKL_Set_Num_Threads_Local", threads); }
RIDGE_API int mkl_set_num_threads_local(int threads) { return set_local("mkl_set_num_threads_local", threads); }
RIDGE_API int MKL_Get_Max_Threads(void) { return ridge_get_num_threads(); }
RIDGE_API int mkl_get_max_threads(void) { return ridge_get_num_threads(); }

}  // extern "C"

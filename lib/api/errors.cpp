// The native error handler, the default xerbla and cblas_xerbla behaviour
// (the weak symbols themselves live with their interface, in blas32.cpp and
// blas64.cpp), and what a forked child needs. Nothing here stops the program:
// an error returns to the caller with every output untouched. Printing happens
// only under RIDGE_VERBOSE.
#include "api/errors.h"

#include <pthread.h>

#include <cstdio>
#include <cstring>

#include "dispatch/dispatch.h"

namespace ridge {
namespace {

// A plain pthread mutex rather than std::mutex: std::mutex::lock reports a
// failure by throwing std::system_error, which in this -fno-exceptions library
// could only end in std::terminate. Locking a default mutex that this file
// alone uses cannot fail, and if it ever did, returning beats aborting.
pthread_mutex_t g_handler_mutex = PTHREAD_MUTEX_INITIALIZER;
ridge_error_handler g_handler = nullptr;
void* g_handler_data = nullptr;
thread_local bool tl_cblas_row_major = false;

// fork() copies only the calling thread. Two things would then break in the child:
// - libgomp keeps the parent's thread pool for a thread that ran a parallel
//   region; the child's copy of that thread waits forever on pool threads that
//   do not exist (measured: a 600^3 ridge_sgemm in the child of a parent that
//   ran one multi-threaded hangs). The child's forking thread therefore runs
//   ridge on one thread; threads the child creates later have no inherited
//   pool and keep the default.
// - a handler mutex held by another thread at the fork would stay locked
//   forever; it is held across the fork instead, and released on both sides.
void before_fork() { pthread_mutex_lock(&g_handler_mutex); }
void after_fork_in_parent() { pthread_mutex_unlock(&g_handler_mutex); }
void after_fork_in_child() {
    pthread_mutex_unlock(&g_handler_mutex);
    set_thread_count_override(1);
}

// Registered when the library is loaded (a static archive links this file in
// with any entry point, since every one reports errors through it).
struct ForkHandlers {
    ForkHandlers() { pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child); }
};
const ForkHandlers g_fork_handlers;

// netlib CBLAS's cblas_xerbla: a row-major call was checked as the column-major
// call on the transposed problem, so the numbers of the swapped arguments come
// back to the caller's positions before printing.
int64_t caller_parameter_number(int64_t info, const char* routine) {
    if (!cblas_row_major() || routine == nullptr) return info;
    if (std::strstr(routine, "gemm") != nullptr) {
        if (info == 4) return 5;
        if (info == 5) return 4;
        if (info == 9) return 11;
        if (info == 11) return 9;
    } else if (std::strstr(routine, "gemv") != nullptr) {
        if (info == 3) return 4;  // m and n trade places in the call on A^T
        if (info == 4) return 3;
    }
    return info;
}

}  // namespace

bool verbose() { return runtime_config().verbose; }

void set_cblas_row_major(bool row_major) { tl_cblas_row_major = row_major; }
bool cblas_row_major() { return tl_cblas_row_major; }

void report_native_error(ridge_status status, const char* function, int argument, const char* message) {
    pthread_mutex_lock(&g_handler_mutex);
    const ridge_error_handler handler = g_handler;
    void* const data = g_handler_data;
    pthread_mutex_unlock(&g_handler_mutex);
    // Called outside the lock: a handler may itself call ridge, even set another handler.
    if (handler != nullptr) handler(status, function, argument, message, data);
    else if (verbose())
        std::fprintf(stderr, "ridge: %s: %s (argument %d)\n", function, message, argument);
}

void default_xerbla(const char* routine, size_t routine_len, int64_t info) {
    if (!verbose()) return;
    const int len = routine != nullptr ? int(strnlen(routine, routine_len)) : 0;
    const char* name = routine != nullptr ? routine : "";
    if (info == kXerblaOutOfMemory)
        std::fprintf(stderr, " ** ridge: %.*s could not allocate its packing buffers (INFO %lld); "
                     "nothing was written\n", len, name, (long long)info);
    else
        std::fprintf(stderr, " ** On entry to %.*s parameter number %2lld had an illegal value\n", len,
                     name, (long long)info);
}

void default_cblas_xerbla(int64_t info, const char* routine, const char* form, va_list args) {
    if (!verbose()) return;
    if (info == kXerblaOutOfMemory)
        std::fprintf(stderr, "ridge: %s could not allocate its packing buffers (INFO %lld); "
                     "nothing was written\n", routine ? routine : "?", (long long)info);
    else
        std::fprintf(stderr, "Parameter %lld to routine %s was incorrect\n",
                     (long long)caller_parameter_number(info, routine), routine ? routine : "?");
    if (form != nullptr && *form != '\0') std::vfprintf(stderr, form, args);
}

}  // namespace ridge

extern "C" RIDGE_API void ridge_set_error_handler(ridge_error_handler handler, void* user_data) {
    pthread_mutex_lock(&ridge::g_handler_mutex);
    ridge::g_handler = handler;
    ridge::g_handler_data = user_data;
    pthread_mutex_unlock(&ridge::g_handler_mutex);
}

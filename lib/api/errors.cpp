// Default xerbla_ and cblas_xerbla (weak: a program's own definitions win), and
// the native error handler. None of them stops the program: an error returns
// to the caller with every output untouched. They print only under RIDGE_VERBOSE.
#include "api/errors.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "dispatch/dispatch.h"

namespace ridge {
namespace {

std::mutex g_handler_mutex;
ridge_error_handler g_handler = nullptr;
void* g_handler_data = nullptr;
thread_local bool tl_cblas_row_major = false;

}  // namespace

bool verbose() { return runtime_config().verbose; }

void set_cblas_row_major(bool row_major) { tl_cblas_row_major = row_major; }
bool cblas_row_major() { return tl_cblas_row_major; }

void report_native_error(ridge_status status, const char* function, int argument, const char* message) {
    ridge_error_handler handler;
    void* data;
    {
        std::lock_guard<std::mutex> lock(g_handler_mutex);
        handler = g_handler;
        data = g_handler_data;
    }
    if (handler != nullptr) handler(status, function, argument, message, data);
    else if (verbose())
        std::fprintf(stderr, "ridge: %s: %s (argument %d)\n", function, message, argument);
}

}  // namespace ridge

extern "C" {

RIDGE_API void ridge_set_error_handler(ridge_error_handler handler, void* user_data) {
    std::lock_guard<std::mutex> lock(ridge::g_handler_mutex);
    ridge::g_handler = handler;
    ridge::g_handler_data = user_data;
}

// netlib's XERBLA prints and STOPs; ridge's returns, and prints only under RIDGE_VERBOSE.
RIDGE_API __attribute__((weak)) void xerbla_(const char* routine, const int* info, size_t routine_len) {
    if (!ridge::verbose()) return;
    const size_t len = routine ? strnlen(routine, routine_len) : 0;
    std::fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n",
                 static_cast<int>(len), routine ? routine : "", info ? *info : 0);
}

// As netlib's CBLAS: for row-major calls, parameter numbers of A's and B's
// dimensions arrive swapped (the call was mapped onto column-major) and are
// swapped back here for the message.
RIDGE_API __attribute__((weak)) void cblas_xerbla(int info, const char* routine, const char* form, ...) {
    if (!ridge::verbose()) return;
    if (ridge::cblas_row_major() && routine != nullptr && std::strstr(routine, "gemm") != nullptr) {
        if (info == 4) info = 5;
        else if (info == 5) info = 4;
        else if (info == 9) info = 11;
        else if (info == 11) info = 9;
    } else if (ridge::cblas_row_major() && routine != nullptr && std::strstr(routine, "gemv") != nullptr) {
        if (info == 3) info = 4;  // m and n trade places in the call on A^T
        else if (info == 4) info = 3;
    }
    std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, routine ? routine : "?");
    if (form != nullptr && *form != '\0') {
        va_list args;
        va_start(args, form);
        std::vfprintf(stderr, form, args);
        va_end(args);
    }
}

}  // extern "C"

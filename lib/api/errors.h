// How errors leave the library: xerbla for BLAS, a status and a handler for the native API.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>

#include "ridge/ridge.h"

namespace ridge {

// Reports an error of the native API to the user's handler (default: silent).
void report_native_error(ridge_status status, const char* function, int argument, const char* message);

// Set by the CBLAS layer around a call, so that the default cblas_xerbla can translate
// the row-major parameter numbers back to the caller's (as netlib's CBLAS does).
void set_cblas_row_major(bool row_major);
bool cblas_row_major();

bool verbose();

// The INFO a BLAS or CBLAS routine hands its xerbla when it could not allocate
// its packing buffers (nothing was written). netlib has no number for this:
// its routines allocate nothing. 1089 is the value MKL's xerbla documents for
// "insufficient workspace"; it is far beyond any parameter position, so an
// xerbla that only knows parameter numbers still sees that something is off,
// and one written for MKL already understands it.
constexpr int kXerblaOutOfMemory = 1089;

// What ridge's default xerbla_ and xerbla_64_ do: print netlib's message (or
// the out-of-memory one) under RIDGE_VERBOSE, and return. `routine` is a
// Fortran string of `routine_len` characters, not necessarily NUL-terminated.
void default_xerbla(const char* routine, size_t routine_len, int64_t info);

// What ridge's default cblas_xerbla and cblas_xerbla_64 do: under
// RIDGE_VERBOSE, netlib CBLAS's message with row-major parameter numbers
// translated back to the caller's, then `form` with `args`; and return.
void default_cblas_xerbla(int64_t info, const char* routine, const char* form, va_list args);

}  // namespace ridge

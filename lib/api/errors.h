// How errors leave the library: xerbla for BLAS, a status and a handler for the native API.
#pragma once

#include "ridge/ridge.h"

namespace ridge {

// Reports an error of the native API to the user's handler (default: silent).
void report_native_error(ridge_status status, const char* function, int argument, const char* message);

// Set by the CBLAS layer around a call, so that the default cblas_xerbla can translate
// the row-major parameter numbers back to the caller's (as netlib's CBLAS does).
void set_cblas_row_major(bool row_major);
bool cblas_row_major();

bool verbose();

}  // namespace ridge

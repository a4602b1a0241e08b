// Integer rounding for counts of tiles, panels and blocks (non-negative a and
// x, positive b and multiple). Only the driver and the tuning code include it:
// kernel files, compiled with their own ISA flags, keep their own copies, so
// that no inline function compiled for AVX-512 is the copy the linker keeps.
#pragma once

#include <cstdint>

namespace ridge {

// The number of b-sized pieces that cover a: ceil(a / b).
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// x rounded up to a multiple of `multiple`.
constexpr int64_t round_up(int64_t x, int64_t multiple) { return ceil_div(x, multiple) * multiple; }

}  // namespace ridge

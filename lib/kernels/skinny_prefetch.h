// The prefetch a skinny kernel issues for the rows its caller passes next
// (SkinnyPrefetch in gemm_kernel.h), one k step at a time. Plain
// __builtin_prefetch, so every ISA's skinny kernels include it.
#pragma once

#include <cstdint>

#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

// How a kernel's k loop prefetches: not at all, a whole column a step (the
// caller's steps_per_column is 1), or a column's lines spread over its steps.
// The kernels pick one instance per call, so the first two keep the loop they
// had before the third existed.
enum class PrefetchMode { none, whole_columns, spread };

PrefetchMode prefetch_mode(SkinnyPrefetch next) {
    if (next.a == nullptr) return PrefetchMode::none;
    return next.steps_per_column > 1 ? PrefetchMode::spread : PrefetchMode::whole_columns;
}

// The spread form: column c of next at steps [c * steps, (c + 1) * steps) of
// the call, its lines one a step, and at the end (finish) the lines of a
// column the call's last steps began. kOffsets: the bytes from a column's
// first element at which the kernel's tile touches a line of it.
template <int kLocality, int... kOffsets>
class SpreadPrefetch {
  public:
    SpreadPrefetch(SkinnyPrefetch next, int64_t column_bytes)
        : column_(static_cast<const char*>(next.a)), column_bytes_(column_bytes), steps_(next.steps_per_column) {}

    // The prefetches of one k step: the column's lines whose index is this
    // step's place among the column's steps (all of them when steps_ is 1).
    // With at least as many steps as lines (the sweep's case), one test and
    // at most one prefetch: the general loop in its place cost the tall tile
    // 2.6-5.2% at 4000-8192 x 32-64 x same (`RIDGE_NUM_THREADS=1 ridge-ab OLD
    // NEW M N K 9` in both slot orders, their geometric mean; GCC no longer
    // unrolled the k loop around it). Prefetching a column's lines together at
    // its first step instead, the k loop plain inside each column's steps,
    // lost 2.5% at 4096 x 64 x 4096 (0.9% ahead at n = 32).
    void step() {
        if (steps_ >= kLines) {  // at most one line a step
            if (step_ < kLines) __builtin_prefetch(column_ + kLineOffsets[step_], 0, kLocality);
        } else {
            for (int64_t line = step_; line < kLines; line += steps_)
                __builtin_prefetch(column_ + kLineOffsets[line], 0, kLocality);
        }
        if (++step_ == steps_) {
            step_ = 0;
            column_ += column_bytes_;
        }
    }

    // After the call's last step: the lines of a column its steps ended in
    // before reaching them (kc not a multiple of steps_), so that the call
    // brings in whole columns.
    void finish() {
        if (step_ == 0) return;
        for (int64_t line = 0; line < kLines; ++line)
            if (line % steps_ >= step_) __builtin_prefetch(column_ + kLineOffsets[line], 0, kLocality);
    }

  private:
    static constexpr int kLineOffsets[] = {kOffsets...};
    static constexpr int64_t kLines = sizeof...(kOffsets);
    const char* column_;
    int64_t column_bytes_, steps_;
    int64_t step_ = 0;
};

}  // namespace
}  // namespace ridge

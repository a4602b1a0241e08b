// Packing buffers, owned by the thread that calls ridge and reused across its calls.
#pragma once

#include <omp.h>

#include <cstddef>

#include "ridge/ridge.h"

namespace ridge {

// A 64-byte aligned float buffer that only grows. Allocation failure leaves it empty.
class AlignedBuffer {
public:
    AlignedBuffer() = default;
    AlignedBuffer(const AlignedBuffer&) = delete;
    AlignedBuffer& operator=(const AlignedBuffer&) = delete;
    ~AlignedBuffer();
    // Returns nullptr when `count` floats cannot be allocated.
    float* reserve(size_t count);

private:
    float* data_ = nullptr;
    size_t capacity_ = 0;
};

// The calling thread's buffers: one for the packed B panel, one for the packed A blocks.
struct Workspace {
    AlignedBuffer packed_b;
    AlignedBuffer packed_a;
};
// The calling thread's workspace, created at its first use and freed when the
// thread exits; nullptr when it cannot be created (out of memory).
Workspace* this_thread_workspace();

// Runs work(buffer, t, parts) as part t of `parts` on `threads` threads (on
// the calling thread alone when threads <= 1: no team started, none nested in
// a caller's parallel region), each with the buffer reserve(buffer) set up on
// it, but only once every thread's reserve has returned true: when any has not
// (out of memory), no thread runs work, so no output is written, and the
// status says so. The paths that write C from several threads, each with a
// buffer of its own, start their teams through this.
template <typename Reserve, typename Work>
ridge_status run_once_every_thread_reserved(int threads, Reserve reserve, Work work) {
    if (threads <= 1) {
        float* buffer = nullptr;
        if (!reserve(buffer)) return RIDGE_OUT_OF_MEMORY;
        work(buffer, 0, 1);
        return RIDGE_SUCCESS;
    }
    ridge_status status = RIDGE_SUCCESS;
#pragma omp parallel num_threads(threads)
    {
        float* buffer = nullptr;
        if (!reserve(buffer)) {
#pragma omp critical(ridge_team_reserve_status)
            status = RIDGE_OUT_OF_MEMORY;
        }
#pragma omp barrier
        if (status == RIDGE_SUCCESS)  // the same answer in every thread (after the barrier)
            work(buffer, omp_get_thread_num(), omp_get_num_threads());
    }
    return status;
}

}  // namespace ridge

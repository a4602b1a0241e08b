// Packing buffers, owned by the thread that calls ridge and reused across its calls.
#pragma once

#include <cstddef>

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

}  // namespace ridge

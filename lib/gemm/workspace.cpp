#include "gemm/workspace.h"

#include <cstdlib>
#include <new>

namespace ridge {
namespace {
constexpr size_t kAlignment = 64;  // a cache line, and the alignment of a zmm load
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

float* AlignedBuffer::reserve(size_t count) {
    if (count <= capacity_) return data_;
    std::free(data_);
    data_ = nullptr;
    capacity_ = 0;
    const size_t bytes = (count * sizeof(float) + kAlignment - 1) / kAlignment * kAlignment;
    void* p = std::aligned_alloc(kAlignment, bytes);
    if (p == nullptr) return nullptr;
    data_ = static_cast<float*>(p);
    capacity_ = count;
    return data_;
}

Workspace& this_thread_workspace() {
    thread_local Workspace workspace;
    return workspace;
}

}  // namespace ridge

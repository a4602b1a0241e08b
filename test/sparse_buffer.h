// Address space for matrices with leading dimensions beyond 2^31 elements, of
// which a test touches only a few columns.
#pragma once

#include <sys/mman.h>
#include <sys/resource.h>

#include <cstddef>
#include <cstdint>

namespace ridge_test {

// Anonymous MAP_NORESERVE memory: the kernel commits a page only when it is
// first touched (unread pages read as zero without being allocated), so a
// 12 GB buffer of which 30 columns are used costs a few hundred KiB.
class SparseBuffer {
public:
    explicit SparseBuffer(size_t floats) : bytes_(floats * sizeof(float)) {
        void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        data_ = p == MAP_FAILED ? nullptr : static_cast<float*>(p);
    }
    ~SparseBuffer() {
        if (data_ != nullptr) munmap(data_, bytes_);
    }
    SparseBuffer(const SparseBuffer&) = delete;
    SparseBuffer& operator=(const SparseBuffer&) = delete;
    // nullptr when the system refused the mapping (e.g. vm.overcommit_memory = 2).
    float* data() { return data_; }

private:
    size_t bytes_;
    float* data_ = nullptr;
};

// The process's peak resident memory so far, in MiB (a test's proof that a
// huge stride was walked, not swept).
inline long peak_rss_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024;  // ru_maxrss is in KiB on Linux
}

}  // namespace ridge_test

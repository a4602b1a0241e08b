// The matrices ridge-bench hands to every library: 64-byte aligned vectors of
// reproducible random values. Shared by the Google Benchmark rows and `paired`.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

namespace ridge_bench {

// Matrices start on a 64-byte boundary, as a careful caller's do (MKL's advice;
// PyTorch's allocator): malloc's 16 bytes would leave every library's tiles
// straddling cache lines, and ridge's non-temporal C stores need whole lines.
template <typename T>
struct CacheLineAllocator {
    using value_type = T;
    CacheLineAllocator() = default;
    template <typename U>
    CacheLineAllocator(const CacheLineAllocator<U>&) {}
    T* allocate(size_t n) {
        void* p = std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64);
        if (p == nullptr) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, size_t) { std::free(p); }
    template <typename U>
    bool operator==(const CacheLineAllocator<U>&) const { return true; }
};
template <typename T>
using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

inline AlignedVector<float> random_vector(int64_t count, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    AlignedVector<float> v(static_cast<size_t>(count));
    for (float& x : v) x = dist(rng);
    return v;
}

}  // namespace ridge_bench

// The matrices ridge-bench hands to every library: 64-byte aligned vectors of
// reproducible random values (fp32, or fp16 / bf16 bit patterns). Shared by the
// Google Benchmark rows and `paired`.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include "peers.h"
#include "ridge/cblas.h"

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

// Random values in [-1, 1) stored as `t`: 16-bit patterns via ridge's own converters.
inline AlignedVector<char> random_matrix(InputType t, int64_t count, unsigned seed) {
    const AlignedVector<float> f = random_vector(count, seed);
    AlignedVector<char> out(size_t(count) * input_bytes(t));
    if (t == InputType::f32) std::copy_n(reinterpret_cast<const char*>(f.data()), out.size(), out.data());
    if (t == InputType::f16) cblas_shstohf16(int(count), f.data(), 1, reinterpret_cast<uint16_t*>(out.data()), 1);
    if (t == InputType::bf16) cblas_sbstobf16(int(count), f.data(), 1, reinterpret_cast<uint16_t*>(out.data()), 1);
    return out;
}

}  // namespace ridge_bench

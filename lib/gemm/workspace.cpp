#include "gemm/workspace.h"

#include <pthread.h>

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

// Each thread's Workspace lives on the heap behind a trivially destructible
// thread_local pointer, and a pthread key frees it at thread exit. A
// thread_local Workspace object would register its destructor through
// __cxa_thread_atexit, which ends the process when its own allocation fails:
// a library must answer out-of-memory with a status instead. (The main thread's
// workspace is not freed by the key; the process's exit returns it.)
namespace {
thread_local Workspace* tl_workspace = nullptr;
pthread_key_t g_workspace_key;
pthread_once_t g_workspace_key_once = PTHREAD_ONCE_INIT;
bool g_workspace_key_ok = false;

void free_workspace(void* workspace) { delete static_cast<Workspace*>(workspace); }
void create_workspace_key() { g_workspace_key_ok = pthread_key_create(&g_workspace_key, free_workspace) == 0; }
}  // namespace

Workspace* this_thread_workspace() {
    if (tl_workspace != nullptr) return tl_workspace;
    pthread_once(&g_workspace_key_once, create_workspace_key);
    if (!g_workspace_key_ok) return nullptr;
    Workspace* created = new (std::nothrow) Workspace;
    if (created == nullptr) return nullptr;
    if (pthread_setspecific(g_workspace_key, created) != 0) {
        delete created;
        return nullptr;
    }
    tl_workspace = created;
    return created;
}

}  // namespace ridge

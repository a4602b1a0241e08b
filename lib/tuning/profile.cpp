// Reading the per-machine profile (see profile.h for the format and the contract).
// Everything here reports through return values and the caller's `why` buffer:
// the library reads this at first use, inside some BLAS call, where nothing may
// throw, abort or allocate through a throwing path.
#include "tuning/profile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tuning/json_reader.h"

namespace ridge {
namespace {

constexpr int kFormatVersion = 1;
constexpr double kMaxBlock = 1 << 24;       // KC, MC, NC upper bound
constexpr double kMaxFigure = 1e12;         // small_path and threads upper bound
constexpr double kMaxSkinnyColumns = 4096;  // skinny_path.max_columns upper bound (the library caps it lower)
constexpr double kMaxGemvPrefetchElements = 4096;  // gemv.prefetch_elements upper bound (16 KiB of fp32 per column)
constexpr double kMinStreamCBytes = 1 << 20;              // stream_c.min_bytes bounds: a cache of at least 1 MiB,
constexpr double kMaxStreamCBytes = 64.0 * (1ull << 30);  // at most 64 GiB
constexpr double kMaxFamilyOrModel = 65535; // display family is at most 0xF + 0xFF, model 0xFF

// A reason for the caller, printf-style, in its buffer (none: nothing to do).
__attribute__((format(printf, 3, 4))) void say(char* why, size_t why_size, const char* format, ...) {
    if (why == nullptr || why_size == 0) return;
    va_list args;
    va_start(args, format);
    std::vsnprintf(why, why_size, format, args);
    va_end(args);
}

// Bytes a reason may quote from a file or a path: printable ASCII only, so that a
// hostile "\n" or escape sequence cannot break the one-line promise or a terminal.
bool printable_ascii(const char* s, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (static_cast<unsigned char>(s[i]) < 0x20 || static_cast<unsigned char>(s[i]) > 0x7E) return false;
    return true;
}

// `in` made quotable: non-printable bytes become '?', and at most out_size - 1 bytes are kept.
void quotable(const char* in, char* out, size_t out_size) {
    size_t i = 0;
    for (; in[i] != '\0' && i + 1 < out_size; ++i) {
        const unsigned char c = static_cast<unsigned char>(in[i]);
        out[i] = (c < 0x20 || c > 0x7E) ? '?' : static_cast<char>(c);
    }
    out[i] = '\0';
}

// The fixed-size strings of a CpuSignature need not be NUL-terminated when full.
template <size_t N>
size_t bounded_length(const char (&s)[N]) {
    return strnlen(s, N);
}

// One parse of one document: where reasons go, plus typed member readers that
// write the reason themselves (each names the member by its dotted path).
class ProfileReader {
public:
    ProfileReader(const JsonDocument& doc, char* why, size_t why_size) : doc_(doc), why_(why), why_size_(why_size) {}

    ProfileStatus read(const CpuSignature& here, Profile* out) {
        const JsonNode* root = doc_.root();
        ProfileStatus s = check_format(root);
        if (s != ProfileStatus::loaded) return s;
        CpuSignature file_cpu;
        s = read_signature(doc_.object_get(root, "cpu"), &file_cpu);
        if (s != ProfileStatus::loaded) return s;
        s = compare_signature(file_cpu, here);
        if (s != ProfileStatus::loaded) return s;
        s = read_kernels(doc_.object_get(root, "kernels"), out);
        if (s != ProfileStatus::loaded) return s;
        s = read_small_path(doc_.object_get(root, "small_path"), out);
        if (s != ProfileStatus::loaded) return s;
        s = read_skinny_path(doc_.object_get(root, "skinny_path"), out);
        if (s != ProfileStatus::loaded) return s;
        s = read_gemv(doc_.object_get(root, "gemv"), out);
        if (s != ProfileStatus::loaded) return s;
        s = read_blocked_path(doc_.object_get(root, "blocked_path"), out);
        if (s != ProfileStatus::loaded) return s;
        s = read_stream_c(doc_.object_get(root, "stream_c"), out);
        if (s != ProfileStatus::loaded) return s;
        return read_threads(doc_.object_get(root, "threads"), out);
    }

private:
    // Writes the reason and returns `status`, so failures are one statement.
    __attribute__((format(printf, 3, 4))) ProfileStatus fail(ProfileStatus status, const char* format, ...) {
        if (why_ != nullptr && why_size_ > 0) {
            va_list args;
            va_start(args, format);
            std::vsnprintf(why_, why_size_, format, args);
            va_end(args);
        }
        return status;
    }

    // A JSON text that is not a ridge profile of version 1 is wrong_format, not corrupt:
    // it may be a newer profile, or another program's file at the path.
    ProfileStatus check_format(const JsonNode* root) {
        if (!JsonDocument::is_object(root))
            return fail(ProfileStatus::wrong_format, "not a ridge profile: the top level is not an object");
        if (!doc_.string_equals(doc_.object_get(root, "format"), "ridge-profile"))
            return fail(ProfileStatus::wrong_format, "not a ridge profile: \"format\" is not \"ridge-profile\"");
        double version = 0;
        if (!JsonDocument::number(doc_.object_get(root, "format_version"), &version))
            return fail(ProfileStatus::wrong_format, "\"format_version\" is missing or not a number");
        if (version != kFormatVersion)
            return fail(ProfileStatus::wrong_format, "format_version %.17g; this library reads %d", version,
                        kFormatVersion);
        return ProfileStatus::loaded;
    }

    ProfileStatus read_signature(const JsonNode* cpu, CpuSignature* sig) {
        if (!JsonDocument::is_object(cpu)) return fail(ProfileStatus::corrupt, "\"cpu\" is missing or not an object");
        ProfileStatus s = read_text(cpu, "cpu", "vendor", 0, sig->vendor, sizeof sig->vendor);
        if (s != ProfileStatus::loaded) return s;
        s = read_text(cpu, "cpu", "features", 0, sig->features, sizeof sig->features);
        if (s != ProfileStatus::loaded) return s;
        double family = 0, model = 0;
        s = read_integer(cpu, "cpu", "family", 0, kMaxFamilyOrModel, &family);
        if (s != ProfileStatus::loaded) return s;
        s = read_integer(cpu, "cpu", "model", 0, kMaxFamilyOrModel, &model);
        if (s != ProfileStatus::loaded) return s;
        sig->family = static_cast<int>(family);
        sig->model = static_cast<int>(model);
        return ProfileStatus::loaded;
    }

    // Block sizes tuned on another CPU would be wrong here, so all four parts must match.
    ProfileStatus compare_signature(const CpuSignature& file, const CpuSignature& here) {
        const size_t here_vendor = bounded_length(here.vendor), here_features = bounded_length(here.features);
        const char* differs = nullptr;
        if (std::strlen(file.vendor) != here_vendor || std::memcmp(file.vendor, here.vendor, here_vendor) != 0)
            differs = "vendor";
        else if (file.family != here.family)
            differs = "family";
        else if (file.model != here.model)
            differs = "model";
        else if (std::strlen(file.features) != here_features ||
                 std::memcmp(file.features, here.features, here_features) != 0)
            differs = "features";
        if (differs == nullptr) return ProfileStatus::loaded;
        return fail(ProfileStatus::other_cpu, "profile is for %s-%d-%d (%s), this CPU is %.*s-%d-%d (%.*s): %s differs",
                    file.vendor, file.family, file.model, file.features, static_cast<int>(here_vendor), here.vendor,
                    here.family, here.model, static_cast<int>(here_features), here.features, differs);
    }

    // More entries than Profile holds is corrupt, not a truncated list: ridge-tune
    // writes one entry per registered kernel (far fewer than kMaxKernels), and a
    // silently shortened list would make which kernels keep their tuning depend on
    // the file's order.
    ProfileStatus read_kernels(const JsonNode* kernels, Profile* out) {
        if (!JsonDocument::is_object(kernels))
            return fail(ProfileStatus::corrupt, "\"kernels\" is missing or not an object");
        const size_t count = JsonDocument::child_count(kernels);
        if (count > static_cast<size_t>(Profile::kMaxKernels))
            return fail(ProfileStatus::corrupt, "kernels: %zu entries, at most %d", count, Profile::kMaxKernels);
        for (const JsonNode* entry = doc_.first_child(kernels); entry; entry = doc_.next_sibling(entry)) {
            ProfileBlocking& b = out->blocking[out->blocking_count];
            const ProfileStatus s = read_kernel(entry, &b);
            if (s != ProfileStatus::loaded) return s;
            ++out->blocking_count;
        }
        return ProfileStatus::loaded;
    }

    ProfileStatus read_kernel(const JsonNode* entry, ProfileBlocking* b) {
        const size_t name_length = JsonDocument::key_length(entry);
        if (name_length == 0 || name_length >= sizeof b->kernel)
            return fail(ProfileStatus::corrupt, "kernels: a kernel name of %zu bytes (1..%zu allowed)", name_length,
                        sizeof b->kernel - 1);
        doc_.copy_key(entry, b->kernel, sizeof b->kernel);  // fits: checked above
        if (!printable_ascii(b->kernel, name_length))
            return fail(ProfileStatus::corrupt, "kernels: a kernel name with bytes other than printable ASCII");
        char where[96];
        std::snprintf(where, sizeof where, "kernels.%s.chosen", b->kernel);
        const JsonNode* chosen = doc_.object_get(entry, "chosen");
        if (!JsonDocument::is_object(chosen))
            return fail(ProfileStatus::corrupt, "%s is missing or not an object", where);
        double kc = 0, mc = 0, nc = 0;
        ProfileStatus s = read_integer(chosen, where, "KC", 1, kMaxBlock, &kc);
        if (s == ProfileStatus::loaded) s = read_integer(chosen, where, "MC", 1, kMaxBlock, &mc);
        if (s == ProfileStatus::loaded) s = read_integer(chosen, where, "NC", 1, kMaxBlock, &nc);
        if (s != ProfileStatus::loaded) return s;
        b->KC = static_cast<int64_t>(kc);
        b->MC = static_cast<int64_t>(mc);
        b->NC = static_cast<int64_t>(nc);
        return ProfileStatus::loaded;
    }

    // Optional: absent leaves has_small_path false; present, both figures are
    // required, and "max_volume_alone" and "max_volume_alone_lined_a" optional
    // (profiles before them have none).
    ProfileStatus read_small_path(const JsonNode* small, Profile* out) {
        if (small == nullptr) return ProfileStatus::loaded;
        if (!JsonDocument::is_object(small)) return fail(ProfileStatus::corrupt, "\"small_path\" is not an object");
        ProfileStatus s = read_figure(small, "small_path", "max_volume", &out->small_max_volume);
        if (s == ProfileStatus::loaded) s = read_figure(small, "small_path", "max_a_floats", &out->small_max_a_floats);
        if (s != ProfileStatus::loaded) return s;
        out->has_small_path = true;
        if (doc_.object_get(small, "max_volume_alone") != nullptr) {
            s = read_figure(small, "small_path", "max_volume_alone", &out->small_max_volume_alone);
            out->has_small_alone = s == ProfileStatus::loaded;
            if (s != ProfileStatus::loaded) return s;
        }
        if (doc_.object_get(small, "max_volume_alone_lined_a") == nullptr) return ProfileStatus::loaded;
        s = read_figure(small, "small_path", "max_volume_alone_lined_a", &out->small_max_volume_alone_lined_a);
        out->has_small_alone_lined_a = s == ProfileStatus::loaded;
        return s;
    }

    // Optional: absent leaves has_skinny_path false. In it, "max_columns" (fp32)
    // is required, the 16-bit figures optional (profiles before them have none).
    ProfileStatus read_skinny_path(const JsonNode* skinny, Profile* out) {
        if (skinny == nullptr) return ProfileStatus::loaded;
        if (!JsonDocument::is_object(skinny)) return fail(ProfileStatus::corrupt, "\"skinny_path\" is not an object");
        ProfileStatus s = read_columns(skinny, "max_columns", &out->skinny_max_columns);
        if (s != ProfileStatus::loaded) return s;
        out->has_skinny_path = true;
        s = read_optional_columns(skinny, "max_columns_bf16", &out->has_skinny_bf16, &out->skinny_max_columns_bf16);
        if (s != ProfileStatus::loaded) return s;
        return read_optional_columns(skinny, "max_columns_f16", &out->has_skinny_f16, &out->skinny_max_columns_f16);
    }

    ProfileStatus read_columns(const JsonNode* skinny, const char* key, int64_t* out) {
        double columns = 0;
        const ProfileStatus s = read_integer(skinny, "skinny_path", key, 0, kMaxSkinnyColumns, &columns);
        if (s == ProfileStatus::loaded) *out = static_cast<int64_t>(columns);
        return s;
    }

    ProfileStatus read_optional_columns(const JsonNode* skinny, const char* key, bool* present, int64_t* out) {
        if (doc_.object_get(skinny, key) == nullptr) return ProfileStatus::loaded;
        const ProfileStatus s = read_columns(skinny, key, out);
        *present = s == ProfileStatus::loaded;
        return s;
    }

    // Optional: absent leaves has_gemv_prefetch false; present, "prefetch_elements" is required.
    ProfileStatus read_gemv(const JsonNode* gemv, Profile* out) {
        if (gemv == nullptr) return ProfileStatus::loaded;
        if (!JsonDocument::is_object(gemv)) return fail(ProfileStatus::corrupt, "\"gemv\" is not an object");
        double elements = 0;
        const ProfileStatus s = read_integer(gemv, "gemv", "prefetch_elements", 0, kMaxGemvPrefetchElements, &elements);
        if (s != ProfileStatus::loaded) return s;
        out->has_gemv_prefetch = true;
        out->gemv_prefetch_elements = static_cast<int64_t>(elements);
        return s;
    }

    // Optional: absent leaves has_stream_c false; present, "min_bytes" is required.
    ProfileStatus read_stream_c(const JsonNode* stream_c, Profile* out) {
        if (stream_c == nullptr) return ProfileStatus::loaded;
        if (!JsonDocument::is_object(stream_c)) return fail(ProfileStatus::corrupt, "\"stream_c\" is not an object");
        double bytes = 0;
        const ProfileStatus s =
            read_integer(stream_c, "stream_c", "min_bytes", kMinStreamCBytes, kMaxStreamCBytes, &bytes);
        if (s != ProfileStatus::loaded) return s;
        out->has_stream_c = true;
        out->stream_c_min_bytes = bytes;
        return s;
    }

    // Optional: absent leaves has_blocked_a_in_place, has_blocked_ir_outside_jr,
    // has_blocked_a_packed_while_computing_from_memory and
    // has_blocked_one_block_of_a false; present, it holds "a_in_place",
    // "ir_outside_jr", "a_packed_while_computing_from_memory", "one_block_of_a"
    // or several of them, each a boolean.
    ProfileStatus read_blocked_path(const JsonNode* blocked, Profile* out) {
        if (blocked == nullptr) return ProfileStatus::loaded;
        if (!JsonDocument::is_object(blocked)) return fail(ProfileStatus::corrupt, "\"blocked_path\" is not an object");
        const JsonNode* in_place = doc_.object_get(blocked, "a_in_place");
        const JsonNode* ir_outside = doc_.object_get(blocked, "ir_outside_jr");
        const JsonNode* while_computing = doc_.object_get(blocked, "a_packed_while_computing_from_memory");
        const JsonNode* one_block = doc_.object_get(blocked, "one_block_of_a");
        if (in_place == nullptr && ir_outside == nullptr && while_computing == nullptr && one_block == nullptr)
            return fail(ProfileStatus::corrupt, "\"blocked_path\" has none of \"a_in_place\", \"ir_outside_jr\", "
                                                "\"a_packed_while_computing_from_memory\" and \"one_block_of_a\"");
        if (one_block != nullptr && !JsonDocument::is_bool(one_block))
            return fail(ProfileStatus::corrupt, "\"blocked_path\".\"one_block_of_a\" is not true/false");
        if (while_computing != nullptr && !JsonDocument::is_bool(while_computing))
            return fail(ProfileStatus::corrupt,
                        "\"blocked_path\".\"a_packed_while_computing_from_memory\" is not true/false");
        if (in_place != nullptr && !JsonDocument::is_bool(in_place))
            return fail(ProfileStatus::corrupt, "\"blocked_path\".\"a_in_place\" is not true/false");
        if (ir_outside != nullptr && !JsonDocument::is_bool(ir_outside))
            return fail(ProfileStatus::corrupt, "\"blocked_path\".\"ir_outside_jr\" is not true/false");
        out->has_blocked_a_in_place = in_place != nullptr;
        out->blocked_a_in_place = in_place != nullptr && in_place->type == JsonType::true_value;
        out->has_blocked_ir_outside_jr = ir_outside != nullptr;
        out->blocked_ir_outside_jr = ir_outside != nullptr && ir_outside->type == JsonType::true_value;
        out->has_blocked_a_packed_while_computing_from_memory = while_computing != nullptr;
        out->blocked_a_packed_while_computing_from_memory =
            while_computing != nullptr && while_computing->type == JsonType::true_value;
        out->has_blocked_one_block_of_a = one_block != nullptr;
        out->blocked_one_block_of_a = one_block == nullptr || one_block->type == JsonType::true_value;
        return ProfileStatus::loaded;
    }

    ProfileStatus read_threads(const JsonNode* threads, Profile* out) {
        if (threads == nullptr) return ProfileStatus::loaded;
        if (!JsonDocument::is_object(threads)) return fail(ProfileStatus::corrupt, "\"threads\" is not an object");
        // Either figure may be absent (the tuner writes what it measured: on a
        // busy second core the blocked path's may never pay), not both.
        const bool blocked = doc_.object_get(threads, "min_flops_per_thread") != nullptr;
        const bool small = doc_.object_get(threads, "small_min_flops_per_thread") != nullptr;
        if (!blocked && !small)
            return fail(ProfileStatus::corrupt,
                        "threads.min_flops_per_thread and threads.small_min_flops_per_thread are both missing");
        if (blocked) {
            const ProfileStatus s = read_figure(threads, "threads", "min_flops_per_thread", &out->min_flops_per_thread);
            if (s != ProfileStatus::loaded) return s;
        }
        if (small) {
            const ProfileStatus s =
                read_figure(threads, "threads", "small_min_flops_per_thread", &out->small_min_flops_per_thread);
            if (s != ProfileStatus::loaded) return s;
        }
        out->has_threads = blocked;
        out->has_small_threads = small;
        return ProfileStatus::loaded;
    }

    // A member that must be a string of printable ASCII, min_length..size-1 bytes.
    ProfileStatus read_text(const JsonNode* parent, const char* where, const char* key, size_t min_length, char* out,
                            size_t size) {
        const JsonNode* n = doc_.object_get(parent, key);
        if (!JsonDocument::is_string(n)) return fail(ProfileStatus::corrupt, "%s.%s is missing or not a string", where, key);
        const size_t length = JsonDocument::string_length(n);
        if (length < min_length || !doc_.copy_string(n, out, size))
            return fail(ProfileStatus::corrupt, "%s.%s: %zu bytes (%zu..%zu allowed)", where, key, length, min_length,
                        size - 1);
        if (!printable_ascii(out, length))
            return fail(ProfileStatus::corrupt, "%s.%s has bytes other than printable ASCII", where, key);
        return ProfileStatus::loaded;
    }

    // A member that must be a number in [lo, hi].
    ProfileStatus read_number(const JsonNode* parent, const char* where, const char* key, double lo, double hi,
                              double* out) {
        double v = 0;
        if (!JsonDocument::number(doc_.object_get(parent, key), &v))
            return fail(ProfileStatus::corrupt, "%s.%s is missing or not a number", where, key);
        if (!(v >= lo && v <= hi))
            return fail(ProfileStatus::corrupt, "%s.%s: %.17g is outside [%.17g, %.17g]", where, key, v, lo, hi);
        *out = v;
        return ProfileStatus::loaded;
    }

    // The same, and a whole number (384.0 and 3.84e2 are 384; 384.5 is refused).
    ProfileStatus read_integer(const JsonNode* parent, const char* where, const char* key, double lo, double hi,
                               double* out) {
        const ProfileStatus s = read_number(parent, where, key, lo, hi, out);
        if (s != ProfileStatus::loaded) return s;
        if (std::floor(*out) != *out)
            return fail(ProfileStatus::corrupt, "%s.%s: %.17g is not a whole number", where, key, *out);
        return ProfileStatus::loaded;
    }

    ProfileStatus read_figure(const JsonNode* parent, const char* where, const char* key, double* out) {
        return read_number(parent, where, key, 0, kMaxFigure, out);
    }

    const JsonDocument& doc_;
    char* why_;
    size_t why_size_;
};

// Closes the descriptor on every path out of load_profile_file.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor() {
        if (fd_ >= 0) close(fd_);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

// Frees a malloc block on every path out.
class MallocBlock {
public:
    explicit MallocBlock(size_t bytes) : p_(static_cast<char*>(std::malloc(bytes))) {}
    ~MallocBlock() { std::free(p_); }
    MallocBlock(const MallocBlock&) = delete;
    MallocBlock& operator=(const MallocBlock&) = delete;
    char* get() const { return p_; }

private:
    char* p_;
};

// strerror is not thread-safe; GNU strerror_r returns the message (maybe not in `buf`).
const char* error_text(int error, char* buf, size_t size) { return strerror_r(error, buf, size); }

// Reads the whole of an open regular file of `expected` bytes into `buffer`
// (`expected` + 1 bytes: the extra byte shows a file that grew after fstat).
// Returns the byte count, or -1 with errno set.
ssize_t read_whole(int fd, char* buffer, size_t expected) {
    size_t got = 0;
    while (got < expected + 1) {
        const ssize_t r = read(fd, buffer + got, expected + 1 - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) break;
        got += static_cast<size_t>(r);
    }
    return static_cast<ssize_t>(got);
}

}  // namespace

const ProfileBlocking* Profile::find(const char* kernel) const {
    if (kernel == nullptr) return nullptr;
    const size_t n = std::strlen(kernel);
    for (int i = 0; i < blocking_count && i < kMaxKernels; ++i)
        if (strnlen(blocking[i].kernel, sizeof blocking[i].kernel) == n && std::memcmp(blocking[i].kernel, kernel, n) == 0)
            return &blocking[i];
    return nullptr;
}

const char* profile_status_name(ProfileStatus s) {
    switch (s) {
        case ProfileStatus::loaded: return "loaded";
        case ProfileStatus::not_found: return "not_found";
        case ProfileStatus::unreadable: return "unreadable";
        case ProfileStatus::corrupt: return "corrupt";
        case ProfileStatus::wrong_format: return "wrong_format";
        case ProfileStatus::other_cpu: return "other_cpu";
    }
    return "unknown";
}

ProfileStatus parse_profile(const char* text, size_t length, const CpuSignature& here, Profile* out, char* why,
                            size_t why_size) {
    say(why, why_size, "%s", "");
    *out = Profile();
    JsonDocument doc;
    char json_why[128];
    if (!doc.parse(text, length, json_why, sizeof json_why)) {
        // Out of memory says nothing about the file: "cannot be read" (now), not "corrupt".
        const ProfileStatus s = doc.failed_for_memory() ? ProfileStatus::unreadable : ProfileStatus::corrupt;
        say(why, why_size, "not valid JSON: %s", json_why);
        return s;
    }
    const ProfileStatus s = ProfileReader(doc, why, why_size).read(here, out);
    if (s != ProfileStatus::loaded) *out = Profile();
    return s;
}

ProfileStatus load_profile_file(const char* path, const CpuSignature& here, Profile* out, char* why,
                                size_t why_size) {
    *out = Profile();
    if (path == nullptr || path[0] == '\0') {
        say(why, why_size, "no profile path");
        return ProfileStatus::not_found;
    }
    char shown[256];  // the path as reasons quote it
    quotable(path, shown, sizeof shown);
    char error[128];
    // O_NONBLOCK: opening a FIFO must not wait for a writer (the type check below refuses it).
    const FileDescriptor fd(open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (fd.get() < 0) {
        const int e = errno;
        if (e == ENOENT || e == ENOTDIR) {
            say(why, why_size, "no file at %s", shown);
            return ProfileStatus::not_found;
        }
        say(why, why_size, "cannot open %s: %s", shown, error_text(e, error, sizeof error));
        return ProfileStatus::unreadable;
    }
    struct stat st;
    if (fstat(fd.get(), &st) != 0) {
        say(why, why_size, "cannot stat %s: %s", shown, error_text(errno, error, sizeof error));
        return ProfileStatus::unreadable;
    }
    if (!S_ISREG(st.st_mode)) {
        say(why, why_size, "%s is %s", shown, S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        return ProfileStatus::unreadable;
    }
    if (st.st_size < 0 || static_cast<uint64_t>(st.st_size) > kMaxProfileBytes) {
        say(why, why_size, "%s has %lld bytes; a profile has at most %zu", shown, static_cast<long long>(st.st_size),
            kMaxProfileBytes);
        return ProfileStatus::unreadable;
    }
    const size_t expected = static_cast<size_t>(st.st_size);
    const MallocBlock buffer(expected + 1);
    if (buffer.get() == nullptr) {
        say(why, why_size, "out of memory reading %s", shown);
        return ProfileStatus::unreadable;
    }
    const ssize_t got = read_whole(fd.get(), buffer.get(), expected);
    if (got < 0) {
        say(why, why_size, "cannot read %s: %s", shown, error_text(errno, error, sizeof error));
        return ProfileStatus::unreadable;
    }
    if (static_cast<size_t>(got) > expected) {
        say(why, why_size, "%s grew while being read", shown);
        return ProfileStatus::unreadable;
    }
    // A file that shrank is parsed as read: if it was cut short, the JSON says so.
    return parse_profile(buffer.get(), static_cast<size_t>(got), here, out, why, why_size);
}

void profile_file_stem(const CpuSignature& sig, char* out, size_t out_size) {
    if (out == nullptr || out_size == 0) return;
    // The vendor becomes part of a file name: anything but [A-Za-z0-9._-] (a '/', the
    // spaces of Zhaoxin's "  Shanghai  ") becomes '_'; no vendor at all, "unknown".
    char vendor[sizeof sig.vendor + 1] = {};
    const size_t n = bounded_length(sig.vendor);
    for (size_t i = 0; i < n; ++i) {
        const unsigned char c = static_cast<unsigned char>(sig.vendor[i]);
        const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                          c == '_' || c == '-';
        vendor[i] = keep ? static_cast<char>(c) : '_';
    }
    std::snprintf(out, out_size, "%s-%d-%d", n > 0 ? vendor : "unknown", sig.family, sig.model);
}

namespace {

enum class Candidate { ridge_profile, xdg_config_home, home, system };

const char* candidate_source(Candidate c) {
    switch (c) {
        case Candidate::ridge_profile: return "RIDGE_PROFILE";
        case Candidate::xdg_config_home: return "XDG_CONFIG_HOME";
        case Candidate::home: return "HOME";
        case Candidate::system: return "system";
    }
    return "none";
}

// Writes candidate `c` into `path`. False when its variable is unset or empty
// (XDG_CONFIG_HOME also when relative: the XDG spec says to ignore it then), or the
// whole path does not fit: a cut path would name some other file.
bool format_candidate(Candidate c, const char* stem, char* path, size_t path_size) {
    const char* base = nullptr;
    int needed = -1;
    switch (c) {
        case Candidate::ridge_profile:
            base = std::getenv("RIDGE_PROFILE");
            if (base == nullptr || base[0] == '\0') return false;
            needed = std::snprintf(path, path_size, "%s", base);
            break;
        case Candidate::xdg_config_home:
            base = std::getenv("XDG_CONFIG_HOME");
            if (base == nullptr || base[0] != '/') return false;
            needed = std::snprintf(path, path_size, "%s/ridge/%s.json", base, stem);
            break;
        case Candidate::home:
            base = std::getenv("HOME");
            if (base == nullptr || base[0] == '\0') return false;
            needed = std::snprintf(path, path_size, "%s/.config/ridge/%s.json", base, stem);
            break;
        case Candidate::system:
            needed = std::snprintf(path, path_size, "/etc/ridge/%s.json", stem);
            break;
    }
    return needed >= 0 && static_cast<size_t>(needed) < path_size;
}

bool path_exists(const char* path) {
    struct stat st;
    return stat(path, &st) == 0;
}

}  // namespace

void profile_kernel_key(const char* input, const char* kernel, char* out, size_t out_size) {
    if (out != nullptr && out_size > 0) std::snprintf(out, out_size, "%s:%s", input, kernel);
}

bool profile_path(const CpuSignature& sig, char* path, size_t path_size, const char** source) {
    if (source != nullptr) *source = candidate_source(Candidate::system);
    if (path == nullptr || path_size == 0) {
        if (source != nullptr) *source = "none";
        return false;
    }
    char stem[64];
    profile_file_stem(sig, stem, sizeof stem);
    // RIDGE_PROFILE, when set, is the only place looked at: a user who names a
    // file (or a test that names a missing one) must not get another profile.
    if (format_candidate(Candidate::ridge_profile, stem, path, path_size)) {
        if (source != nullptr) *source = candidate_source(Candidate::ridge_profile);
        return path_exists(path);
    }
    const Candidate order[] = {Candidate::ridge_profile, Candidate::xdg_config_home, Candidate::home,
                               Candidate::system};
    for (const Candidate c : order) {
        if (format_candidate(c, stem, path, path_size) && path_exists(path)) {
            if (source != nullptr) *source = candidate_source(c);
            return true;
        }
    }
    // None exists: the first of 1-3 that is set and fits is where ridge-tune should write
    // (never /etc: a system-wide profile is an administrator's choice).
    for (const Candidate c : order) {
        if (c == Candidate::system) break;
        if (format_candidate(c, stem, path, path_size)) {
            if (source != nullptr) *source = candidate_source(c);
            return false;
        }
    }
    path[0] = '\0';
    if (source != nullptr) *source = "none";
    return false;
}

}  // namespace ridge

// The per-machine profile ridge-tune writes and the library reads once, at first use.
//
// A profile is a human-readable JSON file (format below). The library takes from it
// only what changes its decisions: the block sizes per kernel, the small-path
// and skinny-path crossovers, the per-thread work threshold, GEMV's
// prefetch distance, the blocked path's orders and the size from which C is
// streamed out. Everything else in the file
// (hwloc's figures, measured figures, the model's point, GFLOP/s, dates) is
// provenance for people and is not read here.
//
// Reading must never crash, allocate through throwing paths, or give a wrong
// result: the file may be missing, truncated, corrupt, hostile or from another
// CPU. Any of these leaves `Profile` empty and says why in one line.
//
// The parts the library reads (format_version 1):
// {
//   "format": "ridge-profile", "format_version": 1,
//   "cpu": {"vendor": "GenuineIntel", "family": 6, "model": 143,
//           "features": "fma avx2 f16c avx512f avx512bw avx512vl avx512dq avx512_bf16 amx"},
//   "kernels": {
//     "<input>:<microkernel>, e.g. f32:ukr_f32_gemm_32x12__avx512":
//         {"chosen": {"KC": 384, "MC": 480, "NC": 3072}, ...},
//     ...
//   },
//   "small_path": {"max_volume": 4096000, "max_a_floats": 262144},      (optional)
//   "skinny_path": {"max_columns": 64,                                   (optional;
//                   "max_columns_bf16": 64, "max_columns_f16": 32},       16-bit ones too)
//   "gemv": {"prefetch_elements": 256},                                  (optional; 0: none)
//   "stream_c": {"min_bytes": 47453056},                                 (optional)
//   "threads": {"min_flops_per_thread": 8000000,                         (optional;
//               "small_min_flops_per_thread": 884736}                     at least one of the two)
// }
// Unknown members are ignored (provenance, future fields). "kernels" is required (it
// may be empty) and holds at most Profile::kMaxKernels entries: more is `corrupt`,
// not a list cut short (ridge-tune writes one per registered kernel, far fewer).
// The JSON must be strict RFC 8259 UTF-8 (tuning/json_reader.h lists what is refused,
// duplicate keys included); vendor, features and kernel names must be printable ASCII.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ridge {

// What identifies a CPU for a profile: a profile tuned on another CPU is ignored.
struct CpuSignature {
    char vendor[16] = {};     // "GenuineIntel", "AuthenticAMD"
    int family = 0;           // display family and model, as /proc/cpuinfo shows them
    int model = 0;
    char features[160] = {};  // the ISA features ridge uses, space separated, fixed order
};

// Block sizes the tuner chose for one kernel, keyed "<input dtype>:<microkernel name>"
// (the same microkernel serves fp32 and, converted while packing, fp16 and bf16).
struct ProfileBlocking {
    char kernel[48] = {};
    int64_t KC = 0, MC = 0, NC = 0;
};

struct Profile {
    static constexpr int kMaxKernels = 32;
    ProfileBlocking blocking[kMaxKernels];
    int blocking_count = 0;

    bool has_small_path = false;
    double small_max_volume = 0;    // m*n*k up to which the unpacked small path runs
    double small_max_a_floats = 0;  // and op(A), padded to MR rows, has at most this many floats
    // Optional in small_path: its limit for a call on one thread (small_path_alone in paths.cpp).
    bool has_small_alone = false;
    double small_max_volume_alone = 0;
    // Optional in small_path: the one-thread limit where A's columns start on
    // cache lines (RuntimeConfig::small_max_volume_alone_lined_a).
    bool has_small_alone_lined_a = false;
    double small_max_volume_alone_lined_a = 0;

    // Widest C (columns) the skinny path takes, by the input type of A and B
    // (its crossover with the blocked path moves with the bytes of A per element
    // and with the kernel that widens them).
    bool has_skinny_path = false;
    int64_t skinny_max_columns = 0;  // fp32
    bool has_skinny_bf16 = false;
    int64_t skinny_max_columns_bf16 = 0;
    bool has_skinny_f16 = false;
    int64_t skinny_max_columns_f16 = 0;

    // How far ahead the GEMV kernels prefetch an A from DRAM (0: not at all),
    // where ridge-tune measured it (the library's own figure otherwise).
    bool has_gemv_prefetch = false;
    int64_t gemv_prefetch_elements = 0;

    // Whether the blocked path reads a block of A in place (blocked_schedule.cpp:
    // reads_a_in_place), where ridge-tune measured it ("blocked_path":
    // {"a_in_place": true|false}; the library's built-in answer, no, otherwise).
    bool has_blocked_a_in_place = false;
    bool blocked_a_in_place = false;
    // Whether the blocked path may run a block's ir loop outside its jr loop
    // (blocked_schedule.cpp: runs_ir_outside_jr), where ridge-tune measured it
    // ("blocked_path": {"ir_outside_jr": true|false}; the library's built-in
    // answer, no, otherwise).
    bool has_blocked_ir_outside_jr = false;
    bool blocked_ir_outside_jr = false;
    // Whether the first micro-panel's tiles pack a block of A from memory as
    // they compute, for few columns of C (paths.cpp: a_rows_within_cache),
    // where ridge-tune measured it ("blocked_path":
    // {"a_packed_while_computing_from_memory": true|false}; no otherwise).
    bool has_blocked_a_packed_while_computing_from_memory = false;
    bool blocked_a_packed_while_computing_from_memory = false;
    // Whether one thread may pack all of op(A)'s rows as one block in L3
    // (blocked_schedule.cpp: packs_all_rows_as_one_block), where ridge-tune
    // measured it ("blocked_path": {"one_block_of_a": true|false}; the
    // library's built-in answer, yes, otherwise).
    bool has_blocked_one_block_of_a = false;
    bool blocked_one_block_of_a = true;

    // The smallest C (bytes) the blocked path writes with non-temporal stores
    // where it is written once (use_streaming_c in paths.cpp): the
    // last-level cache ridge-tune used, its measured size where hwloc's was
    // rejected ("stream_c": {"min_bytes": N}; the library's own L3 otherwise).
    bool has_stream_c = false;
    double stream_c_min_bytes = 0;

    bool has_threads = false;
    double min_flops_per_thread = 0;
    bool has_small_threads = false;        // "threads" also gave the small path's figure
    double small_min_flops_per_thread = 0;

    // The entry for `kernel`, or nullptr.
    const ProfileBlocking* find(const char* kernel) const;
};

enum class ProfileStatus {
    loaded,     // `out` holds the profile
    not_found,  // no file at the path (not an error: the library uses its model)
    unreadable, // exists but cannot be read, or is larger than kMaxProfileBytes
              // (also: no memory to parse it; that says nothing about the file)
    corrupt,    // not JSON, truncated, nesting too deep, wrong types, values out of range
    wrong_format,  // JSON, but not a ridge profile of a format version this library reads
    other_cpu,  // a ridge profile for another CPU signature
};
const char* profile_status_name(ProfileStatus s);

// Profiles are small (a few KiB); anything larger is refused unread.
constexpr size_t kMaxProfileBytes = 1 << 20;

// Parses `text` (`length` bytes, not necessarily NUL-terminated). On anything but
// `loaded`, `*out` is reset to an empty Profile and `why` (if not null) gets a
// one-line reason, NUL-terminated, truncated to `why_size`.
// Values are range-checked: KC, MC, NC in [1, 1<<24]; small_path values in
// [0, 1e12]; skinny_path.max_columns (required in it), max_columns_bf16 and
// max_columns_f16 whole numbers in [0, 4096]; gemv.prefetch_elements (required in
// it) a whole number in [0, 4096];
// min_flops_per_thread and small_min_flops_per_thread in [0, 1e12]; kernel names 1..47 chars.
// Whether KC/MC/NC suit a kernel's MR/NR is the caller's check (it knows the kernel).
ProfileStatus parse_profile(const char* text, size_t length, const CpuSignature& here, Profile* out,
                            char* why, size_t why_size);

// Reads and parses the file at `path` (same contract).
ProfileStatus load_profile_file(const char* path, const CpuSignature& here, Profile* out, char* why,
                                size_t why_size);

// Where the library looks for this CPU's profile, first hit wins:
//   1. $RIDGE_PROFILE (a file path, used as is; when set, the only place looked at);
//   2. $XDG_CONFIG_HOME/ridge/<stem>.json (ignored unless absolute, as the XDG spec says);
//   3. $HOME/.config/ridge/<stem>.json;
//   4. /etc/ridge/<stem>.json (system-wide);
// where <stem> is profile_file_stem(sig), so one home directory shared by
// several kinds of machines (a cluster's NFS home) keeps one profile per kind.
// Writes the first path whose file exists into `path` and returns true; when none
// exists, writes the path ridge-tune should create (1, else 2, else 3) and returns
// false. `source` (if not null) receives "RIDGE_PROFILE", "XDG_CONFIG_HOME",
// "HOME" or "system". Returns false with an empty `path` (and `source` "none") if no
// path fits. A path that would not fit in `path_size` is skipped, never cut short.
bool profile_path(const CpuSignature& sig, char* path, size_t path_size, const char** source);

// The key of a kernel's entry under "kernels": "<input>:<microkernel>", e.g.
// "f32:ukr_f32_gemm_32x12__avx512" (the one format the library and ridge-tune share).
void profile_kernel_key(const char* input, const char* kernel, char* out, size_t out_size);

// "<vendor>-<family>-<model>", e.g. "GenuineIntel-6-143": a file name stem. Vendor
// bytes other than [A-Za-z0-9._-] become '_'; an empty vendor is "unknown".
void profile_file_stem(const CpuSignature& sig, char* out, size_t out_size);

}  // namespace ridge

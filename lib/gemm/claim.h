// Work shared out among a team in advance and claimed a piece at a time
// (ClaimedShares): each thread runs the pieces of its own share first, then
// what is left of the others' shares. On a shared machine one core is often
// slower for a while, and a split decided in advance would leave the faster
// thread waiting at the end. Each share's counter sits on its own cache line,
// so a thread's claims on its own share stay in its core's cache until
// another thread comes for the rest (one counter for the whole team lost
// 5-13% at 96^3 on 2 threads on the small path: its line crossed between the
// cores at every claim). Also the claims on a posted step of micro-panels
// (StepClaims, below).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace ridge {

class ClaimedShares {
public:
    // `items` pieces of work, in `shares` equal consecutive shares (teams larger
    // than kMaxShares share counters: threads t and t + kMaxShares claim from one).
    ClaimedShares(int64_t items, int shares) : count_(std::clamp(shares, 1, kMaxShares)) { share_out(items); }
    // The same shares again, all unclaimed (by one thread, while no thread claims).
    void share_out(int64_t items) {
        for (int i = 0; i < count_; ++i) {
            cursors_[i].next.store(items * i / count_, std::memory_order_relaxed);
            cursors_[i].last = items * (i + 1) / count_;
        }
    }
    // Calls run(item) for every item this thread claims: thread `self`'s share
    // first, then the others' in turn. Every item is run exactly once by the team.
    template <typename Run>
    void run_claimed(int self, Run&& run) {
        const int own = self % count_;
        for (int i = 0; i < count_; ++i) {
            Cursor& cursor = cursors_[(own + i) % count_];
            for (int64_t item; (item = cursor.next.fetch_add(1, std::memory_order_relaxed)) < cursor.last;) run(item);
        }
    }

private:
    static constexpr int kMaxShares = 64;
    struct alignas(64) Cursor {
        std::atomic<int64_t> next{0};
        int64_t last = 0;
    };
    Cursor cursors_[kMaxShares];
    int count_;
};

// The claims on one step of micro-panels that a thread (the owner) posts for
// its team to share (the blocked path's panel sharing, gemm_blocked.cpp), in
// one word: step number (upper bits) | panel count | next unclaimed panel.
// Claims compare the whole word, so a claim never lands on a later step's
// panels. Each claim takes a guided share of what is left (1 / (2 x threads)
// of it, at least one panel), so a step takes a few claims, fewer as they
// shrink towards the end, where the last panels still go one at a time to
// whoever is free. Why few: a claim is a locked instruction, which waits
// until every store before it is globally visible; with C streamed out
// (non-temporal stores) that is the write of the whole previous panel to
// memory. One claim per panel measured 11% of the time at 4096 x 4096 x 16 on
// 2 threads (perf: on the lock cmpxchg).
class StepClaims {
public:
    static constexpr int kBits = 20;  // bits of the word for the panel count and the next panel
    // Steps with more panels than the word counts are not posted (never at
    // NC's sizes: a few thousand). Claims never count past a step's panels.
    static constexpr int64_t kMaxPanels = (int64_t{1} << kBits) - 1;

    // Posts the next step: `panels` panels, those before `first_unclaimed` already the owner's.
    void post(int64_t panels, int64_t first_unclaimed) {
        const uint64_t number = (word_.load(std::memory_order_relaxed) >> (2 * kBits)) + 1;
        word_.store(number << (2 * kBits) | uint64_t(panels) << kBits | uint64_t(first_unclaimed),
                    std::memory_order_release);
    }
    // Claims the next unclaimed panels of the posted step, never any of its
    // last `leave`: the number claimed, from *first on; 0 when none is left.
    int64_t claim(int threads, int64_t* first, int64_t leave = 0) {
        uint64_t word = word_.load(std::memory_order_acquire);
        for (;;) {
            const uint64_t next = word & kMask, count = (word >> kBits) & kMask;
            if (next + uint64_t(leave) >= count) return 0;
            const uint64_t guided = std::max<uint64_t>(1, (count - next) / (2 * uint64_t(threads)));
            const uint64_t take = std::min(count - next - uint64_t(leave), guided);
            if (word_.compare_exchange_weak(word, word + take, std::memory_order_acq_rel,
                                            std::memory_order_acquire)) {
                *first = int64_t(next);
                return int64_t(take);
            }
        }
    }

private:
    static constexpr uint64_t kMask = uint64_t(kMaxPanels);
    std::atomic<uint64_t> word_{0};
};

}  // namespace ridge

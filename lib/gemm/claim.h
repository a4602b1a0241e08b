// Work shared out among a team in advance and claimed a piece at a time: each
// thread runs the pieces of its own share first, then what is left of the
// others' shares. On a shared machine one core is often slower for a while,
// and a split decided in advance would leave the faster thread waiting at the
// end. Each share's counter sits on its own cache line, so a thread's claims
// on its own share stay in its core's cache until another thread comes for
// the rest (one counter for the whole team lost 5-13% at 96^3 on 2 threads
// on the small path: its line crossed between the cores at every claim).
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

}  // namespace ridge

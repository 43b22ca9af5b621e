#include "aoi.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "carve.hpp"
#include "radix.hpp"

namespace soageo {
namespace {

// Monotonic in x, so every entry before bucket[bucket_of(v)] is < v.
inline uint32_t bucket_of(const AoiScratch& s, double x) noexcept {
    double b = (x - s.bucket_x0) * s.bucket_scale;
    return b <= 0 ? 0u : b >= kBuckets - 1 ? kBuckets - 1 : static_cast<uint32_t>(b);
}

void sort_entities(const Store& st, AoiScratch& s) noexcept {
    const uint32_t n = st.n;
    const Columns& c = st.col;
    for (uint32_t i = 0; i < n; ++i) {
        s.keys[i] = float_key(c.x[i]);
        s.slot[i] = i;
    }
    radix_sort32(s.keys, s.slot, s.tmp_keys, s.tmp_vals, n);
    for (uint32_t i = 0; i < n; ++i) {
        s.xs[i] = c.x[s.slot[i]];
        s.ys[i] = c.y[s.slot[i]];
    }
    for (uint32_t i = n; i < padded(n + 1) + kMaxWidth; ++i) s.xs[i] = s.ys[i] = 0.0f;
    rank_ids(c.id, n, s.id_keys, s.slot_of_rank, s.rank, s.tmp_id_keys, s.tmp_vals);
    // Buckets over the x range, so a window search starts a few entries from its answer.
    s.bucket_x0 = n ? s.xs[0] : 0.0;
    double span = n ? double(s.xs[n - 1]) - s.bucket_x0 : 0.0;
    s.bucket_scale = span > 0 ? kBuckets / span : 0.0;
    uint32_t i = 0;
    for (uint32_t b = 0; b <= kBuckets; ++b) {
        while (i < n && bucket_of(s, s.xs[i]) < b) ++i;
        s.bucket[b] = i;
    }
    // The per-candidate lookups go through arrays in x order and rank order only: the rank
    // of each x-sorted entity, and (id_keys) the ids in rank order. Chasing slot -> rank ->
    // slot -> id through four arrays per candidate cost 40% of an update.
    for (uint32_t i = 0; i < n; ++i) s.rank_x[i] = s.rank[s.slot[i]];
}

inline int64_t id_of_rank(const AoiScratch& s, uint32_t rank) noexcept {
    return static_cast<int64_t>(s.id_keys[rank] ^ 0x8000000000000000ull);
}

// First index whose value is >= v in the ascending xs[0..n): the answer lies within v's x
// bucket [bucket[b], bucket[b + 1]], searched branch-free (a search over all of xs was 20% of
// an update, std::lower_bound's mispredictions more; buckets keep it short, and a bucket
// holding everything, all at one x, still costs only log n).
inline uint32_t first_at_least(const AoiScratch& s, uint32_t n, float v) noexcept {
    uint32_t b = bucket_of(s, v);
    uint32_t lo = s.bucket[b], hi = s.bucket[b + 1] < n ? s.bucket[b + 1] : n;
    const float* base = s.xs + lo;
    uint32_t len = hi - lo;
    while (len > 1) {
        uint32_t half = len / 2;
        base = base[half - 1] < v ? base + half : base;
        len -= half;
    }
    return static_cast<uint32_t>(base - s.xs) + (len == 1 && *base < v ? 1u : 0u);
}

// The targets watcher `self_rank` has within reach now, as ranks (rank << 1 | 1 when within
// view, | 0 when only within view + margin), in x order; returns how many.
uint32_t candidates(const AoiInput& in, AoiScratch& s, uint32_t self_rank, float view) noexcept {
    const Store& st = *in.layer;
    const uint32_t slot = s.slot_of_rank[self_rank];
    const float wx = st.col.x[slot], wy = st.col.y[slot];
    const float reach = view + in.margin;
    const float enter2 = view * view;
    // The x window is a conservative pre-filter (the circle test decides): |dx| in float32 can
    // be a hair below the real distance, so the window is widened by a relative 2^-20.
    const double half = double(reach) * (1.0 + 0x1p-20) + 0x1p-126;
    const float lo = std::nextafter(static_cast<float>(double(wx) - half), -HUGE_VALF);
    const float hi = std::nextafter(static_cast<float>(double(wx) + half), HUGE_VALF);
    const uint32_t n = st.n;
    uint32_t first = first_at_least(s, n, lo);
    uint32_t last = first_at_least(s, n, hi);
    while (last < n && !(s.xs[last] > hi)) ++last;  // equal keys past hi's lower bound
    first &= ~uint32_t(kMaxWidth - 1);  // kernels read aligned blocks
    if (last <= first) return 0;
    Points window{s.xs + first, s.ys + first, nullptr, nullptr, last - first};
    uint32_t found = in.kernels->in_circle(window, Circle{wx, wy, reach}, Filter{0, false}, s.hits);
    uint32_t k = 0;
    for (uint32_t i = 0; i < found; ++i) {
        uint32_t at = first + s.hits[i];
        uint32_t rank = s.rank_x[at];
        if (rank == self_rank) continue;
        float dx = s.xs[at] - wx, dy = s.ys[at] - wy;
        bool near = dx * dx + dy * dy < enter2;
        s.cand[k++] = (rank << 1) | (near ? 1u : 0u);
    }
    return k;
}

}  // namespace

size_t watchers_bytes(uint32_t cap) noexcept { return kAlign * 2 + size_t(cap) * 12; }

Watchers watchers_carve(void* block, uint32_t cap) noexcept {
    Carver k(block);
    Watchers w;
    w.id = k.take<int64_t>(cap);
    w.view = k.take<float>(cap);
    w.n = 0;
    w.cap = cap;
    return w;
}

uint32_t watchers_find(const Watchers& w, int64_t id, bool* found) noexcept {
    uint32_t at = static_cast<uint32_t>(std::lower_bound(w.id, w.id + w.n, id) - w.id);
    *found = at < w.n && w.id[at] == id;
    return at;
}

void watchers_insert(Watchers& w, uint32_t at, int64_t id, float view) noexcept {
    std::memmove(w.id + at + 1, w.id + at, (w.n - at) * sizeof(int64_t));
    std::memmove(w.view + at + 1, w.view + at, (w.n - at) * sizeof(float));
    w.id[at] = id;
    w.view[at] = view;
    ++w.n;
}

void watchers_erase(Watchers& w, uint32_t at) noexcept {
    std::memmove(w.id + at, w.id + at + 1, (w.n - at - 1) * sizeof(int64_t));
    std::memmove(w.view + at, w.view + at + 1, (w.n - at - 1) * sizeof(float));
    --w.n;
}

void watchers_copy(Watchers& to, const Watchers& from) noexcept {
    std::memcpy(to.id, from.id, from.n * sizeof(int64_t));
    std::memcpy(to.view, from.view, from.n * sizeof(float));
    to.n = from.n;
}

size_t visible_bytes(uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap) noexcept {
    return kAlign * 5 + size_t(watcher_cap) * 8 + (size_t(watcher_cap) + 1) * 4 + target_cap * 4 + size_t(id_cap) * 8;
}

Visible visible_carve(void* block, uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap) noexcept {
    Carver k(block);
    Visible v;
    v.watcher = k.take<int64_t>(watcher_cap);
    v.off = k.take<uint32_t>(size_t(watcher_cap) + 1);
    v.target = k.take<uint32_t>(target_cap);
    v.ids = k.take<int64_t>(id_cap);
    v.n = 0;
    v.off[0] = 0;
    v.watcher_cap = watcher_cap;
    v.target_cap = target_cap;
    v.id_count = 0;
    v.id_cap = id_cap;
    return v;
}

size_t aoi_scratch_bytes(uint32_t cap) noexcept {
    size_t c = size_t(padded(cap + 1)) + kMaxWidth;
    return kAlign * 18 + c * 4 * 14 + c * 8 * 2 + (kBuckets + 1) * 4;
}

AoiScratch aoi_scratch_carve(void* block, uint32_t cap) noexcept {
    size_t c = size_t(padded(cap + 1)) + kMaxWidth;
    Carver k(block);
    AoiScratch s;
    s.xs = k.take<float>(c);
    s.ys = k.take<float>(c);
    s.slot = k.take<uint32_t>(c);
    s.keys = k.take<uint32_t>(c);
    s.tmp_keys = k.take<uint32_t>(c);
    s.tmp_vals = k.take<uint32_t>(c);
    s.id_keys = k.take<uint64_t>(c);
    s.tmp_id_keys = k.take<uint64_t>(c);
    s.rank = k.take<uint32_t>(c);
    s.slot_of_rank = k.take<uint32_t>(c);
    s.hits = k.take<uint32_t>(c);
    s.cand = k.take<uint32_t>(c);
    s.rank_x = k.take<uint32_t>(c);
    s.seen = k.take<uint32_t>(c);
    s.reach = k.take<uint32_t>(c);
    s.remap = k.take<uint32_t>(c);
    s.bucket = k.take<uint32_t>(kBuckets + 1);
    s.cap = cap;
    return s;
}

size_t events_bytes(uint64_t cap) noexcept { return kAlign + cap * 16; }

EventList events_carve(void* block, uint64_t cap) noexcept {
    Carver k(block);
    return EventList{k.take<int64_t>(cap * 2), 0, cap};
}

namespace {

// Last update's rank of each id -> this update's rank, by merging the two ascending id lists.
void remap_ranks(const Visible& before, const AoiScratch& s, uint32_t n) noexcept {
    uint32_t j = 0;
    for (uint32_t i = 0; i < before.id_count; ++i) {
        const uint64_t key = int_key(before.ids[i]);
        while (j < n && s.id_keys[j] < key) ++j;
        s.remap[i] = j < n && s.id_keys[j] == key ? j : kNoSlot;
    }
}

inline void push_event(EventList& e, int64_t watcher, int64_t target) noexcept {
    e.pair[2 * e.n] = watcher;
    e.pair[2 * e.n + 1] = target;
    ++e.n;
}

}  // namespace

AoiStatus aoi_update(const AoiInput& in, AoiScratch& s, Visible& after, EventList& enter, EventList& leave,
                     AoiProgress& p, uint64_t* need) noexcept {
    const Store& st = *in.layer;
    const Watchers& w = *in.watchers;
    const Visible& before = *in.before;
    if (!p.prepared) {
        sort_entities(st, s);
        remap_ranks(before, s, st.n);
        std::memset(s.seen, 0, st.n * sizeof(uint32_t));
        std::memset(s.reach, 0, st.n * sizeof(uint32_t));
        for (uint32_t i = 0; i < st.n; ++i) after.ids[i] = id_of_rank(s, i);
        after.id_count = st.n;
        after.n = 0;
        after.off[0] = 0;
        p.rank = 0;
        p.stamp = 0;
        p.prepared = true;
    }
    uint32_t* enter_ranks = s.tmp_keys;    // free after sort_entities: this watcher's enters
    int64_t* leave_ids = reinterpret_cast<int64_t*>(s.tmp_id_keys);  // and leaves
    while (p.cur < w.n || p.prev < before.n) {
        int64_t wid;
        bool in_now, in_before;
        if (p.prev >= before.n || (p.cur < w.n && w.id[p.cur] < before.watcher[p.prev])) {
            wid = w.id[p.cur];
            in_now = true, in_before = false;
        } else if (p.cur >= w.n || before.watcher[p.prev] < w.id[p.cur]) {
            wid = before.watcher[p.prev];
            in_now = false, in_before = true;
        } else {
            wid = w.id[p.cur];
            in_now = in_before = true;
        }
        const uint32_t* old_t = in_before ? before.target + before.off[p.prev] : nullptr;
        uint32_t old_n = in_before ? before.off[p.prev + 1] - before.off[p.prev] : 0;
        // Room for the worst case of this watcher: it may see every entity, leave all it saw.
        uint64_t used = after.off[after.n];
        if (in_now && used + st.n > after.target_cap) return *need = st.n, AoiStatus::need_targets;
        if (enter.n + st.n > enter.cap) return *need = st.n, AoiStatus::need_enter;
        if (leave.n + old_n > leave.cap) return *need = old_n, AoiStatus::need_leave;

        const uint32_t stamp = ++p.stamp;
        for (uint32_t o = 0; o < old_n; ++o) {  // what it saw, in this update's ranks
            uint32_t r = s.remap[old_t[o]];
            if (r != kNoSlot) s.seen[r] = stamp;
        }
        uint32_t k = 0;
        if (in_now) {  // watchers and ranks both ascend by id: find the watcher's entity by merging
            const uint64_t key = int_key(wid);
            while (p.rank < st.n && s.id_keys[p.rank] < key) ++p.rank;
            if (p.rank < st.n && s.id_keys[p.rank] == key) k = candidates(in, s, p.rank, w.view[p.cur]);
        }
        uint32_t* out_t = after.target + used;
        uint32_t m = 0, entering = 0, leaving = 0;
        for (uint32_t c = 0; c < k; ++c) {
            uint32_t r = s.cand[c] >> 1;
            s.reach[r] = stamp;
            bool seen = s.seen[r] == stamp;
            if (seen || (s.cand[c] & 1u)) out_t[m++] = r;
            if (!seen && (s.cand[c] & 1u)) enter_ranks[entering++] = r;
        }
        for (uint32_t o = 0; o < old_n; ++o) {  // seen before, now out of reach or gone: leaves
            uint32_t r = s.remap[old_t[o]];
            if (r == kNoSlot || s.reach[r] != stamp) leave_ids[leaving++] = before.ids[old_t[o]];
        }
        // Events come out sorted: watchers ascend already, targets are sorted here (few).
        std::sort(enter_ranks, enter_ranks + entering);
        std::sort(leave_ids, leave_ids + leaving);
        for (uint32_t i = 0; i < entering; ++i) push_event(enter, wid, id_of_rank(s, enter_ranks[i]));
        for (uint32_t i = 0; i < leaving; ++i) push_event(leave, wid, leave_ids[i]);
        if (in_now) {
            after.watcher[after.n] = wid;
            after.off[after.n + 1] = static_cast<uint32_t>(used + m);
            ++after.n;
        }
        if (in_now) ++p.cur;
        if (in_before) ++p.prev;
    }
    return AoiStatus::done;
}

}  // namespace soageo

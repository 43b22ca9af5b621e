#include "aoi.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "carve.hpp"
#include "radix.hpp"

namespace soageo {
namespace {

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
    // The per-candidate lookups go through arrays in x order and rank order only: the rank
    // of each x-sorted entity, and (id_keys) the ids in rank order. Chasing slot -> rank ->
    // slot -> id through four arrays per candidate cost 40% of an update.
    for (uint32_t i = 0; i < n; ++i) s.rank_x[i] = s.rank[s.slot[i]];
}

inline int64_t id_of_rank(const AoiScratch& s, uint32_t rank) noexcept {
    return static_cast<int64_t>(s.id_keys[rank] ^ 0x8000000000000000ull);
}

// First index whose value is >= v in the ascending xs[0..n): a branch-free binary search
// (the branchy std::lower_bound mispredicted on every step; 15% of an update).
inline uint32_t first_at_least(const float* xs, uint32_t n, float v) noexcept {
    const float* base = xs;
    uint32_t len = n;
    while (len > 1) {
        uint32_t half = len / 2;
        base = base[half - 1] < v ? base + half : base;
        len -= half;
    }
    return static_cast<uint32_t>(base - xs) + (len == 1 && *base < v ? 1u : 0u);
}

// The targets watcher `slot` sees now, as ranks (rank << 1 | 1 when within view, | 0 when only
// within view + margin), sorted; returns how many.
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
    uint32_t first = first_at_least(s.xs, n, lo);
    uint32_t last = first_at_least(s.xs, n, hi) ;
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
    std::sort(s.cand, s.cand + k);
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

size_t visible_bytes(uint32_t watcher_cap, uint64_t target_cap) noexcept {
    return kAlign * 3 + size_t(watcher_cap) * 8 + (size_t(watcher_cap) + 1) * 4 + target_cap * 8;
}

Visible visible_carve(void* block, uint32_t watcher_cap, uint64_t target_cap) noexcept {
    Carver k(block);
    Visible v;
    v.watcher = k.take<int64_t>(watcher_cap);
    v.off = k.take<uint32_t>(size_t(watcher_cap) + 1);
    v.target = k.take<int64_t>(target_cap);
    v.n = 0;
    v.off[0] = 0;
    v.watcher_cap = watcher_cap;
    v.target_cap = target_cap;
    return v;
}

size_t aoi_scratch_bytes(uint32_t cap) noexcept {
    size_t c = size_t(padded(cap + 1)) + kMaxWidth;
    return kAlign * 14 + c * 4 * 11 + c * 8 * 2;
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
    s.cap = cap;
    return s;
}

size_t events_bytes(uint64_t cap) noexcept { return kAlign + cap * 16; }

EventList events_carve(void* block, uint64_t cap) noexcept {
    Carver k(block);
    return EventList{k.take<int64_t>(cap * 2), 0, cap};
}

AoiStatus aoi_update(const AoiInput& in, AoiScratch& s, Visible& after, EventList& enter, EventList& leave,
                     AoiProgress& p, uint64_t* need) noexcept {
    const Store& st = *in.layer;
    const Watchers& w = *in.watchers;
    const Visible& before = *in.before;
    if (!p.prepared) {
        sort_entities(st, s);
        after.n = 0;
        after.off[0] = 0;
        p.rank = 0;
        p.prepared = true;
    }
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
        const int64_t* old_t = in_before ? before.target + before.off[p.prev] : nullptr;
        uint32_t old_n = in_before ? before.off[p.prev + 1] - before.off[p.prev] : 0;
        // Room for the worst case of this watcher: it may see every entity, leave all it saw.
        uint64_t used = after.off[after.n];
        if (in_now && used + st.n > after.target_cap) return *need = st.n, AoiStatus::need_targets;
        if (enter.n + st.n > enter.cap) return *need = st.n, AoiStatus::need_enter;
        if (leave.n + old_n > leave.cap) return *need = old_n, AoiStatus::need_leave;

        uint32_t k = 0;
        if (in_now) {  // watchers and ranks both ascend by id: find the watcher's entity by merging
            const uint64_t key = int_key(wid);
            while (p.rank < st.n && s.id_keys[p.rank] < key) ++p.rank;
            if (p.rank < st.n && s.id_keys[p.rank] == key) k = candidates(in, s, p.rank, w.view[p.cur]);
        }
        // Merge the candidates (ascending by id) with what the watcher saw before.
        int64_t* out_t = after.target + used;
        uint32_t m = 0, o = 0;
        for (uint32_t c = 0; c < k; ++c) {
            int64_t t = id_of_rank(s, s.cand[c] >> 1);
            bool near = s.cand[c] & 1u;
            while (o < old_n && old_t[o] < t) {  // seen before, now out of reach: leaves
                leave.pair[2 * leave.n] = wid;
                leave.pair[2 * leave.n + 1] = old_t[o++];
                ++leave.n;
            }
            bool seen = o < old_n && old_t[o] == t;
            if (seen) ++o;
            if (seen || near) out_t[m++] = t;
            if (near && !seen) {
                enter.pair[2 * enter.n] = wid;
                enter.pair[2 * enter.n + 1] = t;
                ++enter.n;
            }
        }
        while (o < old_n) {
            leave.pair[2 * leave.n] = wid;
            leave.pair[2 * leave.n + 1] = old_t[o++];
            ++leave.n;
        }
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

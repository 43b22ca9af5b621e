// Interest management's containers (interest.hpp): the special watchers' options, the pins,
// the capped lists with their schedules, the pass's scratch; and a pair's period.
#include "interest.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "carve.hpp"
#include "invariant.hpp"

namespace soageo {
namespace {

Specials lay_specials(Carver& k, uint32_t cap) noexcept {
    Specials s{};
    k.take_each(cap, &s.id, &s.opt, &s.dirty);
    s.cap = cap;
    return s;
}

Pins lay_pins(Carver& k, uint32_t cap) noexcept {
    Pins p{};
    p.pin = k.take<Pin>(cap);
    p.cap = cap;
    return p;
}

InterestLists lay_interest_lists(Carver& k, uint32_t watcher_cap, uint64_t pair_cap) noexcept {
    InterestLists l{};
    k.take_each(watcher_cap, &l.watcher, &l.off, &l.len, &l.edge, &l.pivot, &l.due_len, &l.reach);
    k.take_each(size_t(pair_cap) + kMaxWidth, &l.target, &l.deadline, &l.period, &l.since, &l.pos, &l.due);
    l.watcher_cap = watcher_cap;
    l.pair_cap = pair_cap;
    return l;
}

InterestScratch lay_interest_scratch(Carver& k, uint32_t cap) noexcept {
    InterestScratch s{};
    k.take_each(size_t(cap) + kMaxWidth, &s.d2, &s.order, &s.count, &s.old_target, &s.old_deadline, &s.old_period,
                &s.old_since, &s.packed, &s.sel, &s.rank, &s.pair_d2, &s.due_at, &s.first_at, &s.old_pos,
                &s.old_d2);
    s.tag = k.take_zeroed<uint64_t>(cap);
    s.cap = cap;
    return s;
}

}  // namespace

size_t specials_bytes(uint32_t cap) noexcept { return layout_bytes(lay_specials, cap); }

Specials specials_carve(void* block, uint32_t cap) noexcept { return layout_carve(block, lay_specials, cap); }

void specials_copy(Specials& to, const Specials& from) noexcept {
    move_rows(to, 0, from, 0, from.n, &Specials::id, &Specials::opt, &Specials::dirty);
    to.n = from.n;
}

uint32_t specials_find(const Specials& s, int64_t id, bool* found) noexcept {
    const int64_t* at = std::lower_bound(s.id, s.id + s.n, id);
    *found = at != s.id + s.n && *at == id;
    return uint32_t(at - s.id);
}

void specials_insert(Specials& s, uint32_t at, int64_t id, const InterestOptions& o) noexcept {
    move_rows(s, at + 1, s, at, s.n - at, &Specials::id, &Specials::opt, &Specials::dirty);
    s.id[at] = id, s.opt[at] = o, s.dirty[at] = 1;
    ++s.n;
}

void specials_erase(Specials& s, uint32_t at) noexcept {
    move_rows(s, at, s, at + 1, s.n - at - 1, &Specials::id, &Specials::opt, &Specials::dirty);
    --s.n;
}

size_t pins_bytes(uint32_t cap) noexcept { return layout_bytes(lay_pins, cap); }

Pins pins_carve(void* block, uint32_t cap) noexcept { return layout_carve(block, lay_pins, cap); }

void pins_copy(Pins& to, const Pins& from) noexcept {
    move_rows(to, 0, from, 0, from.n, &Pins::pin);
    to.n = from.n;
}

uint32_t pins_find(const Pins& p, int64_t w, int64_t t, bool* found) noexcept {
    const Pin* at = std::lower_bound(p.pin, p.pin + p.n, Pin{w, t});
    *found = at != p.pin + p.n && at->watcher == w && at->target == t;
    return uint32_t(at - p.pin);
}

void pins_insert(Pins& p, uint32_t at, int64_t w, int64_t t) noexcept {
    move_rows(p, at + 1, p, at, p.n - at, &Pins::pin);
    p.pin[at] = Pin{w, t};
    ++p.n;
}

void pins_erase(Pins& p, uint32_t at) noexcept {
    move_rows(p, at, p, at + 1, p.n - at - 1, &Pins::pin);
    --p.n;
}

bool pins_has_watcher(const Pins& p, int64_t w) noexcept {
    if (!p.n) return false;  // the usual case, asked several times a watcher an update
    const Pin* at = std::lower_bound(p.pin, p.pin + p.n, Pin{w, INT64_MIN});
    return at != p.pin + p.n && at->watcher == w;
}

uint32_t pins_drop_watcher(Pins& p, int64_t w) noexcept {
    bool found;
    const uint32_t lo = pins_find(p, w, INT64_MIN, &found);
    uint32_t hi = lo;
    while (hi < p.n && p.pin[hi].watcher == w) ++hi;
    if (hi > lo) {  // most watchers have no pins: no move of the others'
        move_rows(p, lo, p, hi, p.n - hi, &Pins::pin);
        p.n -= hi - lo;
    }
    return hi - lo;
}

size_t interest_lists_bytes(uint32_t watcher_cap, uint64_t pair_cap) noexcept {
    return layout_bytes(lay_interest_lists, watcher_cap, pair_cap);
}

InterestLists interest_lists_carve(void* block, uint32_t watcher_cap, uint64_t pair_cap) noexcept {
    return layout_carve(block, lay_interest_lists, watcher_cap, pair_cap);
}

const int64_t* interest_find(const InterestLists& l, int64_t id, uint32_t* n) noexcept {
    const int64_t* at = std::lower_bound(l.watcher, l.watcher + l.n, id);
    if (at == l.watcher + l.n || *at != id) {
        *n = 0;
        return nullptr;
    }
    const uint32_t k = uint32_t(at - l.watcher);
    *n = l.len[k];
    return l.target + l.off[k];
}

bool interest_sees(const InterestLists& l, int64_t w, int64_t t) noexcept {
    uint32_t n;
    const int64_t* p = interest_find(l, w, &n);
    if (!p) return !std::binary_search(l.watcher, l.watcher + l.n, w);
    return std::binary_search(p, p + n, t);
}

Narrowed interest_narrow(const InterestLists& l, Watchers& w) noexcept {
    // Only the watchers of l (every special watcher has a list there): any other has its whole
    // view as reach and no floor already. A reach short of its view is only ever set here, for a
    // special watcher, and a watcher stops being special through watch (which gives it its whole
    // view back) or unwatch. The others are galloped over: an aoi with a few special watchers
    // among many would pay a pass over all of them.
    Narrowed out{false, false};
    uint32_t k = 0;
    for (uint32_t j = 0; j < l.n; ++j) {
        const int64_t id = l.watcher[j];
        k = gallop(k, w.n, [&w, id](uint32_t q) { return w.id[q] < id; });
        SOAGEO_ASSERT(k < w.n && w.id[k] == id);  // the lists are this update's watchers'
        if (k == w.n || w.id[k] != id) continue;
        const float r = l.reach[j];
        const bool narrow = r > 0 && double(r) <= kNarrowBelow * double(w.view[k]);
        // A reach a little wider than needed stays: each change of reach changes the list.
        const float now = w.reach[k];
        const bool keep = narrow && now < w.view[k] && now >= r && double(now) <= kReachSlack * double(r);
        w.reach[k] = keep ? now : narrow ? float(kReachHeadroom * double(r)) : w.view[k];
        w.floor[k] = narrow ? l.len[j] : 0;
        out.changed = out.changed || w.reach[k] != now;
        out.any = out.any || narrow;
        ++k;  // the next list's watcher lies past this one: most often right after it
    }
    return out;
}

size_t interest_scratch_bytes(uint32_t cap) noexcept { return layout_bytes(lay_interest_scratch, cap); }

InterestScratch interest_scratch_carve(void* block, uint32_t cap) noexcept {
    return layout_carve(block, lay_interest_scratch, cap);
}

uint32_t interest_period(const InterestOptions& o, float d2) noexcept {
    if (!(o.band > 0)) return 1;
    const double b = o.band, d = d2;
    // The largest k with (k * b)^2 <= d2, in double: from the square root, then corrected.
    double k = std::floor(std::sqrt(d) / b);
    if (k >= double(o.max_period)) k = double(o.max_period);  // p is capped anyway
    while (k > 0 && (k * b) * (k * b) > d) k -= 1;
    while (k < double(o.max_period) && ((k + 1) * b) * ((k + 1) * b) <= d) k += 1;
    const double p = 1.0 + k;
    const uint32_t cap = o.max_period < kMaxPeriod ? o.max_period : kMaxPeriod;
    return p >= double(cap) ? cap : uint32_t(p);
}

}  // namespace soageo

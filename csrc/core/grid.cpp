#include "grid.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "carve.hpp"
#include "segment.hpp"

// The cache-bypassing stores of the rebuild's scatter, from the wide type's one place.
#if defined(__SSE2__)
#define SOAGEO_WIDE_SSE2
#endif
#define SOAGEO_TARGET grid_wide
#include "wide.hpp"
#undef SOAGEO_TARGET
#undef SOAGEO_WIDE_SSE2

namespace soageo {
namespace {

// Entities per cell the cell size aims at. Measured with 50x50 boxes at the density of 10,000
// in 2000x2000 (bench/bench_index_lua.lua): 2 per cell made 3-4 runs per query, 8 tested twice
// the candidates; 4 was the fastest at 100,000 and 1,000,000 entities.
constexpr double kPerCell = 4.0;

// The cell side from the density an entity sees around it, on a 16x16 histogram of a sample:
// around an entity of coarse cell i it is n * f_i / area, weighted by f_i. Clustered worlds get
// small cells where the entities are; the space between clusters costs nothing (cells are hashed).
double choose_cell(const Store& s) noexcept {
    const uint32_t n = s.n;
    constexpr uint32_t kSample = 1024, kSide = 16;
    const uint32_t step = n > kSample ? n / kSample : 1;
    double minx = HUGE_VAL, miny = HUGE_VAL, maxx = -HUGE_VAL, maxy = -HUGE_VAL;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n && m < kSample; i += step, ++m) {
        minx = std::min(minx, double(s.col.x[i]));
        maxx = std::max(maxx, double(s.col.x[i]));
        miny = std::min(miny, double(s.col.y[i]));
        maxy = std::max(maxy, double(s.col.y[i]));
    }
    if (m == 0) return 1.0;
    double w = maxx - minx, h = maxy - miny;
    double extent = std::max(w, h);
    if (!(extent > 0)) return 1.0;  // every sampled entity at one point: any cell will do
    // A flat world (a line) is given a thickness of one coarse cell of its length.
    w = std::max(w, extent / kSide);
    h = std::max(h, extent / kSide);
    uint32_t hist[kSide * kSide] = {};
    double sx = kSide / w, sy = kSide / h;
    for (uint32_t i = 0, k = 0; i < n && k < m; i += step, ++k) {
        uint32_t cx = std::min(kSide - 1, static_cast<uint32_t>((double(s.col.x[i]) - minx) * sx));
        uint32_t cy = std::min(kSide - 1, static_cast<uint32_t>((double(s.col.y[i]) - miny) * sy));
        ++hist[cy * kSide + cx];
    }
    double sum_f2 = 0;
    for (uint32_t c : hist) sum_f2 += double(c) * double(c);
    sum_f2 /= double(m) * double(m);
    double coarse_area = (w / kSide) * (h / kSide);
    double density = double(n) * sum_f2 / coarse_area;
    double cell = std::sqrt(kPerCell / density);
    // Not so small that the far end of the world leaves the clamped cell range.
    double floor_cell = std::max({std::fabs(minx), std::fabs(maxx), std::fabs(miny), std::fabs(maxy), extent}) * 0x1p-36;
    return std::max(cell, floor_cell);
}

// The x range of the points within `sreach` of an area's segment, row band by row band
// (conservative). Along the segment x is linear in y: one slope per plan instead of divisions
// per row. The rounding of the slope and of the products is below 2^-50 of the segment's
// width, which the pad's 2^-20 of it covers.
struct SegmentRows {
    const Area* a;
    double ylo, yhi, slope, pad;
    bool flat;  // horizontal: every row it reaches sees all of it
};

SegmentRows segment_rows(const Area& a) noexcept {
    const bool flat = a.sy1 == a.sy0;
    const double slope = flat ? 0.0 : (a.sx1 - a.sx0) / (a.sy1 - a.sy0);
    const double pad = a.sreach + std::fabs(a.sx1 - a.sx0) * 0x1p-20;
    return SegmentRows{&a, std::min(a.sy0, a.sy1), std::max(a.sy0, a.sy1), slope, pad, flat};
}

// Narrows [*out0, *out1] to the points within reach of the segment for y in [y0, y1]; leaves
// it empty (out0 > out1) when none is.
inline void segment_xrange(const SegmentRows& s, double y0, double y1, double* out0, double* out1) noexcept {
    const Area& a = *s.a;
    const double lo = std::max(y0 - a.sreach, s.ylo), hi = std::min(y1 + a.sreach, s.yhi);
    if (lo > hi) {
        *out0 = 1;
        *out1 = 0;
        return;
    }
    double xa = a.sx0, xb = a.sx1;
    if (!s.flat) {
        xa = a.sx0 + (lo - a.sy0) * s.slope;
        xb = a.sx0 + (hi - a.sy0) * s.slope;
    }
    *out0 = std::max(*out0, std::min(xa, xb) - s.pad);
    *out1 = std::min(*out1, std::max(xa, xb) + s.pad);
}

// A query's scratch for g.room positions: hits and the bitmap (also a grid's own, in lay_grid).
Grid lay_grid_scratch(Carver& k, Grid g) noexcept {
    g.hits = k.take<uint32_t>(size_t(g.room) + kHitSlack);
    g.bitmap = k.take<uint32_t>((size_t(g.room) + 31) / 32 + 1);
    return g;
}

// Kernels read whole blocks: lanes past the last entity are masked off, but must be initialised
// memory (the ten entity columns are zeroed).
Grid lay_grid(Carver& k, uint32_t cap) noexcept {
    Grid g = grid_sized(cap);
    const size_t c = grid_column_len(g.room);
    k.take_zeroed_each(c, &g.x, &g.y, &g.r, &g.mask, &g.slot);
    k.take_zeroed_each(c, &g.x2, &g.y2, &g.r2, &g.mask2, &g.slot2);
    g.xy = k.take<float>(2 * c);
    g.key = k.take<uint32_t>(c);
    g.loose.start = k.take<uint32_t>(loose_start_len(g.loose.buckets, kGridRuns));
    return lay_grid_scratch(k, g);
}

// The bucket of an entity (B: the big entities' run); widens `reach` for the entities in cells.
inline uint32_t key_of(float x, float y, float r, float fcell, double inv, uint32_t B, float& reach) noexcept {
    if (r > fcell) return B;
    reach = r > reach ? r : reach;
    return row_bucket(B, cell_of(x, inv), cell_of(y, inv));
}

// Entities from which the scatter after moves, which writes nearly in order, uses stores that
// bypass the caches: past a few hundred thousand its output outgrows them, and such stores save
// reading every line before writing it (build/bench_index: the crossover lies at 150,000-250,000
// entities; below, the output stays cached). A full build's writes jump everywhere.
constexpr uint32_t kStreamFrom = 262144;

// Counting sort's second pass (loose_scatter): source position p goes to position q of the
// other half, with its slot (src[p], or p itself). `put` copies one 4-byte value.
template <class Put>
void scatter(Grid& g, const float* sx, const float* sy, const float* sr, const uint32_t* sm, const uint32_t* src,
             uint32_t n, Put put) noexcept {
    // By value: `put` copies bytes, which might alias the grid's own fields.
    float *x2 = g.x2, *y2 = g.y2, *r2 = g.r2;
    uint32_t *mask2 = g.mask2, *slot2 = g.slot2;
    loose_scatter(g.loose, n, kGridRuns, g.key, [=](uint32_t p, uint32_t q) {
        const uint32_t slot = src ? src[p] : p;
        put(x2 + q, sx + p);
        put(y2 + q, sy + p);
        put(r2 + q, sr + p);
        put(mask2 + q, sm + p);
        put(slot2 + q, &slot);
    });
}

// The points within `radius` of the segment from (x0, y0) by (dx, dy), narrowed row by row;
// sreach: the radius plus what box_area added (reach and rounding).
Area swept_area(float x0, float y0, float dx, float dy, double radius, double reach) noexcept {
    double x1 = double(x0) + dx, y1 = double(y0) + dy;
    Area a = box_area(std::min(double(x0), x1) - radius, std::min(double(y0), y1) - radius,
                      std::max(double(x0), x1) + radius, std::max(double(y0), y1) + radius, reach);
    double pad = std::max(a.maxx - std::max(double(x0), x1), a.maxy - std::max(double(y0), y1));
    return Area{a.minx, a.miny, a.maxx, a.maxy, true, x0, y0, x1, y1, pad};
}

struct Nearer {  // (d2, id) order over slots
    const Store* s;
    float cx, cy;
    float d2(uint32_t slot) const noexcept {
        float dx = s->col.x[slot] - cx, dy = s->col.y[slot] - cy;
        return dx * dx + dy * dy;
    }
    bool operator()(uint32_t a, uint32_t b) const noexcept {
        float da = d2(a), db = d2(b);
        return da < db || (da == db && s->col.id[a] < s->col.id[b]);
    }
};

// Puts slot v into the max-heap heap[0, h) of the k nearest so far, in place of its farthest
// when it holds k already (the caller knows v is nearer).
void keep_nearer(uint32_t* heap, uint32_t& h, uint32_t k, uint32_t v, const Nearer& less) noexcept {
    if (h == k)
        std::pop_heap(heap, heap + h, less);  // the farthest to heap[h - 1], where v goes
    else
        ++h;
    heap[h - 1] = v;
    std::push_heap(heap, heap + h, less);
}

// Keeps the k nearest of cand[0..m) in a max-heap built in place over the array's prefix (an
// entry is read before its position can be written), then sorts them nearest first.
uint32_t select_nearest(const Store& s, float cx, float cy, uint32_t* cand, uint32_t m, uint32_t k) noexcept {
    Nearer less{&s, cx, cy};
    uint32_t h = 0;
    for (uint32_t i = 0; i < m; ++i)
        if (h < k || less(cand[i], cand[0])) keep_nearer(cand, h, k, cand[i], less);
    std::sort_heap(cand, cand + h, less);
    return h;
}

}  // namespace

size_t grid_bytes(uint32_t cap) noexcept { return layout_bytes(lay_grid, cap); }

Grid grid_sized(uint32_t cap) noexcept {
    Grid g{};
    g.cap = cap;
    g.room = cap + kGridSpare;
    g.loose.buckets = loose_buckets_for(cap);
    g.cell = 1.0f;
    g.loose.inv_cell = g.loose.inv_cell_x = 1.0;
    return g;
}

Grid grid_carve(void* block, uint32_t cap) noexcept { return layout_carve(block, lay_grid, cap); }

size_t grid_scratch_bytes(uint32_t room) noexcept {
    Grid g{};
    g.room = room;
    return layout_bytes(lay_grid_scratch, g);
}

void grid_scratch_carve(void* block, Grid& g) noexcept { g = layout_carve(block, lay_grid_scratch, g); }

void grid_fill(Grid& g, const Store& s, bool gathered) noexcept {
    // Source positions: the store's slots, or the grid's cell order (dead ones included).
    const uint32_t n = gathered ? g.loose.n : s.n;
    double cell = choose_cell(s);
    // After moves the density barely changes: keeping the last cell side keeps every entity
    // that did not cross a cell border in its bucket (a new side, even 1% off, shifts the far
    // cells' borders by whole cells and sends most entities elsewhere).
    if (gathered && cell > 0.8 / g.loose.inv_cell && cell < 1.25 / g.loose.inv_cell) cell = 1.0 / g.loose.inv_cell;
    const double inv = 1.0 / cell;
    const float fcell = static_cast<float>(cell);
    const uint32_t B = g.loose.buckets;
    float reach = 0.0f;
    const float* sx = gathered ? g.x : s.col.x;
    const float* sy = gathered ? g.y : s.col.y;
    const float* sr = gathered ? g.r : s.col.r;
    const uint32_t* sm = gathered ? g.mask : s.col.mask;
    const uint32_t* src = gathered ? g.slot : nullptr;  // slot of each source position (null: the position itself)
    // Bucket B + 1 (after the big entities) takes the dead positions: the scatter puts them
    // past the end.
    loose_count(g.loose, n, kGridRuns, g.key, [&](uint32_t p) {
        return src && src[p] == kDeadSlot ? B + 1 : key_of(sx[p], sy[p], sr[p], fcell, inv, B, reach);
    });
    if (src && n >= kStreamFrom)
        scatter(g, sx, sy, sr, sm, src, n, [](void* to, const void* from) {
            uint32_t v;
            std::memcpy(&v, from, 4);
            grid_wide::stream_u32(static_cast<uint32_t*>(to), v);
        });
    else
        scatter(g, sx, sy, sr, sm, src, n, [](void* to, const void* from) { std::memcpy(to, from, 4); });
    grid_wide::stream_fence();
    std::swap(g.x, g.x2);
    std::swap(g.y, g.y2);
    std::swap(g.r, g.r2);
    std::swap(g.mask, g.mask2);
    std::swap(g.slot, g.slot2);
    g.cell = fcell;
    g.loose.inv_cell = g.loose.inv_cell_x = inv;
    g.loose.drift_limit = kLooseDrift * double(fcell);  // the unit: a cell
    g.reach = reach;
    g.built = true;
    grid_validate(g.loose, kGridRuns, [&](uint32_t p, float& x, float& y) { return x = g.x[p], y = g.y[p], true; });
}

void grid_plan(const Grid& g, const Area& area, Plan& p) noexcept {
    Area a = area;
    if (g.loose.drift > 0) {
        // A loose grid files an entity under a position up to `drift` away per axis; the
        // segment's rows are narrowed by per-axis distance, which needs the same `drift` (1.5x
        // of it is margin).
        a.minx -= g.loose.drift;
        a.miny -= g.loose.drift;
        a.maxx += g.loose.drift;
        a.maxy += g.loose.drift;
        a.sreach += g.loose.drift * 1.5;
    }
    p.n = 0;
    p.candidates = 0;
    // Past 2^64 float32 squares overflow: the kernels then compare infinities, and a touch
    // test whose reach squared is infinite accepts entities at any distance, outside any area.
    // Only the scan gives the kernels' answer there (and an area this wide is no small query).
    p.ok = a.maxx - a.minx < kHugeArea && a.maxy - a.miny < kHugeArea;
    if (!p.ok) return;
    Run tmp[kMaxRuns + 2];
    uint32_t row_b0[kMaxRuns / 2 + 1];
    uint64_t row_b1[kMaxRuns / 2 + 1];
    uint32_t m = 0, rows = 0;
    const uint32_t B = g.loose.buckets;
    const double inv = g.loose.inv_cell;
    if (g.loose.n_cells > 0) {
        const int64_t cy0 = cell_of(a.miny, inv), cy1 = cell_of(a.maxy, inv);
        p.ok = cy1 - cy0 < int64_t(kMaxRuns / 2);
        if (!p.ok) return;
        const int64_t cx0a = cell_of(a.minx, inv), cx1a = cell_of(a.maxx, inv);
        const double cell = 1.0 / inv, band_pad = cell * 0x1p-10;
        // One row needs no narrowing: its x range is the area's.
        const bool narrow = a.narrow && cy1 > cy0;
        const SegmentRows seg = narrow ? segment_rows(a) : SegmentRows{};
        for (int64_t cy = cy0; cy <= cy1; ++cy) {
            int64_t cx0 = cx0a, cx1 = cx1a;
            if (narrow && cy > -kCellClamp + 1 && cy < kCellClamp - 1) {
                double y0 = std::max(a.miny, double(cy) * cell - band_pad);
                double y1 = std::min(a.maxy, double(cy + 1) * cell + band_pad);
                double x0 = a.minx, x1 = a.maxx;
                segment_xrange(seg, y0, y1, &x0, &x1);
                if (!(x0 <= x1)) continue;
                cx0 = std::max(cx0a, cell_of(x0, inv));
                cx1 = std::min(cx1a, cell_of(x1, inv));
                if (cx0 > cx1) continue;
            }
            uint64_t cols = uint64_t(cx1 - cx0) + 1;
            if (cols >= B) {  // the row wraps the whole table: every cell entity
                m = 0;
                rows = 0;
                tmp[m++] = {0, g.loose.n_cells};
                break;
            }
            uint32_t b0 = row_bucket(B, cx0, cy);
            row_b0[rows] = b0;
            row_b1[rows++] = uint64_t(b0) + cols;
            __builtin_prefetch(g.loose.start + b0);
            __builtin_prefetch(g.loose.start + std::min<uint64_t>(uint64_t(b0) + cols, B));
        }
        // The bucket starts are read once all of them are asked for (they miss in large layers).
        for (uint32_t i = 0; i < rows; ++i)
            loose_runs(g.loose, row_b0[i], row_b1[i], [&](uint32_t first, uint32_t last) { return tmp[m++] = {first, last}, true; });
    }
    if (g.loose.n > g.loose.n_cells) tmp[m++] = {g.loose.n_cells, g.loose.n};
    // In order of position, overlapping or touching runs merged: no position twice.
    for (uint32_t i = 1; i < m; ++i) {
        Run v = tmp[i];
        uint32_t j = i;
        for (; j > 0 && tmp[j - 1].begin > v.begin; --j) tmp[j] = tmp[j - 1];
        tmp[j] = v;
    }
    for (uint32_t i = 0; i < m; ++i) {
        if (tmp[i].begin >= tmp[i].end) continue;
        if (p.n > 0 && tmp[i].begin <= p.run[p.n - 1].end)
            p.run[p.n - 1].end = std::max(p.run[p.n - 1].end, tmp[i].end);
        else
            p.run[p.n++] = tmp[i];
    }
    for (uint32_t i = 0; i < p.n; ++i) p.candidates += p.run[i].end - p.run[i].begin;
}

void grid_prefetch(const Grid& g, const Plan& p) noexcept {
    // Beyond a few lines per run the hardware prefetcher follows the run by itself.
    constexpr uint32_t kLines = 4, kPerLine = 16;
    for (uint32_t i = 0; i < p.n; ++i) {
        const uint32_t end = std::min(p.run[i].end, (p.run[i].begin & ~(kPerLine - 1)) + kLines * kPerLine);
        for (uint32_t q = p.run[i].begin & ~(kPerLine - 1); q < end; q += kPerLine) {
            __builtin_prefetch(g.x + q);
            __builtin_prefetch(g.y + q);
            __builtin_prefetch(g.r + q);
            __builtin_prefetch(g.slot + q);
        }
    }
}

// A run costs a kernel call and a partial block or two; a candidate costs about what the scan
// pays per entity, plus its share of ordering the hits.
double plan_cost(const Plan& p) noexcept { return 40.0 * p.n + 1.5 * double(p.candidates) + 30.0; }

uint32_t sort_slots(uint32_t* slots, uint32_t k, uint32_t n, uint32_t* bitmap) noexcept {
    if (k <= 1) return k;
    if (k >= 64 && k >= n / 32) {  // many hits: one bit per slot, read back in order
        const uint32_t words = (n + 31) / 32;
        std::memset(bitmap, 0, size_t(words) * 4);
        for (uint32_t i = 0; i < k; ++i) bitmap[slots[i] >> 5] |= 1u << (slots[i] & 31);
        uint32_t w = 0;
        for (uint32_t i = 0; i < words; ++i)
            for (uint32_t b = bitmap[i]; b; b &= b - 1) slots[w++] = (i << 5) | uint32_t(__builtin_ctz(b));
        return w;
    }
    if (k <= 32) {
        for (uint32_t i = 1; i < k; ++i) {
            uint32_t v = slots[i], j = i;
            for (; j > 0 && slots[j - 1] > v; --j) slots[j] = slots[j - 1];
            slots[j] = v;
        }
    } else {
        std::sort(slots, slots + k);
    }
    uint32_t w = 1;
    for (uint32_t i = 1; i < k; ++i)
        if (slots[i] != slots[w - 1]) slots[w++] = slots[i];
    return w;
}

// The absolute part of the pad: a float32 square of a difference below about 2^-75 underflows
// to 0, so the kernels' exact tests take an entity that near as touching even a query of
// radius 0, and the index must meet it too (rect.cpp's padded_box pads the same way).
Area box_area(double minx, double miny, double maxx, double maxy, double reach) noexcept {
    double mag = std::max({std::fabs(minx), std::fabs(maxx), std::fabs(miny), std::fabs(maxy), maxx - minx, maxy - miny});
    double pad = (mag + reach) * 0x1p-16 + 0x1p-60 + reach;
    return Area{minx - pad, miny - pad, maxx + pad, maxy + pad, false, 0, 0, 0, 0, 0};
}

Area area_of(const Circle& c, double reach) noexcept {
    return box_area(double(c.cx) - c.radius, double(c.cy) - c.radius, double(c.cx) + c.radius, double(c.cy) + c.radius, reach);
}

Area area_of(const Box& b, double reach) noexcept { return box_area(b.minx, b.miny, b.maxx, b.maxy, reach); }

Area area_of(const Sector& s, double reach) noexcept {
    double r = s.radius;
    if (s.wedge != Wedge::convex)
        return box_area(double(s.cx) - r, double(s.cy) - r, double(s.cx) + r, double(s.cy) + r, reach);
    // A convex wedge: the apex, both edge ends, and each axis extreme the wedge contains.
    double minx = s.cx, maxx = s.cx, miny = s.cy, maxy = s.cy;
    auto add = [&](double ux, double uy) {
        minx = std::min(minx, s.cx + r * ux);
        maxx = std::max(maxx, s.cx + r * ux);
        miny = std::min(miny, s.cy + r * uy);
        maxy = std::max(maxy, s.cy + r * uy);
    };
    add(s.lx, s.ly);
    add(s.rx, s.ry);
    // An axis direction u lies in the convex wedge when it is left of the right edge and right
    // of the left one.
    constexpr double kAxes[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    for (const auto& u : kAxes) {
        const bool left_of_right = double(s.rx) * u[1] - double(s.ry) * u[0] >= 0;
        const bool right_of_left = double(s.lx) * u[1] - double(s.ly) * u[0] <= 0;
        if (left_of_right && right_of_left) add(u[0], u[1]);
    }
    // The edge vectors are float32 roundings of unit vectors: pad by a little of the radius.
    double slack = r * 0x1p-12;
    return box_area(minx - slack, miny - slack, maxx + slack, maxy + slack, reach);
}

Area area_of(const Capsule& c, double reach) noexcept { return swept_area(c.x0, c.y0, c.dx, c.dy, c.radius, reach); }

Area area_of(const Triangle& t, double reach) noexcept {
    return box_area(std::min({t.ax, t.bx, t.cx}), std::min({t.ay, t.by, t.cy}), std::max({t.ax, t.bx, t.cx}),
                    std::max({t.ay, t.by, t.cy}), reach);
}

Area area_of(const Segment& s, double reach) noexcept { return swept_area(s.x0, s.y0, s.dx, s.dy, 0.0, reach); }

// The skill shapes' bounds (rect.cpp) are already padded for their kernels' float32 steps and
// for `reach`, with an absolute margin for squared distances that underflow.
Area area_of(const Rect& r, double reach) noexcept { return area_of(rect_bounds(r, static_cast<float>(reach)), 0.0); }

Area area_of(const Ring& r, double reach) noexcept { return area_of(ring_bounds(r, static_cast<float>(reach)), 0.0); }

Area area_of(const Polygon& p, double reach) noexcept {
    return area_of(polygon_bounds(p, static_cast<float>(reach)), 0.0);
}

uint32_t scan_nearest(const Store& s, float cx, float cy, uint32_t k, bool has_max, float max_r, Filter f,
                      uint32_t* out) noexcept {
    if (k == 0) return 0;
    const float lim = max_r * max_r;
    Nearer less{&s, cx, cy};
    uint32_t h = 0;
    float worst = 0;
    int64_t worst_id = 0;
    for (uint32_t i = 0; i < s.n; ++i) {
        if (f.on && !(s.col.mask[i] & f.bits)) continue;
        const float d2 = less.d2(i);
        if (has_max && !(d2 < lim)) continue;
        if (h == k && (d2 > worst || (d2 == worst && s.col.id[i] > worst_id))) continue;
        keep_nearer(out, h, k, i, less);
        worst = less.d2(out[0]);
        worst_id = s.col.id[out[0]];
    }
    std::sort_heap(out, out + h, less);
    return h;
}

uint32_t grid_nearest(const Grid& g, const Store& s, const KernelTable& kt, float cx, float cy, uint32_t k,
                      bool has_max, float max_r, Filter f, bool* scanned) noexcept {
    if (scanned) *scanned = false;
    if (k == 0 || g.loose.n == 0) return 0;
    // A first radius that holds about 1.5 k + 1 entities at the density the cells were sized
    // for (kPerCell per cell): a second, wider search is then rare, and few extra are sorted.
    double R = double(g.cell) * std::sqrt((1.5 * double(k) + 1.0) / (kPerCell * M_PI));
    for (;;) {
        float Rf = static_cast<float>(R);
        const bool last = has_max && !(Rf < max_r);
        if (last) Rf = max_r;
        Circle c{cx, cy, Rf};
        Plan p;
        grid_plan(g, area_of(c, 0.0), p);
        if (!p.ok || (!last && p.candidates >= g.loose.n)) break;  // the circle reaches everything: scan
        uint32_t m = grid_collect(g, p, [&](const Points& pts, uint32_t* out) { return kt.in_circle(pts, c, f, out); });
        if (m >= k || last) return select_nearest(s, cx, cy, g.hits, m, k);
        // Grow with the shortfall: the area needed scales with k over what was found.
        double grow = m ? std::sqrt(double(k) / double(m)) * 1.25 : 2.0;
        R *= std::min(std::max(grow, 1.5), 8.0);
        if (!std::isfinite(static_cast<float>(R))) break;
    }
    if (scanned) *scanned = true;
    return scan_nearest(s, cx, cy, k, has_max, max_r, f, g.hits);
}

bool grid_cast_first(const Grid& g, const Store& s, const KernelTable& kt, const Segment& seg, Filter f,
                     uint32_t* slot, float* t, bool* scanned) noexcept {
    if (scanned) *scanned = false;
    const double x0 = seg.x0, y0 = seg.y0, x1 = double(seg.x0) + seg.dx, y1 = double(seg.y0) + seg.dy;
    const double len = std::sqrt(double(seg.dx) * seg.dx + double(seg.dy) * seg.dy);
    // Pieces start two cells long and double: a hit near the start costs a few cells, a long
    // miss a logarithmic number of plans.
    double step = len > 0 ? 2.0 * g.cell / len : 1.0;
    double t0 = 0;
    bool found = false;  // the best hit so far in *slot and *t
    // Entry parameters are float32: a hit counts as "before the end of the pieces" with margin.
    const double t_slack = 0x1p-16;
    while (t0 < 1.0) {
        double t1 = step >= 1.0 ? 1.0 : std::min(1.0, t0 + step);
        double ax = x0 + (x1 - x0) * t0, ay = y0 + (y1 - y0) * t0;
        double bx = x0 + (x1 - x0) * t1, by = y0 + (y1 - y0) * t1;
        Area a = box_area(std::min(ax, bx), std::min(ay, by), std::max(ax, bx), std::max(ay, by), g.reach);
        double widen = len * t_slack * 2;
        a.minx -= widen;
        a.miny -= widen;
        a.maxx += widen;
        a.maxy += widen;
        Plan p;
        grid_plan(g, a, p);
        if (!p.ok) {  // a piece too long to list: scan everything once
            if (scanned) *scanned = true;
            uint32_t m = kt.cast_segment(points_of(s), seg, f, g.hits);
            return first_segment_hit(s.col, seg, g.hits, m, slot, t);
        }
        uint32_t m = grid_collect(g, p, [&](const Points& pts, uint32_t* out) { return kt.cast_segment(pts, seg, f, out); });
        uint32_t b;
        float bt;
        if (first_segment_hit(s.col, seg, g.hits, m, &b, &bt) &&
            (!found || bt < *t || (bt == *t && s.col.id[b] < s.col.id[*slot]))) {
            found = true;
            *slot = b;
            *t = bt;
        }
        if (found && double(*t) + t_slack <= t1) break;
        t0 = t1;  // 1 after the last piece
        step *= 2;
    }
    return found;
}

}  // namespace soageo

// The kernels' contract: plain spans of float32 columns in, slot numbers out. No Lua, no
// allocation, no exceptions. Every target fills one KernelTable; dispatch picks one.
#pragma once

#include <cstddef>
#include <cstdint>

namespace soageo {

// Columns of a layer. Each array holds at least n rounded up to kMaxWidth elements, 64-byte
// aligned, so a kernel reads whole blocks and never needs a scalar remainder loop.
struct Points {
    const float* x;
    const float* y;
    const float* r;
    const uint32_t* mask;
    uint32_t n;
};

constexpr int kMaxWidth = 16;   // lanes of the widest target (AVX-512)
constexpr int kAlign = 64;      // bytes

// A float32's IEEE bits, and back.
inline uint32_t float_bits(float f) noexcept {
    uint32_t b;
    __builtin_memcpy(&b, &f, 4);
    return b;
}
inline float bits_float(uint32_t b) noexcept {
    float f;
    __builtin_memcpy(&f, &b, 4);
    return f;
}

// An entity passes the filter when (entity mask & bits) != 0; `on` false means no filter.
struct Filter {
    uint32_t bits;
    bool on;
};

enum class Wedge : uint8_t { convex, reflex, full };

// A sector ready for the kernels: apex, radius, and the unit vectors of its two edges (left is
// the direction turned by +half_angle, right by -half_angle), rounded to float32 once.
struct Sector {
    float cx, cy, radius;
    float lx, ly, rx, ry;
    Wedge wedge;
};

// Builds the kernel form in double from the caller's numbers. `dx, dy` must be non-zero and
// finite, half_angle in (0, pi]. See sector.cpp for the exact rounding rules.
Sector make_sector(double x, double y, double dx, double dy, double radius, double half_angle) noexcept;

// The other shapes, in float32 (the binding rounds the caller's numbers once).
struct Circle {
    float cx, cy, radius;
};

struct Box {  // min <= max on both axes
    float minx, miny, maxx, maxy;
};

// The segment from (x0, y0) to (x0 + dx, y0 + dy), dx and dy being float32 differences;
// len2 = dx*dx + dy*dy in float32, > 0 (a zero-length capsule is queried as a circle).
struct Capsule {
    float x0, y0, dx, dy, len2, radius;
};

// The shape builders: the one place a query's numbers become a kernel's shape. A capsule whose
// ends coincide has len2 = 0 and is queried as its end disk (run_kernel, shape_run.hpp).
inline Circle make_circle(float x, float y, float radius) noexcept { return {x, y, radius}; }
inline Box make_box(float minx, float miny, float maxx, float maxy) noexcept { return {minx, miny, maxx, maxy}; }
inline Capsule make_capsule(float x0, float y0, float x1, float y1, float radius) noexcept {
    Capsule c{x0, y0, x1 - x0, y1 - y0, 0.0f, radius};
    c.len2 = c.dx * c.dx + c.dy * c.dy;
    return c;
}
inline Circle end_disk(const Capsule& c) noexcept { return {c.x0, c.y0, c.radius}; }

// A segment (dx, dy) as the touch tests' distance reads it: t = (a . d) / len2, clamped to
// [0, 1], then the nearest point a - t * d. Past a length of about 1.8e19 len2 overflows in
// float32 and t would be finite / inf = 0 (the segment's start): such a segment's t is computed
// from a and d both scaled by 2^-65 (a power of two; the products then stay finite for any
// finite a), which leaves t as it is. Any other keeps scale 1: bit for bit what the tests
// computed before.
struct ScaledEdge {
    float sx, sy, len2, scale;  // d * scale, and its len2
};
inline ScaledEdge scaled_edge(float dx, float dy) noexcept {
    const float len2 = dx * dx + dy * dy;
    if (len2 <= 0x1.fffffep127f) return {dx, dy, len2, 1.0f};
    const float sx = dx * 0x1p-65f, sy = dy * 0x1p-65f;  // finite differences: sx^2 + sy^2 < 2^127
    return {sx, sy, sx * sx + sy * sy, 0x1p-65f};
}

struct Triangle {
    float ax, ay, bx, by, cx, cy;
};

// A segment cast: entity boxes [x - r, x + r] x [y - r, y + r] hit by (x0, y0) + t (dx, dy),
// t in [0, 1]; dx or dy may be 0.
struct Segment {
    float x0, y0, dx, dy;
};

// An oriented rectangle: from (ax, ay), `length` along the unit direction (ux, uy) and
// `half_width` to each side of it. A point is in it when, in float32 with p = P - A,
// along = p.x*ux + p.y*uy and across = p.y*ux - p.x*uy (each product rounded, then the sum),
// 0 <= along <= length and -half_width <= across <= half_width.
struct Rect {
    float ax, ay, ux, uy, length, half_width;
};

// The kernel form: (dx, dy) non-zero and finite, normalised in double as make_sector does.
Rect make_rect(double x, double y, double dx, double dy, double length, double half_width) noexcept;

// An annulus: in_ring keeps inner^2 <= d2 < outer^2 (d2 as in_circle computes it).
struct Ring {
    float cx, cy, inner, outer;  // 0 <= inner <= outer
};
inline Ring make_ring(float x, float y, float inner, float outer) noexcept { return {x, y, inner, outer}; }

// A convex polygon with positive area, counter-clockwise, no repeated consecutive vertex;
// collinear vertices allowed. Edge k runs from vertex k to vertex k + 1 (mod n); its float32
// differences (ex, ey), and scaled_edge of them, are what the kernels use.
constexpr uint32_t kMaxPolygon = 64;
struct Polygon {
    uint32_t n;
    float x[kMaxPolygon], y[kMaxPolygon];
    float ex[kMaxPolygon], ey[kMaxPolygon];
    ScaledEdge edge[kMaxPolygon];  // (ex, ey) as the touch distance reads it
    bool scaled;                   // some edge's scale is not 1
};

enum class PolygonError : uint8_t {
    ok,
    count,         // fewer than 3 or more than kMaxPolygon vertices
    too_few,       // fewer than 3 distinct vertices once repeated consecutive ones are dropped
    reflex,        // a turn against the polygon's winding
    turns_back,    // a 180-degree turn: three collinear vertices going back (zero-area spike)
    winds_twice,   // every turn the same way, but it winds around more than once (a star)
};

// Validates n finite float32 vertices (either winding) exactly, and on success fills `out`.
// On failure `*vertex` is the 0-based index, in the caller's list, of the offending vertex.
PolygonError make_polygon(const float* xs, const float* ys, uint32_t n, Polygon& out, uint32_t* vertex) noexcept;

// Bounds of what a query can find, for routing through a spatial index: every entity of
// radius <= reach that the shape's in_ (reach 0) or touch_ kernel accepts has its centre in the
// box. The box is padded for the kernels' float32 rounding.
Box rect_bounds(const Rect& r, float reach) noexcept;
Box ring_bounds(const Ring& r, float reach) noexcept;
Box polygon_bounds(const Polygon& p, float reach) noexcept;

// Exact predicates, compiled once (orient.cpp) and shared by every target's fallback path.
// Sign of the orientation of (a, b, p), exactly, for any finite float32 inputs.
int orient_exact(float ax, float ay, float bx, float by, float px, float py) noexcept;
// Point in the closed triangle, exactly; a degenerate triangle holds its segment hull.
bool in_triangle_exact(const Triangle& t, float px, float py) noexcept;
// Point in the closed convex polygon, exactly.
bool in_polygon_exact(const Polygon& p, float px, float py) noexcept;
// Entry parameter of a hit found by cast_segment (the same float32 steps as the kernels).
float segment_entry(const Segment& s, float x, float y, float r) noexcept;

struct SweepBoxes;  // sweep.hpp

// One AOI watcher against windows of entities in the AOI's bucket order (aoi.cpp). mark has
// one entry per position: `open` where the watcher saw the entity at the last update, `kept`
// once met in this update (so a position is taken once even when windows overlap). All the
// windows of a watcher's cover go in one call: a call per window cost about as much as a block.
struct AoiWindow {
    const float* x;   // by position, aligned and padded
    const float* y;
    uint32_t* mark;   // the same indexing as x and y
    // n_runs windows [runs[2j], runs[2j + 1]) of positions, each first a multiple of kMaxWidth.
    const uint32_t* runs;
    uint32_t n_runs;
    float cx, cy, view, reach;
    uint32_t open, kept;
    // The watcher's filter: an entity counts only when (m[i] & filter) != 0. m is indexed as x
    // (masks in bucket order); null when nothing can fail the filter, so the scan skips it.
    const uint32_t* m = nullptr;
    uint32_t filter = 0;
    // aoi_scan_mover with no margin only: when given, what the watcher saw at the last update is
    // not marked `open` but recomputed from where everything was then (ox, oy; om: the masks
    // then, read as m is), and its leaves go to AoiMeet::leaves.
    const float* ox = nullptr;
    const float* oy = nullptr;
    const uint32_t* om = nullptr;
};

// What the scans of one watcher found: positions it sees now and positions that entered, with
// how many marked `open` were met within reach. A scan may write whole blocks past the counts.
struct AoiMeet {
    uint32_t* visible;
    uint32_t* enters;
    uint32_t n_visible, n_enter, met;
    uint32_t* leaves = nullptr;  // AoiWindow::ox given: positions seen then and not now
    uint32_t n_leave = 0;
};

// One entity that changed (moved, or changed its mask) against windows of still watchers, for
// the AOI's incremental update: a position is reported where it entered the watcher's view or
// left its reach (each side filtered by watcher_mask; the caller decides from there). Squares
// (-1: no watcher) and distances (target minus watcher) are as aoi_scan computes them.
struct AoiMoverWindow {
    const float* x;   // by position, aligned and padded
    const float* y;
    const float* view_squared;
    const float* reach_squared;  // view_squared itself when no reach has a margin: one compare
    const uint32_t* watcher_mask;
    const uint32_t* runs;  // as AoiWindow::runs
    uint32_t n_runs;
    float ox, oy, nx, ny;  // the entity at the last update and now
    uint32_t omask, nmask;
};

// The AOI incremental update's first pass (aoi_incremental.cpp): which slots of [first, last)
// changed since the copy the scratch keeps (x or y not equal as floats, so -0 and +0 are the
// same; or another mask), and whether some mask there is 0. first is a multiple of kMaxWidth;
// the columns and the copy are aligned and padded.
struct AoiChanges {
    const float* x;
    const float* y;
    const uint32_t* m;
    const float* slot_x;
    const float* slot_y;
    const uint32_t* slot_mask;
    uint32_t first, last;
};

// The incremental contacts' search (contacts.cpp): runs of a grid's boxes, stored as columns
// min x, -max x, min y, -max y, against one box given as (max x, -min x, max y, -min y): a
// position is reported when its box overlaps that one, touching counting (the maxima negated,
// so that the four tests are all <=). Each run is read up to its end rounded up to W lanes.
struct ContactSearch {
    const float* minx;
    const float* neg_maxx;
    const float* miny;
    const float* neg_maxy;
    const uint32_t* runs;  // n_runs runs [runs[2k], runs[2k + 1]) of positions
    uint32_t n_runs;
    float maxx, neg_minx, maxy, neg_miny;
};

// The incremental contacts' change detection (contacts.cpp): the slots of [first, last) whose
// x, y or r differ, as bits, from the copy kept at the last update, and whether an id does
// (ids as pairs of 32-bit halves). first is a multiple of kMaxWidth; every column is aligned
// and padded.
struct ContactChanges {
    const uint32_t* x;
    const uint32_t* y;
    const uint32_t* r;
    const uint32_t* id;
    const uint32_t* kept_x;
    const uint32_t* kept_y;
    const uint32_t* kept_r;
    const uint32_t* kept_id;
    uint32_t first, last;
};

// The schedule of one interest-managed watcher's new list (interest.cpp, the pair arrays of
// interest.hpp), pair by pair: its period p is 1 + the count of `limit` at or below its d2 (NaN
// past the last threshold); a pair listed before (since != 0) whose period changes has its
// deadline brought to at most its last listing (deadline - since) + p; it is due when deadline -
// tick <= 0 as an int32 (a deadline is the low 32 bits of an update's number); a due pair listed
// before is listed again (deadline tick + p, since p), one never listed is left to the caller.
// The schedule is read from the *_in arrays (the same as the written ones, or a list kept whole).
// With a single first listing (the usual case), of period p, it also counts for it, after the
// update, the pairs of period p (`same`) and, for each offset s in [1, min(p, n + 1)], those
// listed before whose deadline is tick + s (`at_offset[s - 1]`): where the first listing goes.
// Reads and writes whole blocks: the arrays hold n + kMaxWidth, and the entries past n get
// garbage (a watcher's list is followed by the next one's, written after it).
constexpr int kScheduleLimits = 8;
struct ScheduleLanes {
    const float* d2;
    const uint32_t* deadline_in;
    const uint32_t* period_in;
    const uint32_t* since_in;
    uint32_t* deadline;
    uint32_t* period;
    uint32_t* since;
    const float* limit;  // kScheduleLimits thresholds, ascending
    uint32_t n, tick;
    uint32_t* due;       // out: the due pairs' indices, ascending (room for n + kMaxWidth)
    uint32_t* first;     // out: those of them never listed (the same room)
    uint32_t n_due, n_first;
    uint32_t same;       // out, with n_first == 1
    uint32_t at_offset[kScheduleLimits + 1];
};

// The cap's selection in lanes (the interest pass's usual case: the key is the d2 itself): each
// of m candidates is chosen when fewer than n others have a smaller d2, counted against all m at
// once (m compares a block: m is a capped watcher's few candidates, at most kSelectLanesMost).
// Without a tie across the boundary the chosen are the n smallest; with one (a group of equal
// d2 that only partly fits) more are chosen, and the caller settles the tie its own way.
// `d2` holds m values, not negative and not NaN, and is read in whole blocks past m; `order`
// gets the chosen indices, ascending, and whole blocks past them (room for m + kMaxWidth).
// `below` is a guess of the boundary (0: none): when exactly n candidates have a d2 below it,
// they are the n smallest with no tie across it, found in one pass; the outputs are the same
// either way.
constexpr uint32_t kSelectLanesMost = 64;
struct SelectLanes {
    const float* d2;
    uint32_t m, n;    // n < m
    float below;      // the guess: not negative (+inf allowed); 0 or NaN: none
    uint32_t* order;
    uint32_t chosen;  // out: how many are in order (n unless a tie straddles the boundary)
    float edge;       // out: the largest chosen d2
    float next;       // out: the smallest d2 not chosen
};

// Kernels write slot numbers to `out`, which must hold padded(n) entries: a kernel may store a
// whole block of lanes past its last hit (never past the padded end).
struct KernelTable {
    const char* name;
    // Centre strictly inside the sector (boundary outside, apex outside unless full disk).
    uint32_t (*in_sector)(const Points&, const Sector&, Filter, uint32_t* out) noexcept;
    // Entity disk (centre, r) intersects the closed sector.
    uint32_t (*touch_sector)(const Points&, const Sector&, Filter, uint32_t* out) noexcept;
    uint32_t (*in_circle)(const Points&, const Circle&, Filter, uint32_t* out) noexcept;      // strict
    uint32_t (*touch_circle)(const Points&, const Circle&, Filter, uint32_t* out) noexcept;   // closed
    uint32_t (*in_box)(const Points&, const Box&, Filter, uint32_t* out) noexcept;            // closed
    uint32_t (*touch_box)(const Points&, const Box&, Filter, uint32_t* out) noexcept;         // closed
    uint32_t (*touch_capsule)(const Points&, const Capsule&, Filter, uint32_t* out) noexcept; // closed
    uint32_t (*in_triangle)(const Points&, const Triangle&, Filter, uint32_t* out) noexcept;  // closed, exact
    uint32_t (*touch_triangle)(const Points&, const Triangle&, Filter, uint32_t* out) noexcept;
    uint32_t (*in_rect)(const Points&, const Rect&, Filter, uint32_t* out) noexcept;          // closed
    uint32_t (*touch_rect)(const Points&, const Rect&, Filter, uint32_t* out) noexcept;       // closed
    uint32_t (*in_ring)(const Points&, const Ring&, Filter, uint32_t* out) noexcept;          // inner closed, outer open
    uint32_t (*touch_ring)(const Points&, const Ring&, Filter, uint32_t* out) noexcept;       // closed
    uint32_t (*in_polygon)(const Points&, const Polygon&, Filter, uint32_t* out) noexcept;    // closed, exact
    uint32_t (*touch_polygon)(const Points&, const Polygon&, Filter, uint32_t* out) noexcept;
    uint32_t (*cast_segment)(const Points&, const Segment&, Filter, uint32_t* out) noexcept;  // touching counts
    // Sweeps over boxes sorted by min-x (sweep.hpp): positions of overlapping pairs; at most
    // `cap` written, the total returned.
    uint64_t (*sweep_complete)(const SweepBoxes&, uint32_t* out_a, uint32_t* out_b, uint64_t cap) noexcept;
    uint64_t (*sweep_between)(const SweepBoxes&, const SweepBoxes&, uint32_t* out_a, uint32_t* out_b, uint64_t cap) noexcept;
    // Within reach: d^2 < reach^2; within view: d^2 < view^2 (float32, as in_circle).
    void (*aoi_scan)(const AoiWindow&, AoiMeet&) noexcept;
    // aoi_scan writing each visible position's float32 d2 as well, at d2 + the same index
    // (whole blocks written past the count, as for AoiMeet::visible), for the interest pass.
    // AoiMeet::enters may be null: no enters kept, nor `met` counted (a list not marked).
    void (*aoi_scan_d2)(const AoiWindow&, AoiMeet&, float* d2) noexcept;
    // Positions of the windows where the mover may cause an event, window after window; out
    // holds their total length plus kMaxWidth.
    uint32_t (*aoi_mover)(const AoiMoverWindow&, uint32_t* out) noexcept;
    // aoi_scan and aoi_mover in one pass over the scan's windows (mover.runs, x and y unused),
    // for a watcher that moved: mover.nx, ny must be the scan's cx, cy. Returns aoi_mover's count.
    uint32_t (*aoi_scan_mover)(const AoiWindow&, const AoiMoverWindow&, AoiMeet&, uint32_t* out) noexcept;
    // The first i < n with t[i] == v, or n (t needs no alignment, nothing past t[n - 1] is read).
    uint32_t (*find_u32)(const uint32_t* t, uint32_t n, uint32_t v) noexcept;
    // The slots that changed, ascending; sets *zero when some mask is 0 (else leaves it).
    uint32_t (*aoi_changed)(const AoiChanges&, uint32_t* out, bool* zero) noexcept;
    // Every i < n with t[i] == v, ascending (t aligned and padded, out holds padded(n)).
    uint32_t (*match_u32)(const uint32_t* t, uint32_t n, uint32_t v, uint32_t* out) noexcept;
    // Positions of the runs whose box overlaps the search's, ascending within each run, runs
    // in order; out holds their total length plus kMaxWidth.
    uint32_t (*contact_search)(const ContactSearch&, uint32_t* out) noexcept;
    // The changed slots, ascending (out holds last - first + kMaxWidth); sets *other_id when an
    // id differs (else leaves it).
    uint32_t (*contact_changed)(const ContactChanges&, uint32_t* out, bool* other_id) noexcept;
    void (*interest_schedule)(ScheduleLanes&) noexcept;
    void (*interest_select)(SelectLanes&) noexcept;
};

// One table per target. Only the targets this build compiles are defined (the scalar one and
// those named by SOAGEO_HAVE_*: see dispatch.cpp); dispatch calls one only where the CPU runs it.
const KernelTable* kernels_scalar() noexcept;
const KernelTable* kernels_sse2() noexcept;
const KernelTable* kernels_avx2() noexcept;
const KernelTable* kernels_avx512() noexcept;
const KernelTable* kernels_neon() noexcept;

}  // namespace soageo

// Argument checks: one checker per concept, used by every binding function that takes it
// (single queries, batches, set_many, the aoi). Each rule is a predicate on plain numbers,
// written once here; the checkers below apply it to a stack argument (and raise
// `bad argument #n (what must be ...)`) or to numbers read from a table (batches, arrays).
// New shapes and queries add their checker here rather than next to their query.
#pragma once

#include <lua.hpp>

#include <cmath>
#include <cstdint>

#include "../core/kernels.hpp"

namespace soageo {
namespace lua {

// --- The rules, on numbers -------------------------------------------------------------------

// Finite, and still finite once rounded to float32 (the columns' type): 1e39 is refused.
inline bool finite32(double v) { return std::isfinite(v) && std::isfinite(static_cast<float>(v)); }
inline bool valid_radius(double v) { return finite32(v) && v >= 0; }
// A sector's direction: finite in double (make_sector normalises it in double), not zero.
inline bool valid_direction(double dx, double dy) { return std::isfinite(dx) && std::isfinite(dy) && (dx != 0 || dy != 0); }
inline bool valid_half_angle(double h) { return h > 0 && h <= M_PI; }  // false for NaN
inline bool valid_span(float lo, float hi) { return lo <= hi; }         // a box's min <= max
// A segment's kernels work on its extent in float32: ends beyond the float32 range of each
// other (past +-1.7e38 on both sides) make it infinite, and every entity is met at t = 0.
inline bool finite_extent(float from, float to) { return std::isfinite(to - from); }
// A mask: an integer in [0, 0xffffffff]. The value at `idx` is read without raising.
bool to_mask(lua_State* L, int idx, uint32_t* out);
// A number inside a table (an option's value): a number, not a numeric string (doc/manual.md).
// The value at `idx` is read without raising; NaN for anything else, which every rule refuses.
inline double table_number(lua_State* L, int idx) {
    return lua_type(L, idx) == LUA_TNUMBER ? lua_tonumber(L, idx) : NAN;
}

// --- One argument on the stack: raise with the contract as the message -----------------------

float check_float(lua_State* L, int arg, const char* what);   // "<what> must be finite"
float check_radius(lua_State* L, int arg, const char* what);  // "<what> must be finite and >= 0"
int64_t check_id(lua_State* L, int arg);
uint32_t check_mask(lua_State* L, int arg);
Filter opt_filter(lua_State* L, int arg);  // absent or nil: no filter
// `out` at arg: nil/absent gives 0, a table gives its index; anything else raises.
int opt_out(lua_State* L, int arg);
// An options table at arg: false when it is absent or nil; raises when it is not a table or
// holds a key not in `names` (a null-terminated list): "unknown option 'marign'".
bool check_options(lua_State* L, int arg, const char* const* names);
// A table used as an array: its length, at most kMaxEntities ("<what> has too many elements").
int check_array(lua_State* L, int arg, const char* what);

// --- Shapes from consecutive arguments, the first at `arg` ------------------------------------

// x, y, dx, dy, radius, half_angle (6 arguments).
Sector check_sector(lua_State* L, int arg);
Circle check_circle(lua_State* L, int arg);      // x, y, radius
Box check_box(lua_State* L, int arg);            // minx, miny, maxx, maxy
Capsule check_capsule(lua_State* L, int arg);    // x0, y0, x1, y1, radius
Triangle check_triangle(lua_State* L, int arg);  // ax, ay, bx, by, cx, cy
Segment check_segment(lua_State* L, int arg);    // x0, y0, x1, y1
Rect check_rect(lua_State* L, int arg);          // x, y, dx, dy, length, half_width
Ring check_ring(lua_State* L, int arg);          // x, y, inner, outer
// A flat {x1, y1, x2, y2, ...} table at `idx` (the caller checked it is a table) read into `g`:
// nullptr, or the reason pushed as a string and prefixed with `prefix` ("vertex 3 must be two
// finite numbers", "polygon is not convex at vertex 4"). Raises only on out-of-memory.
const char* polygon_fault(lua_State* L, int idx, const char* prefix, Polygon& g);
void check_polygon(lua_State* L, int arg, Polygon& g);  // coords, read into g

// --- Shapes from a row of numbers (batches) ---------------------------------------------------
// The same rules, worded for a row: nullptr when `v` makes a valid shape, else what is wrong
// ("has a zero direction"), which the batch prefixes with "shape <i> ". The row's numbers
// passed read_row already.

// Reads `count` numbers of row `row` (1-based) of the flat array at `params` into v: each a
// float32-finite number, except the columns set in `headings` (a direction's dx, dy, which the
// single queries take as any finite double and normalise: check_heading).
const char* read_row(lua_State* L, int params, int row, int count, double* v, uint32_t headings);  // "must be finite numbers"
const char* sector_fault(const double* v);
const char* circle_fault(const double* v);
const char* box_fault(const double* v);
const char* capsule_fault(const double* v);
const char* triangle_fault(const double* v);
const char* rect_fault(const double* v);
const char* ring_fault(const double* v);

}  // namespace lua
}  // namespace soageo

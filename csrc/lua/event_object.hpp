// What the event objects (soageo.aoi, soageo.contacts) share: thin primitives over a userdata
// whose memory all lives in user values, in the way skynet's lualib-src keeps its C helpers
// small and stateless. Each class keeps its own struct and methods; this holds the rules they
// both follow, written once:
//  - user value 1 is the layer the object reads; the other user values are its blocks;
//  - every block is allocated before anything changes, in a window of the call's Held (hold.hpp):
//    the object, and its layer when the call reads it, are busy meanwhile;
//  - event lists grow by a new block and shrink once a burst is long past (decayed_peak);
//  - one idempotent close serves close, __gc and __close.
#pragma once

#include <lua.hpp>

#include <cstddef>
#include <cstdint>

#include "../core/aoi.hpp"
#include "binding.hpp"

namespace soageo {
namespace lua {

// The first member of every event object (the close and the checks below reach it through the
// userdata's address: the object must be standard-layout, see event_head).
struct EventHead {
    Hold hold;  // busy while a call that reads it allocates (hold.hpp)
    bool closed;
    // The layer of user value 1, which keeps it alive (and userdata never move) while the
    // object is open: every method's check reads its `closed` here, without the user value.
    const Layer* layer;
};

struct EventClass {
    const char* name;          // "soageo.aoi": metatable, __name, __tostring
    const char* noun;          // "aoi": in error messages
    const char* layer_closed;  // the error when the object's layer is closed
    const char* same_tables;   // the error when update is given one table for both event lists
    size_t size;               // sizeof the object
    int values;                // its user values
};

constexpr int kEventLayer = 1;  // user value 1: the layer
// Event buffers start at this many pairs and never shrink below it.
constexpr uint64_t kEventsFloor = 1024;

// luaL_checkudata for the class, raising "<noun> is closed" for a closed object, "<noun> is
// busy: called from a finalizer during a call" for a busy one and c.layer_closed when its layer
// is closed.
void* event_check(lua_State* L, int idx, const EventClass& c);
// A new object of class `c` reading the layer at 1 (checked by the caller): zeroed, closed until
// the caller has made its blocks and sets head.closed = false, left at 1 with the layer at 2.
// Clears the stack above 1 first.
void* event_new(lua_State* L, const EventClass& c);
// The object's layer, pushed; raises c.layer_closed when it was closed, and the layer's busy
// error when a call holds it.
Layer* event_layer(lua_State* L, int idx, const EventClass& c);
// Opens `h` holding the object at 1 (`close` closes it: event_close_at with its class).
void event_hold(Held* h, lua_State* L, EventHead* head, CloseAt close);
// The idempotent close of the object at `idx`.
void event_close_at(lua_State* L, int idx, const EventClass& c);

// A block of `bytes` for user value `uv` of a new object at 1, which nothing else can reach yet.
void* event_first_block(lua_State* L, int uv, size_t bytes);
// A new block of `bytes` for user value `uv` of the object at 1, made in a window of `h` and
// installed. The old block stays on the stack, alive while the caller copies from it; the
// caller pops it.
void* event_block(lua_State* L, Held* h, int uv, size_t bytes);

// Replaces event list `e` (user value `uv`) by one of `cap` pairs holding its first `keep` pairs.
void events_renew(lua_State* L, Held* h, EventList& e, int uv, uint64_t cap, uint64_t keep);
// A peak that remembers the largest recent count and forgets it by an eighth per update.
uint64_t decayed_peak(uint64_t peak, uint64_t n);
// Gives back an event buffer grown by a burst (the first update, where every pair enters, is
// the usual one) once the recent peak has fallen far below it. What stays: twice the recent
// peak plus `room` (what the core asks for beyond it) plus the floor, so that a steady tick never
// regrows it. Called before the update touches anything: a failed allocation leaves the object
// as it was, and the list empty.
void events_shrink(lua_State* L, Held* h, EventList& e, int uv, uint64_t recent, uint64_t room);

// The head of update([first [, second]]): the event tables at 2 and 3, tables or nil and
// distinct; the stack is left at 3. Then, once every object the update reads is held (its
// layer too: a finalizer run by the allocation must find it busy), event_tables_make puts new
// tables, made in windows of `h`, where none was given.
void event_tables_check(lua_State* L, const EventClass& c);
void event_tables_make(lua_State* L, Held* h);
// The head of a query by id with an optional `out` at 3: the stack is left at 3, `out` there.
void event_out(lua_State* L, Held* h);
// Writes both event lists, as pairs of ids, into the tables at 2 and 3; the caller then
// commits and ends with events_close.
void events_write(Results* r, lua_State* L, const EventList a, const EventList b);
// Closes the results (the tables on top) and pushes both counts: update's 4 results.
int events_close(Results* r, uint64_t n_a, uint64_t n_b);

// The block of a view built on demand (aoi:watchers_of's observers, contacts:touching's lists)
// for user value `uv` of the object at 1, made in a window of `h` and installed.
void* event_view_block(lua_State* L, Held* h, int uv, size_t bytes);
// Opens the results of a query by id into `out` at 3.
void event_list_open(Results* r, lua_State* L);
// Closes the results of a query by id and pushes their count: `out, n`.
int event_list_close(Results* r);

// stats([t]) of an object: each counter as an integer field of the table at `t`, which is
// left on top.
struct Counter {
    const char* name;
    uint64_t value;
};
int event_stats(lua_State* L, int t, const Counter* counters, size_t n);

// The close (close, __gc, __close; on a busy object done when the call holding it ends) and
// __tostring of an object of class `c`.
int event_close(lua_State* L, const EventClass& c);
int event_tostring(lua_State* L, const EventClass& c);
// Registers the class: its metatable with __gc and __close (`close`) and __tostring
// (`tostring`), `methods` as __index, and `module_functions` in the module.
void open_event_class(lua_State* L, const Tables& t, const EventClass& c, lua_CFunction close, lua_CFunction tostring,
                      const luaL_Reg* methods, const luaL_Reg* module_functions);

}  // namespace lua
}  // namespace soageo

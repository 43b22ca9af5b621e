#!/bin/sh
# Prints LUA_VERSION_NUM of the lua.h in directory $1 (504, 505...; 0 when there is none), as
# the preprocessor computes it (Lua 5.5 defines it from its major and minor numbers).
v=$(printf '#include "lua.h"\nLUA_VERSION_NUM\n' | ${CXX:-g++} -E -P -I"$1" -x c - 2>/dev/null | tail -n 1)
echo $((${v:-0}))

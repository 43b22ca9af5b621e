local soageo = require "soageo"
local rng = require "rng"
local util = require "spec_util"
local ref = require "pairs_reference"

-- Several aoi and contacts objects on one layer learn of its adds and removes from the layer's
-- change feed, each from where it last looked: one updated every tick, one now and then, one
-- made late. Every one of them must replay to brute force whatever it missed, on its
-- incremental path while it is a few changes behind and on its full one past the feed.
local set_of, replay, same = util.pair_set, util.replay, util.same_pair_sets

describe("when several aoi and contacts objects follow one layer at their own pace", function()
  it("returns events that replay to brute force for each, incremental while a few changes behind", function()
    local g = rng.new(321)
    local l = soageo.layer()
    local n, span = 2500, 300  -- contacts go incremental from 2,048 entities on
    for id = 1, n do l:set(id, g:uniform(0, span), g:uniform(0, span), g:uniform(0, 3)) end
    local views = {}
    for id = 1, n, 40 do views[id] = 15 end
    local function watching(a)
      for id, v in pairs(views) do a:watch(id, v) end
      return a
    end
    -- every: update each `every` ticks; from: made at that tick
    local aois = { { every = 1, from = 0 }, { every = 3, from = 0 }, { every = 2, from = 6 } }
    local contacts = { { every = 1, from = 0 }, { every = 4, from = 0 }, { every = 1, from = 5 } }
    local function update_aoi(o, label)
      local ne, nl
      o.enter, o.leave, ne, nl = o.obj:update(o.enter, o.leave)
      replay(o.vis, o.enter, ne, o.leave, nl)
      o.truth = ref.visible(l, views, 0, o.truth, nil)
      assert.is_true(same(o.vis, o.truth), label)
    end
    local function update_contacts(o, label)
      local nb, ne
      o.began, o.ended, nb, ne = o.obj:update(o.began, o.ended)
      replay(o.current, o.began, nb, o.ended, ne)
      local want, np = l:pairs()
      assert.is_true(same(o.current, set_of(want, np)), label)
    end
    local next_id, gone = n + 1, {}
    for tick = 0, 18 do
      if tick > 0 then
        for id, x, y in l:each() do
          if g:int(1, 60) == 1 then l:move(id, x + g:uniform(-1, 1), y + g:uniform(-1, 1)) end
        end
        local deaths, births = g:int(0, 5), g:int(0, 5)
        if tick == 9 then births = 70 end  -- more than the feed holds
        for _ = 1, deaths do
          local id = g:int(1, next_id - 1)
          if not views[id] and l:remove(id) then gone[#gone + 1] = id end
        end
        for _ = 1, births do
          local id
          if #gone > 0 and g:int(1, 3) == 1 then
            id = table.remove(gone, g:int(1, #gone))  -- a dead id back
          else
            id, next_id = next_id, next_id + 1
          end
          l:set(id, g:uniform(0, span), g:uniform(0, span), g:uniform(0, 3))
        end
        if tick == 14 then  -- one id killed and set back 40 times: 80 changes, no slot changed for good
          for _ = 1, 40 do
            local x, y, r = l:get(n)
            l:remove(n)
            l:set(n, x, y, r)
          end
        end
      end
      for k, o in ipairs(aois) do
        if tick == o.from then
          o.obj, o.vis, o.truth, o.enter, o.leave = watching(soageo.aoi(l)), {}, {}, {}, {}
        end
        if o.obj and (tick - o.from) % o.every == 0 then update_aoi(o, "aoi " .. k .. ", tick " .. tick) end
      end
      for k, o in ipairs(contacts) do
        if tick == o.from then o.obj, o.current, o.began, o.ended = soageo.contacts(l), {}, {}, {} end
        if (tick - o.from) % o.every == 0 and o.obj then
          update_contacts(o, "contacts " .. k .. ", tick " .. tick)
        end
      end
    end
    -- Each took its incremental path after its first update, and its full one at least once
    -- more (the tick of 70 spawns: more changes than the feed holds).
    local incremental = 0
    for k, o in ipairs(aois) do
      local st = o.obj:stats()
      assert.is_true(st.incremental >= 1 and st.full >= 2,
        "aoi " .. k .. ": " .. st.incremental .. " incremental, " .. st.full .. " full")
      incremental = incremental + st.incremental
      o.obj:close()
    end
    assert.is_true(incremental >= 10, incremental .. " incremental aoi updates")
    for k, o in ipairs(contacts) do
      local st = o.obj:stats()
      assert.is_true(st.incremental >= 2 and st.full >= 2,
        "contacts " .. k .. ": " .. st.incremental .. " incremental, " .. st.full .. " full")
      o.obj:close()
    end
  end)
end)

-- What the examples' SVG drawings (scene/svg.lua, world/svg.lua) share: coordinates at one
-- decimal, and a document built as a list of parts, opened on a light background and written
-- out closed.
local doc = {}

function doc.fmt(v) return string.format("%.1f", v) end

-- The first parts of a document: a view box of view_w x view_h units drawn at width x height
-- pixels, and its background.
function doc.open(view_w, view_h, width, height)
  return {
    string.format('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d">', view_w, view_h, width, height),
    string.format('<rect width="%d" height="%d" fill="#fbfbf8"/>', view_w, view_h),
  }
end

-- Closes the document and writes it to `path`.
function doc.write(parts, path)
  parts[#parts + 1] = "</svg>"
  local f = assert(io.open(path, "w"))
  f:write(table.concat(parts, "\n"), "\n")
  f:close()
end

return doc

// Tiles: a cols x rows map of square cells, each free or blocked (a closed square), with the
// questions walls answer. Cell (col, row) spans [x0 + col * cell, x0 + (col + 1) * cell] by
// [y0 + row * cell, y0 + (row + 1) * cell], those edges taken as exact real numbers (not
// rounded to float32 or double): every decision against them is exact. Outside the map is free.
#pragma once

#include <cstdint>

#include "ray_walk.hpp"
#include "walls.hpp"

namespace soageo {

// The cells as bits, one 64-bit word per block of 8 x 8 cells, blocks row-major: a ray reads
// few words whichever way it goes, and a 1024 x 1024 map takes 128 KiB, which stays in cache
// where a byte per cell would not.
struct TileMap {
    uint64_t* bits;  // tile_words(cols, rows)
    uint32_t cols, rows;
    float x0, y0, cell;
    GridFrame frame;
};

constexpr uint32_t kMaxTileSide = 1u << 24;   // c * cell stays exact in a double
constexpr uint64_t kMaxTiles = uint64_t(1) << 28;

inline uint64_t tile_words(uint32_t cols, uint32_t rows) noexcept { return uint64_t((cols + 7) / 8) * ((rows + 7) / 8); }
// `bits` (tile_words of them) all clear: every cell free.
TileMap tiles_make(uint64_t* bits, uint32_t cols, uint32_t rows, float x0, float y0, float cell) noexcept;

inline uint64_t* tile_word(const TileMap& m, uint32_t col, uint32_t row, uint64_t* bit) noexcept {
    *bit = uint64_t(1) << ((row & 7) * 8 + (col & 7));
    return m.bits + uint64_t(row >> 3) * ((m.cols + 7) / 8) + (col >> 3);
}
inline bool tile_blocked(const TileMap& m, uint32_t col, uint32_t row) noexcept {
    uint64_t bit;
    return (*tile_word(m, col, row, &bit) & bit) != 0;
}
inline void tile_set(TileMap& m, uint32_t col, uint32_t row, bool blocked) noexcept {
    uint64_t bit;
    uint64_t* w = tile_word(m, col, row, &bit);
    *w = blocked ? (*w | bit) : (*w & ~bit);
}

bool tiles_blocked(const TileMap& m, float ax, float ay, float bx, float by) noexcept;
// First contact with a blocked cell: t in [0, 1] and the cell number row * cols + col, the
// lowest of those touched at that exact t.
bool tiles_cast(const TileMap& m, float ax, float ay, float bx, float by, double* t, uint32_t* cell) noexcept;
bool tiles_visible(const TileMap& m, float vx, float vy, float px, float py) noexcept;

}  // namespace soageo

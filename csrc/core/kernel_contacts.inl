// The incremental contacts' kernels (kernels.hpp), written once against wide.hpp. Only the
// overlaps leave the search; which of them are new pairs is the caller's (a few a box).

namespace soageo {
namespace SOAGEO_TARGET {

inline uint32_t contact_search(const ContactSearch& search, uint32_t* out) noexcept {
    const ContactSearch s = search;
    const wf maxx = splat(s.maxx), neg_minx = splat(s.neg_minx), maxy = splat(s.maxy), neg_miny = splat(s.neg_miny);
    uint32_t k = 0;
    for (uint32_t r = 0; r < s.n_runs; ++r) {
        const uint32_t first = s.runs[2 * r], end = s.runs[2 * r + 1];
        for (uint32_t p = first; p < end; p += W) {
            const wm x = mand(le(loadu(s.minx + p), maxx), le(loadu(s.neg_maxx + p), neg_minx));
            const wm y = mand(le(loadu(s.miny + p), maxy), le(loadu(s.neg_maxy + p), neg_miny));
            k += emit(out + k, p, bits(mand(x, y)) & live_lanes(end - p));
        }
    }
    return k;
}

// The change detection: every entity compared as bits (0 against -0 is a change, which only
// searches that box again), the changed ones emitted whole blocks at a time (a branch per
// block would be a coin toss with a tenth moving).
inline uint32_t contact_changed(const ContactChanges& changes, uint32_t* out, bool* other_id) noexcept {
    const ContactChanges c = changes;
    uint32_t k = 0, ids = 0;
    for (uint32_t i = c.first; i < c.last; i += W) {
        const uint32_t same = same_bits(c.x + i, c.kept_x + i) & same_bits(c.y + i, c.kept_y + i) &
                              same_bits(c.r + i, c.kept_r + i);
        k += emit(out + k, i, ~same & live_lanes(c.last - i < uint32_t(W) ? c.last - i : uint32_t(W)));
    }
    for (uint32_t h = 2 * c.first; h < 2 * c.last; h += W)
        ids |= ~same_bits(c.id + h, c.kept_id + h) & live_lanes(2 * c.last - h < uint32_t(W) ? 2 * c.last - h : uint32_t(W));
    if (ids) *other_id = true;
    return k;
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo

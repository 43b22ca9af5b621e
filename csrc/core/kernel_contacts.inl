// The incremental contacts' search (contacts.cpp), written once against wide.hpp: a changed
// box against the runs of grid positions its window covers, W candidates a comparison. Only
// the overlaps leave the kernel; which of them are new pairs is the caller's (a few a box).

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

}  // namespace SOAGEO_TARGET
}  // namespace soageo

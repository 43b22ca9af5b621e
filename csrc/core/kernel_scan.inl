// The block loop every shape kernel shares (see target.inl for how kernels are compiled).

namespace soageo {
namespace SOAGEO_TARGET {

// Loops over whole blocks; `test(p, i)` returns the lane mask of block i, and the filter (the
// loop is specialised on it) and the tail are handled here. Hits are written without a branch
// (emit stores a whole block): a skip-if-empty branch or an early exit mispredicted at the hit
// rate of the 1000 sectors x 100,000 points benchmark (build/bench_kernels). `test` reads scan's
// own copy of the Points: through the caller's reference, every store to `out` might alias the
// column pointers, and the compiler reloaded them per block (build/bench_kernels, SSE2).
template <bool filtered, class Test>
inline uint32_t scan_blocks(const Points p, uint32_t bits_wanted, uint32_t* out, Test test) noexcept {
    uint32_t k = 0, i = 0;
    const uint32_t whole = p.n - p.n % W;
    auto block = [&](uint32_t at) {
        wm m = test(p, at);
        if (filtered) m = mand(m, mask_any(p.mask + at, bits_wanted));
        return bits(m);
    };
    for (; i < whole; i += W) k += emit(out + k, i, block(i));
    if (i < p.n) k += emit(out + k, i, block(i) & live_lanes(p.n - i));
    return k;
}

template <class Test>
inline uint32_t scan(const Points p, Filter f, uint32_t* out, Test test) noexcept {
    return f.on ? scan_blocks<true>(p, f.bits, out, test) : scan_blocks<false>(p, 0, out, test);
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo

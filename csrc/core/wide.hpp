// The wide-float type every kernel is written against. Each target translation unit is compiled
// with its own flags and includes this header inside its own namespace, so the inline helpers of
// one target never meet those of another (one-definition rule).
//
// Semantics shared by every target, so that each returns exactly what the scalar reference does:
// - arithmetic is IEEE single precision, one rounding per operation, no FMA (-ffp-contract=off);
// - comparisons are ordered: any NaN operand compares false;
// - vmin(a, b) is `a < b ? a : b` (the x86 minps rule, emulated on NEON and in scalar code);
// - the lane mask of a block turns into an integer with bit k set for lane k;
// - select(m, a, c) takes a's lanes where m holds and c's elsewhere, bit for bit; storeu writes
//   a block's lanes where no alignment is known.
//
// This is the only place in the project that names an intrinsic.

#include <cstdint>

#if defined(SOAGEO_WIDE_AVX512) || defined(SOAGEO_WIDE_AVX2)
#include <immintrin.h>
#elif defined(SOAGEO_WIDE_SSE2)
#include <emmintrin.h>
#elif defined(SOAGEO_WIDE_NEON)
#include <arm_neon.h>
#endif

#ifndef SOAGEO_TARGET
#error "a target translation unit defines SOAGEO_TARGET (its namespace) before including wide.hpp"
#endif

namespace soageo {
namespace SOAGEO_TARGET {

// For every lane mask b of up to 8 lanes: the numbers of the set lanes, in ascending order.
// emit() adds the block's base slot to a row and stores it whole, so writing hits costs the
// same whatever their pattern (a ctz loop mispredicts at the hit rates of the 1000 sectors x
// 100,000 points benchmark, build/bench_kernels).
struct LaneLists {
    alignas(64) uint8_t u8[256][8];
    alignas(64) uint32_t u32[16][4];
    uint8_t count[256];  // popcount without the popcnt instruction, which SSE2 CPUs may lack
    constexpr LaneLists() : u8(), u32(), count() {
        for (int b = 0; b < 256; ++b) {
            int k = 0;
            for (int lane = 0; lane < 8; ++lane)
                if (b & (1 << lane)) {
                    u8[b][k] = static_cast<uint8_t>(lane);
                    if (b < 16) u32[b][k] = static_cast<uint32_t>(lane);
                    ++k;
                }
            count[b] = static_cast<uint8_t>(k);
        }
    }
};
constexpr LaneLists lane_lists{};

#if defined(SOAGEO_WIDE_AVX512)

constexpr int W = 16;
struct wf { __m512 v; };
using wm = __mmask16;

inline wf load(const float* p) { return {_mm512_load_ps(p)}; }
inline wf loadu(const float* p) { return {_mm512_loadu_ps(p)}; }
inline wf splat(float a) { return {_mm512_set1_ps(a)}; }
inline wm lt(wf a, wf b) { return _mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ); }
inline wm le(wf a, wf b) { return _mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ); }
inline wm mand(wm a, wm b) { return static_cast<wm>(a & b); }
inline wm mor(wm a, wm b) { return static_cast<wm>(a | b); }
inline wm mnot(wm a) { return static_cast<wm>(~a); }
inline wf vmin(wf a, wf b) { return {_mm512_min_ps(a.v, b.v)}; }
inline wf vmax(wf a, wf b) { return {_mm512_max_ps(a.v, b.v)}; }
inline wf select(wm m, wf a, wf c) { return {_mm512_mask_blend_ps(m, c.v, a.v)}; }
inline void storeu(float* p, wf a) { _mm512_storeu_ps(p, a.v); }
inline uint32_t bits(wm m) { return m; }
inline wm from_bits(uint32_t b) { return static_cast<wm>(b); }
inline __m512i iload(const uint32_t* p) { return _mm512_load_si512(p); }
inline __m512i iloadu(const uint32_t* p) { return _mm512_loadu_si512(p); }
inline __m512i isplat(uint32_t v) { return _mm512_set1_epi32(static_cast<int>(v)); }
inline uint32_t same_lanes(__m512i a, __m512i b) { return _mm512_cmpeq_epi32_mask(a, b); }
inline wm mask_any(const uint32_t* m, uint32_t q) { return _mm512_test_epi32_mask(iload(m), isplat(q)); }
// Writes the slot numbers base+k of the lanes set in `b`, in ascending order; returns how many.
// Compresses in a register and stores all 16 lanes: the memory form of vpcompressd is
// microcoded on AMD Zen 4 and made the whole kernel slower than AVX2 there. The extra lanes land
// inside the hit buffer, which has one entry per padded slot: k <= base, so base + 16 <= cap.
inline uint32_t emit(uint32_t* out, uint32_t base, uint32_t b) {
    const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    __m512i idx = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(base)), lane);
    _mm512_storeu_si512(out, _mm512_maskz_compress_epi32(static_cast<__mmask16>(b), idx));
    return static_cast<uint32_t>(__builtin_popcount(b));  // every AVX-512 CPU has popcnt
}
// Writes the values of the lanes set in `b`, in ascending order, as emit() writes their slots
// (all W lanes stored: the caller's buffer has room); returns how many.
inline uint32_t emit_values(float* out, wf v, uint32_t b) {
    _mm512_storeu_ps(out, _mm512_maskz_compress_ps(static_cast<__mmask16>(b), v.v));
    return static_cast<uint32_t>(__builtin_popcount(b));
}
inline float hsum(wf a) { return _mm512_reduce_add_ps(a.v); }
// The largest and the smallest lane (no lane NaN: then any order of compares gives the same).
inline float hmax(wf a) { return _mm512_reduce_max_ps(a.v); }
inline float hmin(wf a) { return _mm512_reduce_min_ps(a.v); }
// Integer lanes (p aligned): storing v into the lanes of b.
inline void store_where(uint32_t* p, uint32_t b, uint32_t v) {
    _mm512_mask_store_epi32(p, static_cast<__mmask16>(b), isplat(v));
}
inline uint32_t count_bits(uint32_t b) { return static_cast<uint32_t>(__builtin_popcount(b)); }
inline void store_splat(uint32_t* out, uint32_t v) { _mm512_storeu_si512(out, isplat(v)); }
// Integer lanes (wi): 32-bit wrapping arithmetic; masks of the lanes equal, and of those
// negative as int32; a select (a where m holds, else c); a whole block's store (p needs no
// alignment); and a count of a mask's lanes (acc + 1 where m holds).
using wi = __m512i;
inline wi iadd(wi a, wi b) { return _mm512_add_epi32(a, b); }
inline wi isub(wi a, wi b) { return _mm512_sub_epi32(a, b); }
inline wm ieq(wi a, wi b) { return _mm512_cmpeq_epi32_mask(a, b); }
inline wm ineg(wi a) { return _mm512_cmplt_epi32_mask(a, _mm512_setzero_si512()); }
inline wi iselect(wm m, wi a, wi c) { return _mm512_mask_blend_epi32(m, c, a); }
inline void istoreu(uint32_t* p, wi v) { _mm512_storeu_si512(p, v); }
inline wi count_lanes(wi acc, wm m) { return _mm512_mask_add_epi32(acc, m, acc, _mm512_set1_epi32(1)); }

#elif defined(SOAGEO_WIDE_AVX2)

constexpr int W = 8;
struct wf { __m256 v; };
struct wm { __m256 v; };

inline wf load(const float* p) { return {_mm256_load_ps(p)}; }
inline wf loadu(const float* p) { return {_mm256_loadu_ps(p)}; }
inline wf splat(float a) { return {_mm256_set1_ps(a)}; }
inline wm lt(wf a, wf b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)}; }
inline wm le(wf a, wf b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)}; }
inline wm mand(wm a, wm b) { return {_mm256_and_ps(a.v, b.v)}; }
inline wm mor(wm a, wm b) { return {_mm256_or_ps(a.v, b.v)}; }
inline wm mnot(wm a) { return {_mm256_xor_ps(a.v, _mm256_castsi256_ps(_mm256_set1_epi32(-1)))}; }
inline wf vmin(wf a, wf b) { return {_mm256_min_ps(a.v, b.v)}; }
inline wf vmax(wf a, wf b) { return {_mm256_max_ps(a.v, b.v)}; }
inline wf select(wm m, wf a, wf c) { return {_mm256_blendv_ps(c.v, a.v, m.v)}; }
inline void storeu(float* p, wf a) { _mm256_storeu_ps(p, a.v); }
inline uint32_t bits(wm m) { return static_cast<uint32_t>(_mm256_movemask_ps(m.v)); }
inline __m256i iload(const uint32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
inline __m256i iloadu(const uint32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline __m256i isplat(uint32_t v) { return _mm256_set1_epi32(static_cast<int>(v)); }
inline uint32_t same_lanes(__m256i a, __m256i b) { return bits(wm{_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))}); }
inline wm from_bits(uint32_t b) {
    const __m256i lane = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
    return {_mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(isplat(b), lane), lane))};
}
inline wm mask_any(const uint32_t* m, uint32_t q) {
    __m256i zero = _mm256_cmpeq_epi32(_mm256_and_si256(iload(m), isplat(q)), _mm256_setzero_si256());
    return {_mm256_castsi256_ps(_mm256_xor_si256(zero, _mm256_set1_epi32(-1)))};
}
// Stores W slot numbers at out (the caller's buffer has room); the first popcount(b) count.
inline uint32_t emit(uint32_t* out, uint32_t base, uint32_t b) {
    __m256i lanes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(lane_lists.u8[b])));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_add_epi32(lanes, _mm256_set1_epi32(static_cast<int>(base))));
    return static_cast<uint32_t>(__builtin_popcount(b));  // every AVX2 CPU has popcnt
}
inline uint32_t emit_values(float* out, wf v, uint32_t b) {
    __m256i lanes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(lane_lists.u8[b])));
    _mm256_storeu_ps(out, _mm256_permutevar8x32_ps(v.v, lanes));
    return static_cast<uint32_t>(__builtin_popcount(b));
}
inline float hsum(wf a) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}
inline float hmax(wf a) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_shuffle_ps(s, s, 1)));
}
inline float hmin(wf a) {
    __m128 s = _mm_min_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
    s = _mm_min_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_min_ss(s, _mm_shuffle_ps(s, s, 1)));
}
inline void store_where(uint32_t* p, uint32_t b, uint32_t v) {
    _mm256_maskstore_epi32(reinterpret_cast<int*>(p), _mm256_castps_si256(from_bits(b).v), isplat(v));
}
inline uint32_t count_bits(uint32_t b) { return static_cast<uint32_t>(__builtin_popcount(b)); }
inline void store_splat(uint32_t* out, uint32_t v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), isplat(v)); }
using wi = __m256i;
inline wi iadd(wi a, wi b) { return _mm256_add_epi32(a, b); }
inline wi isub(wi a, wi b) { return _mm256_sub_epi32(a, b); }
inline wm ieq(wi a, wi b) { return {_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))}; }
inline wm ineg(wi a) { return {_mm256_castsi256_ps(_mm256_srai_epi32(a, 31))}; }
inline wi iselect(wm m, wi a, wi c) { return _mm256_blendv_epi8(c, a, _mm256_castps_si256(m.v)); }
inline void istoreu(uint32_t* p, wi v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
inline wi count_lanes(wi acc, wm m) { return _mm256_sub_epi32(acc, _mm256_castps_si256(m.v)); }  // a true lane is -1

#elif defined(SOAGEO_WIDE_SSE2)

constexpr int W = 4;
struct wf { __m128 v; };
struct wm { __m128 v; };

inline wf load(const float* p) { return {_mm_load_ps(p)}; }
inline wf loadu(const float* p) { return {_mm_loadu_ps(p)}; }
inline wf splat(float a) { return {_mm_set1_ps(a)}; }
inline wm lt(wf a, wf b) { return {_mm_cmplt_ps(a.v, b.v)}; }
inline wm le(wf a, wf b) { return {_mm_cmple_ps(a.v, b.v)}; }
inline wm mand(wm a, wm b) { return {_mm_and_ps(a.v, b.v)}; }
inline wm mor(wm a, wm b) { return {_mm_or_ps(a.v, b.v)}; }
inline wm mnot(wm a) { return {_mm_xor_ps(a.v, _mm_castsi128_ps(_mm_set1_epi32(-1)))}; }
inline wf vmin(wf a, wf b) { return {_mm_min_ps(a.v, b.v)}; }
inline wf vmax(wf a, wf b) { return {_mm_max_ps(a.v, b.v)}; }
inline wf select(wm m, wf a, wf c) { return {_mm_or_ps(_mm_and_ps(m.v, a.v), _mm_andnot_ps(m.v, c.v))}; }
inline void storeu(float* p, wf a) { _mm_storeu_ps(p, a.v); }
inline uint32_t bits(wm m) { return static_cast<uint32_t>(_mm_movemask_ps(m.v)); }
inline __m128i iload(const uint32_t* p) { return _mm_load_si128(reinterpret_cast<const __m128i*>(p)); }
inline __m128i iloadu(const uint32_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline __m128i isplat(uint32_t v) { return _mm_set1_epi32(static_cast<int>(v)); }
inline uint32_t same_lanes(__m128i a, __m128i b) { return bits(wm{_mm_castsi128_ps(_mm_cmpeq_epi32(a, b))}); }
inline wm from_bits(uint32_t b) {
    const __m128i lane = _mm_set_epi32(8, 4, 2, 1);
    return {_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(isplat(b), lane), lane))};
}
inline wm mask_any(const uint32_t* m, uint32_t q) {
    __m128i zero = _mm_cmpeq_epi32(_mm_and_si128(iload(m), isplat(q)), _mm_setzero_si128());
    return {_mm_castsi128_ps(_mm_xor_si128(zero, _mm_set1_epi32(-1)))};
}
inline uint32_t emit(uint32_t* out, uint32_t base, uint32_t b) {
    __m128i lanes = _mm_load_si128(reinterpret_cast<const __m128i*>(lane_lists.u32[b]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_add_epi32(lanes, _mm_set1_epi32(static_cast<int>(base))));
    return lane_lists.count[b];
}
// No variable shuffle in SSE2: the lanes go through memory, four loads and stores, no branch.
inline uint32_t emit_values(float* out, wf v, uint32_t b) {
    alignas(16) float lane[4];
    _mm_store_ps(lane, v.v);
    const uint32_t* pick = lane_lists.u32[b];
    out[0] = lane[pick[0]], out[1] = lane[pick[1]], out[2] = lane[pick[2]], out[3] = lane[pick[3]];
    return lane_lists.count[b];
}
inline float hsum(wf a) {
    __m128 s = _mm_add_ps(a.v, _mm_movehl_ps(a.v, a.v));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}
inline float hmax(wf a) {
    const __m128 s = _mm_max_ps(a.v, _mm_movehl_ps(a.v, a.v));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_shuffle_ps(s, s, 1)));
}
inline float hmin(wf a) {
    const __m128 s = _mm_min_ps(a.v, _mm_movehl_ps(a.v, a.v));
    return _mm_cvtss_f32(_mm_min_ss(s, _mm_shuffle_ps(s, s, 1)));
}
inline void store_where(uint32_t* p, uint32_t b, uint32_t v) {
    __m128i m = _mm_castps_si128(from_bits(b).v);
    _mm_store_si128(reinterpret_cast<__m128i*>(p), _mm_or_si128(_mm_and_si128(m, isplat(v)), _mm_andnot_si128(m, iload(p))));
}
inline uint32_t count_bits(uint32_t b) { return lane_lists.count[b]; }
inline void store_splat(uint32_t* out, uint32_t v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(out), isplat(v)); }
using wi = __m128i;
inline wi iadd(wi a, wi b) { return _mm_add_epi32(a, b); }
inline wi isub(wi a, wi b) { return _mm_sub_epi32(a, b); }
inline wm ieq(wi a, wi b) { return {_mm_castsi128_ps(_mm_cmpeq_epi32(a, b))}; }
inline wm ineg(wi a) { return {_mm_castsi128_ps(_mm_srai_epi32(a, 31))}; }
inline wi iselect(wm m, wi a, wi c) {
    const __m128i k = _mm_castps_si128(m.v);
    return _mm_or_si128(_mm_and_si128(k, a), _mm_andnot_si128(k, c));
}
inline void istoreu(uint32_t* p, wi v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
inline wi count_lanes(wi acc, wm m) { return _mm_sub_epi32(acc, _mm_castps_si128(m.v)); }  // a true lane is -1

#elif defined(SOAGEO_WIDE_NEON)

constexpr int W = 4;
struct wf { float32x4_t v; };
struct wm { uint32x4_t v; };

inline wf load(const float* p) { return {vld1q_f32(p)}; }
inline wf loadu(const float* p) { return {vld1q_f32(p)}; }
inline wf splat(float a) { return {vdupq_n_f32(a)}; }
inline wm lt(wf a, wf b) { return {vcltq_f32(a.v, b.v)}; }
inline wm le(wf a, wf b) { return {vcleq_f32(a.v, b.v)}; }
inline wm mand(wm a, wm b) { return {vandq_u32(a.v, b.v)}; }
inline wm mor(wm a, wm b) { return {vorrq_u32(a.v, b.v)}; }
inline wm mnot(wm a) { return {vmvnq_u32(a.v)}; }
// vminq_f32 propagates NaN; the x86 rule returns the second operand instead.
inline wf vmin(wf a, wf b) { return {vbslq_f32(lt(a, b).v, a.v, b.v)}; }
inline wf vmax(wf a, wf b) { return {vbslq_f32(lt(b, a).v, a.v, b.v)}; }
inline wf select(wm m, wf a, wf c) { return {vbslq_f32(m.v, a.v, c.v)}; }
inline void storeu(float* p, wf a) { vst1q_f32(p, a.v); }
inline uint32_t bits(wm m) {
    const uint32x4_t weight = {1, 2, 4, 8};
    return vaddvq_u32(vandq_u32(m.v, weight));
}
inline uint32x4_t iload(const uint32_t* p) { return vld1q_u32(p); }
inline uint32x4_t iloadu(const uint32_t* p) { return vld1q_u32(p); }  // vld1q needs no alignment
inline uint32x4_t isplat(uint32_t v) { return vdupq_n_u32(v); }
inline uint32_t same_lanes(uint32x4_t a, uint32x4_t b) { return bits(wm{vceqq_u32(a, b)}); }
inline wm mask_any(const uint32_t* m, uint32_t q) { return {vtstq_u32(iload(m), isplat(q))}; }
inline wm from_bits(uint32_t b) {
    const uint32x4_t weight = {1, 2, 4, 8};
    return {vtstq_u32(vdupq_n_u32(b), weight)};
}
inline uint32_t emit(uint32_t* out, uint32_t base, uint32_t b) {
    vst1q_u32(out, vaddq_u32(vld1q_u32(lane_lists.u32[b]), vdupq_n_u32(base)));
    return lane_lists.count[b];
}
inline uint32_t emit_values(float* out, wf v, uint32_t b) {
    float lane[4];
    vst1q_f32(lane, v.v);
    const uint32_t* pick = lane_lists.u32[b];
    out[0] = lane[pick[0]], out[1] = lane[pick[1]], out[2] = lane[pick[2]], out[3] = lane[pick[3]];
    return lane_lists.count[b];
}
inline float hsum(wf a) { return vaddvq_f32(a.v); }
inline float hmax(wf a) { return vmaxvq_f32(a.v); }
inline float hmin(wf a) { return vminvq_f32(a.v); }
inline void store_where(uint32_t* p, uint32_t b, uint32_t v) {
    vst1q_u32(p, vbslq_u32(from_bits(b).v, vdupq_n_u32(v), vld1q_u32(p)));
}
inline uint32_t count_bits(uint32_t b) { return lane_lists.count[b]; }
inline void store_splat(uint32_t* out, uint32_t v) { vst1q_u32(out, vdupq_n_u32(v)); }
using wi = uint32x4_t;
inline wi iadd(wi a, wi b) { return vaddq_u32(a, b); }
inline wi isub(wi a, wi b) { return vsubq_u32(a, b); }
inline wm ieq(wi a, wi b) { return {vceqq_u32(a, b)}; }
inline wm ineg(wi a) { return {vcltq_s32(vreinterpretq_s32_u32(a), vdupq_n_s32(0))}; }
inline wi iselect(wm m, wi a, wi c) { return vbslq_u32(m.v, a, c); }
inline void istoreu(uint32_t* p, wi v) { vst1q_u32(p, v); }
inline wi count_lanes(wi acc, wm m) { return vsubq_u32(acc, m.v); }  // a true lane is all ones

#else  // the scalar reference: one lane, plain C++, built with -fno-tree-vectorize

constexpr int W = 1;
struct wf { float v; };
struct wm { bool v; };

inline wf load(const float* p) { return {*p}; }
inline wf loadu(const float* p) { return {*p}; }
inline wf splat(float a) { return {a}; }
inline wm lt(wf a, wf b) { return {a.v < b.v}; }
inline wm le(wf a, wf b) { return {a.v <= b.v}; }
inline wm mand(wm a, wm b) { return {a.v && b.v}; }
inline wm mor(wm a, wm b) { return {a.v || b.v}; }
inline wm mnot(wm a) { return {!a.v}; }
inline wf vmin(wf a, wf b) { return {a.v < b.v ? a.v : b.v}; }
inline wf vmax(wf a, wf b) { return {a.v > b.v ? a.v : b.v}; }
inline wf select(wm m, wf a, wf c) { return {m.v ? a.v : c.v}; }
inline void storeu(float* p, wf a) { *p = a.v; }
inline uint32_t bits(wm m) { return m.v ? 1u : 0u; }
inline wm from_bits(uint32_t b) { return {(b & 1u) != 0}; }
inline wm mask_any(const uint32_t* m, uint32_t q) { return {(*m & q) != 0}; }
inline uint32_t iload(const uint32_t* p) { return *p; }
inline uint32_t iloadu(const uint32_t* p) { return *p; }
inline uint32_t isplat(uint32_t v) { return v; }
inline uint32_t same_lanes(uint32_t a, uint32_t b) { return a == b ? 1u : 0u; }
// Branch-free: the slot is always written (the buffer has room) and counted only on a hit.
inline uint32_t emit(uint32_t* out, uint32_t base, uint32_t b) {
    *out = base;
    return b;
}
inline uint32_t emit_values(float* out, wf v, uint32_t b) {
    *out = v.v;
    return b;
}
inline float hsum(wf a) { return a.v; }
inline float hmax(wf a) { return a.v; }
inline float hmin(wf a) { return a.v; }
inline void store_where(uint32_t* p, uint32_t b, uint32_t v) { *p = b ? v : *p; }
inline uint32_t count_bits(uint32_t b) { return b; }
inline void store_splat(uint32_t* out, uint32_t v) { *out = v; }
using wi = uint32_t;
inline wi iadd(wi a, wi b) { return a + b; }
inline wi isub(wi a, wi b) { return a - b; }
inline wm ieq(wi a, wi b) { return {a == b}; }
inline wm ineg(wi a) { return {(a >> 31) != 0}; }
inline wi iselect(wm m, wi a, wi c) { return m.v ? a : c; }
inline void istoreu(uint32_t* p, wi v) { *p = v; }
inline wi count_lanes(wi acc, wm m) { return acc + (m.v ? 1u : 0u); }

#endif

// Arithmetic is written once: GCC and Clang define each target's register type (and float) as
// a vector type whose operators are the per-lane IEEE operations, which is how their own
// intrinsics (_mm_add_ps, vaddq_f32...) are defined.
inline wf operator+(wf a, wf b) { return {a.v + b.v}; }
inline wf operator-(wf a, wf b) { return {a.v - b.v}; }
inline wf operator*(wf a, wf b) { return {a.v * b.v}; }
inline wf operator/(wf a, wf b) { return {a.v / b.v}; }
inline wm gt(wf a, wf b) { return lt(b, a); }
inline wm ge(wf a, wf b) { return le(b, a); }

// Integer lanes as bits: which lanes of a block equal v (p aligned; for eq_bits_u, not), which
// lanes of two aligned blocks are equal.
inline uint32_t eq_bits(const uint32_t* p, uint32_t v) { return same_lanes(iload(p), isplat(v)); }
inline uint32_t eq_bits_u(const uint32_t* p, uint32_t v) { return same_lanes(iloadu(p), isplat(v)); }
inline uint32_t same_bits(const uint32_t* a, const uint32_t* b) { return same_lanes(iload(a), iload(b)); }

// A 32-bit store that bypasses the caches where the CPU has one (every x86-64: movnti), for
// outputs too large to stay cached that are written once in order; elsewhere a plain store.
// stream_fence() orders them before the stores that follow.
#if defined(SOAGEO_WIDE_AVX512) || defined(SOAGEO_WIDE_AVX2) || defined(SOAGEO_WIDE_SSE2)
inline void stream_u32(uint32_t* p, uint32_t v) { _mm_stream_si32(reinterpret_cast<int*>(p), static_cast<int>(v)); }
inline void stream_fence() { _mm_sfence(); }
#else
inline void stream_u32(uint32_t* p, uint32_t v) { *p = v; }
inline void stream_fence() {}
#endif

inline wm none() { return from_bits(0); }
inline wm all() { return from_bits(0xffffffffu); }

// Lanes at or past `n` in the last block: their bits are cleared, so padding never hits.
inline uint32_t live_lanes(uint32_t lanes_left) {
    return lanes_left >= 32 ? 0xffffffffu : ((1u << lanes_left) - 1u);
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo

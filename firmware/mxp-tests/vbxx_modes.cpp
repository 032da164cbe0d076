/*
 * vbxx_modes.cpp - the C++ layer (vbxx.hpp, mxp-spec.md section 2.9): every mode-inference
 * case, each checked against the same operation written with the C macros.
 *
 * Each case runs the vbxx form, then the C form whose mode is spelled by hand from the rules
 * of section 2.9.4 (by the preprocessor, from each operand type's size and sign letters), on
 * the same operands and the same prefilled destination, and checks:
 *   - the command words are identical (the instruction port is captured: VBX_PORT_CAPTURE,
 *     with every word also sent to the real port), except that a VS VMOV sends B word 0
 *     where the C layer sends the vector (section 2.9.9);
 *   - both destinations are identical, byte for byte, and equal to the result computed on
 *     the CPU from the instruction semantics of section 3 (calculation width and sign,
 *     each source extended by its own sign, VMULHI's mixed-sign rule, enumeration,
 *     conditional moves, accumulation with saturation, masks) and, for VS, from the
 *     operation the pseudo-mode stands for (v + s, v >> s, ...).
 * 614 cases in 9 groups: VV (D x A x B, all 216 type combinations), SV (6 D x 6 B x scalar
 * sign), VE (both spellings of the enumerated operand), SE, VS (6 D x 6 vector x scalar sign),
 * the ten C integer types as scalars, the accumulate / masked / masked-accumulate entry
 * points, mask set-ups, and the worked examples of sections 2.9.4/2.9.5 with their words
 * written out.
 * Instructions are run-time values in the large groups and constants in the examples.
 * The traits of type_manipulation.hpp are checked at compile time.
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 */
#define VBX_PORT_CAPTURE 1
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"
#include "vbw_template.hpp" /* the path of the SDK's C++ vbxware: Vector.hpp, type_manipulation.hpp */

/* ---- the captured instruction port -------------------------------------------------------- */

/* VBX_PORT_CAPTURE routes the SDK's port accesses here (declared with C linkage in vbx.h and
 * vbx_port.h); every word is also written to the real port. */

#define MAX_WORDS 16
static uint32_t rec_words[MAX_WORDS];
static int rec_n = -1; /* -1: not recording */

extern "C" void vbx_capture_write(uint32_t word)
{
    if (rec_n >= 0) {
        if (rec_n < MAX_WORDS)
            rec_words[rec_n] = word;
        rec_n++;
    }
    *(volatile uint32_t *)MXPSIM_MXP_PORT = word;
}

extern "C" uint32_t vbx_capture_read(void)
{
    return *(volatile uint32_t *)MXPSIM_MXP_PORT;
}

extern "C" uint32_t vbx_capture_sysctl(uint32_t offset)
{
    return MXPSIM_SYSCTL(offset);
}

/* ---- operands ---------------------------------------------------------------------------------- */

#define N 8      /* VL: elements */
#define BYTES 32 /* N words */

/* Scratchpad operands (A, B, destination, mask source) and their host copies. */
static void *g_a, *g_b, *g_d, *g_m;
static const uint8_t pat_a[BYTES] = {0x80, 0xff, 0x7f, 0x01, 0x00, 0xc3, 0x5a, 0x9c, 0x01, 0x80, 0xfe,
                                     0x7f, 0x33, 0x00, 0x80, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00,
                                     0x00, 0x80, 0x12, 0x34, 0x56, 0x78, 0xef, 0xcd, 0xab, 0x89};
static const uint8_t pat_b[BYTES] = {0x03, 0x00, 0xfd, 0x80, 0x7f, 0x00, 0x00, 0xff, 0x10, 0x00, 0x00,
                                     0x00, 0xff, 0x7f, 0x01, 0x80, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00,
                                     0x00, 0x00, 0xfe, 0xff, 0xff, 0xff, 0x00, 0x00, 0x01, 0x00};
/* The mask source (words 0 5 0 -1 7 0 0 9): VCMV_NZ enables elements 1, 3, 4 and 7. */
static const int32_t pat_m[N] = {0, 5, 0, -1, 7, 0, 0, 9};
static const bool mask_nz[N] = {false, true, false, true, true, false, false, true};

/* Scalars the issuing functions read (they are captureless lambdas). */
static int g_s;
static unsigned g_u;

static void prefill_d(void)
{
    uint8_t *d = (uint8_t *)g_d;
    for (int i = 0; i < BYTES; i++)
        d[i] = (uint8_t)(0xa0 + i);
}

/* ---- reference semantics (section 3) ---------------------------------------------------------- */

/* x as a `bits`-bit pattern, read back signed or unsigned. */
static int64_t wrapv(int64_t x, int bits, bool is_signed)
{
    uint64_t u = (uint64_t)x & ((1ull << bits) - 1);
    if (is_signed && ((u >> (bits - 1)) & 1))
        return (int64_t)u - (int64_t)(1ull << bits);
    return (int64_t)u;
}

static uint32_t load_raw(const uint8_t *p, int i, int size)
{
    uint32_t v = 0;
    for (int k = 0; k < size; k++)
        v |= (uint32_t)p[i * size + k] << (8 * k);
    return v;
}

/* A source value in the operation's domain, and the source's own sign (VMULHI). */
struct Val {
    int64_t v;
    bool own;
};

enum Kind { K_VV, K_SV, K_VE, K_SE, K_VS };

/* One case: the shape and every field as the rules of section 2.9.4 give them (sizes in
 * bytes), the operands, the modifier and the instruction. */
struct Ref {
    Kind kind;
    int dsz;
    bool ds;
    int asz;      /* A field: vector A, or the scalar's size (SV, SE); VS: the vector */
    bool as;      /* A's sign (SV: the scalar's; SE: D's); VS: the vector's */
    int bsz;      /* B field: vector B (VV, SV) */
    bool bs;      /* VV, SV: B's sign; VS: the scalar's sign */
    uint32_t s;   /* the scalar word (SV, SE, VS) */
    uint32_t mods;
    const bool *mask; /* MOD_MASKED: the mask bits */
};

static int max_i(int x, int y)
{
    return x > y ? x : y;
}

/* The high W bits of the 2W-bit product (VMULHI): under a signed operation a source whose own
 * sign is unsigned is taken as its W-bit pattern. */
static int64_t mulhi(int w, bool s, Val a, Val b)
{
    int64_t ta = s && !a.own ? wrapv(a.v, w, false) : a.v;
    int64_t tb = s && !b.own ? wrapv(b.v, w, false) : b.v;
    bool neg = (ta < 0) != (tb < 0);
    uint64_t m = (uint64_t)(ta < 0 ? -ta : ta) * (uint64_t)(tb < 0 ? -tb : tb);
    if (!neg)
        return (int64_t)(m >> w);
    return -(int64_t)((m + (1ull << w) - 1) >> w); /* floor of a negative quotient */
}

/* One element of an issued instruction (VV, SV, VE, SE); false if nothing is written. */
static bool element(vinstr_t op, int w, bool s, Val a, Val b, int64_t *out)
{
    int64_t r;
    switch (op) {
    case VMOV: r = a.v; break;
    case VAND: r = a.v & b.v; break;
    case VOR: r = a.v | b.v; break;
    case VXOR: r = a.v ^ b.v; break;
    case VADD: r = a.v + b.v; break;
    case VSUB: r = a.v - b.v; break;
    case VMUL: r = (int64_t)((uint64_t)a.v * (uint64_t)b.v); break;
    case VMULHI: r = mulhi(8 * w, s, a, b); break;
    case VSLT: r = a.v < b.v; break;
    case VSGT: r = a.v > b.v; break;
    case VABSDIFF: r = a.v > b.v ? a.v - b.v : b.v - a.v; break;
    case VCMV_NZ:
        if (b.v == 0)
            return false;
        r = a.v;
        break;
    case VCMV_Z:
        if (b.v != 0)
            return false;
        r = a.v;
        break;
    default: r = 0; printf("reference: instruction %d not modelled\n", (int)op); break;
    }
    *out = wrapv(r, 8 * w, s);
    return true;
}

/* One element of a VS operation, from what the pseudo-mode means (vector x, scalar sc). */
static bool element_vs(vinstr_t op, int w, bool s, Val x, Val sc, uint32_t amount, int64_t *out)
{
    int64_t r;
    switch (op) {
    case VADD: r = x.v + sc.v; break;
    case VSUB: r = x.v - sc.v; break;
    case VSHL: r = (int64_t)((uint64_t)x.v << amount); break;
    case VSHR: /* arithmetic when the operation and the vector are signed, else logical */
        r = s && x.own ? x.v >> amount : (int64_t)((uint64_t)wrapv(x.v, 8 * w, false) >> amount);
        break;
    case VSLT: r = x.v < sc.v; break;
    case VSGT: r = x.v > sc.v; break;
    case VMOV: r = sc.v; break;
    case VMULHI: r = mulhi(8 * w, s, sc, x); break;
    case VAND: r = x.v & sc.v; break;
    case VXOR: r = x.v ^ sc.v; break;
    case VABSDIFF: r = x.v > sc.v ? x.v - sc.v : sc.v - x.v; break;
    case VCMV_NZ: /* the scalar where the vector is non-zero */
        if (x.v == 0)
            return false;
        r = sc.v;
        break;
    default: r = 0; printf("reference: VS instruction %d not modelled\n", (int)op); break;
    }
    *out = wrapv(r, 8 * w, s);
    return true;
}

static void store(uint8_t *d, int i, int size, int64_t v)
{
    for (int k = 0; k < size; k++)
        d[i * size + k] = (uint8_t)((uint64_t)v >> (8 * k));
}

/* The expected destination bytes (out starts as the prefill). */
static void reference(const Ref &r, vinstr_t op, uint8_t *out)
{
    for (int i = 0; i < BYTES; i++)
        out[i] = (uint8_t)(0xa0 + i);
    /* Calculation width (bytes) and sign. */
    int w = r.kind == K_VV || r.kind == K_SV ? max_i(r.dsz, max_i(r.asz, r.bsz)) : max_i(r.dsz, r.asz);
    bool s = r.ds;
    int64_t sum = 0;
    for (int i = 0; i < N; i++) {
        if ((r.mods & MOD_MASKED) && !r.mask[i])
            continue;
        Val a, b;
        int64_t v;
        bool written;
        if (r.kind == K_VS) {
            a.v = wrapv(wrapv(load_raw(pat_a, i, r.asz), 8 * r.asz, r.as), 8 * w, s);
            a.own = r.as;
            b.v = wrapv(wrapv(r.s, 8 * w, r.bs), 8 * w, s);
            b.own = r.bs;
            written = element_vs(op, w, s, a, b, r.s, &v);
        } else {
            if (r.kind == K_SV || r.kind == K_SE)
                a.v = wrapv(wrapv(r.s, 8 * r.asz, r.as), 8 * w, s); /* cut to A's size (3.1.3) */
            else
                a.v = wrapv(wrapv(load_raw(pat_a, i, r.asz), 8 * r.asz, r.as), 8 * w, s);
            a.own = r.as;
            if (r.kind == K_VE || r.kind == K_SE) {
                b.v = wrapv(i, 8 * w, s); /* the enumeration */
                b.own = s;
            } else {
                b.v = wrapv(wrapv(load_raw(pat_b, i, r.bsz), 8 * r.bsz, r.bs), 8 * w, s);
                b.own = r.bs;
            }
            written = element(op, w, s, a, b, &v);
        }
        if (!written)
            continue;
        if (r.mods & MOD_ACC)
            sum += v;
        else
            store(out, i, r.dsz, v);
    }
    if (r.mods & MOD_ACC) { /* one element: the sum saturated to D (3.7) */
        int bits = 8 * r.dsz;
        int64_t max = r.ds ? (1ll << (bits - 1)) - 1 : (1ll << bits) - 1, min = r.ds ? -(1ll << (bits - 1)) : 0;
        store(out, 0, r.dsz, sum > max ? max : sum < min ? (r.ds ? min : max) : sum);
    }
}

/* ---- running a case ------------------------------------------------------------------------------ */

typedef void (*issue_t)(vinstr_t);

static int g_cases, g_bad, g_errors, g_reports;

static int take_words(uint32_t *words)
{
    int n = rec_n;
    rec_n = -1;
    for (int i = 0; i < n && i < MAX_WORDS; i++)
        words[i] = rec_words[i];
    return n;
}

static void report(const char *label, vinstr_t op, const char *what, const uint32_t *w1, int n1, const uint32_t *w2,
                   int n2)
{
    if (++g_reports > 12)
        return;
    printf("  mismatch: %s, instruction %d: %s\n    vbxx:", label, (int)op, what);
    for (int i = 0; i < n1 && i < MAX_WORDS; i++)
        printf(" %08lx", (unsigned long)w1[i]);
    printf("\n    C:   ");
    for (int i = 0; i < n2 && i < MAX_WORDS; i++)
        printf(" %08lx", (unsigned long)w2[i]);
    printf("\n");
}

/* Runs the vbxx form and the C form on the same prefilled destination; compares words,
 * results, and (if given) the expected bytes. zero_b: the C form's B word (word 2) is
 * expected as 0 from vbxx (a VS VMOV). */
static void run_case(const char *label, vinstr_t op, issue_t cxx, issue_t c, const uint8_t *expect, bool zero_b)
{
    uint32_t w1[MAX_WORDS], w2[MAX_WORDS];
    uint8_t got1[BYTES];
    const uint8_t *d = (const uint8_t *)g_d;

    prefill_d();
    rec_n = 0;
    cxx(op);
    int n1 = take_words(w1);
    vbx_sync();
    for (int i = 0; i < BYTES; i++)
        got1[i] = d[i];

    prefill_d();
    rec_n = 0;
    c(op);
    int n2 = take_words(w2);
    vbx_sync();
    if (zero_b && n2 >= 3)
        w2[2] = 0;

    g_cases++;
    bool words_ok = n1 == n2 && n1 > 0 && n1 <= MAX_WORDS;
    for (int i = 0; words_ok && i < n1; i++)
        words_ok = w1[i] == w2[i];
    bool same = true, as_expected = true;
    for (int i = 0; i < BYTES; i++) {
        same = same && got1[i] == d[i];
        as_expected = as_expected && (!expect || got1[i] == expect[i]);
    }
    if (words_ok && same && as_expected)
        return;
    g_bad++;
    report(label, op, !words_ok ? "command words differ" : !same ? "results differ" : "results not as defined", w1,
           n1, w2, n2);
    if (words_ok && expect && g_reports <= 12) {
        printf("    got:     ");
        for (int i = 0; i < BYTES; i++)
            printf("%02x", got1[i]);
        printf("\n    expected:");
        for (int i = 0; i < BYTES; i++)
            printf("%02x", expect[i]);
        printf("\n");
    }
}

/* Words only, against words written out by hand (the worked examples). n = 0: nothing issued. */
static void expect_words(const char *label, vinstr_t op, issue_t cxx, int n, uint32_t w0, uint32_t a, uint32_t b,
                         uint32_t d)
{
    uint32_t w1[MAX_WORDS], w2[4] = {w0, a, b, d};
    rec_n = 0;
    cxx(op);
    int n1 = take_words(w1);
    vbx_sync();
    g_cases++;
    bool ok = n1 == n;
    for (int i = 0; ok && i < n; i++)
        ok = w1[i] == w2[i];
    if (!ok) {
        g_bad++;
        report(label, op, "words differ from the specification", w1, n1, w2, n);
    }
}

static void end_group(const char *name)
{
    printf("%-40s %3d cases, %d mismatches\n", name, g_cases, g_bad);
    g_errors += g_bad;
    g_cases = g_bad = 0;
}

/* ---- the element types, for the cases ----------------------------------------------------------- */

template <typename T_> struct ty;
template <> struct ty<vbx_byte_t> { static const int size = 1; static const bool sign = true; };
template <> struct ty<vbx_ubyte_t> { static const int size = 1; static const bool sign = false; };
template <> struct ty<vbx_half_t> { static const int size = 2; static const bool sign = true; };
template <> struct ty<vbx_uhalf_t> { static const int size = 2; static const bool sign = false; };
template <> struct ty<vbx_word_t> { static const int size = 4; static const bool sign = true; };
template <> struct ty<vbx_uword_t> { static const int size = 4; static const bool sign = false; };

/* Per type name: the C type, the mode letters of its size and sign. */
#define TY_byte vbx_byte_t
#define TY_ubyte vbx_ubyte_t
#define TY_half vbx_half_t
#define TY_uhalf vbx_uhalf_t
#define TY_word vbx_word_t
#define TY_uword vbx_uword_t
#define SZ_byte B
#define SZ_ubyte B
#define SZ_half H
#define SZ_uhalf H
#define SZ_word W
#define SZ_uword W
#define SG_byte S
#define SG_ubyte U
#define SG_half S
#define SG_uhalf U
#define SG_word S
#define SG_uword U
#define TY(t) TY_##t
#define SZ(t) SZ_##t
#define SG(t) SG_##t
/* The wider of two size letters. */
#define MAX_BB B
#define MAX_BH H
#define MAX_BW W
#define MAX_HB H
#define MAX_HH H
#define MAX_HW W
#define MAX_WB W
#define MAX_WH W
#define MAX_WW W
#define MAXSZ_(x, y) MAX_##x##y
#define MAXSZ(x, y) MAXSZ_(x, y)
#define CAT7_(a, b, c, d, e, f, g) a##b##c##d##e##f##g
#define CAT7(a, b, c, d, e, f, g) CAT7_(a, b, c, d, e, f, g)

/* The canonical mode of each shape, by the rules of section 2.9.4 (sg: the scalar's sign). */
#define MODE_VV(d, a, b) CAT7(VV, SZ(d), SZ(a), SZ(b), SG(d), SG(a), SG(b))
#define MODE_SV(d, b, sg) CAT7(SV, SZ(d), MAXSZ(SZ(d), SZ(b)), SZ(b), SG(d), sg, SG(b))
#define MODE_VE(d, a) CAT7(VE, SZ(d), SZ(a), SZ(a), SG(d), SG(a), SG(a))
#define MODE_SE(d) CAT7(SE, SZ(d), SZ(d), SZ(d), SG(d), SG(d), SG(d))
/* The C layer's VS pseudo-mode: A = the vector, B's sign = the scalar's. */
#define MODE_VS(d, v, sg) CAT7(VS, SZ(d), SZ(v), SZ(v), SG(d), SG(v), sg)

/* Every type name, at three nesting levels. */
#define FOR_TYPES_1(X, ...)                                                                        \
    X(byte, __VA_ARGS__) X(ubyte, __VA_ARGS__) X(half, __VA_ARGS__) X(uhalf, __VA_ARGS__)          \
        X(word, __VA_ARGS__) X(uword, __VA_ARGS__)
#define FOR_TYPES_2(X, ...)                                                                        \
    X(byte, __VA_ARGS__) X(ubyte, __VA_ARGS__) X(half, __VA_ARGS__) X(uhalf, __VA_ARGS__)          \
        X(word, __VA_ARGS__) X(uword, __VA_ARGS__)
#define FOR_TYPES_3(X, ...)                                                                        \
    X(byte, __VA_ARGS__) X(ubyte, __VA_ARGS__) X(half, __VA_ARGS__) X(uhalf, __VA_ARGS__)          \
        X(word, __VA_ARGS__) X(uword, __VA_ARGS__)

static vinstr_t pick(const vinstr_t *ops, int n)
{
    static int counter;
    return ops[counter++ % n];
}

/* Scalars by case number: signed and unsigned. */
static const int scal_s[6] = {-3, -100, 0x1234, -0x12345678, 77, -1};
static const unsigned scal_u[6] = {200u, 0xffffu, 0x80000001u, 0xfedcba98u, 3u, 0x8080u};
static int scal_i;
static void next_scalars(vinstr_t op)
{
    int k = scal_i++;
    if (op == VSHL || op == VSHR) { /* shift amounts 0..3 */
        g_s = k % 4;
        g_u = (unsigned)(k % 4);
    } else {
        g_s = scal_s[k % 6];
        g_u = scal_u[k % 6];
    }
}

/* ---- VV: 6 x 6 x 6 ---------------------------------------------------------------------------------- */

static const vinstr_t ops_vv[] = {VADD, VSUB, VMULHI, VSLT, VSGT, VABSDIFF, VMUL, VXOR, VMOV, VAND, VOR, VCMV_NZ, VCMV_Z};

template <typename D_, typename A_, typename B_> static void vv_case(const char *label, issue_t cxx, issue_t c)
{
    vinstr_t op = pick(ops_vv, sizeof ops_vv / sizeof ops_vv[0]);
    Ref r = {K_VV, ty<D_>::size, ty<D_>::sign, ty<A_>::size, ty<A_>::sign, ty<B_>::size, ty<B_>::sign, 0, 0, 0};
    uint8_t expect[BYTES];
    reference(r, op, expect);
    run_case(label, op, cxx, c, expect, false);
}

#define VV_CASE(b, d, a)                                                                           \
    vv_case<TY(d), TY(a), TY(b)>(                                                                  \
        "VV " #d " " #a " " #b, [](vinstr_t op) { vbxx(op, (TY(d) *)g_d, (TY(a) *)g_a, (TY(b) *)g_b); }, \
        [](vinstr_t op) { vbx(MODE_VV(d, a, b), op, g_d, g_a, op == VMOV ? (void *)0 : g_b); });
#define VV_DA(a, d) FOR_TYPES_3(VV_CASE, d, a)
#define VV_D(d, unused) FOR_TYPES_2(VV_DA, d)

static void group_vv(void)
{
    FOR_TYPES_1(VV_D, ~)
    end_group("VV (D x A x B)");
}

/* ---- SV: 6 D x 6 B x the scalar's sign --------------------------------------------------------------- */

/* VMULHI is the operation in which the sign of a word scalar shows, hence its weight. */
static const vinstr_t ops_sv[] = {VMULHI, VADD, VMULHI, VSUB, VMULHI, VMUL, VSLT, VMULHI,
                                  VSGT, VABSDIFF, VMULHI, VAND, VMOV, VCMV_NZ, VXOR};

template <typename D_, typename B_> static void sv_case(const char *label, bool sign, issue_t cxx, issue_t c)
{
    vinstr_t op = pick(ops_sv, sizeof ops_sv / sizeof ops_sv[0]);
    next_scalars(op);
    Ref r = {K_SV, ty<D_>::size, ty<D_>::sign, max_i(ty<D_>::size, ty<B_>::size), sign, ty<B_>::size,
             ty<B_>::sign, sign ? (uint32_t)g_s : g_u, 0, 0};
    uint8_t expect[BYTES];
    reference(r, op, expect);
    run_case(label, op, cxx, c, expect, false);
}

#define SV_CASE(b, d)                                                                              \
    sv_case<TY(d), TY(b)>(                                                                         \
        "SV " #d " int " #b, true, [](vinstr_t op) { vbxx(op, (TY(d) *)g_d, g_s, (TY(b) *)g_b); },   \
        [](vinstr_t op) { vbx(MODE_SV(d, b, S), op, g_d, g_s, op == VMOV ? (void *)0 : g_b); });   \
    sv_case<TY(d), TY(b)>(                                                                         \
        "SV " #d " unsigned " #b, false, [](vinstr_t op) { vbxx(op, (TY(d) *)g_d, g_u, (TY(b) *)g_b); }, \
        [](vinstr_t op) { vbx(MODE_SV(d, b, U), op, g_d, g_u, op == VMOV ? (void *)0 : g_b); });
#define SV_D(d, unused) FOR_TYPES_2(SV_CASE, d)

static void group_sv(void)
{
    FOR_TYPES_1(SV_D, ~)
    end_group("SV (D x scalar sign x B)");
}

/* ---- VE: 6 D x 6 A, 2-operand form and explicit (vbx_enum_t *)0 ----------------------------------------- */

static const vinstr_t ops_ve[] = {VADD, VSUB, VMULHI, VSLT, VMOV, VABSDIFF, VXOR};

template <typename D_, typename A_> static void ve_case(const char *label, issue_t cxx, issue_t cxx2, issue_t c)
{
    vinstr_t op = pick(ops_ve, sizeof ops_ve / sizeof ops_ve[0]);
    Ref r = {K_VE, ty<D_>::size, ty<D_>::sign, ty<A_>::size, ty<A_>::sign, ty<A_>::size, ty<A_>::sign, 0, 0, 0};
    uint8_t expect[BYTES];
    reference(r, op, expect);
    run_case(label, op, cxx, c, expect, false);
    run_case(label, op, cxx2, c, expect, false);
}

#define VE_CASE(a, d)                                                                              \
    ve_case<TY(d), TY(a)>(                                                                         \
        "VE " #d " " #a, [](vinstr_t op) { vbxx(op, (TY(d) *)g_d, (TY(a) *)g_a, (vbx_enum_t *)0); },  \
        [](vinstr_t op) { vbxx(op, (TY(d) *)g_d, (TY(a) *)g_a); },                                  \
        [](vinstr_t op) { vbx(MODE_VE(d, a), op, g_d, g_a, 0); });
#define VE_D(d, unused) FOR_TYPES_2(VE_CASE, d)

static void group_ve(void)
{
    FOR_TYPES_1(VE_D, ~)
    end_group("VE (D x A, both spellings)");
}

/* ---- SE: 6 D x the scalar's sign (ignored), both spellings ------------------------------------------------ */

static const vinstr_t ops_se[] = {VADD, VMOV, VSUB, VMULHI, VSGT, VXOR, VABSDIFF};

template <typename D_>
static void se_case(const char *label, bool sign, issue_t cxx, issue_t cxx2, issue_t c)
{
    vinstr_t op = pick(ops_se, sizeof ops_se / sizeof ops_se[0]);
    next_scalars(op);
    Ref r = {K_SE, ty<D_>::size, ty<D_>::sign, ty<D_>::size, ty<D_>::sign, ty<D_>::size, ty<D_>::sign,
             sign ? (uint32_t)g_s : g_u, 0, 0};
    uint8_t expect[BYTES];
    reference(r, op, expect);
    run_case(label, op, cxx, c, expect, false);
    run_case(label, op, cxx2, c, expect, false);
}

#define SE_CASE(d, unused)                                                                         \
    se_case<TY(d)>(                                                                                \
        "SE " #d " int", true, [](vinstr_t op) { vbxx(op, (TY(d) *)g_d, g_s); },                     \
        [](vinstr_t op) { vbxx(op, (TY(d) *)g_d, g_s, (vbx_enum_t *)0); },                          \
        [](vinstr_t op) { vbx(MODE_SE(d), op, g_d, g_s, 0); });                                    \
    se_case<TY(d)>(                                                                                \
        "SE " #d " unsigned", false, [](vinstr_t op) { vbxx(op, (TY(d) *)g_d, g_u); },               \
        [](vinstr_t op) { vbxx(op, (TY(d) *)g_d, g_u, (vbx_enum_t *)0); },                          \
        [](vinstr_t op) { vbx(MODE_SE(d), op, g_d, g_u, 0); });

static void group_se(void)
{
    FOR_TYPES_1(SE_CASE, ~)
    end_group("SE (D x scalar sign, both spellings)");
}

/* ---- VS: 6 D x 6 vector x the scalar's sign ---------------------------------------------------------------- */

static const vinstr_t ops_vs[] = {VADD, VSUB, VSHL, VSHR, VSLT, VSGT, VMOV, VMULHI, VCMV_NZ, VABSDIFF, VXOR, VSHR, VAND};

template <typename D_, typename V_> static void vs_case(const char *label, bool sign, issue_t cxx, issue_t c)
{
    vinstr_t op = pick(ops_vs, sizeof ops_vs / sizeof ops_vs[0]);
    next_scalars(op);
    Ref r = {K_VS, ty<D_>::size, ty<D_>::sign, ty<V_>::size, ty<V_>::sign, ty<V_>::size, sign,
             sign ? (uint32_t)g_s : g_u, 0, 0};
    uint8_t expect[BYTES];
    reference(r, op, expect);
    run_case(label, op, cxx, c, expect, op == VMOV);
}

#define VS_CASE(v, d)                                                                              \
    vs_case<TY(d), TY(v)>(                                                                         \
        "VS " #d " " #v " int", true, [](vinstr_t op) { vbxx(op, (TY(d) *)g_d, (TY(v) *)g_a, g_s); }, \
        [](vinstr_t op) { vbx(MODE_VS(d, v, S), op, g_d, g_a, g_s); });                            \
    vs_case<TY(d), TY(v)>(                                                                         \
        "VS " #d " " #v " unsigned", false, [](vinstr_t op) { vbxx(op, (TY(d) *)g_d, (TY(v) *)g_a, g_u); }, \
        [](vinstr_t op) { vbx(MODE_VS(d, v, U), op, g_d, g_a, g_u); });
#define VS_D(d, unused) FOR_TYPES_2(VS_CASE, d)

static void group_vs(void)
{
    FOR_TYPES_1(VS_D, ~)
    end_group("VS (D x vector x scalar sign)");
}

/* ---- the C integer types as scalars (SV, VS, SE) ------------------------------------------------------------ */

/* A scalar of type `type` and value `value`; sg: its sign letter after normalisation. The SV
 * and VS cases are VMULHI (the only operation in which a word scalar's sign shows), D word,
 * the vector half; the SE case is VADD into unsigned bytes (the scalar's sign is ignored). */
#define SCALAR_CASE(type, value, sg, is_signed)                                                    \
    {                                                                                              \
        Ref sv = {K_SV, 4, true, 4, is_signed, 2, true, (uint32_t)(type)(value), 0, 0};            \
        Ref vs = {K_VS, 4, true, 2, true, 2, is_signed, (uint32_t)(type)(value), 0, 0};            \
        Ref se = {K_SE, 1, false, 1, false, 1, false, (uint32_t)(type)(value), 0, 0};              \
        reference(sv, VMULHI, expect);                                                             \
        run_case(                                                                                  \
            "SV scalar " #type, VMULHI,                                                             \
            [](vinstr_t op) { vbxx(op, (vbx_word_t *)g_d, (type)(value), (vbx_half_t *)g_b); },     \
            [](vinstr_t op) { vbx(SVWWH##S##sg##S, op, g_d, (uint32_t)(type)(value), g_b); }, expect, false); \
        reference(vs, VMULHI, expect);                                                             \
        run_case(                                                                                  \
            "VS scalar " #type, VMULHI,                                                             \
            [](vinstr_t op) { vbxx(op, (vbx_word_t *)g_d, (vbx_half_t *)g_a, (type)(value)); },     \
            [](vinstr_t op) { vbx(VSWHHSS##sg, op, g_d, g_a, (uint32_t)(type)(value)); }, expect, false); \
        reference(se, VADD, expect);                                                               \
        run_case(                                                                                  \
            "SE scalar " #type, VADD, [](vinstr_t op) { vbxx(op, (vbx_ubyte_t *)g_d, (type)(value)); }, \
            [](vinstr_t op) { vbx(SEBU, op, g_d, (uint32_t)(type)(value), 0); }, expect, false);   \
    }

static void group_scalars(void)
{
    uint8_t expect[BYTES];
    SCALAR_CASE(signed char, -3, S, true)
    SCALAR_CASE(short, -300, S, true)
    SCALAR_CASE(int, -70000, S, true)
    SCALAR_CASE(long, -5, S, true)
    SCALAR_CASE(long long, 0x1fffffffbll, S, true) /* sent as 0xfffffffb */
    SCALAR_CASE(unsigned char, 200, U, false)
    SCALAR_CASE(unsigned short, 60000, U, false)
    SCALAR_CASE(unsigned int, 3000000000u, U, false)
    SCALAR_CASE(unsigned long, 0x80000001ul, U, false)
    SCALAR_CASE(unsigned long long, 0x1ffffffffull, U, false) /* sent as 0xffffffff */
    end_group("scalar C types (SV, VS, SE)");
}

/* ---- accumulate, masked, masked accumulate ----------------------------------------------------------------- */

/* Per D type: acc VV/SV/VE/SE/VS, masked VV/SV/VS, masked_acc VV/SV/VS. */
template <typename D_> static void mod_case(const char *label, Kind kind, uint32_t mods, vinstr_t op, int asz,
                                            bool as, int bsz, bool bs, uint32_t s, issue_t cxx, issue_t c)
{
    Ref r = {kind, ty<D_>::size, ty<D_>::sign, asz, as, bsz, bs, s, mods, mask_nz};
    uint8_t expect[BYTES];
    reference(r, op, expect);
    run_case(label, op, cxx, c, expect, false);
}

#define MOD_CASES(d, unused)                                                                       \
    mod_case<TY(d)>("acc VV " #d, K_VV, MOD_ACC, VMUL, ty<TY(d)>::size, ty<TY(d)>::sign, 1, true, 0, \
                    [](vinstr_t op) { vbxx_acc(op, (TY(d) *)g_d, (TY(d) *)g_a, (vbx_byte_t *)g_b); }, \
                    [](vinstr_t op) { vbx_acc(MODE_VV(d, d, byte), op, g_d, g_a, g_b); });          \
    mod_case<TY(d)>("acc SV " #d, K_SV, MOD_ACC, VCMV_NZ, ty<TY(d)>::size, true, ty<TY(d)>::size,   \
                    ty<TY(d)>::sign, 1, [](vinstr_t op) { vbxx_acc(op, (TY(d) *)g_d, 1, (TY(d) *)g_b); }, \
                    [](vinstr_t op) { vbx_acc(MODE_SV(d, d, S), op, g_d, 1, g_b); });               \
    mod_case<TY(d)>("acc VE " #d, K_VE, MOD_ACC, VADD, 1, false, 1, false, 0,                      \
                    [](vinstr_t op) { vbxx_acc(op, (TY(d) *)g_d, (vbx_ubyte_t *)g_a); },              \
                    [](vinstr_t op) { vbx_acc(MODE_VE(d, ubyte), op, g_d, g_a, 0); });              \
    mod_case<TY(d)>("acc SE " #d, K_SE, MOD_ACC, VADD, ty<TY(d)>::size, ty<TY(d)>::sign, 0, false, 3u, \
                    [](vinstr_t op) { vbxx_acc(op, (TY(d) *)g_d, 3u, (vbx_enum_t *)0); },             \
                    [](vinstr_t op) { vbx_acc(MODE_SE(d), op, g_d, 3u, 0); });                      \
    mod_case<TY(d)>("acc VS " #d, K_VS, MOD_ACC, VSUB, 2, true, 2, true, 2,                        \
                    [](vinstr_t op) { vbxx_acc(op, (TY(d) *)g_d, (vbx_half_t *)g_a, 2); },            \
                    [](vinstr_t op) { vbx_acc(MODE_VS(d, half, S), op, g_d, g_a, 2); });            \
    mod_case<TY(d)>("masked VV " #d, K_VV, MOD_MASKED, VSUB, 1, true, 4, false, 0,                 \
                    [](vinstr_t op) { vbxx_masked(op, (TY(d) *)g_d, (vbx_byte_t *)g_a, (vbx_uword_t *)g_b); }, \
                    [](vinstr_t op) { vbx_masked(MODE_VV(d, byte, uword), op, g_d, g_a, g_b); });   \
    mod_case<TY(d)>("masked SV " #d, K_SV, MOD_MASKED, VADD, ty<TY(d)>::size, false, 1, true, 100u, \
                    [](vinstr_t op) { vbxx_masked(op, (TY(d) *)g_d, 100u, (vbx_byte_t *)g_b); },      \
                    [](vinstr_t op) { vbx_masked(MODE_SV(d, byte, U), op, g_d, 100u, g_b); });      \
    mod_case<TY(d)>("masked VS " #d, K_VS, MOD_MASKED, VSHR, 4, false, 4, true, 1,                 \
                    [](vinstr_t op) { vbxx_masked(op, (TY(d) *)g_d, (vbx_uword_t *)g_a, 1); },        \
                    [](vinstr_t op) { vbx_masked(MODE_VS(d, uword, S), op, g_d, g_a, 1); });        \
    mod_case<TY(d)>("masked_acc VV " #d, K_VV, MOD_MASKED_ACC, VADD, 2, false, ty<TY(d)>::size,     \
                    ty<TY(d)>::sign, 0,                                                            \
                    [](vinstr_t op) { vbxx_masked_acc(op, (TY(d) *)g_d, (vbx_uhalf_t *)g_a, (TY(d) *)g_b); }, \
                    [](vinstr_t op) { vbx_masked_acc(MODE_VV(d, uhalf, d), op, g_d, g_a, g_b); });  \
    mod_case<TY(d)>("masked_acc SV " #d, K_SV, MOD_MASKED_ACC, VMUL, ty<TY(d)>::size, true,        \
                    ty<TY(d)>::size, ty<TY(d)>::sign, (uint32_t)-2,                                \
                    [](vinstr_t op) { vbxx_masked_acc(op, (TY(d) *)g_d, -2, (TY(d) *)g_b); },         \
                    [](vinstr_t op) { vbx_masked_acc(MODE_SV(d, d, S), op, g_d, -2, g_b); });       \
    mod_case<TY(d)>("masked_acc VS " #d, K_VS, MOD_MASKED_ACC, VSUB, 1, false, 1, false, 7u,       \
                    [](vinstr_t op) { vbxx_masked_acc(op, (TY(d) *)g_d, (vbx_ubyte_t *)g_a, 7u); },   \
                    [](vinstr_t op) { vbx_masked_acc(MODE_VS(d, ubyte, U), op, g_d, g_a, 7u); });

static void group_modifiers(void)
{
    vbx_setup_mask(VVW, VCMV_NZ, g_m); /* elements 1, 3, 4, 7 */
    FOR_TYPES_1(MOD_CASES, ~)
    end_group("acc, masked, masked_acc");
}

/* ---- mask set-ups --------------------------------------------------------------------------------------------- */

/* The mask is observed through a masked VMOV of A's bytes (the same C call in both runs). */
template <typename T_> static bool mask_bit(vinstr_t test, int i)
{
    int64_t v = wrapv(wrapv(load_raw(pat_b, i, ty<T_>::size), 8 * ty<T_>::size, ty<T_>::sign), 8 * ty<T_>::size,
                      ty<T_>::sign);
    switch (test) {
    case VCMV_NZ: return v != 0;
    case VCMV_Z: return v == 0;
    case VCMV_LTZ: return v < 0; /* flags of B are 0 (never written by the engine) */
    case VCMV_GTZ: return v > 0;
    default: return false;
    }
}

template <typename T_> static void mask_case(const char *label, vinstr_t test, bool narrow, issue_t cxx, issue_t c)
{
    uint8_t expect[BYTES];
    for (int i = 0; i < BYTES; i++)
        expect[i] = (uint8_t)(0xa0 + i);
    for (int i = 0; i < N; i++)
        if (mask_bit<T_>(test, i) && (!narrow || mask_nz[i]))
            expect[i] = pat_a[i];
    run_case(label, test, cxx, c, expect, false);
}

#define MASK_CASES(t, unused)                                                                      \
    mask_case<TY(t)>(                                                                              \
        "vbxx_setup_mask " #t, VCMV_NZ, false,                                                     \
        [](vinstr_t test) {                                                                        \
            vbxx_setup_mask(test, (TY(t) *)g_b);                                                   \
            vbx_masked(VVBU, VMOV, g_d, g_a, 0);                                                   \
        },                                                                                         \
        [](vinstr_t test) {                                                                        \
            vbx_setup_mask(CAT7(SV, SZ(t), SG(t), , , , ), test, g_b);                             \
            vbx_masked(VVBU, VMOV, g_d, g_a, 0);                                                   \
        });                                                                                        \
    mask_case<TY(t)>(                                                                              \
        "vbxx_setup_mask_masked " #t, VCMV_GTZ, true,                                              \
        [](vinstr_t test) {                                                                        \
            vbx_setup_mask(VVW, VCMV_NZ, g_m);                                                     \
            vbxx_setup_mask_masked(test, (TY(t) *)g_b);                                            \
            vbx_masked(VVBU, VMOV, g_d, g_a, 0);                                                   \
        },                                                                                         \
        [](vinstr_t test) {                                                                        \
            vbx_setup_mask(VVW, VCMV_NZ, g_m);                                                     \
            vbx_setup_mask_masked(CAT7(SV, SZ(t), SG(t), , , , ), test, g_b);                      \
            vbx_masked(VVBU, VMOV, g_d, g_a, 0);                                                   \
        });                                                                                        \
    mask_case<TY(t)>(                                                                              \
        "_vbxx_setup_mask " #t, VCMV_Z, false,                                                     \
        [](vinstr_t test) {                                                                        \
            _vbxx_setup_mask(test, (TY(t) *)g_b, );                                                \
            vbx_masked(VVBU, VMOV, g_d, g_a, 0);                                                   \
        },                                                                                         \
        [](vinstr_t test) {                                                                        \
            vbx_setup_mask(CAT7(SV, SZ(t), SG(t), , , , ), test, g_b);                             \
            vbx_masked(VVBU, VMOV, g_d, g_a, 0);                                                   \
        });                                                                                        \
    mask_case<TY(t)>(                                                                              \
        "vbxx(VSET_MSK_LTZ, p, p, p) " #t, VCMV_LTZ, false,                                        \
        [](vinstr_t) {                                                                             \
            vbxx(VSET_MSK_LTZ, (TY(t) *)g_b, (TY(t) *)g_b, (TY(t) *)g_b);                          \
            vbx_masked(VVBU, VMOV, g_d, g_a, 0);                                                   \
        },                                                                                         \
        [](vinstr_t) {                                                                             \
            vbx(MODE_VV(t, t, t), VSET_MSK_LTZ, g_b, g_b, g_b);                                    \
            vbx_masked(VVBU, VMOV, g_d, g_a, 0);                                                   \
        });

static void group_masks(void)
{
    FOR_TYPES_1(MASK_CASES, ~)
    end_group("mask set-ups");
}

/* ---- the worked examples of sections 2.9.4 and 2.9.5, and the rules of 2.9.2/2.9.3 ------------------------------ */

#define P(x) ((uint32_t)(uintptr_t)(x))
#define DB ((vbx_byte_t *)g_d)
#define DUB ((vbx_ubyte_t *)g_d)
#define DH ((vbx_half_t *)g_d)
#define DUH ((vbx_uhalf_t *)g_d)
#define DW ((vbx_word_t *)g_d)
#define DUW ((vbx_uword_t *)g_d)
#define AB ((vbx_byte_t *)g_a)
#define AUB ((vbx_ubyte_t *)g_a)
#define AH ((vbx_half_t *)g_a)
#define AW ((vbx_word_t *)g_a)
#define AUW ((vbx_uword_t *)g_a)
#define BUB ((vbx_ubyte_t *)g_b)
#define BB ((vbx_byte_t *)g_b)
#define BH ((vbx_half_t *)g_b)
#define BW ((vbx_word_t *)g_b)
#define EX(label, call, n, w0, a, b, d) expect_words(label, VMOV, [](vinstr_t) { call; }, n, w0, a, b, d)

static volatile vinstr_t g_var_op = VSUB; /* an instruction known only at run time */
static volatile int g_n = 0x0f;

static void group_examples(void)
{
    /* 2.9.4's table */
    EX("VADD half byte ubyte", vbxx(VADD, DH, AB, BUB), 4, M_VVHBBSSU | VADD_I, P(g_a), P(g_b), P(g_d));
    EX("VMOV word half byte", vbxx(VMOV, DW, AH, BB), 4, M_VVWHBSSS | VMOV_I, P(g_a), 0, P(g_d));
    EX("VADD byte 5 ubyte", vbxx(VADD, DB, 5, BUB), 4, M_SVBBBSSU | VADD_I, 5, P(g_b), P(g_d));
    EX("VADD byte 5u ubyte", vbxx(VADD, DB, 5u, BUB), 4, M_SVBBBSUU | VADD_I, 5, P(g_b), P(g_d));
    EX("VMUL word (signed char)-3 half", vbxx(VMUL, DW, (signed char)-3, BH), 4, M_SVWWHSSS | VMUL_I, 0xfffffffd,
       P(g_b), P(g_d));
    EX("VMUL word (unsigned char)200 half", vbxx(VMUL, DW, (unsigned char)200, BH), 4, M_SVWWHSUS | VMUL_I, 0xc8,
       P(g_b), P(g_d));
    EX("VADD byte 1 word", vbxx(VADD, DB, 1, BW), 4, M_SVBWWSSS | VADD_I, 1, P(g_b), P(g_d));
    EX("VMOV byte word (2 operands)", vbxx(VMOV, DB, AW), 4, M_VEBWWSSS | VMOV_I, P(g_a), 0, P(g_d));
    EX("VADD uhalf byte enum", vbxx(VADD, DUH, AB, (vbx_enum_t *)0), 4, M_VEHBBUSS | VADD_I, P(g_a), 0, P(g_d));
    EX("VMOV ubyte 1", vbxx(VMOV, DUB, 1), 4, M_SEBBBUUU | VMOV_I, 1, 0, P(g_d));
    EX("VMOV byte 1u", vbxx(VMOV, DB, 1u), 4, M_SEBBBSSS | VMOV_I, 1, 0, P(g_d));
    EX("VAND word n enum", vbxx(VAND, DW, (int)g_n, (vbx_enum_t *)0), 4, M_SEWWWSSS | VAND_I, 0x0f, 0, P(g_d));
    EX("VADD half byte 7", vbxx(VADD, DH, AB, 7), 4, M_SVHHBSSS | VADD_I, 7, P(g_a), P(g_d));
    EX("VADD half byte 7u", vbxx(VADD, DH, AB, 7u), 4, M_SVHHBSUS | VADD_I, 7, P(g_a), P(g_d));
    EX("VSHR byte word 8", vbxx(VSHR, DB, AW, 8), 4, M_SVBWWSUS | VMULHI_I, 0x01000000, P(g_a), P(g_d));
    EX("VSHR uhalf ubyte 2", vbxx(VSHR, DUH, AUB, 2), 4, M_SVHHBUUU | VMULHI_I, 0x4000, P(g_a), P(g_d));
    EX("VSHL half half 3", vbxx(VSHL, DH, AH, 3), 4, M_SVHHHSSS | VMUL_I, 8, P(g_a), P(g_d));
    EX("VSLT word word 3", vbxx(VSLT, DW, AW, 3), 4, M_SVWWWSSS | VSGT_I, 3, P(g_a), P(g_d));
    EX("acc VCMV_NZ word 1 word", vbxx_acc(VCMV_NZ, DW, 1, BW), 4, M_SVWWWSSS | VCMV_NZ_I | MOD_ACC, 1, P(g_b),
       P(g_d));
    /* 2.9.5: what the vbxware routines issue */
    EX("vec_power VSHR signed_conv<uword> 1",
       vbxx(VSHR, (signed_conv<vbx_uword_t>::type *)g_d, (signed_conv<vbx_uword_t>::type *)g_a, 1), 4,
       M_SVWWWSUS | VMULHI_I, 0x80000000, P(g_a), P(g_d));
    EX("vec_power VSUB word_sized<word> 0",
       vbxx(VSUB, DW, (word_sized<vbx_word_t>::type)0, BW), 4, M_SVWWWSSS | VSUB_I, 0, P(g_b), P(g_d));
    EX("mtx_2Dfir VMULLO int32_t byte", vbxx(VMULLO, (word_sized<vbx_byte_t>::type *)g_d, (int32_t)3, BB), 4,
       M_SVWWBSSS | VMUL_I, 3, P(g_b), P(g_d));
    EX("mtx_2Dfir VMULLO int32_t ubyte", vbxx(VMULLO, (word_sized<vbx_ubyte_t>::type *)g_d, (int32_t)3, BUB), 4,
       M_SVWWBUSU | VMUL_I, 3, P(g_b), P(g_d));
    EX("mtx_2Dfir VSHR byte word_sized 8", vbxx(VSHR, DB, (word_sized<vbx_byte_t>::type *)g_a, 8), 4,
       M_SVBWWSUS | VMULHI_I, 0x01000000, P(g_a), P(g_d));
    EX("mtx_2Dfir VSHR ubyte word_sized 8", vbxx(VSHR, DUB, (word_sized<vbx_ubyte_t>::type *)g_a, 8), 4,
       M_SVBWWUUU | VMULHI_I, 0x01000000, P(g_a), P(g_d));
    EX("VSUB uword uword 3u", vbxx(VSUB, DUW, AUW, 3u), 4, M_SVWWWUUU | VADD_I, 0xfffffffd, P(g_a), P(g_d));
    /* 2.9.3: a literal 0 as B is a scalar (VS VMOV broadcasts 0, B word 0) */
    EX("VMOV word word 0", vbxx(VMOV, DW, AW, 0), 4, M_SVWWWSSS | VMOV_I, 0, 0, P(g_d));
    /* 2.9.2: the 5-argument form (exact scalar types; SE converts anything) */
    EX("vbxx(MOD_ACC, VADD, word, (vbx_word_t)-2, half)", vbxx(MOD_ACC, VADD, DW, (vbx_word_t)-2, BH), 4,
       M_SVWWHSSS | VADD_I | MOD_ACC, 0xfffffffe, P(g_b), P(g_d));
    EX("vbxx(MOD_MASKED, VSUB, uhalf, byte, word)", vbxx(MOD_MASKED, VSUB, DUH, AB, BW), 4,
       M_VVHBWUSS | VSUB_I | MOD_MASKED, P(g_a), P(g_b), P(g_d));
    EX("vbxx(MOD_NONE, VMOV, word, 7.0, enum)", vbxx(MOD_NONE, VMOV, DW, 7.0, (vbx_enum_t *)0), 4,
       M_SEWWWSSS | VMOV_I, 7, 0, P(g_d));
    EX("vbxx_masked_acc VADD word word word", vbxx_masked_acc(VADD, DW, AW, BW), 4,
       M_VVWWWSSS | VADD_I | MOD_MASKED_ACC, P(g_a), P(g_b), P(g_d));
    /* 2.9.3: aliases; run-time instructions; values that are no instruction issue nothing */
    EX("VMULLO word word word", vbxx(VMULLO, DW, AW, BW), 4, M_VVWWWSSS | VMUL_I, P(g_a), P(g_b), P(g_d));
    EX("VCMV_FS word word word", vbxx(VCMV_FS, DW, AW, BW), 4, M_VVWWWSSS | VCMV_LTZ_I, P(g_a), P(g_b), P(g_d));
    EX("run-time VSUB", vbxx(g_var_op, DH, AH, BH), 4, M_VVHHHSSS | VSUB_I, P(g_a), P(g_b), P(g_d));
    EX("run-time VSUB, VS", vbxx(g_var_op, DH, AH, 5), 4, M_SVHHHSSS | VADD_I, 0xfffffffb, P(g_a), P(g_d));
    EX("instruction 46", vbxx((vinstr_t)46, DW, AW, BW), 0, 0, 0, 0, 0);
    EX("instruction 46, VS", vbxx((vinstr_t)46, DW, AW, 1), 0, 0, 0, 0, 0);
    EX("instruction 63", vbxx((vinstr_t)63, DW, 1, BW), 0, 0, 0, 0, 0);
    end_group("worked examples and rules");
}

/* ---- type_manipulation.hpp (section 2.9.6), at compile time ---------------------------------------------- */

template <typename X_, typename Y_> struct same_type { static const bool value = false; };
template <typename X_> struct same_type<X_, X_> { static const bool value = true; };
#define SAME(...) static_assert(same_type<__VA_ARGS__>::value, #__VA_ARGS__)

SAME(word_sized<vbx_byte_t>::type, vbx_word_t);
SAME(word_sized<vbx_ubyte_t>::type, vbx_uword_t);
SAME(word_sized<vbx_half_t>::type, vbx_word_t);
SAME(word_sized<vbx_uhalf_t>::type, vbx_uword_t);
SAME(word_sized<vbx_word_t>::type, vbx_word_t);
SAME(word_sized<vbx_uword_t>::type, vbx_uword_t);
SAME(word_sized<vbx_enum_t>::type, vbx_word_t);
SAME(signed_conv<vbx_byte_t>::type, vbx_byte_t);
SAME(signed_conv<vbx_ubyte_t>::type, vbx_byte_t);
SAME(signed_conv<vbx_half_t>::type, vbx_half_t);
SAME(signed_conv<vbx_uhalf_t>::type, vbx_half_t);
SAME(signed_conv<vbx_word_t>::type, vbx_word_t);
SAME(signed_conv<vbx_uword_t>::type, vbx_word_t);
SAME(signed_conv<char>::type, signed char);
SAME(unsigned_conv<vbx_byte_t>::type, vbx_ubyte_t);
SAME(unsigned_conv<vbx_ubyte_t>::type, vbx_ubyte_t);
SAME(unsigned_conv<vbx_half_t>::type, vbx_uhalf_t);
SAME(unsigned_conv<vbx_uhalf_t>::type, vbx_uhalf_t);
SAME(unsigned_conv<vbx_word_t>::type, vbx_uword_t);
SAME(unsigned_conv<vbx_uword_t>::type, vbx_uword_t);
SAME(convert_to_word_if_integral<signed char>::type, vbx_word_t);
SAME(convert_to_word_if_integral<long long>::type, vbx_word_t);
SAME(convert_to_word_if_integral<unsigned short>::type, vbx_uword_t);
SAME(convert_to_word_if_integral<char>::type, char);
SAME(bigger<vbx_half_t, vbx_byte_t>::type, vbx_half_t);
SAME(bigger<vbx_word_t, vbx_uword_t>::type, vbx_uword_t);
SAME(biggest<vbx_byte_t, vbx_uhalf_t>::type, vbx_uhalf_t);
SAME(same_sign_as<vbx_half_t, vbx_uword_t>::type, vbx_uhalf_t);
SAME(choose_type<2, char, short, long>::type, long);
SAME(types_are_equivalent<vbx_half_t, vbx_enum_t>::type, vbx_half_t);
static_assert(is_bigger<vbx_uword_t, vbx_word_t>::result && !is_bigger<vbx_word_t, vbx_uword_t>::result, "is_bigger");
static_assert(type_sign<vbx_enum_t>::is_signed && type_sign<vbx_uhalf_t>::is_unsigned, "type_sign");
static_assert(dimensions_match<2, -1>::dim == 2 && dimensions_match<3, 3>::dim == 3, "dimensions_match");

int main(void)
{
    vbx_test_init();
    g_a = vbx_sp_malloc(BYTES);
    g_b = vbx_sp_malloc(BYTES);
    g_d = vbx_sp_malloc(BYTES);
    g_m = vbx_sp_malloc(BYTES);
    for (int i = 0; i < BYTES; i++) {
        ((uint8_t *)g_a)[i] = pat_a[i];
        ((uint8_t *)g_b)[i] = pat_b[i];
    }
    for (int i = 0; i < N; i++)
        ((vbx_word_t *)g_m)[i] = pat_m[i];
    if (!is_signed<vbx_byte_t>() || is_signed<vbx_uword_t>() || !use_signed<vbx_ubyte_t, vbx_half_t>()) {
        printf("is_signed / use_signed wrong\n");
        g_errors++;
    }
    vbx_set_vl(N);

    group_vv();
    group_sv();
    group_ve();
    group_se();
    group_vs();
    group_scalars();
    group_modifiers();
    group_masks();
    group_examples();
    printf("type_manipulation.hpp: 33 static assertions (checked when compiling)\n");

    VBX_TEST_END(g_errors);
    return g_errors;
}

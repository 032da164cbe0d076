/*
 * encode.c - CPU-only check of the SDK: builds with -DVBX_PORT_CAPTURE, which sends the
 * instruction-port words to a buffer (and system-control reads to a fake register file), then
 * compares the words each API call produces with the encodings of mxp-spec.md section 2
 * (the worked examples of 2.5, the control commands of 2.4, the VS emulation of 2.8, the 2D
 * DMA choice of 4.2) and checks the descriptor and the scratchpad allocator (1.1, 1.2).
 * Prints one line per failed check and a summary; exits with the number of failures.
 * Run by run-checks.sh (QEMU or mxpsim; needs no accelerator).
 */
#include <string.h>

#include "vbx.h"
#include "vbx_test.h"

/* ---- capture ---------------------------------------------------------------------------- */

static uint32_t words[64];
static int nwords;
static uint32_t next_reply = 0x1000;

void vbx_capture_write(uint32_t word)
{
    if (nwords < 64)
        words[nwords] = word;
    nwords++;
}

uint32_t vbx_capture_read(void)
{
    return next_reply++;
}

void *vbx_capture_scratchpad(void)
{
    return (void *)(uintptr_t)MXPSIM_SCRATCHPAD; /* never dereferenced here */
}

uint32_t vbx_capture_sysctl(uint32_t offset)
{
    switch (offset) {
    case MXPSIM_SYSCTL_CACHE_LINE: return 32;
    case MXPSIM_SYSCTL_CACHE_SIZE: return 0;
    case MXPSIM_SYSCTL_MXP_LANES: return 4;
    case MXPSIM_SYSCTL_MXP_SCRATCHPAD_SIZE: return 256 << 10;
    case MXPSIM_SYSCTL_MXP_FXP_FRAC_BITS: return 16u << 16 | 15u << 8 | 4u;
    case MXPSIM_SYSCTL_MXP_MAX_MASKED_VL: return 1024;
    case MXPSIM_SYSCTL_MXP_CUSTOM_LANES: return 2u << 16 | 4u;
    case MXPSIM_SYSCTL_CLOCK_HZ: return 100000000;
    default: return 0;
    }
}

static int checks, failures;

static void expect_words(const char *what, const uint32_t *want, int n)
{
    checks++;
    int ok = nwords == n;
    for (int i = 0; ok && i < n; i++)
        ok = words[i] == want[i];
    if (!ok) {
        failures++;
        printf("FAIL %s:\n  got ", what);
        for (int i = 0; i < nwords && i < 64; i++)
            printf(" %08lx", (unsigned long)words[i]);
        printf("\n  want");
        for (int i = 0; i < n; i++)
            printf(" %08lx", (unsigned long)want[i]);
        printf("\n");
    }
    nwords = 0;
}

/* EXPECT(call, words...): run the call, compare the captured words. */
#define EXPECT(call, ...)                                                                   \
    do {                                                                                    \
        nwords = 0;                                                                         \
        call;                                                                               \
        const uint32_t want_[] = {__VA_ARGS__};                                             \
        expect_words(#call, want_, (int)(sizeof want_ / sizeof want_[0]));                  \
    } while (0)

static void expect_eq(const char *what, uint32_t got, uint32_t want)
{
    checks++;
    if (got != want) {
        failures++;
        printf("FAIL %s: got %#lx, want %#lx\n", what, (unsigned long)got, (unsigned long)want);
    }
}
#define EXPECT_EQ(expr, want) expect_eq(#expr, (uint32_t)(uintptr_t)(expr), (uint32_t)(uintptr_t)(want))

/* ---- the checks --------------------------------------------------------------------------- */

#define SP(off) ((void *)(uintptr_t)(MXPSIM_SCRATCHPAD + (off)))
#define U(x) ((uint32_t)(x))

static void worked_encodings(void)
{
    void *d = SP(0x300), *a = SP(0x100), *b = SP(0x200);
    EXPECT(vbx(VVW, VADD, d, a, b), 0x000055C8, U(a), U(b), U(d));
    EXPECT(vbx(SVHU, VMUL, d, 25, b), 0x00012A0C, 25, U(b), U(d));
    EXPECT(vbx(SEH, VAND, d, 0xf, 0), 0x0001ABC5, 0xf, 0, U(d));
    EXPECT(vbx_acc(VVWBU, VABSDIFF, d, a, b), 0x0004041F, U(a), U(b), U(d));
    EXPECT(vbx(SVWWHU, VMULLO, d, 0x10101, b), 0x0001340C, 0x10101, U(b), U(d));
    EXPECT(vbx_set_2D(-4, 8, -12), 0x00040002, 8, 0xFFFFFFF4, 0xFFFFFFFC);
    EXPECT(vbx_masked(SVW, VADD, b, 1, b), 0x000355C8, 1, U(b), U(b));
    EXPECT(vbx_setup_mask(SVW, VCMV_NZ, b), 0x000155ED, 0, U(b), U(b));
    EXPECT(vbx_setup_mask_masked(SVW, VCMV_NZ, b), 0x000355ED, 0, U(b), U(b));
    EXPECT(vbx_setup_mask(VVHU, VCMV_LTZ, b), 0x00002A2A, U(b), U(b), U(b));
    EXPECT(vbx_setup_mask(VEW, VCMV_GEZ, b), 0x0000D5EB, U(b), 0, U(b));
    EXPECT(_vbxx_setup_mask(VCMV_NZ, (vbx_uhalf_t *)b, ), 0x00012A2D, 0, U(b), U(b)); /* SVHU */
    EXPECT(_vbxx_setup_mask(VCMV_LTZ, (vbx_byte_t *)b, _masked), 0x000301EA, 0, U(b), U(b)); /* SVBS */

    uint32_t s = 0;
    next_reply = 0x81;
    EXPECT(vbx_get_mask_status(&s), 0x00060003);
    EXPECT_EQ(s, 0x81);
    EXPECT(vbx_sync(), 0x00060002);
    long vl = 0, rows = 0;
    unsigned mats = 0;
    next_reply = 10;
    EXPECT(vbx_get_vl(&vl, &rows, &mats), 0x00060000, 0x00060040, 0x00060140);
    EXPECT_EQ(vl, 10);
    EXPECT_EQ(rows, 11);
    EXPECT_EQ(mats, 12);
    EXPECT(vbx_get_vl(&vl), 0x00060000);
    int id, ia, ib;
    EXPECT(vbx_get_2D(&id, &ia, &ib), 0x00060080, 0x000600C0, 0x00060100);
    EXPECT(vbx_get_3D(&id, &ia, &ib), 0x00060180, 0x000601C0, 0x00060200);
    EXPECT(vbx_set_reg(VBX_REG_MXPCPU, 0xdeadbeef), 0x00060401, 0xdeadbeef);
    next_reply = 77;
    EXPECT(vbx_get_reg(VBX_REG_MXPCPU, &id), 0x00060400);
    EXPECT_EQ(id, 77);
}

static void control(void)
{
    EXPECT(vbx_set_vl(100), 2, 100, 1, 1);
    EXPECT(vbx_set_vl(100, 3), 2, 100, 3, 1);
    EXPECT(vbx_set_vl(100, 3, 2), 2, 100, 3, 2);
    EXPECT(vbx_set_3D(1, 2, 3), 0x00020002, 2, 3, 1);
    EXPECT(vbxasm(MOD_ACC, VVWBU, VABSDIFF, SP(3), SP(1), SP(2)), 0x0004041F, U(SP(1)), U(SP(2)), U(SP(3)));
    EXPECT(vbx_masked_acc(VVW, VADD, SP(3), SP(1), SP(2)), 0x000655C8, U(SP(1)), U(SP(2)), U(SP(3)));
    /* Enumerated B: the B word is 0 whatever is passed. */
    EXPECT(vbx(VEW, VADD, SP(3), SP(1), SP(9)), 0x0000D5C8, U(SP(1)), 0, U(SP(3)));
    EXPECT(vbx(SEH, VAND, SP(3), 0xf, SP(9)), 0x0001ABC5, 0xf, 0, U(SP(3)));
    /* A runtime instruction value. */
    volatile vinstr_t op = VMULFXP;
    EXPECT(vbx(VVW, op, SP(3), SP(1), SP(2)), 0x000055CE, U(SP(1)), U(SP(2)), U(SP(3)));
    /* Every instruction's hardware opcode (table 2.3). */
    static const uint8_t hw[46] = {4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 20, 21,
                                   24, 25, 26, 27, 28, 29, 30, 31, 40, 41, 42, 43, 44, 45, 48, 49,
                                   50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
    for (int i = 0; i <= MAX_INSTR_VAL; i++)
        expect_eq("vbx_hw_opcode", vbx_hw_opcode((vinstr_t)i), hw[i]);
    EXPECT_EQ(VMULLO_I, vbx_hw_opcode(VMULLO));
    EXPECT_EQ(VCMV_FS_I, vbx_hw_opcode(VCMV_FS));
    EXPECT_EQ(VSET_MSK_FC_I, vbx_hw_opcode(VSET_MSK_FC));
    EXPECT_EQ(VCUSTOM_I, vbx_hw_opcode(VCUSTOM));
    /* Some mode spellings (2.6). */
    EXPECT_EQ(M_VVHBU, 0x0200);
    EXPECT_EQ(M_VVWHU, 0x2C00);
    EXPECT_EQ(M_SVHWU, 0x10000 | 1 << 9 | 2 << 11 | 2 << 13);
    EXPECT_EQ(M_VVBHWSUS, 0 << 9 | 1 << 11 | 2 << 13 | 0x40 | 0x100);
    EXPECT_EQ(M_SEWS, 0x18000 | 0x55C0);
    EXPECT_EQ(M_VEHUS, 0x8000 | 0x2A00 | 0x180);
    EXPECT_EQ(M_VSWU, VBX_MODE_VS_PSEUDO | 0x5400);
}

static void dma(void)
{
    void *sp = SP(0x40);
    void *dram = (void *)(uintptr_t)0x80201000u;
    void *alias = (void *)(uintptr_t)0xC0201000u;
    EXPECT(vbx_dma_to_vector(sp, dram, 5), 1, 0x80201000, U(sp), 5);
    EXPECT(vbx_dma_to_vector(sp, alias, 5), 1, 0x80201000, U(sp), 5);
    EXPECT(vbx_dma_to_host((char *)alias + 3, sp, 64), 0, 0x80201003, U(sp), 64);
    EXPECT_EQ(VBX_DMA_ADDR(alias, 4), 0x80201000);
    EXPECT_EQ(VBX_DMA_ADDR(dram, 4), 0x80201000);
    EXPECT_EQ(VBX_UNCACHED_ADDR(dram), 0xC0201000);
    EXPECT_EQ(VBX_UNCACHED_ADDR(alias), 0xC0201000);
    EXPECT_EQ(VBX_CACHED_ADDR(alias), 0x80201000);
    EXPECT_EQ(VBX_CACHED_ADDR(dram), 0x80201000);
    EXPECT_EQ(vbx_remap_cached(alias, 16), 0x80201000);
    /* 2D, hardware form: scratchpad stride >= row length (2.4). */
    EXPECT(vbx_dma_to_vector_2D(sp, alias, 16, 3, 32, -100), 0x00018001, 32, 3, 96, 0x00010000, U(-100), 0, 0,
           0x00040001, 0x80201000, U(sp), 16);
    EXPECT(vbx_dma_to_host_2D(dram, sp, 16, 3, 64, 16), 0x00018001, 16, 3, 48, 0x00010000, 64, 0, 0, 0x00040000,
           0x80201000, U(sp), 16);
    EXPECT(vbx_dma_to_host_2D(dram, sp, 16, 2, 0, 16), 0x00018001, 16, 2, 32, 0x00010000, 0, 0, 0, 0x00040000,
           0x80201000, U(sp), 16);
    /* 2D as 1D requests: scratchpad stride 0, negative, or less than the row. */
    EXPECT(vbx_dma_to_host_2D(alias, sp, 4, 3, 8, 0), 0, 0x80201000, U(sp), 4, 0, 0x80201008, U(sp), 4, 0,
           0x80201010, U(sp), 4);
    EXPECT(vbx_dma_to_vector_2D(sp, dram, 4, 2, -4, 4), 1, 0x80201000, U(sp), 4, 1, 0x80201004, U(sp) - 4, 4);
    EXPECT(vbx_dma_to_vector_2D(sp, dram, 16, 2, 8, -16), 1, 0x80201000, U(sp), 16, 1, 0x80200FF0, U(sp) + 8, 16);
    EXPECT(vbx_dma_to_vector_2D(sp, dram, 16, 0, 16, 16), );
}

static void vs_modes(void)
{
    void *d = SP(0x300), *v = SP(0x100);
    /* VSUB -> SV VADD of -s. */
    EXPECT(vbx(VSW, VSUB, d, v, 5), 0x000155C8, U(-5), U(v), U(d));
    EXPECT(vbx(VSWU, VSUBFXP, d, v, 1), 0x00015408, U(-1), U(v), U(d));
    /* VSHR -> SV VMULHI of 2^(W-s), the multiplier unsigned. */
    EXPECT(vbx(VSHU, VSHR, d, v, 3), 0x00012A0D, 0x2000, U(v), U(d));
    EXPECT(vbx(VSW, VSHR, d, v, 1), 0x0001554D, 0x80000000, U(v), U(d));
    EXPECT(vbx(VSBWU, VSHR, d, v, 8), 0x0001500D, 0x01000000, U(v), U(d));
    EXPECT(vbx(VSH, VSHR, d, v, 0), 0x00012BC8, 0, U(v), U(d));
    EXPECT(vbx(VSB, VSHR, d, v, 8), 0x0001014D, 1, U(v), U(d));
    /* VSHL -> SV VMUL of 2^s. */
    EXPECT(vbx(VSWU, VSHL, d, v, 4), 0x0001540C, 16, U(v), U(d));
    /* Compares swap. */
    EXPECT(vbx(VSW, VSLT, d, v, 9), 0x000155D5, 9, U(v), U(d));
    EXPECT(vbx(VSW, VSGT, d, v, 9), 0x000155D4, 9, U(v), U(d));
    /* Same opcode, operands swapped. */
    EXPECT(vbx(VSW, VMOV, d, v, 7), 0x000155C4, 7, U(v), U(d));
    EXPECT(vbx(VSWU, VCMV_NZ, d, v, 3), 0x0001541D, 3, U(v), U(d));
    EXPECT(vbx(VSHBU, VADD, d, v, 300), 0x00010A08, 300, U(v), U(d));
    EXPECT(vbx(VSWSU, VAND, d, v, 0xff), 0x00015445, 0xff, U(v), U(d));
    EXPECT(vbx_acc(VSW, VMUL, d, v, 3), 0x000555CC, 3, U(v), U(d));
    EXPECT(vbx_masked(VSWU, VADD, d, v, 2), 0x00035408, 2, U(v), U(d));
}

static void descriptor_and_allocator(void)
{
    EXPECT_EQ(VBX_GET_THIS_MXP(), 0);
    EXPECT_EQ(vbx_sp_malloc(16), 0); /* no descriptor yet */
    EXPECT_EQ(vbx_test_init(), 0);
    vbx_mxp_t *m = VBX_GET_THIS_MXP();
    EXPECT_EQ(m != 0, 1);
    EXPECT_EQ(m->scratchpad_addr, MXPSIM_SCRATCHPAD);
    EXPECT_EQ(m->scratchpad_end, MXPSIM_SCRATCHPAD + (256 << 10));
    EXPECT_EQ(m->scratchpad_size, 256 << 10);
    EXPECT_EQ(m->instr_port_addr, MXPSIM_MXP_PORT);
    EXPECT_EQ(m->vector_lanes, 4);
    EXPECT_EQ(m->scratchpad_alignment_bytes, 16);
    EXPECT_EQ(m->dma_alignment_bytes, 16);
    EXPECT_EQ(m->core_freq, 100000000);
    EXPECT_EQ(m->fxp_word_frac_bits, 16);
    EXPECT_EQ(m->fxp_half_frac_bits, 15);
    EXPECT_EQ(m->fxp_byte_frac_bits, 4);
    EXPECT_EQ(m->max_masked_vector_length, 1024);
    EXPECT_EQ(m->vcustom0_lanes, 4);
    EXPECT_EQ(m->vcustom1_lanes, 2);
    EXPECT_EQ(m->vcustom2_lanes, 0);
    EXPECT_EQ(m->vector_custom_instructions, 2);
    EXPECT_EQ(m->fixed_point_support, 1);
    EXPECT_EQ(m->init, 1);
    EXPECT_EQ(m->spstack_max, 64);
    EXPECT_EQ(m->spstack_top, 0);
    EXPECT_EQ(m->sp, MXPSIM_SCRATCHPAD);

    uint32_t base = MXPSIM_SCRATCHPAD;
    EXPECT_EQ(vbx_sp_malloc(0), 0);
    EXPECT_EQ(vbx_sp_malloc(1), base);
    EXPECT_EQ(vbx_sp_malloc(16), base + 16);
    EXPECT_EQ(vbx_sp_malloc(17), base + 32);
    EXPECT_EQ(vbx_sp_getused(), 64);
    EXPECT_EQ(vbx_sp_getfree(), (256 << 10) - 64);
    vbx_sp_push();
    EXPECT_EQ(vbx_sp_malloc(100), base + 64);
    EXPECT_EQ(vbx_sp_get(), base + 64 + 112);
    vbx_sp_push();
    EXPECT_EQ(m->spstack_top, 2);
    vbx_sp_pop();
    EXPECT_EQ(vbx_sp_get(), base + 176);
    vbx_sp_pop();
    EXPECT_EQ(vbx_sp_get(), base + 64);
    /* Ending exactly at scratchpad_end is allowed; one granule more is not. */
    EXPECT_EQ(vbx_sp_malloc((256 << 10) - 64 + 1), 0);
    EXPECT_EQ(vbx_sp_malloc((256 << 10) - 64), base + 64);
    EXPECT_EQ(vbx_sp_getfree(), 0);
    EXPECT_EQ(vbx_sp_malloc(1), 0);
    vbx_sp_push();
    vbx_sp_free();
    EXPECT_EQ(vbx_sp_get(), base);
    EXPECT_EQ(m->spstack_top, 0);
    vbx_sp_set((char *)m->scratchpad_end - 20);
    EXPECT_EQ(vbx_sp_malloc(5), base + (256 << 10) - 20); /* 16 of the 20 bytes left */
    EXPECT_EQ(vbx_sp_malloc(5), 0);                       /* 16 > 4 */
}

static void padding(void)
{
    EXPECT_EQ(VBX_PAD_UP(17, 16), 32);
    EXPECT_EQ(VBX_PAD_UP(32, 16), 32);
    EXPECT_EQ(VBX_PAD_DN(31, 16), 16);
    EXPECT_EQ(VBX_IS_ALIGNED(48, 16), 1);
    EXPECT_EQ(VBX_IS_MISALIGNED(49, 16), 1);
    EXPECT_EQ(VBX_PADDING(), 16);
    EXPECT_EQ(vbx_mxp_cycles(1234), 1234);
    EXPECT_EQ(vbx_timestamp_freq(), 100000000);
}

/* Last: the template header defines T, B, H, W, ... as macros. */
#include "vbx_copyright.h"
VBXCOPYRIGHT(encode_check)

#define VBX_TEMPLATE_T VBX_BYTESIZE_DEF
#include "vbw_template_t.h"
static void template_byte(void)
{
    EXPECT(vbx(VV(T), VADD, SP(3), SP(1), SP(2)), M_VVB | 8, U(SP(1)), U(SP(2)), U(SP(3)));
    EXPECT(vbx(SV(WT), VADD, SP(3), 5, SP(2)), M_SVWB | 8, 5, U(SP(2)), U(SP(3)));
    EXPECT(vbx(VS(T), VSUB, SP(3), SP(1), 2), M_SVB | 8, U(-2), U(SP(1)), U(SP(3)));
    EXPECT_EQ(VBX_T(test_init_array) == test_init_array_byte, 1);
    EXPECT_EQ(sizeof(vbx_sp_t), 1);
    EXPECT_EQ((vbx_mm_t)-1 < 0, 1);
}
#undef VBX_TEMPLATE_T
#define VBX_TEMPLATE_T VBX_UHALFSIZE_DEF
#include "vbw_template_t.h"
static void template_uhalf(void)
{
    EXPECT(vbx(VV(T), VADD, SP(3), SP(1), SP(2)), M_VVHU | 8, U(SP(1)), U(SP(2)), U(SP(3)));
    EXPECT(vbx(VV(TB), VMOV, SP(3), SP(1), 0), M_VVHBU | 4, U(SP(1)), 0, U(SP(3)));
    EXPECT(vbx(SE(BT), VMOV, SP(3), 1, 0), M_SEBHU | 4, 1, 0, U(SP(3)));
    EXPECT(vbx(VV(W), VADD, SP(3), SP(1), SP(2)), M_VVWU | 8, U(SP(1)), U(SP(2)), U(SP(3)));
    EXPECT_EQ(VBX_T(test_init_array) == test_init_array_uhalf, 1);
    EXPECT_EQ(sizeof(vbx_sp_t), 2);
    EXPECT_EQ((vbx_mm_t)-1 > 0, 1);
}
#undef VBX_TEMPLATE_T
#define VBX_TEMPLATE_T VBX_WORDSIZE_DEF
#include "vbw_template_t.h"
static void template_word(void)
{
    EXPECT(vbx(VE(TH), VADD, SP(3), SP(1), 0), M_VEWH | 8, U(SP(1)), 0, U(SP(3)));
    EXPECT(vbx(SV(HT), VADD, SP(3), 1, SP(2)), M_SVHW | 8, 1, U(SP(2)), U(SP(3)));
    EXPECT_EQ(VBX_T(test_copy_array) == test_copy_array_word, 1);
}

int main(void)
{
    descriptor_and_allocator();
    worked_encodings();
    control();
    dma();
    vs_modes();
    padding();
    template_byte();
    template_uhalf();
    template_word();
    printf("%d checks, %d failed\n", checks, failures);
    return failures;
}

/*
 * op_machine.c - runs a small program given on the command line, one operation per argument,
 * on the machine of the detector's ground truth (detector/tests/ground_truth/machine.rs):
 * two 4-byte "lines" of DRAM and 4 bytes of scratchpad, each byte with a distinct initial
 * value, and prints the outcome. tests/provoke_ground_truth.rs generates the programs,
 * enumerates every outcome the race model allows for each, and checks what mxpsim and
 * `mxpsim provoke` make of them.
 *
 * The ground truth's DRAM offset `off` is byte `off % 4` of the 64-byte-aligned block
 * `off / 4` of `region` (so the two lines are two cache lines for any line size up to 64;
 * the other bytes of those cache lines are never accessed). Its scratchpad byte `off` is
 * byte `off` of a scratchpad vector.
 *
 * Operations (offsets and lengths in decimal):
 *   L<w><off>.<len>   load  (w: c cached DRAM, u uncached DRAM, s scratchpad)
 *   S<w><off>.<len>   store: byte i of the store at position k is 0x80 | k << 2 | i
 *   M<o><l>           maintenance (o: c clean, f flush, i inval; l: line 0, 1 or a for all;
 *                     inval of all: of the two lines, one after the other)
 *   Dv<h>.<s>.<n>     vbx_dma_to_vector(sp + s, dram + h, n)
 *   Dh<h>.<s>.<n>     vbx_dma_to_host(dram + h, sp + s, n)
 *   V<src>.<dst>.<n>  vbx(SVB, VADD, sp + dst, 0x40, sp + src) over n bytes
 *   Y                 vbx_sync()
 * Accesses are 1, 2 or 4 bytes, aligned, within one line; a DMA's DRAM side stays within
 * one line.
 *
 * Each position has its own copy of the code (step() is inlined at eight call sites), so
 * the race report tells positions apart by their program counters, as it would tell apart
 * the statements of a real program.
 *
 * Output: "outcome L=<loaded bytes> D=<DRAM bytes> S=<scratchpad bytes>", in hex, read after
 * the program (which ends with its own flush and sync if it wants the cache written back).
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 */
#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"
#include <stdlib.h>

#define LINES 2
#define LINE 4
#define BLOCK 64
#define SP 4
#define MAX_OPS 8
#define MAX_LOADED 32

static uint8_t region[LINES * BLOCK] __attribute__((aligned(BLOCK)));
static uint8_t loaded[MAX_LOADED];
static int nloaded;
static uint8_t *sp;

/* Parses up to `max` numbers "<n>.<n>.<n>" from `s`; returns how many it read. */
static int numbers(const char *s, int *out, int max)
{
    int n = 0;
    while (n < max && *s) {
        char *end;
        out[n++] = (int)strtol(s, &end, 10);
        if (*end != '.')
            break;
        s = end + 1;
    }
    return n;
}

static uint8_t *dram(int off) { return region + off / LINE * BLOCK + off % LINE; }

static void bad(const char *op)
{
    printf("bad operation '%s'\n", op);
    exit(2);
}

static inline __attribute__((always_inline)) void load(volatile uint8_t *p, int len)
{
    uint32_t v = len == 1 ? *p : len == 2 ? *(volatile uint16_t *)p : *(volatile uint32_t *)p;
    for (int i = 0; i < len; i++)
        loaded[nloaded++] = (uint8_t)(v >> (8 * i));
}

static inline __attribute__((always_inline)) void store(volatile uint8_t *p, int len, int k)
{
    uint32_t v = 0;
    for (int i = 0; i < len; i++)
        v |= (uint32_t)(0x80 | k << 2 | i) << (8 * i);
    if (len == 1)
        *p = (uint8_t)v;
    else if (len == 2)
        *(volatile uint16_t *)p = (uint16_t)v;
    else
        *(volatile uint32_t *)p = v;
}

static inline __attribute__((always_inline)) void maintain(char o, char l)
{
    if (l == 'a' && o == 'i') {
        /* Not the whole cache: that would drop this program's own dirty lines (the stack,
         * `loaded`). The machine's "all lines" are its two. */
        mxpsim_cbo_inval(region);
        mxpsim_cbo_inval(region + BLOCK);
    } else if (l == 'a') {
        if (o == 'c')
            mxpsim_dcache_clean_all();
        else
            mxpsim_dcache_flush_all();
    } else {
        const uint8_t *p = region + (l - '0') * BLOCK;
        if (o == 'c')
            mxpsim_cbo_clean(p);
        else if (o == 'f')
            mxpsim_cbo_flush(p);
        else
            mxpsim_cbo_inval(p);
    }
}

/* Operation `op` at position k. */
static inline __attribute__((always_inline)) void step(const char *op, int k)
{
    int x[3] = {0, 0, 0};
    switch (op[0]) {
    case 'L':
    case 'S': {
        if (numbers(op + 2, x, 2) != 2)
            bad(op);
        volatile uint8_t *p = op[1] == 's' ? sp + x[0] : op[1] == 'u' ? mxpsim_uncached(dram(x[0])) : dram(x[0]);
        if (op[0] == 'L')
            load(p, x[1]);
        else
            store(p, x[1], k);
        break;
    }
    case 'M':
        maintain(op[1], op[2]);
        break;
    case 'D':
        if (numbers(op + 2, x, 3) != 3)
            bad(op);
        if (op[1] == 'v')
            vbx_dma_to_vector(sp + x[1], dram(x[0]), x[2]);
        else
            vbx_dma_to_host(dram(x[0]), sp + x[1], x[2]);
        break;
    case 'V':
        if (numbers(op + 1, x, 3) != 3)
            bad(op);
        vbx_set_vl(x[2]);
        vbx(SVB, VADD, (vbx_byte_t *)(sp + x[1]), 0x40, (vbx_byte_t *)(sp + x[0]));
        break;
    case 'Y':
        vbx_sync();
        break;
    default:
        bad(op);
    }
}

static void hex(const char *label, const volatile uint8_t *p, int n, int stride)
{
    printf(" %s=", label);
    for (int i = 0; i < n; i++)
        printf("%02x", p[stride ? i / LINE * stride + i % LINE : i]);
}

int main(int argc, char **argv)
{
    vbx_test_init();
    /* picolibc's semihosting crt0 (as QEMU's): argv[0] is "program-name", argv[1] the
     * image's name, the program's arguments follow. */
    int n = argc > 2 ? argc - 2 : 0;
    if (n > MAX_OPS) {
        printf("at most %d operations\n", MAX_OPS);
        return 2;
    }
    sp = vbx_sp_malloc(SP);
    /* The initial values through the cache, then written back and dropped: the program
     * starts with them in DRAM and nothing of `region` cached, and no fill the model allows
     * can see older bytes (a fill may happen any time since the line's last flush). */
    for (int i = 0; i < LINES * LINE; i++)
        *dram(i) = (uint8_t)(0x10 + i);
    for (int i = 0; i < SP; i++)
        sp[i] = (uint8_t)(0x30 + i);
    mxpsim_dcache_flush_all();

    const char *const *ops = (const char *const *)argv + 2;
    /* One copy of the code per position. */
    if (n > 0) step(ops[0], 0);
    if (n > 1) step(ops[1], 1);
    if (n > 2) step(ops[2], 2);
    if (n > 3) step(ops[3], 3);
    if (n > 4) step(ops[4], 4);
    if (n > 5) step(ops[5], 5);
    if (n > 6) step(ops[6], 6);
    if (n > 7) step(ops[7], 7);

    printf("outcome");
    hex("L", loaded, nloaded, 0);
    hex("D", mxpsim_uncached(region), LINES * LINE, BLOCK);
    hex("S", sp, SP, 0);
    printf("\n");
    return 0;
}

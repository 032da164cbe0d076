/*
 * cache_stats.S - a fixed sequence of data accesses whose cache statistics are computed by
 * hand in tests/cache.rs (for the default cache: 16 KiB, 32-byte lines, 4 ways,
 * write-back with write-allocate). Freestanding, so nothing else touches the data cache;
 * reports through tohost (whose store is one more access).
 *
 * qemu: skip (tohost)
 * cache: default-only
 * expect-exit: 0
 */
    .section .text.init, "ax", @progbits
    .globl  _start
_start:
    la      a0, data
    lw      t0, 0(a0)       /* read miss: line 0 */
    lw      t0, 4(a0)       /* read hit */
    lw      t0, 32(a0)      /* read miss: line 1 */
    sw      t0, 8(a0)       /* write hit: line 0 dirty */
    sw      t0, 64(a0)      /* write miss: line 2 allocated, dirty */
    .insn i 0x0f, 2, x0, a0, 2  /* cbo.flush line 0: one write-back of 32 bytes */
    j       pass            /* tohost.h: its store to tohost misses too; ends the run */

    .section .data
    .balign 256
data:
    .space  256

    .section .text.init, "ax", @progbits
#define TESTNUM gp
#include "tohost.h"

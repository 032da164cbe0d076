/*
 * vbw_vec_add_2021.c - port of the SDK benchmark vbw_vec_add_t as fixed in 2021 (commit
 * 69896e9): adds two signed byte vectors of N = scratchpad size / 4 elements on the CPU and
 * on the MXP (vbxware vbw_vec_add_byte) and compares. Differs from the 2018 release
 * (vbw_vec_add.c) only in its data: the second input is seeded 2 (so in2[i] = in1[i + 1])
 * and the second DMA-in fetches vector_in2.
 *
 * Race-relevant skeleton (sdk-programs.md section 2.1): three cached buffers (malloc), then
 * three shared ones (vbx_shared_malloc) from the same heap; scalar_out (cached) is zeroed
 * before vector_in1 is written and written again by the scalar reference; nothing flushes
 * it before vector_in1 is DMA'd in. Syncs: after the routine (timed) and after the DMA-out.
 *
 * expect-exit: 0
 * qemu: skip (needs the MXP)
 * output: timing-dependent
 */
#define VBW_VEC_ADD_2021 1
#include "vbw_vec_add.c"

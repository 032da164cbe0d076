/*
 * vbw_vec_fft_cached_twiddle.c - injected bug in the port of vbw_vec_fft (sdk-programs.md):
 * the twiddle block comes from malloc, so the CPU's twiddle set-up and decimation stay in
 * dirty cache lines while every vector transform DMAs the twiddles in from memory.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=harmful
 * expect-provoke: line=32 spr/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=benign b-before-a=benign
 * expect-provoke: line=32 spr/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=benign b-before-a=benign
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=harmful
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=harmful
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=harmful
 * expect-provoke: line=32 wb/dma_r a-before-b=benign b-before-a=harmful
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=harmful
 * expect-provoke: line=32 wb/dma_r a-before-b=benign b-before-a=harmful
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=harmful
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=harmful
 * expect-provoke: line=32 wb/dma_r a-before-b=benign b-before-a=silent-corruption
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=harmful
 */
#define BUG_CACHED_TWIDDLE 1
#include "../vbw_vec_fft.c"

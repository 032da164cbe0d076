/*
 * vbw_mtx_sobel_no_final_sync.c - injected bug in the port of vbw_mtx_sobel (sdk-
 * programs.md): the vbx_sync() at the end of vbw_sobel_argb32_3x3 is removed, so the
 * comparison's reads of vbx_output race with the DMA-outs still queued (the border columns
 * above all).
 * The sync is inside the vbxware routine, and libvbxware.a holds it without the bug: this
 * program compiles its own copy of vbxware/vbw_mtx_sobel.c with the switch on, under a name of
 * its own (the header's prototype and the call are renamed with it), so the library's copy is
 * neither linked in nor in conflict.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 ur/dma_w a-before-b=benign b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=benign b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=benign b-before-a=benign
 */
#define BUG_NO_FINAL_SYNC 1
#define vbw_sobel_argb32_3x3 vbw_sobel_argb32_3x3_no_sync
#include "../vbxware/vbw_mtx_sobel.c"
#include "../vbw_mtx_sobel.c"

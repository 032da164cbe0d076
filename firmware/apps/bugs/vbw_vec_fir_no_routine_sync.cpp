/*
 * vbw_vec_fir_no_routine_sync.cpp - injected bug in the port of vbw_vec_fir_t (sdk-programs.md
 * section 2.11): the vbx_sync() at the end of vbw_vec_fir_ext_<type> is removed, so printing,
 * verifying and freeing vector_out race with the routine's DMA-out (and the next element
 * type's buffers may reuse heap memory the DMA is still writing).
 * The bug is inside the vbxware routine, and libvbxware.a holds it without the bug: this
 * program compiles its own copy of vbxware/vbw_vec_fir.cpp with the switch on, under names of
 * its own (the header's prototypes and the calls are renamed with them), so the library's
 * copy is neither linked in nor in conflict. The routine is C++, so this program is too: the
 * benchmark's C source is compiled as C++ here.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 uw/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 uw/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 uw/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 uw/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 uw/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 alloc/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 wb/dma_r a-before-b=harmful b-before-a=benign
 */
#define BUG_NO_ROUTINE_SYNC 1
#define vbw_vec_fir_ext_byte vbw_vec_fir_ext_byte_no_sync
#define vbw_vec_fir_ext_ubyte vbw_vec_fir_ext_ubyte_no_sync
#define vbw_vec_fir_ext_half vbw_vec_fir_ext_half_no_sync
#define vbw_vec_fir_ext_uhalf vbw_vec_fir_ext_uhalf_no_sync
#define vbw_vec_fir_ext_word vbw_vec_fir_ext_word_no_sync
#define vbw_vec_fir_ext_uword vbw_vec_fir_ext_uword_no_sync
#include "../vbxware/vbw_vec_fir.cpp"
#include "../vbw_vec_fir.c"

/*
 * vbw_mtx_fir_no_routine_sync.cpp - injected bug in the port of vbw_mtx_fir_t (sdk-programs.md
 * section 2.5): the vbx_sync() at the end of vbw_mtx_2Dfir_byte is removed, so printing and
 * verifying vector_out race with the routine's last DMA-outs.
 * The bug is inside the vbxware routine, and libvbxware.a holds it without the bug: this
 * program compiles its own copy of vbxware/vbw_mtx_fir.cpp with the switch on, the byte
 * wrapper under a name of its own (the header's prototype and the call are renamed with it),
 * so the library's copy is neither linked in nor in conflict. The routine is C++, so this
 * program is too: the benchmark's C source is compiled as C++ here.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=harmful b-before-a=benign
 */
#define BUG_NO_ROUTINE_SYNC 1
#define vbw_mtx_2Dfir_byte vbw_mtx_2Dfir_byte_no_sync
#include "../vbxware/vbw_mtx_fir.cpp"
#include "../vbw_mtx_fir.c"

/*
 * vbw_mtx_xp_no_routine_sync.cpp - injected bug in the port of vbw_mtx_xp (sdk-programs.md):
 * neither the vbx_sync() at the end of vbw_mtx_xp_ext_byte nor the one after it, so verifying
 * vector_out races with its DMA-out.
 * The routine's sync is inside the vbxware routine, and libvbxware.a holds it without the bug:
 * this program compiles its own copy of vbxware/vbw_mtx_xp.cpp (and through vbw_mtx_xp.h of
 * the templates in vbw_mtx_xp_template.hpp) with the switch on, the byte
 * wrappers under names of their own (the header's prototypes and the calls are renamed with
 * them), so the library's copy is neither linked in nor in conflict. The routine is C++, so
 * this program is too: the benchmark's C source is compiled as C++ here.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 ur/dma_w a-before-b=benign b-before-a=benign
 * expect-provoke: line=32 ur/dma_w a-before-b=benign b-before-a=benign
 */
#define BUG_NO_ROUTINE_SYNC 1
#define vbw_mtx_xp_ext_byte vbw_mtx_xp_ext_byte_no_sync
#define vbw_mtx_xp_byte vbw_mtx_xp_byte_no_sync
#include "../vbxware/vbw_mtx_xp.cpp"
#include "../vbw_mtx_xp.c"

/*
 * vbw_vec_power_no_loop_sync.cpp - injected bug in the port of vbw_vec_power (sdk-programs.md):
 * the vbx_sync() inside the exponent loop of vbw_vec_power_word is removed, so the CPU's
 * scratchpad load of the count races with the accumulate that writes it (and with the
 * vector instructions still queued before it); no cache is involved.
 * The switch is in the vbxware routine, so this variant compiles the routine in as well
 * (the program's own definitions keep the linker from taking libvbxware.a's copy). The
 * routine is C++, so this program is too: the benchmark's C source is compiled as C++ here.
 * The race checker must report it (tests/race_check.rs); the data may or may not come out
 * wrong in a given run, so tests/firmware.rs does not run it.
 * expect-provoke: line=32 spr/vec a-before-b=harmful b-before-a=benign
 * expect-provoke: line=32 spr/vec a-before-b=benign b-before-a=benign
 */
#define BUG_NO_LOOP_SYNC 1
#include "../vbxware/vbw_vec_power.cpp"
#include "../vbw_vec_power.c"

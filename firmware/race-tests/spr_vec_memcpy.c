/*
 * spr_vec_memcpy.c - a vector instruction writes its result vector, and before vbx_sync()
 * the CPU copies the result out of the scratchpad with libc's memcpy (CPU loads from the
 * scratchpad slave port) into a local array. The vector write is only ordered before CPU
 * accesses by a sync: spr/vec on every byte of the result. The loads are inside memcpy; the
 * finding names the user line that calls it. One finding. (The local array is only touched
 * by the CPU: no other race.)
 *
 * qemu: skip (needs the MXP)
 * expect-exit: 0
 * expect-findings: 1
 * expect-finding: spr/vec a=@copy b=@op object=scratchpad fix=sync vector=VADD:D
 * expect-provoke: spr/vec a-before-b=benign b-before-a=benign
 */
#include <string.h>

#include "vbx.h"
#include "vbx_port.h"
#include "vbx_test.h"

#define N 16 /* words */

static volatile size_t nbytes = N * 4;

int main(void)
{
    vbx_test_init();
    vbx_word_t *out = vbx_sp_malloc(N * 4);
    int32_t local[N];
    size_t n = nbytes;
    vbx_set_vl(N);

    vbx(SEW, VADD, out, 100, 0); /* @op */
    memcpy(local, out, n); /* @copy */
    vbx_sync();

    printf("local[7] = %ld\n", (long)local[7]);
    return 0;
}

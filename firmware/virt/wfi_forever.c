/*
 * wfi_forever.c - waits for an interrupt with none enabled in mie: nothing can ever wake the
 * hart. mxpsim ends the run with its "asleep" status (125) and a note naming the wfi; QEMU
 * would wait forever.
 *
 * machine-preset: virt
 * qemu: skip (waits forever)
 * expect-exit: 125
 */
#include <stdio.h>

#include "virt.h"

int main(void)
{
    printf("going to sleep\n");
    CSRW(mie, 0);
    wfi();
    printf("woken?\n");
    return 0;
}

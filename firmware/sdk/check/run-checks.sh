#!/usr/bin/env bash
# CPU-only checks of the vbx SDK (no accelerator needed):
#   1. firmware/sdk/include/vbx_modes.h is what gen_modes.py generates;
#   2. compile.c (SDK-style code) compiles with -Wall -Wextra -Werror -pedantic as gnu17, c99,
#      c11 and c2x;
#      encode.c, built with the SDK library sources and -DVBX_PORT_CAPTURE (instruction-port
#      words and system-control reads go to the program), checks command encodings, the VS
#      emulation, 2D DMA, the descriptor and the allocator; it runs under QEMU and, when
#      built, under mxpsim ($MXPSIM, default target/debug/mxpsim).
#   3. the C++ layer: compile_cxx.cpp (the call shapes of the SDK's C++ vbxware routines)
#      builds warning-free as gnu++98, 11, 14, 17 and 20; each statement of vbxx_shapes.txt
#      compiles or not as the SDK's vbxx.hpp does.
# (The programs of firmware/mxp-tests run on the real engine in `cargo test`.)
# Usage: firmware/sdk/check/run-checks.sh      (scripts/test runs it)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd -P)
cd "$ROOT"
CC=${CROSS:-riscv64-unknown-elf-}gcc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

python3 firmware/sdk/gen_modes.py >"$tmp/vbx_modes.h"
if cmp -s "$tmp/vbx_modes.h" firmware/sdk/include/vbx_modes.h; then
    echo "PASS vbx_modes.h is up to date"
else
    echo "FAIL vbx_modes.h differs from gen_modes.py output"; status=1
fi

FLAGS=(-march=rv32im -mabi=ilp32 -O2 -g -Wall -Wextra -Werror -Ifirmware/include -Ifirmware/sdk/include
    --specs=picolibc.specs --oslib=semihost --crt0=semihost
    -Wl,--defsym=__flash=0x80000000,--defsym=__flash_size=0x200000
    -Wl,--defsym=__ram=0x80200000,--defsym=__ram_size=0x1e00000 -Wl,--defsym=__stack_size=0x10000
    -DVBX_PORT_CAPTURE)
for std in gnu17 c99 c11 c2x; do
    if "$CC" "${FLAGS[@]}" -std=$std -pedantic -UVBX_PORT_CAPTURE -c firmware/sdk/check/compile.c -o "$tmp/compile.o"; then
        echo "PASS compile.c (SDK-style code, template header first) builds warning-free as $std -pedantic"
    else
        echo "FAIL compile.c as $std -pedantic"; status=1
    fi
done
"$CC" "${FLAGS[@]}" firmware/sdk/check/encode.c firmware/sdk/lib/*.c -lm -o "$tmp/encode.elf"

CXX=${CROSS:-riscv64-unknown-elf-}g++
CXXFLAGS=(-march=rv32im -mabi=ilp32 -O2 -Wall -Wextra -Werror -Ifirmware/include -Ifirmware/sdk/include
    --specs=picolibcpp.specs -fno-exceptions -fno-rtti)
for std in gnu++98 gnu++11 gnu++14 gnu++17 gnu++20; do
    if "$CXX" "${CXXFLAGS[@]}" -std=$std -c firmware/sdk/check/compile_cxx.cpp -o "$tmp/compile_cxx.o"; then
        echo "PASS compile_cxx.cpp (vbxware-style C++) builds warning-free as $std"
    else
        echo "FAIL compile_cxx.cpp as $std"; status=1
    fi
done
shapes=0 shape_failures=0
while IFS= read -r line; do
    case $line in accept:* | reject:*) ;; *) continue ;; esac
    want=${line%%:*} stmt=${line#*: }
    cat >"$tmp/shape.cpp" <<EOF_SHAPE
#include "vbx.h"
void shape(vbx_word_t *w, vbx_uword_t *uw, vbx_half_t *h, vbx_uhalf_t *uh, vbx_byte_t *b, vbx_ubyte_t *ub,
           int *ip, unsigned *up, char *cp, void *vp, const vbx_word_t *cw, volatile vbx_word_t *vw,
           int64_t *lp, vbx_enum_t *e, int n);
void shape(vbx_word_t *w, vbx_uword_t *uw, vbx_half_t *h, vbx_uhalf_t *uh, vbx_byte_t *b, vbx_ubyte_t *ub,
           int *ip, unsigned *up, char *cp, void *vp, const vbx_word_t *cw, volatile vbx_word_t *vw,
           int64_t *lp, vbx_enum_t *e, int n)
{
    vbx_word_t arr[4] = {0, 0, 0, 0};
    (void)w, (void)uw, (void)h, (void)uh, (void)b, (void)ub, (void)ip, (void)up, (void)cp, (void)vp;
    (void)cw, (void)vw, (void)lp, (void)e, (void)n, (void)arr;
    $stmt;
}
EOF_SHAPE
    if "$CXX" "${CXXFLAGS[@]}" -fsyntax-only "$tmp/shape.cpp" 2>"$tmp/shape.err"; then got=accept; else got=reject; fi
    shapes=$((shapes + 1))
    if [[ $got != "$want" ]]; then
        echo "FAIL vbxx shape: $stmt: ${got}ed, the SDK ${want}s it"
        [[ $got == accept ]] || head -n 5 "$tmp/shape.err"
        shape_failures=$((shape_failures + 1)); status=1
    fi
done <firmware/sdk/check/vbxx_shapes.txt
[[ $shape_failures -ne 0 ]] || echo "PASS vbxx argument shapes: $shapes accepted or rejected as the SDK does"

run() {  # run LABEL COMMAND...
    local label=$1 out rc=0
    shift
    out=$("$@" </dev/null 2>&1) || rc=$?
    echo "$out" | sed "s/^/  [$label] /"
    if [[ $rc -eq 0 ]]; then echo "PASS encode.elf under $label"; else echo "FAIL encode.elf under $label (exit $rc)"; status=1; fi
}
if command -v qemu-system-riscv32 >/dev/null; then
    run qemu timeout 60 qemu-system-riscv32 -machine virt -bios none -nographic -monitor none -serial none \
        -chardev stdio,id=semihost -semihosting-config enable=on,target=native,chardev=semihost \
        -kernel "$tmp/encode.elf"
fi
MXPSIM=${MXPSIM:-target/debug/mxpsim}
if [[ -x $MXPSIM ]]; then
    run mxpsim "$MXPSIM" run --max-insns 100000000 "$tmp/encode.elf"
else
    echo "FAIL $MXPSIM not built"; status=1
fi
exit $status

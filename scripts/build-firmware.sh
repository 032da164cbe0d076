#!/usr/bin/env bash
# Build the bare-metal RV32IM firmware used by mxpsim's tests and benchmarks.
#
#   scripts/build-firmware.sh             build into firmware/bin/
#   scripts/build-firmware.sh --out DIR   build into DIR/ (same layout as firmware/bin/)
#   scripts/build-firmware.sh --check     rebuild into a temporary directory and compare
#                                         byte-for-byte with the committed firmware/bin/
#   scripts/build-firmware.sh --qemu      build, then run every program under QEMU and
#                                         compare its output with NAME.expected and its
#                                         exit status with the `expect-exit:` header
#                                         (programs with a `qemu: skip` header are skipped)
#
# Program directories (one program per source file):
#   firmware/tests/*.c  -> bin/tests/NAME.elf   (picolibc + semihosting)
#   firmware/tests/*.S  -> bin/tests/NAME.elf   (freestanding: no libc, no crt0)
#   firmware/bench/*.c  -> bin/bench/NAME.elf   (picolibc + semihosting)
#                       -> bin/bench-rvc/NAME.elf (the same, -march=rv32imac: compressed)
#   firmware/imac/*.c   -> bin/imac/NAME.elf    (picolibc + semihosting, -march=rv32imac)
#   firmware/virt/*.c   -> bin/virt/NAME.elf    (the same, for QEMU virt's CLINT and UART:
#                          mxpsim --machine virt)
#   firmware/flash/*.c  -> bin/flash/NAME.elf   (the same, linked with code in QEMU virt's
#                          flash at 0x2000_0000 and data in RAM at 0x8000_0000)
#   firmware/mxp-tests/*.c -> bin/mxp-tests/NAME.elf (vbx SDK programs for the MXP;
#                             also *.cpp: C++ against the SDK's vbxx layer)
#   firmware/apps/*.c      -> bin/apps/NAME.elf      (ports of the SDK benchmarks)
#   firmware/apps/bugs/*.c -> bin/apps-bugs/NAME.elf (their injected-bug variants; *.cpp
#                             for those that compile their own copy of a C++ vbxware file)
#   firmware/race-tests/*.c -> bin/race-tests/NAME.elf (vbx SDK programs with known races,
#                              and race-free twins; expected findings in their headers)
#   firmware/apps/*.c  -> bin/apps/NAME.elf     (SDK benchmark ports; + firmware/apps/vbxware)
# To add a directory (an SDK's examples, apps, ...), add one `build_dir` line in
# build_all() below, with any extra compiler flags it needs; arguments after a `--`
# are link-only (libraries, after the program's object), e.g. "${SDK_FLAGS[@]}".
#
# The vbx SDK (firmware/sdk/lib/*.c) is built first into a static library in the
# temporary object directory (never committed): `ar rcsD` (deterministic: no
# timestamps, uids or modes), members in name order, so the ELFs linked with it are
# the same in any checkout directory. The vbxware ports (firmware/apps/vbxware/*.c and
# *.cpp) are built the same way into a second library for firmware/apps.
#
# Toolchain: Debian bookworm packages gcc-riscv64-unknown-elf (12.2.0),
# binutils-riscv64-unknown-elf (2.40) and picolibc-riscv64-unknown-elf (1.8).
# The committed ELFs are only reproducible with these exact versions.
#
# Flags, and why:
#   -march=rv32im -mabi=ilp32
#       The simulated CPU. Must be exactly "rv32im": longer strings (e.g.
#       rv32im_zicsr) break gcc's multilib selection and link the wrong picolibc.
#       Code that needs CSR (or custom) instructions enables them locally with
#       `.option arch, +zicsr` inside the asm statement, or uses .insn/.word.
#   --specs=picolibc.specs --oslib=semihost
#       picolibc, with its I/O (stdout, exit, ...) done via RISC-V semihosting.
#   --crt0=semihost
#       The semihost crt0 calls exit(main()) -> SYS_EXIT, and installs a trap
#       handler that prints "RISCV fault" + a register dump and exits 1. The
#       default crt0 loops forever after main returns.
#   --defsym=__flash=0x80000000 ... __ram=0x80200000 ...
#       Memory layout for picolibc.ld: code/rodata at the start of DRAM
#       (2 MiB), data/bss/heap/stack in the next 30 MiB, 64 KiB stack at the top
#       (the stack top is 0x82000000). Fits in mxpsim's DRAM
#       (0x8000_0000-0x83FF_FFFF) and in QEMU virt's default 128 MiB.
#   printf: picolibc 1.8's default vfprintf is the full "double" variant
#       (__d_vfprintf), which supports %lld/%llu/%jd (64-bit) and floats. Do NOT
#       add -DPICOLIBC_INTEGER_PRINTF_SCANF: that selects __i_vfprintf, which in
#       this picolibc build has no long long support.
#   -ffile-prefix-map=$ROOT=. (+ -Wa,--debug-prefix-map for .S files) and
#   compiling from $ROOT with relative source paths
#       No absolute paths end up in the ELFs (DWARF comp_dir, file names,
#       __FILE__), so the output does not depend on where the repo is checked out.
#   -Wl,--build-id=none
#       No build-id note (belt and braces; it would be content-derived anyway).
#
# C++ programs (.cpp, in any directory that build_dir globs) are compiled with
# riscv64-unknown-elf-g++ and the same flags, except:
#   --specs=picolibcpp.specs instead of picolibc.specs
#       picolibc's C++ variant: the same C library and include paths (C++ gets picolibc's
#       C headers; the toolchain has no C++ standard headers), plus crtbegin.o/crtend.o
#       (__dso_handle, needed by static objects with destructors) and its linker script
#       picolibcpp.ld (picolibc.ld that keeps exception tables).
#   -fno-exceptions -fno-rtti
#       As the SDK's own C++ builds; no unwinding or type information is needed.
#   linked through the gcc driver, not g++
#       g++ adds -lstdc++, and there is no libstdc++ for riscv64-unknown-elf in Debian
#       (nothing here needs it: no new/delete, no exceptions, no RTTI).
#   -Wl,--no-warn-rwx-segments
#       picolibcpp.ld places crtbegin.o's (writable, empty) .eh_frame in the code segment,
#       which makes that segment RWX; ld would warn. Harmless for mxpsim and QEMU, which
#       load segments without enforcing permissions.
# C++ sources of a library (build_lib: the vbxware routines the SDK writes in C++) are
# compiled the same way, and their objects are linked into C programs as well (picolibc.specs,
# no crtbegin.o): build_lib refuses one that would need C++ run-time support.
#
# Freestanding .S programs (riscv-tests style, tohost/HTIF) are linked with
# -nostdlib -nostartfiles and firmware/ld/bare.ld: everything in DRAM from
# 0x80000000, entry point `_start`. (GNU ld's default script with -Ttext would
# put the ELF headers in a PT_LOAD segment at 0x7ffff000, outside DRAM.)
#
# Loading note for simulators: picolibc programs have their initialised data
# in a PT_LOAD whose p_paddr (in the code area, 0x8000xxxx) differs from its
# p_vaddr (0x80200000); crt0 copies it from p_paddr to p_vaddr. Load segments
# at p_paddr (as QEMU does).

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
CROSS=${CROSS:-riscv64-unknown-elf-}
CC=${CROSS}gcc
CXX=${CROSS}g++

ARCH_FLAGS=(-march=rv32im -mabi=ilp32)
COMMON_FLAGS=(
    "${ARCH_FLAGS[@]}" -O2 -g
    -Wall -Wextra -Werror
    -Ifirmware/include
    -ffile-prefix-map="$ROOT"=.
    -Wa,--debug-prefix-map="$ROOT"=.
    -Wl,--build-id=none
)
# picolibc + semihosting programs (.c)
LIBC_FLAGS=(
    --specs=picolibc.specs --oslib=semihost --crt0=semihost
    -Wl,--defsym=__flash=0x80000000,--defsym=__flash_size=0x200000
    -Wl,--defsym=__ram=0x80200000,--defsym=__ram_size=0x1e00000
    -Wl,--defsym=__stack_size=0x10000
)
# picolibc + semihosting C++ programs (.cpp): LIBC_FLAGS with picolibc's C++ specs
LIBCXX_FLAGS=(
    "${LIBC_FLAGS[@]/#--specs=picolibc.specs/--specs=picolibcpp.specs}"
    -Wl,--no-warn-rwx-segments
)
# C++ code generation (compile only)
CXX_ONLY_FLAGS=(-fno-exceptions -fno-rtti)
# The usual microcontroller profile: compressed instructions and atomics. (A later -march
# overrides ARCH_FLAGS' and selects picolibc's rv32imac multilib.)
IMAC_FLAGS=(-march=rv32imac)
# A board image: code and constants in flash (QEMU virt's, 64 MiB at 0x2000_0000), data in
# RAM at 0x8000_0000. (A later --defsym overrides LIBC_FLAGS'.)
FLASH_LAYOUT=(
    -Wl,--defsym=__flash=0x20000000,--defsym=__flash_size=0x4000000
    -Wl,--defsym=__ram=0x80000000,--defsym=__ram_size=0x8000000
)
# freestanding programs (.S)
BARE_FLAGS=(
    -nostdlib -nostartfiles -static
    -T firmware/ld/bare.ld
)

die() { echo "build-firmware: error: $*" >&2; exit 2; }

usage() {
    sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

check_toolchain() {
    command -v "$CC" >/dev/null 2>&1 ||
        die "$CC not found. Install the RISC-V bare-metal toolchain, e.g. on Debian/Ubuntu:
    apt-get install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf
(or set CROSS=<prefix> for a differently named toolchain)"
    local probe log rc=0
    probe=$(mktemp -d)
    echo 'int main(void) { return 0; }' >"$probe/probe.c"
    log=$("$CC" "${COMMON_FLAGS[@]}" "${LIBC_FLAGS[@]}" "$probe/probe.c" -o "$probe/probe.elf" 2>&1) ||
        rc=$?
    rm -rf "$probe"
    [[ $rc -eq 0 ]] ||
        die "$CC cannot build an rv32im picolibc program (is picolibc-riscv64-unknown-elf installed?):
$log"
    command -v "$CXX" >/dev/null 2>&1 ||
        die "$CXX not found (C++ programs need it; it comes with gcc-riscv64-unknown-elf)"
}

# build_one SRC OUT_ELF [extra flags...]
#   Compiles and links in two steps, the object named after the program:
#   linking straight from a source lets gcc pick a random temporary object
#   name, which ld records as a file symbol for assembly sources.
build_one() {
    local src=$1 out=$2
    shift 2
    # Split the extra arguments: compile+link flags, then (after `--`) link-only ones.
    local -a extra=() libs=()
    while [[ $# -gt 0 && $1 != -- ]]; do extra+=("$1"); shift; done
    [[ $# -eq 0 ]] || { shift; libs=("$@"); }
    set -- ${extra[@]+"${extra[@]}"}
    local -a flags compile_only=()
    local compiler=$CC
    case $src in
        *.c) flags=("${COMMON_FLAGS[@]}" "${LIBC_FLAGS[@]}") ;;
        *.cpp)
            flags=("${COMMON_FLAGS[@]}" "${LIBCXX_FLAGS[@]}")
            compiler=$CXX
            compile_only=("${CXX_ONLY_FLAGS[@]}")
            ;;
        *.S) flags=("${COMMON_FLAGS[@]}" "${BARE_FLAGS[@]}") ;;
        *) die "don't know how to build $src" ;;
    esac
    local obj
    obj=$OBJDIR/$(basename "${src%.*}").o
    # From $ROOT with a relative source path: part of reproducibility. Always linked
    # through the gcc driver (C++ too: see the header).
    (cd "$ROOT" &&
        "$compiler" "${flags[@]}" ${compile_only[@]+"${compile_only[@]}"} "$@" -c "$src" -o "$obj" &&
        "$CC" "${flags[@]}" "$@" "$obj" ${libs[@]+"${libs[@]}"} -o "$out") ||
        die "failed to build $src"
    rm -f "$obj"
}

# build_dir SRC_DIR OUT_SUBDIR [extra flags...]
#   Builds every SRC_DIR/*.c, SRC_DIR/*.cpp and SRC_DIR/*.S (relative to $ROOT) into
#   $OUT/OUT_SUBDIR/NAME.elf, passing the extra flags to every compile.
build_dir() {
    local dir=$1 sub=$2
    shift 2
    mkdir -p "$OUT/$sub"
    local src name n=0
    local -A seen=()
    shopt -s nullglob
    for src in "$ROOT/$dir"/*.c "$ROOT/$dir"/*.cpp "$ROOT/$dir"/*.S; do
        name=$(basename "${src%.*}")
        [[ -z ${seen[$name]:-} ]] || die "two sources for $sub/$name.elf: ${seen[$name]} and $src"
        seen[$name]=$src
        build_one "$dir/$(basename "$src")" "$OUT/$sub/$name.elf" "$@"
        PROGRAMS+=("$dir/$(basename "$src")|$sub/$name.elf")
        n=$((n + 1))
    done
    shopt -u nullglob
    echo "built $n program(s): $dir -> $sub/"
}

# build_lib SRC_DIR LIB [extra compile flags...]
#   Compiles SRC_DIR/*.c and SRC_DIR/*.cpp (relative to $ROOT) into the static library LIB,
#   deterministically (`ar rcsD`, members in name order, C and C++ alike); the objects go to
#   LIB's directory. C++ sources get the C++ program flags (-fno-exceptions -fno-rtti,
#   picolibcpp.specs' include paths); their objects are linked into C programs too, so they
#   must need nothing from a C++ runtime: no exceptions, RTTI, new/delete or static
#   constructors (build_lib checks that no object has an .init_array, .ctors or .eh_frame).
build_lib() {
    local srcdir=$1 lib=$2
    shift 2
    local dir src name obj compiler sections
    dir=$(dirname "$lib")
    local -a objs=() srcs=() flags
    local -A seen=()
    mkdir -p "$dir"
    shopt -s nullglob
    srcs=("$ROOT/$srcdir"/*.c "$ROOT/$srcdir"/*.cpp)
    shopt -u nullglob
    [[ ${#srcs[@]} -gt 0 ]] || die "no sources in $srcdir"
    mapfile -t srcs < <(printf '%s\n' "${srcs[@]##*/}" | LC_ALL=C sort)
    for src in "${srcs[@]}"; do
        name=${src%.*}
        [[ -z ${seen[$name]:-} ]] || die "two sources for $name.o in $srcdir: ${seen[$name]} and $src"
        seen[$name]=$src
        obj=$dir/$name.o
        case $src in
            *.c) compiler=$CC flags=("${COMMON_FLAGS[@]}" "${LIBC_FLAGS[@]}") ;;
            *.cpp) compiler=$CXX flags=("${COMMON_FLAGS[@]}" "${LIBCXX_FLAGS[@]}" "${CXX_ONLY_FLAGS[@]}") ;;
        esac
        (cd "$ROOT" && "$compiler" "${flags[@]}" "$@" -c "$srcdir/$src" -o "$obj") ||
            die "failed to build $srcdir/$src"
        if [[ $src == *.cpp ]]; then
            sections=$("${CROSS}objdump" -h "$obj") || die "cannot read $obj"
            ! grep -qE ' \.(init_array|ctors|eh_frame)' <<<"$sections" ||
                die "$srcdir/$src needs C++ run-time support (static constructors or unwind tables)"
        fi
        objs+=("$obj")
    done
    rm -f "$lib"
    (cd "$dir" && "${CROSS}ar" rcsD "$lib" "${objs[@]##*/}") || die "failed to archive $lib"
    echo "built $(basename "$lib") (${#objs[@]} objects)"
}

# build_sdk_lib
#   Compiles firmware/sdk/lib/*.c into $SDK_LIB, the vbx SDK runtime linked by every
#   program that uses the SDK (build_dir ... "${SDK_FLAGS[@]}").
build_sdk_lib() {
    build_lib firmware/sdk/lib "$SDK_LIB" -Ifirmware/sdk/include
}

# build_vbw_lib
#   Compiles firmware/apps/vbxware/*.c and *.cpp (the ports of the SDK's vbxware routines the
#   apps call: C where the SDK's are C, C++ with extern "C" wrappers where the SDK's are C++)
#   into $VBW_LIB, linked before the SDK library by the apps (APP_FLAGS).
build_vbw_lib() {
    build_lib firmware/apps/vbxware "$VBW_LIB" -Ifirmware/sdk/include -Ifirmware/apps/vbxware
}

PROGRAMS=()   # "source|output" pairs, relative to $ROOT and $OUT

build_all() {
    build_dir firmware/tests tests
    build_dir firmware/bench bench
    build_dir firmware/bench bench-rvc "${IMAC_FLAGS[@]}"
    build_dir firmware/imac imac "${IMAC_FLAGS[@]}"
    build_dir firmware/virt virt "${IMAC_FLAGS[@]}"
    build_dir firmware/flash flash "${IMAC_FLAGS[@]}" "${FLASH_LAYOUT[@]}"
    build_sdk_lib
    build_dir firmware/mxp-tests mxp-tests "${SDK_FLAGS[@]}"
    build_vbw_lib
    build_dir firmware/apps apps "${APP_FLAGS[@]}"
    build_dir firmware/apps/bugs apps-bugs "${APP_FLAGS[@]}"
    build_dir firmware/race-tests race-tests "${SDK_FLAGS[@]}"
}

# --- QEMU reference run ------------------------------------------------------
# The firmware's console output (picolibc semihosting: SYS_WRITEC for stdout
# AND stderr, which are one stream in picolibc 1.8) goes to the semihosting
# chardev, here QEMU's stdout. Without `chardev=` QEMU writes it to its stderr.
# The UART (serial0) shares that chardev (mux=on), so both streams keep their order.
QEMU=${QEMU:-qemu-system-riscv32}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-120}
qemu_cmd() {  # qemu_cmd ELF
    echo "$QEMU" -machine virt -bios none -nographic -monitor none \
        -chardev stdio,mux=on,id=semihost -serial chardev:semihost \
        -semihosting-config enable=on,target=native,chardev=semihost \
        -device "loader,file=$1,cpu-num=0"
}

header_value() {  # header_value SRC KEY -> value of the first "KEY: value" line
    sed -n "s/^[[:space:]/*#]*$2:[[:space:]]*//p" "$1" | head -n 1 | sed 's/[[:space:]]*$//'
}

run_qemu() {
    command -v "$QEMU" >/dev/null 2>&1 || die "$QEMU not found (apt-get install qemu-system-misc)"
    local entry src rel expected_file want_exit skip got_exit pass=0 fail=0 skipped=0 tmp
    tmp=$(mktemp -d)
    for entry in "${PROGRAMS[@]}"; do
        src=$ROOT/${entry%%|*}
        rel=${entry#*|}
        skip=$(header_value "$src" 'qemu')
        if [[ $skip == skip* ]]; then
            skip=${skip#skip}
            printf 'SKIP %-28s %s\n' "$rel" "${skip# }"
            skipped=$((skipped + 1))
            continue
        fi
        want_exit=$(header_value "$src" 'expect-exit')
        [[ -n $want_exit ]] || want_exit=0
        expected_file=${src%.*}.expected
        got_exit=0
        # shellcheck disable=SC2046
        timeout "$QEMU_TIMEOUT" $(qemu_cmd "$OUT/$rel") </dev/null \
            >"$tmp/out" 2>"$tmp/err" || got_exit=$?
        local problems=()
        [[ $got_exit == "$want_exit" ]] || problems+=("exit status $got_exit, expected $want_exit")
        if [[ ! -e $expected_file ]]; then
            problems+=("no ${expected_file#"$ROOT"/}")
        elif ! cmp -s "$tmp/out" "$expected_file"; then
            problems+=("output differs from ${expected_file#"$ROOT"/}")
        fi
        if [[ ${#problems[@]} -eq 0 ]]; then
            printf 'PASS %s\n' "$rel"; pass=$((pass + 1))
        else
            printf 'FAIL %s: %s\n' "$rel" "$(IFS=';'; echo "${problems[*]}")"
            [[ ! -e $expected_file ]] || diff -u "$expected_file" "$tmp/out" | head -n 40 || true
            [[ ! -s $tmp/err ]] || { echo "--- qemu stderr:"; head -n 20 "$tmp/err"; }
            fail=$((fail + 1))
        fi
    done
    rm -rf "$tmp"
    echo "qemu: $pass passed, $fail failed, $skipped skipped"
    echo "qemu command: $(qemu_cmd NAME.elf) </dev/null"
    [[ $fail -eq 0 ]]
}

MODE=build
OUT=$ROOT/firmware/bin
while [[ $# -gt 0 ]]; do
    case $1 in
        --check) MODE=check; shift ;;
        --qemu) MODE=qemu; shift ;;
        --out)
            [[ $# -ge 2 ]] || die "--out needs a directory"
            OUT=$2; shift 2 ;;
        --out=*) OUT=${1#--out=}; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument: $1 (try --help)" ;;
    esac
done

check_toolchain
OBJDIR=$(mktemp -d)
trap 'rm -rf "$OBJDIR"' EXIT
# The vbx SDK library, and the flags of a program directory that uses the SDK.
SDK_LIB=$OBJDIR/sdk/libvbx.a
SDK_FLAGS=(-Ifirmware/sdk/include -- "$SDK_LIB" -lm)
# The SDK benchmark ports in firmware/apps: the SDK plus the vbxware library, and their own
# memory layout (APP_LAYOUT).
VBW_LIB=$OBJDIR/vbxware/libvbxware.a
# The apps' RAM runs to the top of mxpsim's 64 MiB DRAM (sobel and median_argb32 need 17-29 MiB
# of heap), and their heap starts at a fixed address instead of right after .bss. Which
# cached and shared buffers share a cache line -- hence which races exist -- depends only
# on the heap start modulo the line size (sdk-programs.md section 1.4), so a fixed start
# keeps every app's layout, and its verdicts, independent of its code size. 0x80400008 is
# the documented default layout (README, "SDK programs"): the heap's first block sits 8 bytes
# past a 64-byte boundary, a layout under which both races of the LCTES'21 paper
# (vbw_vec_add, vbw_mtx_motest) exist with 64-byte lines.
APP_LAYOUT=(-Wl,--defsym=__ram_size=0x3e00000 -Wl,--defsym=__heap_start=0x80400008)
APP_FLAGS=(-Ifirmware/sdk/include -Ifirmware/apps/vbxware -- "${APP_LAYOUT[@]}" "$VBW_LIB" "$SDK_LIB" -lm)

if [[ $MODE == build || $MODE == qemu ]]; then
    mkdir -p "$OUT"
    OUT=$(cd "$OUT" && pwd)
    build_all
    [[ $MODE == build ]] || run_qemu
    exit
fi

# --check
REF=$ROOT/firmware/bin
OUT=$(mktemp -d)
trap 'rm -rf "$OBJDIR" "$OUT"' EXIT
build_all >/dev/null

status=0
while IFS= read -r rel; do
    if [[ ! -e $REF/$rel ]]; then
        echo "MISSING in firmware/bin: $rel"; status=1
    elif ! cmp -s "$OUT/$rel" "$REF/$rel"; then
        echo "DIFFERS: firmware/bin/$rel"; status=1
    fi
done < <(cd "$OUT" && find . -name '*.elf' | sed 's|^\./||' | LC_ALL=C sort)
if [[ -d $REF ]]; then
    while IFS= read -r rel; do
        [[ -e $OUT/$rel ]] || { echo "EXTRA in firmware/bin (no source): $rel"; status=1; }
    done < <(cd "$REF" && find . -name '*.elf' | sed 's|^\./||' | LC_ALL=C sort)
fi

if [[ $status -eq 0 ]]; then
    echo "firmware/bin is up to date ($(cd "$OUT" && find . -name '*.elf' | wc -l) ELFs match)"
else
    echo "firmware/bin is stale: run scripts/build-firmware.sh and commit the result." >&2
    echo "(toolchain: $("$CC" --version | head -1); the committed ELFs need the versions listed in the script header)" >&2
fi
exit $status

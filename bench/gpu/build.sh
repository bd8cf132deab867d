#!/usr/bin/env bash
# Builds the GPU benchmarks into bench/gpu/out (git-ignored), for bench/gpu/run-on-device to
# run on a GPU machine (BENCH_GPU_OUT names another folder). Needs the installed udfkit package (bash scripts/run-example makes
# build/install; UDFKIT_PREFIX names another) and nvcc (NVCC, else /usr/local/cuda/bin/nvcc).
# UDFKIT_RUNTIME_LIB and UDFKIT_RUNTIME_INCLUDE take the runtime from elsewhere, e.g. the build
# tree: build/default/src/libudfkit_runtime.a and src/runtime/include. The programs depend
# on libc, libdl, pthreads, the CUDA driver (loaded at run time), and, linked statically,
# cudart, libstdc++ and the runtime.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${UDFKIT_PREFIX:-$root/build/install}
# The installed udfkit takes its Python frontend and CUDA wheels from UDFKIT_PYTHON's environment.
export UDFKIT_PYTHON=${UDFKIT_PYTHON:-$root/.venv/bin/python}
udfkit=$prefix/bin/udfkit
runtime=$(realpath "${UDFKIT_RUNTIME_LIB:-$prefix/lib/libudfkit_runtime.a}")
include=$(realpath "${UDFKIT_RUNTIME_INCLUDE:-$prefix/include}")
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
cc=${CC:-cc}
out=${BENCH_GPU_OUT:-$here/out}
# The generated sources and objects go beside it, in $out.work (git-ignored too): the device
# tool carries at most 64 MiB, and run-on-device needs only what is left in $out.
work=$out.work
for f in "$udfkit" "$runtime" "$include/udfkit/runtime.h" "$nvcc"; do
  [[ -e $f ]] || { echo "build.sh: $f is missing (run: bash scripts/run-example)" >&2; exit 1; }
done

rm -rf "$out" "$work"
mkdir -p "$work/gen" "$work/obj" "$out/link"
run() { echo "+ $*" | sed "s|$root/||g"; "$@"; }

# The runtime may link nvPTXCompiler statically; its archive then comes too. (Symbols read
# into a variable first: grep -q ending a pipe early fails it under pipefail.)
undefined=$(nm -u "$runtime" 2>/dev/null)
defined=$(nm --defined-only "$runtime" 2>/dev/null)
runtime_libs=("$runtime" -ldl -lpthread)
if grep -q ' U nvPTXCompiler' <<<"$undefined"; then
  ptxc=${UDFKIT_NVPTXCOMPILER_LIB:-}
  for c in "$(dirname "$runtime")"/libudfkit_nvptxcompiler_static.a "$prefix/lib/libudfkit_nvptxcompiler_static.a" \
           "$root"/.venv/lib/python3*/site-packages/nvidia/cu13/lib/libnvptxcompiler_static.a; do
    [[ -z $ptxc && -e $c ]] && ptxc=$c
  done
  [[ -n $ptxc ]] || { echo "build.sh: the runtime needs libnvptxcompiler_static.a: set UDFKIT_NVPTXCOMPILER_LIB" >&2; exit 1; }
  runtime_libs=("$runtime" "$ptxc" -ldl -lpthread -lm)
fi
# The runtime carries no PTX compiler unless udfkit::runtime_ptx is linked (its archive,
# kept by its anchor, and nvPTXCompiler's): the load benchmark measures it.
ptx_archive=$(dirname "$runtime")/libudfkit_runtime_ptx.a
if [[ -e $ptx_archive ]]; then
  ptxc=${UDFKIT_NVPTXCOMPILER_LIB:-$(dirname "$runtime")/libudfkit_nvptxcompiler_static.a}
  [[ -e $ptxc ]] || { echo "build.sh: $ptx_archive needs nvPTXCompiler's archive: set UDFKIT_NVPTXCOMPILER_LIB" >&2; exit 1; }
  runtime_libs=(-Xlinker --undefined=udfkit_runtime_ptx_anchor "$ptx_archive" "${runtime_libs[@]}" "$ptxc" -lm)
fi
has_ptx_compile=0
grep -qa UDFKIT_PTX_COMPILE "$runtime" && { [[ -e $ptx_archive ]] || grep -q ' U nvPTXCompiler' <<<"$undefined"; } &&
  has_ptx_compile=1
has_link=0
grep -q ' T udfkit_library_link$' <<<"$defined" &&
  grep -q udfkit_library_link "$include/udfkit/runtime.h" && has_link=1

# The UDFs, for SASS (sm_80, sm_90) and LTO-IR (compute_80, compute_90).
functions=("affine:float32(float32)" "add_f32=add:float32(float32, float32)" "affine_checked:float32(float32)"
           "above_half:bool(float32)" "add_i32:int32(int32, int32)" "add_f64:float64(float64, float64)"
           "triple_i32:int32(int32)" "half_f64:float64(float64)" "less_i32:bool(int32, int32)"
           "less_f64:bool(float64, float64)" "above_99:bool(float32)" "add_i64:int64(int64, int64)")
maps=(--kernel "map(affine)")
for f in wave gauss log_abs squash root angle power error_fn cube_root modulo hypotenuse beat poly newton_rsqrt \
         log_gamma exp_minus_one log_one_plus arc_sinh sigmoid softplus; do
  functions+=("$f:float32(float32)")
  maps+=(--kernel "map($f)")
done
archs="80-real;90"
run "$udfkit" compile "$here/udfs.cu" --function "${functions[@]}" --arch "$archs" -o "$work/gen/udfs.json"

# benchlib: map(affine) and reduce(add_f32), for bench_map and bench_reduce.
run "$udfkit" kernels "$work/gen/udfs.json" --kernel "map(affine)" --kernel "reduce(add_f32)" --name benchlib --units "$work/gen/benchlib_units.json" \
  --cuda "$work/gen/benchlib_kernels.cu" --c "$work/gen/benchlib.c" --header "$work/gen/benchlib.h"
# loadlib: a map kernel per UDF and reduce(add_f32), for bench_load and bench_link.
run "$udfkit" kernels "$work/gen/udfs.json" "${maps[@]}" --kernel "reduce(add_f32)" --name loadlib \
  --cuda "$work/gen/loadlib_kernels.cu" --c "$work/gen/loadlib.c" --header "$work/gen/loadlib.h"

# nulllib: the nullable templates and an error check, for bench_nullable.
run "$udfkit" kernels "$work/gen/udfs.json" --kernel "nullable_map(affine)" --kernel "map(affine)" \
  --kernel "map(affine_checked)" --kernel "nullable_filter(above_half)" --name nulllib --units "$work/gen/nulllib_units.json" \
  --cuda "$work/gen/nulllib_kernels.cu" --c "$work/gen/nulllib.c" --header "$work/gen/nulllib.h"

# scanlib: the scans, reduce_by_key, transform_reduce and segmented_reduce, for bench_scan.cu.
run "$udfkit" kernels "$work/gen/udfs.json" --kernel "inclusive_scan(add_i32)" --kernel "exclusive_scan(add_i32)" \
  --kernel "inclusive_scan(add_f64)" --kernel "exclusive_scan(add_f64)" --kernel "reduce_by_key(add_i32, int32)" \
  --kernel "reduce_by_key(add_f64, int32)" --kernel "transform_reduce(triple_i32, add_i32)" \
  --kernel "transform_reduce(half_f64, add_f64)" --kernel "segmented_reduce(add_i32)" \
  --kernel "segmented_reduce(add_f64)" --name scanlib --units "$work/gen/scanlib_units.json" \
  --cuda "$work/gen/scanlib_kernels.cu" --c "$work/gen/scanlib.c" --header "$work/gen/scanlib.h"

# opslib: filter (its three outputs), map over two columns and reduce, for bench_ops.cu and
# bench_host.cu.
run "$udfkit" kernels "$work/gen/udfs.json" --kernel "filter(above_half)" --kernel "filter(above_99)" \
  --kernel "filter(above_half, indices32)" --kernel "filter(above_half, values)" --kernel "map(add_f32)" \
  --kernel "reduce(add_i32)" --kernel "reduce(add_i64)" --kernel "reduce(add_f64)" --name opslib --units "$work/gen/opslib_units.json" \
  --cuda "$work/gen/opslib_kernels.cu" --c "$work/gen/opslib.c" --header "$work/gen/opslib.h"

# checklib: a launcher of each kind, for bench_launcher_checks.c and bench_arrow.c (its `_arrow`
# launchers); checkbase: the same launchers
# with their argument checks taken out (strip_checks.py), loading checklib's fatbin.
run "$udfkit" kernels "$work/gen/udfs.json" --kernel "map(affine)" --kernel "nullable_map(affine)" \
  --kernel "reduce(add_i32)" --kernel "filter(above_half)" --name checklib --units "$work/gen/checklib_units.json" --arrow \
  --cuda "$work/gen/checklib_kernels.cu" --c "$work/gen/checklib.c" --header "$work/gen/checklib.h"
run python3 "$here/strip_checks.py" checklib checkbase "$work/gen/checklib.c" "$work/gen/checklib.h" \
  "$work/gen/checkbase.c" "$work/gen/checkbase.h"

# sortlib: sort, for bench_sort.cu.
run "$udfkit" kernels "$work/gen/udfs.json" --kernel "sort(less_i32)" --kernel "sort(less_f64)" --name sortlib --units "$work/gen/sortlib_units.json" \
  --cuda "$work/gen/sortlib_kernels.cu" --c "$work/gen/sortlib.c" --header "$work/gen/sortlib.h"

# strlib: string UDFs (string_udfs.cu over <udfkit/string.cuh>), numeric and string results and
# a filter, for bench_strings.cu.
string_functions=("str_len:int64(string)" "has_needle:bool(string)" "starts_the:bool(string)"
                  "str_upper:string(string)" "first8:string(string)" "first8_packed:int64(string)")
run "$udfkit" compile "$here/string_udfs.cu" --function "${string_functions[@]}" --arch "$archs" \
  -o "$work/gen/string_udfs.json"
run "$udfkit" kernels "$work/gen/string_udfs.json" --kernel "map(str_len)" --kernel "map(has_needle)" \
  --kernel "map(starts_the)" --kernel "map(str_upper)" --kernel "map(first8)" --kernel "map(first8_packed)" \
  --kernel "filter(has_needle)" --kernel "filter(has_needle, values)" --name strlib --units "$work/gen/strlib_units.json" \
  --cuda "$work/gen/strlib_kernels.cu" --c "$work/gen/strlib.c" --header "$work/gen/strlib.h"

# declib: decimal128 and date32 UDFs (decimal_udfs.cu over <udfkit/decimal.cuh> and
# <udfkit/datetime.cuh>), for bench_decimals.cu.
decimal_functions=("mul_s4:decimal128(38,4)(decimal128(18,2), decimal128(18,2))"
                   "mul_s2:decimal128(38,2)(decimal128(18,2), decimal128(18,2))"
                   "add_d:decimal128(38,2)(decimal128(38,2), decimal128(38,2))"
                   "ymd:void(date32, int32*, int32*, int32*)")
run "$udfkit" compile "$here/decimal_udfs.cu" --function "${decimal_functions[@]}" --arch "$archs" \
  -o "$work/gen/decimal_udfs.json"
run "$udfkit" kernels "$work/gen/decimal_udfs.json" --kernel "map(mul_s4)" --kernel "map(mul_s2)" \
  --kernel "reduce(add_d)" --kernel "map(ymd)" --name declib --units "$work/gen/declib_units.json" \
  --cuda "$work/gen/declib_kernels.cu" --c "$work/gen/declib.c" --header "$work/gen/declib.h"
# The variants of reduce(add_d) bench_decimals times beside declib's (templates/kernels/
# reduce_helpers.cu.in, reduce.cu.in, launcher_reduce.c.in), name=R:W:M:G: a library each of
# reduce(add_d) alone, its kernels source starting with `#define UDFKIT_RUNS16 R` (a lane's run
# of at most R rows, then the warp's reduction; 0: one run over the warp's part),
# `#define UDFKIT_REDUCE16_MIN_BLOCKS M` (blocks a multiprocessor must hold: registers capped
# to fit) and `#define UDFKIT_STRIPES16 G` (stripes of G rounds of 256 consecutive rows
# first; 0: none), its launcher compiled with -DUDFKIT_REDUCE16_WAVES=W (the first pass's
# blocks, in waves of the blocks the device holds at once). declib has the defaults, 0:5:3:2
# (stripes of 2 since the H100 run of bench/results/decimals-sass.txt, section 6); decs0 the
# earlier defaults, 0:5:3:0.
decimal_variants=("decr8=8:5:3:0" "decs0=0:5:3:0" "decs2m4=0:5:4:2" "decm4=0:5:4:0" "decw1=0:1:3:0"
                  "decm4w1=0:1:4:0" "decs2m4w1=0:1:4:2")
for var in "${decimal_variants[@]}"; do
  lib=${var%%=*} spec=${var#*=}
  IFS=: read -r runs waves min_blocks stripes <<<"$spec"
  run "$udfkit" kernels "$work/gen/decimal_udfs.json" --kernel "reduce(add_d)" --name "$lib" \
    --cuda "$work/gen/${lib}_kernels.cu" --c "$work/gen/$lib.c" --header "$work/gen/$lib.h"
  sed -i "1i #define UDFKIT_RUNS16 $runs\\n#define UDFKIT_REDUCE16_MIN_BLOCKS $min_blocks\\n#define UDFKIT_STRIPES16 $stripes" \
    "$work/gen/${lib}_kernels.cu"
done

# bindlib: an engine of 22 kernels (16 from KERNELS entries, 6 of bind_extra.cu) calling two
# slots, packed as LTO-IR for compute_90 with SASS for sm_90 of its kernels that call no slot
# (as add_jit_library packs a SLOTS library); bindsass: the same kernels linked with the same two
# functions as SASS; the packages bench_bind binds (by the slots' names, and by others).
mkdir -p "$out/bind"
bind_kernels=(--kernel "map(price)" --kernel "reduce(combine)" --kernel "inclusive_scan(combine)"
              --kernel "exclusive_scan(combine)" --kernel "transform_reduce(price, combine)"
              --kernel "segmented_reduce(combine)" --kernel "nullable_map(price)" --kernel "nullable_reduce(combine)"
              --kernel "reduce_by_key(combine, int32)")
bind_slots=("price:float32(float32)" "combine:float32(float32, float32)")
run "$udfkit" kernels --slot "${bind_slots[@]}" "${bind_kernels[@]}" --name bindlib \
  --cuda "$work/gen/bindlib_kernels.cu" --c "$work/gen/bindlib.c" --header "$work/gen/bindlib.h"
run "$udfkit" header --function "${bind_slots[@]}" -o "$work/gen/bind_slots.h" --name bind_slots
run "$udfkit" compile "$work/gen/bindlib_kernels.cu" --arch 90 -o "$work/gen/bindlib_kernels.json"
run "$udfkit" compile "$here/bind_extra.cu" -I "$work/gen" --arch 90 -o "$work/gen/bind_extra.json"
run "$udfkit" pack "$work/gen/bindlib_kernels.json" "$work/gen/bind_extra.json" --sass 90-real -o "$work/gen/bindlib.fatbin" \
  --embed "$work/gen/bindlib_fatbin.c" --symbol bindlib_fatbin
run "$udfkit" compile "$here/bind_udfs.cu" --function "${bind_slots[@]}" --arch 90 -o "$out/bind/udfs.json"
run "$udfkit" pack "$out/bind/udfs.json" -o "$out/bind/udfs.fatbin"
run "$udfkit" compile "$here/bind_udfs_renamed.cu" --function "affine2:float32(float32)" \
  "plus:float32(float32, float32)" --arch 90 -o "$out/bind/renamed.json"
run "$udfkit" pack "$out/bind/renamed.json" -o "$out/bind/renamed.fatbin"
# eng41: issue 20's engine (map, the three filters, transform_reduce, reduce, a scan,
# nullable_map/filter/reduce, two sorts, 10 SOURCES kernels, two slots), packed as
# add_jit_library packs a SLOTS library; the package bench_bind_engine binds it to.
mkdir -p "$out/bind_engine"
eng_slots=("price:float32(float32, float32)" "keep:bool(float32)")
eng_ops=("add:float32(float32, float32)" "before:bool(float32, float32)" "after:bool(float32, float32)")
run "$udfkit" compile "$here/engine41_ops.cu" --function "${eng_ops[@]}" --arch 90 -o "$work/gen/eng41_ops.json"
run "$udfkit" kernels "$work/gen/eng41_ops.json" --slot "${eng_slots[@]}" --kernel "map(price)" --kernel "filter(keep)" \
  --kernel "filter(keep, indices32)" --kernel "filter(keep, values)" --kernel "transform_reduce(price, add)" \
  --kernel "reduce(add)" --kernel "inclusive_scan(add)" --kernel "nullable_map(price)" --kernel "nullable_filter(keep)" \
  --kernel "nullable_reduce(add)" --kernel "sort(before)" --kernel "sort(after)" --name eng41 \
  --cuda "$work/gen/eng41_kernels.cu" --c "$work/gen/eng41.c" --header "$work/gen/eng41.h"
run "$udfkit" header --function "${eng_slots[@]}" -o "$work/gen/engine41_slots.h" --name engine41_slots
run "$udfkit" compile "$work/gen/eng41_kernels.cu" -I "$work/gen" --arch 90 -o "$work/gen/eng41_kernels.json"
run "$udfkit" compile "$here/engine41_sources.cu" -I "$work/gen" --arch 90 -o "$work/gen/eng41_sources.json"
run "$udfkit" pack "$work/gen/eng41_kernels.json" "$work/gen/eng41_sources.json" "$work/gen/eng41_ops.json" \
  --sass 90-real -o "$work/gen/eng41.fatbin" --embed "$work/gen/eng41_fatbin.c" --symbol eng41_fatbin
run "$udfkit" compile "$here/engine41_package.cu" --function "${eng_slots[@]}" --arch 90 \
  -o "$work/gen/eng41_package.json"
run "$udfkit" pack "$work/gen/eng41_package.json" -o "$out/bind_engine/package.fatbin"
run "$udfkit" kernels --function "${bind_slots[@]}" "${bind_kernels[@]}" --name bindsass \
  --cuda "$work/gen/bindsass_kernels.cu" --c "$work/gen/bindsass.c" --header "$work/gen/bindsass.h"
run "$udfkit" compile "$work/gen/bindsass_kernels.cu" --arch 90 -o "$work/gen/bindsass_kernels.json"
run "$udfkit" link "$work/gen/bindsass_kernels.json" "$work/gen/bind_extra.json" "$out/bind/udfs.json" --arch 90-real \
  --compress none -o "$out/bind/sass.fatbin"

# The nvcc compiles are the slowest step (CUB): they run while udfkit works.
nvcc_flags=(-O3 -std=c++17 -gencode arch=compute_80,code=sm_80 -gencode "arch=compute_90,code=[sm_90,compute_90]"
            -I "$here" -I "$work/gen" -I "$include" -Xcompiler -Wall)
pids=()
for b in map reduce nullable scan sort host ops strings decimals; do
  run "$nvcc" "${nvcc_flags[@]}" -c "$here/bench_$b.cu" -o "$work/obj/bench_$b.o" & pids+=($!)
done

run "$udfkit" compile "$work/gen/benchlib_kernels.cu" --arch "$archs" -o "$work/gen/benchlib_kernels.json"
run "$udfkit" link "$work/gen/benchlib_kernels.json" --units "$work/gen/benchlib_units.json" "$work/gen/udfs.json" --arch "$archs" -o "$work/gen/benchlib.fatbin"
run "$udfkit" embed "$work/gen/benchlib.fatbin" --symbol benchlib_fatbin -o "$work/gen/benchlib_fatbin.c"

run "$udfkit" compile "$work/gen/scanlib_kernels.cu" --arch "$archs" -o "$work/gen/scanlib_kernels.json"
run "$udfkit" link "$work/gen/scanlib_kernels.json" --units "$work/gen/scanlib_units.json" "$work/gen/udfs.json" --arch "$archs" -o "$work/gen/scanlib.fatbin"
run "$udfkit" embed "$work/gen/scanlib.fatbin" --symbol scanlib_fatbin -o "$work/gen/scanlib_fatbin.c"

run "$udfkit" compile "$work/gen/opslib_kernels.cu" --arch "$archs" -o "$work/gen/opslib_kernels.json"
run "$udfkit" link "$work/gen/opslib_kernels.json" --units "$work/gen/opslib_units.json" "$work/gen/udfs.json" --arch "$archs" -o "$work/gen/opslib.fatbin"
run "$udfkit" embed "$work/gen/opslib.fatbin" --symbol opslib_fatbin -o "$work/gen/opslib_fatbin.c"

run "$udfkit" compile "$work/gen/checklib_kernels.cu" --arch "$archs" -o "$work/gen/checklib_kernels.json"
run "$udfkit" link "$work/gen/checklib_kernels.json" --units "$work/gen/checklib_units.json" "$work/gen/udfs.json" --arch "$archs" -o "$work/gen/checklib.fatbin"
run "$udfkit" embed "$work/gen/checklib.fatbin" --symbol checklib_fatbin -o "$work/gen/checklib_fatbin.c"

run "$udfkit" compile "$work/gen/sortlib_kernels.cu" --arch "$archs" -o "$work/gen/sortlib_kernels.json"
run "$udfkit" link "$work/gen/sortlib_kernels.json" --units "$work/gen/sortlib_units.json" "$work/gen/udfs.json" --arch "$archs" -o "$work/gen/sortlib.fatbin"
run "$udfkit" embed "$work/gen/sortlib.fatbin" --symbol sortlib_fatbin -o "$work/gen/sortlib_fatbin.c"

for lib in strlib=string_udfs declib=decimal_udfs "${decimal_variants[@]/%=*/=decimal_udfs}"; do
  run "$udfkit" compile "$work/gen/${lib%%=*}_kernels.cu" --arch "$archs" -o "$work/gen/${lib%%=*}_kernels.json"
  # Linked by units as add_jit_library links; the variants' sources were edited (sed above)
  # after their units were written, so they link whole.
  units=()
  case "${lib%%=*}" in strlib | declib) units=(--units "$work/gen/${lib%%=*}_units.json") ;; esac
  run "$udfkit" link "$work/gen/${lib%%=*}_kernels.json" "$work/gen/${lib#*=}.json" --arch "$archs" "${units[@]}" \
    -o "$work/gen/${lib%%=*}.fatbin"
  run "$udfkit" embed "$work/gen/${lib%%=*}.fatbin" --symbol "${lib%%=*}_fatbin" -o "$work/gen/${lib%%=*}_fatbin.c"
done

run "$udfkit" compile "$work/gen/nulllib_kernels.cu" --arch "$archs" -o "$work/gen/nulllib_kernels.json"
run "$udfkit" link "$work/gen/nulllib_kernels.json" --units "$work/gen/nulllib_units.json" "$work/gen/udfs.json" --arch "$archs" -o "$work/gen/nulllib.fatbin"
run "$udfkit" embed "$work/gen/nulllib.fatbin" --symbol nulllib_fatbin -o "$work/gen/nulllib_fatbin.c"

run "$udfkit" compile "$work/gen/loadlib_kernels.cu" --arch "$archs" -o "$work/gen/loadlib_kernels.json"
run "$udfkit" link "$work/gen/loadlib_kernels.json" "$work/gen/udfs.json" --arch "80-real;90-real" -o "$out/loadlib.sass.fatbin"
run "$udfkit" link "$work/gen/loadlib_kernels.json" "$work/gen/udfs.json" --arch 90-virtual --emit ptx \
  -o "$out/loadlib.compute_90.ptx"

# The same module for every architecture of two lists, packed plain and compressed, for
# bench_compress: LTO-IR for compute_75 links to SASS for all of them.
run "$udfkit" compile "$work/gen/loadlib_kernels.cu" --arch 75 -o "$work/gen/loadlib_kernels_75.json"
run "$udfkit" compile "$here/udfs.cu" --function "${functions[@]}" --arch 75 -o "$work/gen/udfs_75.json"
for set in "arch3=75-real;80-real;90" "allmajor=all-major"; do
  for mode in none speed size; do
    run "$udfkit" link "$work/gen/loadlib_kernels_75.json" "$work/gen/udfs_75.json" --arch "${set#*=}" --compress "$mode" \
      -o "$out/loadlib.${set%%=*}.$mode.fatbin"
  done
done

# Raw LTO-IR parts for udfkit_library_link: the kernel library and the UDFs, compute_90.
run "$udfkit" compile "$work/gen/loadlib_kernels.cu" --arch 90 -o "$out/link/loadlib_kernels.ltoir"
run "$udfkit" compile "$here/udfs.cu" --function "${functions[@]}" --arch 90 -o "$out/link/udfs.ltoir"

cflags=(-std=c17 -O2 -Wall -Wextra -Werror -I "$here" -I "$work/gen" -I "$include")
block=$(sed -n 's/^#define UDFKIT_BLOCK \([0-9][0-9]*\).*/\1/p' "$work/gen/loadlib_kernels.cu")
[[ -n $block ]] || { echo "build.sh: no UDFKIT_BLOCK in the generated kernels" >&2; exit 1; }
run "$cc" "${cflags[@]}" -c "$work/gen/benchlib.c" -o "$work/obj/benchlib.o"
run "$cc" "${cflags[@]}" -c "$work/gen/benchlib_fatbin.c" -o "$work/obj/benchlib_fatbin.o"
run "$cc" "${cflags[@]}" -c "$work/gen/nulllib.c" -o "$work/obj/nulllib.o"
run "$cc" "${cflags[@]}" -c "$work/gen/scanlib.c" -o "$work/obj/scanlib.o"
run "$cc" "${cflags[@]}" -c "$work/gen/scanlib_fatbin.c" -o "$work/obj/scanlib_fatbin.o"
run "$cc" "${cflags[@]}" -c "$work/gen/nulllib_fatbin.c" -o "$work/obj/nulllib_fatbin.o"
run "$cc" "${cflags[@]}" -c "$work/gen/sortlib.c" -o "$work/obj/sortlib.o"
run "$cc" "${cflags[@]}" -c "$work/gen/opslib.c" -o "$work/obj/opslib.o"
run "$cc" "${cflags[@]}" -c "$work/gen/opslib_fatbin.c" -o "$work/obj/opslib_fatbin.o"
run "$cc" "${cflags[@]}" -c "$work/gen/sortlib_fatbin.c" -o "$work/obj/sortlib_fatbin.o"
for lib in strlib declib; do
  run "$cc" "${cflags[@]}" -c "$work/gen/$lib.c" -o "$work/obj/$lib.o"
  run "$cc" "${cflags[@]}" -c "$work/gen/${lib}_fatbin.c" -o "$work/obj/${lib}_fatbin.o"
done
for var in "${decimal_variants[@]}"; do
  lib=${var%%=*} spec=${var#*=}
  IFS=: read -r runs waves min_blocks stripes <<<"$spec"
  run "$cc" "${cflags[@]}" -DUDFKIT_REDUCE16_WAVES="$waves" -c "$work/gen/$lib.c" -o "$work/obj/$lib.o"
  run "$cc" "${cflags[@]}" -c "$work/gen/${lib}_fatbin.c" -o "$work/obj/${lib}_fatbin.o"
done
run "$cc" "${cflags[@]}" -c "$work/gen/bindlib.c" -o "$work/obj/bindlib.o"
run "$cc" "${cflags[@]}" -c "$work/gen/bindlib_fatbin.c" -o "$work/obj/bindlib_fatbin.o"
run "$cc" "${cflags[@]}" -c "$here/bench_bind.c" -o "$work/obj/bench_bind.o"
run "$cc" "${cflags[@]}" -c "$work/gen/eng41.c" -o "$work/obj/eng41.o"
run "$cc" "${cflags[@]}" -c "$work/gen/eng41_fatbin.c" -o "$work/obj/eng41_fatbin.o"
run "$cc" "${cflags[@]}" -c "$here/bench_bind_engine.c" -o "$work/obj/bench_bind_engine.o"
run "$cc" "${cflags[@]}" -c "$here/bench_main.c" -o "$work/obj/bench_main.o"
run "$cc" "${cflags[@]}" -c "$work/gen/checklib.c" -o "$work/obj/checklib.o"
# The checks' helpers stay in the copy, unused.
run "$cc" "${cflags[@]}" -Wno-unused-function -c "$work/gen/checkbase.c" -o "$work/obj/checkbase.o"
run "$cc" "${cflags[@]}" -c "$work/gen/checklib_fatbin.c" -o "$work/obj/checklib_fatbin.o"
run "$cc" "${cflags[@]}" -c "$here/bench_launcher_checks.c" -o "$work/obj/bench_launcher_checks.o"
run "$cc" "${cflags[@]}" -c "$here/bench_arrow.c" -o "$work/obj/bench_arrow.o"
run "$cc" "${cflags[@]}" -DBENCH_RUNTIME_HAS_PTX_COMPILE=$has_ptx_compile -c "$here/bench_load.c" -o "$work/obj/bench_load.o"
run "$cc" "${cflags[@]}" -DBENCH_HAS_LINK=$has_link -DBENCH_LINK_BLOCK="$block" -c "$here/bench_link.c" \
  -o "$work/obj/bench_link.o"

for pid in "${pids[@]}"; do wait "$pid"; done
# One program: the runtime and the nvPTXCompiler it may carry are linked once.
run "$nvcc" -arch=sm_90 -Xcompiler -static-libstdc++,-static-libgcc "$work"/obj/*.o "${runtime_libs[@]}" \
  -o "$out/udfkit_bench"

{
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)')"
  echo "udfkit: $("$udfkit" --version | head -1)"
  echo "runtime: $runtime (sha256 $(sha256sum "$runtime" | cut -c1-16)), header $include/udfkit/runtime.h"
  echo "runtime link line: ${runtime_libs[*]}"
  echo "runtime has UDFKIT_PTX_COMPILE: $has_ptx_compile; udfkit_library_link: $has_link"
  echo "nvcc: $("$nvcc" --version | tail -1)"
  echo "kernel block (UDFKIT_BLOCK): $block"
} | sed "s|$root/||g" >"$out/BUILD_INFO"
cat "$out/BUILD_INFO"
((has_link)) || echo "build.sh: WARNING: $runtime or its header has no udfkit_library_link: 'link' not built" >&2
((has_ptx_compile)) ||
  echo "build.sh: WARNING: $runtime knows no UDFKIT_PTX_COMPILE: 'load' measures no nvPTXCompiler load" >&2
echo "build.sh: built $out/udfkit_bench ($(du -m "$out/udfkit_bench" | cut -f1) MB); carry bench/gpu/out" | sed "s|$root/||g"

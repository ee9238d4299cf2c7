#!/usr/bin/env bash
# nvcc_build.sh NVCC INCDIR LIBDIR SRCDIR OUTDIR OSHRUN - builds the device tests with nvcc as an application would:
# each .cu on its own with plain `nvcc -c` (no -rdc, no device link), two units in one program, kernels in a shared
# library; links them with libgshmem; runs one under oshrun, which must skip (77) where there is no GPU and pass where
# there is one.
set -eu
NVCC=$1 INC=$2 LIB=$3 SRC=$4 OUT=$5 OSHRUN=$6
mkdir -p "$OUT"
arch=${GSHMEM_NVCC_ARCH:-sm_80}
flags=(-std=c++17 -arch="$arch" -I"$INC" -I"$SRC" -Xcompiler -Wall)
"$NVCC" "${flags[@]}" -c "$SRC/dev_api_compile.cu" -o "$OUT/dev_api_compile.o"
echo "ok: every family of the device API compiles"
# what the library costs a unit: its kernels and nothing else (a stream-ordered routine's kernel where it is called),
# and the failure path once, called from the checks (inlined, it was 805 copies in dev_rma)
for v in "" -DWITH_STREAM; do
  "$NVCC" "${flags[@]}" $v -ptx "$SRC/dev_size.cu" -o "$OUT/dev_size.ptx"
  entries=$(grep -c '\.entry ' "$OUT/dev_size.ptx" || true)
  defs=$(awk '/^\.func .*shmemgi4fail/ { f = 1; next } f && /^\{/ { n++; f = 0 } f && /;[[:space:]]*$/ { f = 0 }
              END { print n + 0 }' "$OUT/dev_size.ptx")
  calls=$(grep -c '^[[:space:]]*_Z[^ ]*shmemgi4fail[^ ]*,[[:space:]]*$' "$OUT/dev_size.ptx" || true)
  want=1 lines=$(wc -l < "$OUT/dev_size.ptx")
  [ -z "$v" ] || want=2
  [ -n "$v" ] || one=$lines
  [ "$entries" = $want ] || { echo "FAIL: dev_size.cu $v has $entries kernels in its PTX, expected $want"; exit 1; }
  [ "$defs" = 1 ] && [ "$calls" -ge 1 ] || {
    echo "FAIL: dev_size.cu $v: the failure path is defined $defs times, called $calls times (want 1, at least 1)"
    exit 1
  }
done
echo "ok: a one-kernel unit holds its kernel and one failure path ($one PTX lines; $lines with a stream routine)"
# the memory model as the PTX has it: acquire loads, release and relaxed system-scope stores, acquire/release fences,
# and no indirect call (a group's barrier through a function pointer was one)
"$NVCC" "${flags[@]}" -ptx "$SRC/dev_model.cu" -o "$OUT/dev_model.ptx"
for want in 'ld.acquire.sys' 'st.release.sys' 'st.relaxed.sys' 'fence.acq_rel.sys'; do
  grep -q "$want" "$OUT/dev_model.ptx" || { echo "FAIL: dev_model.cu's PTX has no $want"; exit 1; }
done
! grep -q 'callprototype' "$OUT/dev_model.ptx" || { echo "FAIL: dev_model.cu's PTX makes an indirect call"; exit 1; }
echo "ok: the device library's loads, stores and fences carry their system-scope semantics"
for t in dev_rma dev_stream dev_misuse dev_cg; do # (each nvcc run takes half a minute on two cores)
  "$NVCC" "${flags[@]}" -c "$SRC/$t.cu" -o "$OUT/$t.o"
  "$NVCC" "${flags[@]}" "$OUT/$t.o" -L"$LIB" -Xlinker -rpath -Xlinker "$LIB" -lgshmem -o "$OUT/$t"
  echo "ok: $t built by nvcc -c (whole program)"
done
"$NVCC" "${flags[@]}" -Xcompiler -fPIC -shared "$SRC/dev_lib.cu" -L"$LIB" -lgshmem -o "$OUT/libdev_lib.so"
"$NVCC" "${flags[@]}" -DWITH_LIB=1 -c "$SRC/dev_two_a.cu" -o "$OUT/a.o"
"$NVCC" "${flags[@]}" -c "$SRC/dev_two_b.cu" -o "$OUT/b.o"
"$NVCC" "${flags[@]}" "$OUT/a.o" "$OUT/b.o" -L"$OUT" -L"$LIB" -Xlinker -rpath -Xlinker "$OUT:$LIB" -ldev_lib -lgshmem \
  -o "$OUT/dev_two"
echo "ok: two units and a shared library of kernels"
set +e
timeout 120 "$OSHRUN" -np 2 "$OUT/dev_two"
rc=$?
[ $rc = 0 ] || [ $rc = 77 ] || { echo "FAIL: the nvcc-built dev_two exited $rc"; exit 1; }
[ $rc = 77 ] && echo "ok: no GPU here: the CUDA build skipped cleanly"
exit 0

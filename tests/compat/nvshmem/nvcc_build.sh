#!/usr/bin/env bash
# nvcc_build.sh NVCC INCDIR LIBDIR SRCDIR OUTDIR NVSHMEM_HOME SOURCES... - each NVSHMEM test program built by nvcc as
# its users build it: against gshmem's front end (plain nvcc -c, no -rdc, linked with libgshmem) and, where
# NVSHMEM_HOME holds NVSHMEM's headers and libraries (its PyPI wheel unpacked will do), against NVSHMEM itself
# (-rdc=true, libnvshmem_host and libnvshmem_device): the one source must compile and link with both.
set -eu
NVCC=$1 INC=$2 LIB=$3 SRC=$4 OUT=$5 NV=$6
shift 6
mkdir -p "$OUT"
arch=${GSHMEM_NVCC_ARCH:-sm_80}
for s in "$@"; do
  t=$(basename "$s" .cu)
  "$NVCC" -std=c++17 -arch="$arch" -I"$INC" -I"$INC/gshmem/compat" -I"$SRC" -Xcompiler -Wall,-Werror \
    -c "$SRC/$s" -o "$OUT/$t.gshmem.o"
  "$NVCC" -arch="$arch" "$OUT/$t.gshmem.o" -L"$LIB" -Xlinker -rpath -Xlinker "$LIB" -lgshmem -o "$OUT/$t.gshmem"
  echo "ok: $t built by nvcc against gshmem's NVSHMEM front end"
  if [ -n "$NV" ] && [ -f "$NV/include/nvshmem.h" ]; then
    host=$(ls "$NV"/lib/libnvshmem_host.so* | head -1)
    "$NVCC" -std=c++17 -rdc=true -arch="$arch" -I"$NV/include" -I"$SRC" -c "$SRC/$s" -o "$OUT/$t.nvshmem.o"
    "$NVCC" -rdc=true -arch="$arch" "$OUT/$t.nvshmem.o" -Xlinker "$host" -L"$NV/lib" -lnvshmem_device \
      -Xlinker -rpath -Xlinker "$NV/lib" -lcuda -L"$(dirname "$(command -v "$NVCC")")/../lib64/stubs" \
      -o "$OUT/$t.nvshmem"
    echo "ok: $t built by nvcc against NVSHMEM ($NV)"
  fi
done
# in a kernel, what the front end does not provide stops nvcc too, naming the routine
printf '#include <nvshmem.h>\n#include <nvshmemx.h>\n__global__ void k(int *r) { *r = nvshmemx_qp_create(1, 2); }\n' \
  > "$OUT/not_provided.cu"
if "$NVCC" -std=c++17 -arch="$arch" -I"$INC" -I"$INC/gshmem/compat" -c "$OUT/not_provided.cu" -o "$OUT/np.o" \
  > "$OUT/not_provided.log" 2>&1; then
  echo "FAIL: a kernel calling nvshmemx_qp_create compiled"
  exit 1
fi
grep -q "nvshmemx_qp_create is not provided by gshmem's NVSHMEM front end" "$OUT/not_provided.log" ||
  { echo "FAIL: nvcc's error does not name nvshmemx_qp_create:"; head -5 "$OUT/not_provided.log"; exit 1; }
echo "ok: nvcc stops a kernel calling nvshmemx_qp_create, naming it"
[ -n "$NV" ] && [ -f "$NV/include/nvshmem.h" ] || { echo "NVSHMEM not found: built against gshmem only"; exit 77; }
exit 0

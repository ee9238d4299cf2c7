#!/usr/bin/env bash
# hipcc_build.sh HIPCC INCDIR SRCDIR OUTDIR - the device headers compile for AMD GPUs (Debian's hipcc, ROCm 5.2):
# every family of the device API and the stream-ordered routines, in one HIP source (dev_api_compile.cu); and the HIP
# programs the emulation runs (emu_hip_*.hip), as hipcc compiles them for an AMD GPU.
set -eu
HIPCC=$1 INC=$2 SRC=$3 OUT=$4
mkdir -p "$OUT"
"$HIPCC" -std=c++17 -I"$INC" -x hip --offload-arch="${GSHMEM_HIP_ARCH:-gfx90a}" -c "$SRC/dev_api_compile.cu" \
  -o "$OUT/dev_api_compile.hip.o"
echo "ok: the device API compiles with hipcc for ${GSHMEM_HIP_ARCH:-gfx90a}"
for t in emu_hip_vadd emu_hip_ring; do
  "$HIPCC" -std=c++17 -I"$INC" --offload-arch="${GSHMEM_HIP_ARCH:-gfx90a}" -c "$SRC/$t.hip" -o "$OUT/$t.hip.o"
  echo "ok: $t.hip compiles with hipcc"
done

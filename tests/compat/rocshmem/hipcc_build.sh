#!/usr/bin/env bash
# hipcc_build.sh HIPCC INCDIR LIBDIR SRCDIR OUTDIR - the rocSHMEM tests compile and link with hipcc (ROCm 5.2) against
# gshmem's front end and libgshmem, as a rocSHMEM program is built for an AMD GPU (no GPU needed: nothing runs).
set -eu
HIPCC=$1 INC=$2 LIB=$3 SRC=$4 OUT=$5
mkdir -p "$OUT"
for t in roc_ring roc_wg_put roc_barrier roc_reduce roc_alltoall roc_moe_shuffle roc_program_habits roc_old_names \
  roc_active_set; do
  "$HIPCC" -std=c++17 -I"$INC" -I"$INC/gshmem/compat" --offload-arch="${GSHMEM_HIP_ARCH:-gfx90a}" \
    "$SRC/$t.cpp" -L"$LIB" -Wl,-rpath,"$LIB" -lgshmem -o "$OUT/$t"
  echo "ok: $t compiles and links with hipcc"
done

#!/usr/bin/env bash
# build.sh [--if-cached] [OUT] - builds nvshmem-perf-dev (NVSHMEM measured as shmem-perf-dev measures gshmem)
# against NVSHMEM's nvidia-nvshmem-cu13 wheel, into OUT (default: .nvshmem at the repository root, ignored by git),
# ready to carry to a GPU machine that has no network: OUT/bin/nvshmem-perf-dev and OUT/lib with only what it loads
# there.
#
# * The wheel (182 MB) is fetched from PyPI once, by pip, into a cache outside the repository
#   ($GSHMEM_WHEEL_CACHE, default ~/.cache/gshmem/wheels), so later builds, and scripts/test.sh's compile check in a
#   fresh clone on the same machine, need no download; a wheel already in .whl/ at the repository root is used too.
#   NVSHMEM_VERSION (default 3.8.0) pins it, so that figures name the version they measured. NVSHMEM_HOME=DIR (a
#   folder with include/ and lib/, such as the package installed on the GPU machine) builds against that instead.
# * Device code is linked statically (libnvshmem_device.a, -rdc); at run time the program loads libnvshmem_host.so.3
#   (48 MB once stripped) and, through it, the unique-ID bootstrap plugin nvshmem_bootstrap_uid.so.3 (found beside it:
#   its RPATH is $ORIGIN). No transport plugin: one node, NVSHMEM_REMOTE_TRANSPORT=none. libcuda and libnvidia-ml
#   come from the GPU machine's driver. About 56 MB in all, checked against NVSHMEM_CARRY_LIMIT_MB (57): small enough
#   to copy with the repository to a GPU machine that has no network.
# * NVSHMEM's licence allows its use on systems with NVIDIA GPUs: build here, run there only. Nothing of the wheel
#   is ever committed (its headers are read from the unpacked wheel, outside the repository).
# --if-cached: no download; without the wheel in the cache, say so and exit 0 (scripts/test.sh's compile check).
# Exit status: 0 built (or skipped by --if-cached), 1 failed (download, compile, link, or over the size limit).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if_cached=0
if [ "${1:-}" = --if-cached ]; then
  if_cached=1
  shift
fi
out=${1:-$root/.nvshmem}
ver=${NVSHMEM_VERSION:-3.8.0}
arch=${NVSHMEM_ARCH:-sm_90}
cache=${GSHMEM_WHEEL_CACHE:-$HOME/.cache/gshmem/wheels}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
limit_mb=${NVSHMEM_CARRY_LIMIT_MB:-57} # what may travel beside the repository (about 5 MB) in a 64 MiB copy
[ -x "$nvcc" ] || { echo "build.sh: nvcc not found (set NVCC)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${NVSHMEM_HOME:-}" ]; then
  nv=$NVSHMEM_HOME
  from="NVSHMEM_HOME=$nv"
else
  name="nvidia_nvshmem_cu13-$ver-"
  shopt -s nullglob
  found=("$cache/$name"*.whl "$root/.whl/$name"*.whl)
  whl=${found[0]:-}
  if [ -z "$whl" ] && [ $if_cached = 1 ]; then
    echo "build.sh: no nvidia-nvshmem-cu13 $ver wheel in $cache or .whl: NVSHMEM benchmark not built (run build.sh)"
    exit 0
  fi
  if [ -z "$whl" ]; then
    mkdir -p "$cache"
    echo "build.sh: fetching nvidia-nvshmem-cu13==$ver from PyPI into $cache (about 180 MB)"
    python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 -d "$cache" "nvidia-nvshmem-cu13==$ver"
    found=("$cache/$name"*.whl)
    whl=${found[0]}
  fi
  # only the headers, the two libraries and the plugin it needs, and the licence
  python3 -c '
import sys, zipfile
keep = ("nvidia/nvshmem/include/", "nvidia/nvshmem/lib/libnvshmem_device.a", "nvidia/nvshmem/lib/libnvshmem_host.so.3",
        "nvidia/nvshmem/lib/nvshmem_bootstrap_uid.so.3")
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in z.namelist():
        if n.startswith(keep) or n.endswith("/License.txt"):
            z.extract(n, sys.argv[2])
' "$whl" "$tmp"
  nv=$tmp/nvidia/nvshmem
  from="wheel: $(basename "$whl") sha256 $(sha256sum "$whl" | cut -d' ' -f1)"
fi
for f in include/nvshmem.h lib/libnvshmem_device.a lib/libnvshmem_host.so.3 lib/nvshmem_bootstrap_uid.so.3; do
  [ -e "$nv/$f" ] || { echo "build.sh: $nv/$f is missing" >&2; exit 1; }
done

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
flags=(-O2 -std=c++17 -rdc=true -arch="$arch" -I"$nv/include" -I"$root/bench")
"$nvcc" "${flags[@]}" -c "$root/bench/nvshmem/nvshmem-perf-dev.cu" -o "$tmp/nvshmem-perf-dev.o"
# (the libraries by path: the host library is recorded by its soname, libnvshmem_host.so.3, found through the rpath)
# shellcheck disable=SC2016 # ($ORIGIN is for the dynamic linker)
"$nvcc" "${flags[@]}" "$tmp/nvshmem-perf-dev.o" "$nv/lib/libnvshmem_device.a" -Xlinker "$nv/lib/libnvshmem_host.so.3" \
  -lcuda -Xlinker -rpath -Xlinker '$ORIGIN/../lib' -o "$out/bin/nvshmem-perf-dev"
strip --strip-unneeded -o "$out/lib/libnvshmem_host.so.3" "$nv/lib/libnvshmem_host.so.3"
strip --strip-unneeded -o "$out/lib/nvshmem_bootstrap_uid.so.3" "$nv/lib/nvshmem_bootstrap_uid.so.3"
lic=$(find "$tmp" "$nv/.." -maxdepth 4 -name License.txt 2>/dev/null | head -1 || true)
[ -z "$lic" ] || cp "$lic" "$out/NVSHMEM-License.txt"
{
  echo "nvshmem-perf-dev built $(date -u +%FT%TZ)" \
    "from gshmem $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "$from"
  echo "nvcc: $("$nvcc" --version | tail -1), -arch=$arch"
} > "$out/BUILD-INFO"

# what it loads at run time must be there, and nothing more must be needed (libcuda: the driver, on the GPU machine)
missing=$(LD_LIBRARY_PATH='' ldd "$out/bin/nvshmem-perf-dev" | grep 'not found' | grep -v 'libcuda\.so' || true)
[ -z "$missing" ] || { echo "build.sh: unresolved libraries: $missing" >&2; exit 1; }
mb=$(du -sm "$out" | cut -f1)
[ "$mb" -le "$limit_mb" ] || { echo "build.sh: $out is $mb MB, over $limit_mb MB" >&2; exit 1; }
echo "build.sh: $out ($mb MB): $(cd "$out" && echo bin/* lib/*)"

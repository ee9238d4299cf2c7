#!/usr/bin/env bash
# build-sos.sh - builds Sandia OpenSHMEM (SOS) at a release tag, and libfabric's fabtests at the tag matching the
# system libfabric, into prefixes outside this repository, so that sos-compare.sh can run both beside gshmem.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/peers/build-sos.sh [options]
  --sos-src PATH        SOS sources: a git dir (bare or .git) or a checkout (env SOS_SRC;
                        default /work/.mirror/Sandia-OpenSHMEM+SOS/repo)
  --sos-tag TAG         release tag to build (env SOS_TAG; default v1.5.3)
  --tests-sos-src PATH  git dir of openshmem-org/tests-sos, SOS's submodule that autogen.sh needs; its commit is
                        the one SOS's tag records (env TESTS_SOS_SRC; default /work/.mirror/openshmem-org+tests-sos/repo)
  --libfabric-src PATH  libfabric sources (git dir or checkout) holding fabtests/ (env LIBFABRIC_SRC;
                        default /work/.mirror/ofiwg+libfabric/repo)
  --fabtests-tag TAG    libfabric tag for fabtests (env FABTESTS_TAG; default: v<version of the system libfabric>)
  --root DIR            prefixes go to DIR/sos-TAG and DIR/fabtests-TAG, sources and logs to DIR/work
                        (env PEERS_ROOT; default /tmp/gshmem-peers); must lie outside the repository
  --only sos|fabtests   build one of the two
  -j N                  make jobs (default 2)
Prints "SOS_PREFIX=..." and "FABTESTS_PREFIX=..." at the end. A prefix holding a .built stamp for the same tag and
commit is left alone, so a second call builds nothing.
EOF
}

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
repo_root=$(CDPATH= cd -- "$here/../.." && pwd)
sos_src=${SOS_SRC:-/work/.mirror/Sandia-OpenSHMEM+SOS/repo}
sos_tag=${SOS_TAG:-v1.5.3}
tests_src=${TESTS_SOS_SRC:-/work/.mirror/openshmem-org+tests-sos/repo}
lf_src=${LIBFABRIC_SRC:-/work/.mirror/ofiwg+libfabric/repo}
ft_tag=${FABTESTS_TAG:-}
root=${PEERS_ROOT:-/tmp/gshmem-peers}
only=
jobs=2
while [ $# -gt 0 ]; do
  case "$1" in
    --sos-src) sos_src=$2; shift 2 ;;
    --sos-tag) sos_tag=$2; shift 2 ;;
    --tests-sos-src) tests_src=$2; shift 2 ;;
    --libfabric-src) lf_src=$2; shift 2 ;;
    --fabtests-tag) ft_tag=$2; shift 2 ;;
    --root) root=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "build-sos.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
case "$only" in ""|sos|fabtests) ;; *) echo "build-sos.sh: --only takes sos or fabtests" >&2; exit 2 ;; esac

root=$(realpath -m -- "$root")
case "$root/" in
  "$repo_root"/*) echo "build-sos.sh: --root $root is inside the repository; peer code stays outside it" >&2; exit 2 ;;
esac
mkdir -p "$root"
work="$root/work"
mkdir -p "$work"

if [ -z "$ft_tag" ]; then
  # fabtests must match the libfabric it links; Debian 12 ships 1.17.0
  v=$(pkg-config --modversion libfabric 2>/dev/null || true)
  [ -n "$v" ] || v=$(fi_info --version 2>/dev/null | sed -n 's/^libfabric: *//p' | head -n1)
  [ -n "$v" ] || { echo "build-sos.sh: cannot tell the system libfabric's version; give --fabtests-tag" >&2; exit 1; }
  ft_tag=v$v
fi

# git_of PATH: the git directory of PATH (a bare or .git dir, or a checkout holding one); empty for a plain folder
git_of() {
  if git --git-dir="$1" rev-parse --git-dir >/dev/null 2>&1 && [ ! -d "$1/.git" ]; then
    echo "$1"
  elif [ -e "$1/.git" ]; then
    git -C "$1" rev-parse --absolute-git-dir
  fi
}

# export_tree SRC TAG SUBDIR DEST: the tree of TAG (SUBDIR of it, or all with .) into DEST; prints the commit.
# A checkout without git is copied as it is (the tag is then only a label).
export_tree() {
  local src=$1 tag=$2 sub=$3 dest=$4 gd
  rm -rf "$dest"
  mkdir -p "$dest"
  gd=$(git_of "$src")
  if [ -n "$gd" ]; then
    git --git-dir="$gd" rev-parse --verify -q "$tag^{commit}" >/dev/null ||
      { echo "build-sos.sh: $src has no $tag" >&2; exit 1; }
    if [ "$sub" = . ]; then
      git --git-dir="$gd" archive "$tag" | tar -x -C "$dest"
    else
      git --git-dir="$gd" archive "$tag" "$sub" | tar -x -C "$dest" --strip-components=$(($(tr -cd / <<<"$sub/" | wc -c)))
    fi
    git --git-dir="$gd" rev-parse "$tag^{commit}"
  else
    [ -d "$src/$sub" ] || { echo "build-sos.sh: $src/$sub is neither a git dir nor a source folder" >&2; exit 1; }
    cp -a "$src/$sub/." "$dest/"
    echo "checkout:$(cd "$src" && pwd)"
  fi
}

commit_of() { # SRC TAG: the commit TAG names, or a label for a plain checkout
  local gd
  gd=$(git_of "$1")
  if [ -n "$gd" ]; then git --git-dir="$gd" rev-parse --verify -q "$2^{commit}" || echo missing; else echo "checkout:$(cd "$1" && pwd)"; fi
}

is_built() { # PREFIX STAMP
  [ -f "$1/.built" ] && [ "$(cat "$1/.built")" = "$2" ]
}

step() { # NAME LOG CMD...: run CMD with its output in LOG, showing the tail on failure
  local name=$1 log=$2
  shift 2
  echo "build-sos.sh: $name (log: $log)" >&2
  if ! "$@" >"$log" 2>&1; then
    echo "build-sos.sh: $name failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
}

sos_prefix="$root/sos-$sos_tag"
ft_prefix="$root/fabtests-$ft_tag"

build_sos() {
  local stamp src="$work/sos-$sos_tag" sub tgd
  stamp="sos $sos_tag $(commit_of "$sos_src" "$sos_tag")"
  if is_built "$sos_prefix" "$stamp" && [ -x "$sos_prefix/bin/oshcc" ]; then
    echo "build-sos.sh: SOS $sos_tag already in $sos_prefix" >&2
    return
  fi
  export_tree "$sos_src" "$sos_tag" . "$src" >/dev/null
  if [ ! -f "$src/modules/tests-sos/test/Makefile.am" ]; then
    # the submodule: the commit SOS's tag records, from tests-sos's own git dir
    tgd=$(git_of "$tests_src")
    [ -n "$tgd" ] || { echo "build-sos.sh: --tests-sos-src $tests_src is not a git dir" >&2; exit 1; }
    sub=$(git --git-dir="$(git_of "$sos_src")" ls-tree "$sos_tag" modules/tests-sos | awk '{print $3}')
    [ -n "$sub" ] || { echo "build-sos.sh: $sos_tag records no modules/tests-sos commit" >&2; exit 1; }
    export_tree "$tests_src" "$sub" . "$src/modules/tests-sos" >/dev/null
  fi
  # provider-only: every transfer between PEs goes through libfabric (no CMA, no XPMEM, no shared-memory bypass),
  # manual progress as gshmem's default, PMIx launch through Open MPI's mpirun (/work/shared/PEERS.md)
  (cd "$src" && step "SOS $sos_tag autogen" "$work/sos-$sos_tag-autogen.log" ./autogen.sh)
  (cd "$src" && step "SOS $sos_tag configure" "$work/sos-$sos_tag-configure.log" ./configure --prefix="$sos_prefix" \
    --with-ofi --with-pmix=/usr/lib/x86_64-linux-gnu/pmix2 --enable-ofi-mr=basic --enable-ofi-manual-progress \
    --enable-manual-progress --enable-memcpy --enable-hard-polling --disable-fortran --with-oshrun-launcher=mpirun)
  (cd "$src" && step "SOS $sos_tag make" "$work/sos-$sos_tag-make.log" make -j"$jobs")
  (cd "$src" && step "SOS $sos_tag install" "$work/sos-$sos_tag-install.log" make install)
  echo "$stamp" >"$sos_prefix/.built"
}

build_fabtests() {
  local stamp src="$work/fabtests-$ft_tag"
  stamp="fabtests $ft_tag $(commit_of "$lf_src" "$ft_tag")"
  if is_built "$ft_prefix" "$stamp" && [ -x "$ft_prefix/bin/fi_rdm_pingpong" ]; then
    echo "build-sos.sh: fabtests $ft_tag already in $ft_prefix" >&2
    return
  fi
  export_tree "$lf_src" "$ft_tag" fabtests "$src" >/dev/null
  (cd "$src" && step "fabtests $ft_tag autogen" "$work/fabtests-$ft_tag-autogen.log" ./autogen.sh)
  (cd "$src" && step "fabtests $ft_tag configure" "$work/fabtests-$ft_tag-configure.log" ./configure \
    --prefix="$ft_prefix" --with-libfabric=/usr)
  # only the binaries sos-compare.sh runs: the whole suite takes long on 2 cores
  (cd "$src" && step "fabtests $ft_tag make" "$work/fabtests-$ft_tag-make.log" \
    make -j"$jobs" benchmarks/fi_rdm_pingpong benchmarks/fi_rma_bw benchmarks/fi_rdm_tagged_bw)
  mkdir -p "$ft_prefix/bin"
  for b in fi_rdm_pingpong fi_rma_bw fi_rdm_tagged_bw; do
    (cd "$src" && step "fabtests $ft_tag install $b" "$work/fabtests-$ft_tag-install-$b.log" \
      ./libtool --mode=install install -m 755 "benchmarks/$b" "$ft_prefix/bin/$b")
  done
  echo "$stamp" >"$ft_prefix/.built"
}

[ "$only" = fabtests ] || build_sos
[ "$only" = sos ] || build_fabtests
[ "$only" = fabtests ] || echo "SOS_PREFIX=$sos_prefix"
[ "$only" = sos ] || echo "FABTESTS_PREFIX=$ft_prefix"

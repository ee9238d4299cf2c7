#!/usr/bin/env bash
# py-env.sh BUILD_DIR - makes BUILD_DIR/pyenv, a Python venv with NumPy and shmem4py built against this gshmem, for
# the Python tests (bench/apps/allreduce/train_mlp.py) and matplotlib for bench/plot.py; run it after building
# BUILD_DIR. Needs PyPI (pip).
set -euo pipefail
if [ $# -ne 1 ] || [ ! -f "$1/CMakeCache.txt" ]; then
  echo "usage: $0 BUILD_DIR (a built gshmem build tree)" >&2
  exit 2
fi
b=$(cd "$1" && pwd)
venv=$b/pyenv
prefix=$venv/gshmem
py=${PYTHON:-python3}

# venv needs ensurepip: Debian's python3 has it only with python3-venv
if ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y python3-venv >/dev/null
  else
    echo "py-env.sh: $py has no venv/ensurepip (apt-get install python3-venv)" >&2
    exit 1
  fi
fi

# The oshcc in BUILD_DIR/wrappers finds headers and library relative to itself, so it works only installed: install
# this build into the venv (shmem4py's module then links that copy, which this script refreshes each time).
rm -rf "$prefix"
cmake --install "$b" --prefix "$prefix" >/dev/null
"$prefix/bin/oshcc" --version >/dev/null

# a venv half made by an earlier, interrupted run is started afresh
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import numpy' 2>/dev/null; then
  rm -rf "${venv:?}/bin" "${venv:?}/lib" "${venv:?}/include" "${venv:?}/pyvenv.cfg"
  "$py" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
# shmem4py 1.0.0 predates NumPy 2; setuptools, wheel and cffi are its build requirements, installed here so that the
# build below needs no isolated environment of its own (faster, and nothing fetched twice)
"${pip[@]}" install 'numpy<2' cffi setuptools wheel
# matplotlib for bench/plot.py (its smoke test, bench_plot_smoke, uses this venv when there is one)
"${pip[@]}" install matplotlib

# rebuilt only when the installed headers changed (the module links libgshmem dynamically, refreshed above)
stamp=$venv/.gshmem-headers
sum=$(cd "$prefix/include" && find . -type f -print0 | sort -z | xargs -0 cat | cksum)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ] && "$venv/bin/python" -c 'import shmem4py.api' 2>/dev/null; then
  echo "py-env.sh: shmem4py up to date in $venv"
  exit 0
fi
rm -f "$stamp"
# --no-deps: its own requirement would pull NumPy 2 in; --no-binary: built here, against this gshmem;
# --no-cache-dir: never a wheel built against another OpenSHMEM; -O1 -g0: the generated module is large, and its
# optimisation and debug info took most of the time (about 40 s of CPU at -O1, twice that at the default -O3 -g)
CFLAGS="-O1 -g0" OSHCC=$prefix/bin/oshcc "${pip[@]}" install --no-build-isolation --no-deps --no-binary shmem4py \
  --no-cache-dir --force-reinstall 'shmem4py==1.0.0'
"$venv/bin/python" -c \
  'import shmem4py.api, numpy, sys; print("py-env.sh: numpy", numpy.__version__, "and shmem4py in", sys.prefix)'
echo "$sum" >"$stamp"

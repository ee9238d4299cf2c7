#!/usr/bin/env python3
"""curve-table.py - the host-initiated curves at a glance: shmem-perf --src/--dst (put/get latency and bandwidth,
H-H, H-D, D-H, D-D) at a few sizes, each beside the CUDA runtime's own copy in the same direction from gpu-floor --mode
copy (a put moves src -> dst, a get dst -> src: the remote side is --dst), with gshmem / floor.

usage: curve-table.py [--floor FLOOR.json] [--out TABLE.md] SHMEM-PERF.json...
"""
import argparse
import json
import os
import re
import sys

SIZES = [8, 4096, 65536, 1 << 20, 64 << 20]


def load(path):
    if not path:
        return []
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


def size_name(s):
    return f"{s >> 20} MiB" if s >= 1 << 20 else f"{s >> 10} KiB" if s >= 1024 else f"{s} B"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--floor")
    ap.add_argument("--out")
    ap.add_argument("perf", nargs="*")
    a = ap.parse_args()
    floor = {(r["test"], r["size"]): r["median"] for r in load(a.floor) if "mem" in r and "iters" not in r}
    rows = {}
    for p in a.perf:
        # the run's name: shmem-perf-<run>-np2.json as gpu-run.sh names them (hd, hd-pinned, ...), else the file's
        run = re.sub(r"^shmem-perf-|-np\d+$", "", os.path.splitext(os.path.basename(p))[0])
        for r in load(p):
            if r["test"] in ("put_lat", "get_lat", "put_bw", "get_bw"):
                rows.setdefault((run, r["test"], r["mem"], r["unit"]), {})[r["size"]] = r["median"]
    if not rows:
        print("curve-table.py: no shmem-perf figures", file=sys.stderr)
        return 1
    lines = ["| run | test | src-dst | data | " + " | ".join(size_name(s) for s in SIZES) + " | unit |",
             "|---|---|---|---|" + "---|" * len(SIZES) + "---|"]
    for (run, test, mem, unit), by in sorted(rows.items()):
        src, dst = mem.lower().split("-")
        flow = src + dst if test.startswith("put") else dst + src
        ftest = f"cuda_{flow}_{'lat' if test.endswith('lat') else 'bw'}" if flow != "hh" else None
        cells = []
        for s in SIZES:
            g, f = by.get(s), floor.get((ftest, s)) if ftest else None
            if g is None:
                cells.append("")
            elif f:
                cells.append(f"{g:.3g} / {f:.3g} = {g / f:.2f}x")
            else:
                cells.append(f"{g:.3g}")
        data = f"{flow[0].upper()}->{flow[1].upper()}"
        lines.append(f"| {run} | {test} | {mem} | {data} | " + " | ".join(cells) + f" | {unit} |")
    note = ("gshmem median / CUDA floor median = ratio where gpu-floor measured that direction (us: above 1 is slower; "
            "GB/s: below 1 is). The floor's host memory is pinned (cudaHostAlloc); gshmem's host heap is pageable but "
            "in the -pinned runs (SHMEM_GPU_PIN_HOST=1)." if floor else "No gpu-floor copy figures: gshmem medians only.")
    text = "\n".join(lines) + "\n\n" + note + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

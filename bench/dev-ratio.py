#!/usr/bin/env python3
"""dev-ratio.py - the device-initiated figures side by side: gshmem (shmem-perf-dev --json), NVSHMEM
(nvshmem-perf-dev --json) and the raw CUDA floor (gpu-floor --mode dev --json), all measured by bench/devbench.cuh,
as one markdown table with gshmem / NVSHMEM and gshmem / floor per figure; optionally the skeleton of a bench/results/
entry around it. A missing or empty side leaves its columns blank.

usage: dev-ratio.py --gshmem G.json [--nvshmem N.json] [--floor F.json] [--out TABLE.md] [--results ENTRY.md]
                    [--run "how the run was made"]
"""
import argparse
import datetime
import json
import os
import sys


def load(path):
    if not path or not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    try:
        with open(path) as f:
            rows = json.load(f)
    except (OSError, ValueError) as e:
        print(f"dev-ratio.py: {path}: {e}", file=sys.stderr)
        return None
    # gpu-floor's JSON also holds its copy curves (cuda_* tests): only the devbench rows (they carry "iters") count
    return {(r["test"], r["size"]): r for r in rows if "iters" in r}


def fmt(v):
    if v is None:
        return ""
    return f"{v:.3f}" if v < 100 else f"{v:.1f}"


def ratio(a, b):
    if not a or not b or not b["median"]:
        return ""
    return f"{a['median'] / b['median']:.2f}x"


def table(g, n, f):
    keys = []
    for side in (g, n, f):
        for k in side or {}:
            if k not in keys:
                keys.append(k)
    lines = [
        "| figure | size | unit | gshmem | NVSHMEM | floor | gshmem / NVSHMEM | gshmem / floor | iterations |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    odd = []
    for k in keys:
        rg, rn, rf = ((s or {}).get(k) for s in (g, n, f))
        any_row = rg or rn or rf
        iters = [r["iters"] for r in (rg, rn, rf) if r]
        it = "/".join(str(r["iters"]) if r else "-" for r in (rg, rn, rf))
        if len(set(iters)) > 1:
            it += " (differ)"
            odd.append(k)
        lines.append(
            f"| {k[0]} | {k[1]} | {any_row['unit']} | {fmt(rg and rg['median'])} | {fmt(rn and rn['median'])} | "
            f"{fmt(rf and rf['median'])} | {ratio(rg, rn)} | {ratio(rg, rf)} | {it} |"
        )
    return lines, odd


def describe(side, name):
    if not side:
        return f"{name}: not measured"
    r = next(iter(side.values()))
    return f"{name}: {r['impl']} on {r['device']}, {r['npes']} PEs, {'under MPS' if r.get('mps') else 'no MPS'}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gshmem", required=True)
    ap.add_argument("--nvshmem")
    ap.add_argument("--floor")
    ap.add_argument("--out")
    ap.add_argument("--results")
    ap.add_argument("--run", default="scripts/gpu-run.sh (stages perfdev, nvshmem, floor)")
    a = ap.parse_args()
    g, n, f = load(a.gshmem), load(a.nvshmem), load(a.floor)
    if not (g or n or f):
        print("dev-ratio.py: no figures in any of the files", file=sys.stderr)
        return 1
    lines, odd = table(g, n, f)
    head = [describe(g, "gshmem"), describe(n, "NVSHMEM"), describe(f, "floor")]
    notes = [
        "Medians of the repetitions (bench/devbench.cuh: CUDA events around one launch of a looping kernel).",
        "Ratios divide the medians: for us, above 1 means gshmem is slower; for GB/s and Mops/s, below 1 does.",
    ]
    if odd:
        notes.append(
            "Iteration counts differ where a side was too slow for the planned count (a launch capped at --cap "
            "seconds): " + ", ".join(f"{t} {s}" for t, s in odd) + "."
        )
    text = "\n".join(["- " + h for h in head] + [""] + lines + [""] + notes) + "\n"
    if a.out:
        with open(a.out, "w") as fo:
            fo.write(text)
    else:
        sys.stdout.write(text)
    if a.results:
        dev = next(iter((g or n or f).values()))["device"]
        day = datetime.date.today().isoformat()
        with open(a.results, "w") as fo:
            fo.write(
                f"# Device-initiated operations: gshmem vs NVSHMEM vs the raw CUDA floor - {day}, {dev}\n\n"
                f"Produced by {a.run}; all three in the same run on the same card, 2 PEs on one GPU.\n\n"
                "gshmem at commit TODO (Release build, sm_90). NVSHMEM: see BUILD-INFO in the run's archive.\n\n"
                "## Figures\n\n" + text + "\n"
                "## What it shows\n\nTODO: the figures where gshmem is more than 1.2x NVSHMEM, and why.\n"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

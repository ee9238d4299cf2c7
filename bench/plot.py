#!/usr/bin/env python3
# plot.py - turns the JSON of shmem-perf (arrays of points) and of the bench/apps workloads (one object per run) into
# PNG charts: point-to-point latency/bandwidth by size, collectives by PE count, app throughput, scaling and sizes.
"""usage: bench/plot.py [--out DIR] [--apps-np N] [--quick] FILE_OR_DIR...

Reads every *.json given (directories are searched recursively), recognises
  shmem-perf --json arrays   [{test,size,unit,median,min,max,reps,iters,npes,api,mem,impl}, ...]
  bench/apps runs            {app,variant,impl,npes,verify,params{...},metrics{name:{median,min,max,unit}}}
and ignores anything else (compare.sh's summary.json, for one). Several files of the same implementation, PE count
and test (the rounds of compare.sh / compare-apps.sh) are combined: the plotted point is the median of their medians,
the error bar spans the lowest and highest of them. Plots that lack their data are skipped with a note on stderr.

A smoke-test run is no measurement, and its charts say so (a watermark, the title, the PNG's text): plot.py knows one
from shmem-perf --quick's JSON ("quick": true), from the machine.txt that compare.sh / compare-apps.sh --quick leave
beside their JSON, or from --quick here. Each PNG's text holds its title and axis labels.

PNGs written to --out (default: bench/plots, not tracked by git; the figures docs/benchmarks.md shows, in
bench/results/plots, are replaced only when that folder is given to --out):
  p2p_latency.png       put_lat, get_lat vs size (log-log), one line per implementation, local memcpy for reference
  p2p_bandwidth.png     put_bw, get_bw vs size (log-log), with local memcpy_bw
  collectives_npes.png  barrier, sync_all, bcast, collect, fcollect, reduce, alltoall time vs PE count
  apps_throughput.png   each app's main figure per variant and implementation (bars) at one PE count
  apps_scaling.png      each app's main figure vs PE count
  apps_sizes.png        metrics that carry a size in their name (allreduce's busbw_4096 ...) vs that size
"""
import argparse
import json
import os
import re
import statistics
import sys

try:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on a build machine
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter
except ImportError:
    sys.exit("plot.py: matplotlib is not installed; install it with 'python3 -m pip install matplotlib' "
             "(e.g. in a venv: python3 -m venv V && V/bin/pip install matplotlib && V/bin/python bench/plot.py ...)")

COLORS = {"gshmem": "tab:blue", "gshmem --aset": "tab:cyan", "OSHMEM": "tab:red", "MPI": "tab:green",
          "memcpy": "black"}
P2P_LAT = ("put_lat", "get_lat")
P2P_BW = ("put_bw", "get_bw")
COLL = ("barrier", "sync_all", "bcast", "collect", "fcollect", "reduce", "alltoall")  # (team_sync: as sync_all)
DPI = 100  # with the figure sizes below and a palette (save()) each PNG stays well under 100 KB


def note(msg):
    print("plot.py: " + msg, file=sys.stderr)


def impl_label(impl, api=None):
    """shmem_info_get_name() / app.h's impl string -> a short legend label"""
    s = (impl or "").lower()
    if "gshmem" in s:
        return "gshmem --aset" if api == "aset" else "gshmem"
    if "open mpi" in s or "open-mpi" in s or "oshmem" in s or "openmpi" in s:  # OSHMEM names itself by its URL
        return "OSHMEM"
    if s == "mpi" or s.startswith("mpi"):
        return "MPI"
    return impl or "?"


ORDER = ("gshmem", "gshmem --aset", "OSHMEM", "MPI")


def order(labels):
    """legend order: gshmem first, then its peers"""
    return sorted(labels, key=lambda l: (ORDER.index(l) if l in ORDER else len(ORDER), l))


def plain_log(ax):
    """log y axis with plain numbers (0.1, 2, 50): the minor ticks get labels only when the axis spans little more
    than a decade, where there would be at most one major label"""
    import math

    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))

    def minor(v, _):
        lo, hi = ax.get_ylim()
        if lo <= 0 or math.log10(hi / lo) > 1.3:
            return ""
        return "%g" % float("%.1g" % v) if str("%.1g" % v)[0] in "25" else ""

    ax.yaxis.set_minor_formatter(FuncFormatter(minor))


def color(label):
    return COLORS.get(label)


def human(n):
    n = int(n)
    for u, d in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= d and n % d == 0:
            return "%d%s" % (n // d, u)
    return "%d" % n


def json_files(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in sorted(os.walk(p)):
                for f in sorted(files):
                    if f.endswith(".json"):
                        yield os.path.join(root, f)
        elif os.path.exists(p):
            yield p
        else:
            note("no such file or directory: %s" % p)


QUICK_RUN = re.compile(r"^np:.*(--quick|\bquick \(smoke test\))", re.M)


def quick_dir(d, seen):
    """whether the machine.txt a compare script left in d says its run was --quick (a smoke test)"""
    if d not in seen:
        try:
            with open(os.path.join(d, "machine.txt")) as fh:
                seen[d] = bool(QUICK_RUN.search(fh.read()))
        except OSError:
            seen[d] = False
    return seen[d]


def load(paths):
    """-> (perf, units, apps, quick): perf[(label, npes, test, size, mem)] = [medians], apps: list of run objects,
    quick: the input files that come from a smoke-test run"""
    perf, units, apps, quick, dirs = {}, {}, [], [], {}
    nperf = 0
    for f in json_files(paths):
        try:
            with open(f) as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as e:
            note("skipping %s: %s" % (f, e))
            continue
        ours = False
        if isinstance(doc, list) and doc and all(isinstance(r, dict) and "test" in r and "median" in r for r in doc):
            nperf += 1
            ours = True
            if any(r.get("quick") for r in doc):
                quick.append(f)
            for r in doc:
                k = (impl_label(r.get("impl"), r.get("api")), int(r.get("npes", 2)), r["test"], int(r["size"]),
                     r.get("mem", "H-H"))
                perf.setdefault(k, []).append(float(r["median"]))
                units[r["test"]] = r.get("unit", "")
        elif isinstance(doc, dict) and "app" in doc and isinstance(doc.get("metrics"), dict):
            if doc.get("verify") == "failed":
                note("skipping %s: its verification failed" % f)
                continue
            doc["_label"] = impl_label(doc.get("impl"))
            apps.append(doc)
            ours = True
        # anything else (summaries, other tools' JSON) is not ours to plot
        if ours and f not in quick and quick_dir(os.path.dirname(os.path.abspath(f)), dirs):
            quick.append(f)
    label_runs(apps)
    note("read %d shmem-perf file(s) (%d points), %d app run(s)" % (nperf, len(perf), len(apps)))
    return perf, units, apps, quick


def label_runs(apps):
    """runs of one variant that differ in a parameter (gups with and without --lookahead) are told apart by it:
    variant "classic" becomes "classic lookahead=64"; repetition counts and sizes derived from the PE count aside"""
    groups = {}
    for a in apps:
        groups.setdefault((a["app"], a.get("variant", "host"), a["_label"], int(a.get("npes", 1))), []).append(a)
    differ = {}
    for (app, _, _, _), runs in groups.items():
        for k in {k for r in runs for k in r.get("params", {})} - {"reps", "warmup"}:
            if len({str(r.get("params", {}).get(k)) for r in runs}) > 1:
                differ.setdefault(app, set()).add(k)
    for a in apps:
        keys = sorted(differ.get(a["app"], ()))
        a["variant"] = " ".join([a.get("variant", "host")] +
                                ["%s=%s" % (k, a.get("params", {}).get(k, "-")) for k in keys])


def agg(vals):
    return statistics.median(vals), min(vals), max(vals)


def errbar(ax, xs, stats, label, **kw):
    ys = [s[0] for s in stats]
    lo = [s[0] - s[1] for s in stats]
    hi = [s[2] - s[0] for s in stats]
    kw.setdefault("marker", "o")
    ax.errorbar(xs, ys, yerr=[lo, hi], label=label, capsize=2, markersize=3, linewidth=1.2, **kw)


def size_axis(ax):
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: human(v) if v >= 1 else ""))
    ax.set_xlabel("message size (bytes)")


NOT_MEASURED = "QUICK RUN: not a measurement"
QUICK = False  # set by main(): the input holds a smoke-test run, so every chart says it is not a measurement


def unit_label(name, unit):
    """'time (s)', but a metric named after its unit once: 'GUP/s', 'keys/s' (keys_per_s), 'GFLOP/s' (gflops)"""
    def norm(x):
        return re.sub(r"[/_ ]", "", x.lower().replace("_per_", ""))

    if not unit or norm(name) == norm(unit):
        return unit or name
    return "%s (%s)" % (name, unit)


def title(fig, text):
    """the chart's heading, wrapped to the figure's width; on a smoke-test run a first line and a watermark say that
    the figures are not a measurement"""
    import textwrap

    width = fig.get_size_inches()[0]
    text = textwrap.fill(text, int(width * 11))  # about 11 characters of 10 pt per inch
    if QUICK:
        text = NOT_MEASURED + "\n" + text
        # sized so that the rotated line stays inside the figure
        fig.text(0.5, 0.5, NOT_MEASURED, fontsize=min(40, 3.6 * width), color="tab:red", alpha=0.18, rotation=20,
                 ha="center", va="center", zorder=10, weight="bold")
    fig.suptitle(text, fontsize=10, color="tab:red" if QUICK else "black")
    fig.gshmem_title = text  # for save()'s PNG text


def save(fig, out, name, written):
    path = os.path.join(out, name)
    fig.tight_layout()
    # the PNG's text: the title and axis labels (for a reader that cannot see the chart, and for the tests)
    st = getattr(fig, "gshmem_title", name)
    axes = ["%s (%s)" % (ax.get_title(), ", ".join("%s: %s" % (k, v) for k, v in
                                                (("x", ax.get_xlabel()), ("y", ax.get_ylabel())) if v))
            for ax in fig.axes if ax.axison]
    meta = {"Title": st, "Description": "axes: " + "; ".join(axes)}
    fig.savefig(path, dpi=DPI, metadata=meta)
    plt.close(fig)
    try:  # a 128-colour palette: a third of the size for charts of a few flat colours, no visible change
        from PIL import Image
        from PIL.PngImagePlugin import PngInfo

        with Image.open(path) as im:
            q = im.convert("RGB").quantize(colors=128)
        info = PngInfo()
        for k, v in meta.items():
            info.add_text(k, v)
        q.save(path, optimize=True, pnginfo=info)
    except (ImportError, OSError):
        pass
    written.append(path)


def plot_p2p(perf, out, written, tests, ref, name, ylabel, heading):
    npes_all = sorted({k[1] for k in perf if k[2] in tests and k[4] == "H-H"})
    if not npes_all:
        note("skipping %s: no %s points in the input" % (name, "/".join(tests)))
        return
    np_ = npes_all[0]  # PE 0 <-> PE 1: the other PEs only wait, so the smallest job is the cleanest
    fig, axes = plt.subplots(1, len(tests), figsize=(5 * len(tests), 3.8), squeeze=False)
    refs = {}
    for k, v in perf.items():
        if k[2] == ref and k[1] == np_:
            refs.setdefault(k[3], []).extend(v)
    for ax, t in zip(axes[0], tests):
        labels = order({k[0] for k in perf if k[2] == t and k[1] == np_ and k[4] == "H-H"})
        for lab in labels:
            pts = sorted((k[3], agg(v)) for k, v in perf.items() if k[:3] == (lab, np_, t) and k[4] == "H-H")
            errbar(ax, [p[0] for p in pts], [p[1] for p in pts], lab, color=color(lab))
        if refs:
            pts = sorted((s, statistics.median(v)) for s, v in refs.items())
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "--", color="black", linewidth=1,
                    label="local memcpy (%s)" % ref)
        if not labels:
            ax.text(0.5, 0.5, "no %s data" % t, ha="center", transform=ax.transAxes)
        size_axis(ax)
        plain_log(ax)
        ax.set_ylabel(ylabel)
        ax.set_title("%s, %d PEs" % (t, np_))
        ax.grid(True, which="major", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    if not refs:
        note("%s: no %s points (shmem-perf runs it by default; was it filtered out with --test?)" % (name, ref))
    title(fig, heading)
    save(fig, out, name, written)


def plot_coll(perf, out, written):
    tests = [t for t in COLL if any(k[2] == t for k in perf)]
    npes_all = sorted({k[1] for k in perf if k[2] in tests})
    if not tests or len(npes_all) < 2:
        note("skipping collectives_npes.png: needs collective runs at two or more PE counts (have %s)" %
             (npes_all or "none"))
        return
    # each PE's contribution: the smallest size and, where measured at every PE count, 32 KiB
    cols = min(4, len(tests))
    rows = (len(tests) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 3.0 * rows), squeeze=False)
    for i, t in enumerate(tests):
        ax = axes[i // cols][i % cols]
        sizes = sorted({k[3] for k in perf if k[2] == t})
        shown = [sizes[0]]
        common = [s for s in sizes if s >= 4096 and
                  all(any(k[2] == t and k[1] == n and k[3] == s for k in perf) for n in npes_all)]
        if common:
            shown.append(32768 if 32768 in common else common[-1])
        for lab in order({k[0] for k in perf if k[2] == t}):
            for s, style in zip(shown, ("-", ":")):
                pts = sorted((k[1], agg(v)) for k, v in perf.items() if k[0] == lab and k[2] == t and k[3] == s)
                if not pts:
                    continue
                errbar(ax, [p[0] for p in pts], [p[1] for p in pts],
                       lab + ("" if t in ("barrier", "sync_all", "team_sync") else " %sB" % human(s)),
                       color=color(lab), linestyle=style)
        ax.set_title(t, fontsize=10)
        ax.set_xticks(npes_all)
        ax.set_xlabel("PEs")
        ax.set_ylabel("µs per call (slowest PE)")
        plain_log(ax)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for j in range(len(tests), rows * cols):
        axes[j // cols][j % cols].axis("off")
    title(fig, "collectives vs PE count (solid: smallest size, dotted: larger size per PE)")
    save(fig, out, "collectives_npes.png", written)


SIZED = re.compile(r"^(.*?)_?(\d+)([kKmMgG]?)$")


def split_sized(name):
    """busbw_4096 -> ('busbw', 4096); time -> None"""
    m = SIZED.match(name)
    if not m or not m.group(1):
        return None
    mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(3).lower()]
    return m.group(1), int(m.group(2)) * mult


def main_metric(metrics):
    """an app's headline figure: a rate if it reports one (higher is better), else its time"""
    plain = {n: m for n, m in metrics.items() if not split_sized(n)}
    for n, m in plain.items():
        if "/s" in m.get("unit", "") or m.get("unit", "").upper() in ("GUPS", "MUPS"):
            return n
    if "time" in plain:
        return "time"
    return next(iter(plain), None)


def app_table(apps):
    """-> {(app, variant, label, npes, metric): [medians]}, units"""
    t, units = {}, {}
    for a in apps:
        for n, m in a["metrics"].items():
            t.setdefault((a["app"], a.get("variant", "host"), a["_label"], int(a.get("npes", 1)), n), []).append(
                float(m["median"]))
            units[(a["app"], n)] = m.get("unit", "")
    return t, units


def plot_apps(apps, out, written, want_np):
    if not apps:
        note("skipping apps_throughput.png, apps_scaling.png, apps_sizes.png: no app runs in the input")
        return
    t, units = app_table(apps)
    names = sorted({a["app"] for a in apps})
    heads = {}
    for n in names:
        ms = {}
        for a in apps:
            if a["app"] == n:
                ms.update(a["metrics"])
        heads[n] = main_metric(ms)
    names = [n for n in names if heads[n]]

    # bars: one subplot per app, a group per variant, a bar per implementation, at one PE count per app (--apps-np
    # where the app ran at it, else the count it ran at most often: cannon needs a square)
    app_np = {}
    for n in names:
        counts = {}
        for k in t:
            if k[0] == n and k[4] == heads[n]:
                counts[k[3]] = counts.get(k[3], 0) + len(t[k])
        if counts:
            app_np[n] = want_np if want_np in counts else max(counts, key=lambda c: (counts[c], c))
    have = [n for n in names if n in app_np]
    if have:
        cols = min(3, len(have))
        rows = (len(have) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
        for i, n in enumerate(have):
            ax = axes[i // cols][i % cols]
            m = heads[n]
            np_ = app_np[n]
            variants = sorted({k[1] for k in t if k[0] == n and k[3] == np_ and k[4] == m})
            labels = order({k[2] for k in t if k[0] == n and k[3] == np_ and k[4] == m})
            w = 0.8 / max(1, len(labels))
            for j, lab in enumerate(labels):
                xs, ys, err = [], [], [[], []]
                for vi, v in enumerate(variants):
                    vals = t.get((n, v, lab, np_, m))
                    if not vals:
                        continue
                    md, lo, hi = agg(vals)
                    xs.append(vi + (j - (len(labels) - 1) / 2) * w)
                    ys.append(md)
                    err[0].append(md - lo)
                    err[1].append(hi - md)
                ax.bar(xs, ys, w, yerr=err, capsize=2, label=lab, color=color(lab))
            ax.set_xticks(range(len(variants)))
            ax.set_xticklabels(variants, fontsize=8, rotation=15 if len(variants) > 2 else 0)
            u = units.get((n, m), "")
            better = "higher" if m != "time" and ("/s" in u or u.upper() in ("GUPS", "MUPS")) else "lower"
            ax.set_ylabel("%s, %s is better" % (unit_label(m, u), better), fontsize=8)
            ax.set_title("%s, %d PEs" % (n, np_), fontsize=10)
            ax.grid(True, axis="y", alpha=0.3)
            ax.legend(fontsize=7)
        for j in range(len(have), rows * cols):
            axes[j // cols][j % cols].axis("off")
        title(fig, "apps: headline figure per variant and implementation (median of runs, bar: min..max)")
        save(fig, out, "apps_throughput.png", written)
    else:
        note("skipping apps_throughput.png: no app reports a headline figure")

    # scaling: the headline figure against PE count
    scal = [n for n in names if len({k[3] for k in t if k[0] == n and k[4] == heads[n]}) >= 2]
    if scal:
        cols = min(3, len(scal))
        rows = (len(scal) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
        for i, n in enumerate(scal):
            ax = axes[i // cols][i % cols]
            m = heads[n]
            vs = sorted({k[1] for k in t if k[0] == n and k[4] == m})
            for v, lab in sorted({(k[1], k[2]) for k in t if k[0] == n and k[4] == m}):
                pts = sorted((k[3], agg(vals)) for k, vals in t.items() if k[:3] == (n, v, lab) and k[4] == m)
                errbar(ax, [p[0] for p in pts], [p[1] for p in pts], "%s %s" % (lab, v), color=color(lab),
                       linestyle=["-", "--", ":", "-."][vs.index(v) % 4])
            ax.set_xticks(sorted({k[3] for k in t if k[0] == n}))
            ax.set_xlabel("PEs")
            ax.set_ylabel(unit_label(m, units.get((n, m), "")), fontsize=8)
            ax.set_title(n, fontsize=10)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        for j in range(len(scal), rows * cols):
            axes[j // cols][j % cols].axis("off")
        title(fig, "apps: headline figure vs PE count")
        save(fig, out, "apps_scaling.png", written)
    else:
        note("skipping apps_scaling.png: no app was run at two or more PE counts")

    # size-suffixed metrics (allreduce's busbw_<bytes>): the figure against that size, at one PE count per app (as
    # the bars: --apps-np or the count it ran at most often), one line per implementation and variant
    sized, sized_np = {}, {}
    for k, vals in t.items():
        s = split_sized(k[4])
        if s:
            sized_np.setdefault(k[0], {}).setdefault(k[3], 0)
            sized_np[k[0]][k[3]] += len(vals)
    for n, c in sized_np.items():
        sized_np[n] = want_np if want_np in c else max(c, key=lambda x: (c[x], x))
    for k, vals in t.items():
        s = split_sized(k[4])
        if s and k[3] == sized_np[k[0]]:
            sized.setdefault((k[0], s[0]), {}).setdefault((k[1], k[2], k[3]), []).append((s[1], vals))
    if not sized:
        note("skipping apps_sizes.png: no metric named with a size (e.g. busbw_4096)")
        return
    keys = sorted(sized)
    cols = min(3, len(keys))
    rows = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False)
    for i, (n, base) in enumerate(keys):
        ax = axes[i // cols][i % cols]
        unit = ""
        vs = sorted({k[0] for k in sized[(n, base)]})
        nps = sorted({k[2] for k in sized[(n, base)]})
        for (v, lab, npes), pts in sorted(sized[(n, base)].items()):
            pts = sorted((s, agg(vals)) for s, vals in pts)
            # colour: implementation, line style: variant, marker: PE count
            errbar(ax, [p[0] for p in pts], [p[1] for p in pts],
                   "%s %s" % (lab, v) + (" %dPE" % npes if len(nps) > 1 else ""), color=color(lab),
                   linestyle=["-", "--", ":", "-."][vs.index(v) % 4], marker="osD^v"[nps.index(npes) % 5])
        for (a, m), u in units.items():
            if a == n and split_sized(m) and split_sized(m)[0] == base:
                unit = u
        size_axis(ax)
        plain_log(ax)
        ax.set_ylabel(unit_label(base, unit), fontsize=8)
        ax.set_title("%s: %s, %d PEs" % (n, base, sized_np[n]), fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for j in range(len(keys), rows * cols):
        axes[j // cols][j % cols].axis("off")
    title(fig, "apps: size-dependent figures")
    save(fig, out, "apps_sizes.png", written)


def main():
    global QUICK
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+", help="JSON files or directories holding them")
    ap.add_argument("--out", default=os.path.join(here, "plots"),
                    help="where the PNGs go (default: bench/plots; bench/results/plots holds the published figures)")
    ap.add_argument("--apps-np", type=int, default=0,
                    help="PE count of the app bar charts (default: the one with the most runs)")
    ap.add_argument("--quick", action="store_true",
                    help="mark every chart as a smoke test, not a measurement (automatic for --quick runs' data)")
    args = ap.parse_args()
    perf, units, apps, quick = load(args.inputs)
    QUICK = args.quick or bool(quick)
    if quick:
        note("%d input file(s) come from a --quick run (e.g. %s): the charts say they are not a measurement" %
             (len(quick), quick[0]))
    os.makedirs(args.out, exist_ok=True)
    written = []
    plot_p2p(perf, args.out, written, P2P_LAT, "memcpy_lat", "p2p_latency.png", "µs (lower is better)",
             "latency vs message size: shmem_putmem + quiet, blocking shmem_getmem (median of rounds)")
    plot_p2p(perf, args.out, written, P2P_BW, "memcpy_bw", "p2p_bandwidth.png", "GB/s (higher is better)",
             "bandwidth vs message size: windows of putmem_nbi / getmem_nbi + one quiet (median of rounds)")
    plot_coll(perf, args.out, written)
    plot_apps(apps, args.out, written, args.apps_np)
    for p in written:
        print("%s (%d KB)" % (p, (os.path.getsize(p) + 1023) // 1024))
    if not written:
        note("nothing plotted: no usable data in %s" % " ".join(args.inputs))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

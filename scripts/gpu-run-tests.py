#!/usr/bin/env python3
"""gpu-run-tests.py - runs a set of the build's ctest tests on a GPU machine for scripts/gpu-run.sh, each under its own
timeout, several at a time, starting none after a deadline, and writes a result line per test.

  --set host    the tests whose names match --include and not --exclude, as CMake defines them (the GPU-aware host
                tests: the GPU heap, collectives, types, ordering on the real driver).
  --set device  the tests of the programs named by --map EMU=GPU (tests/device, the spec examples, the workloads' GPU
                forms, shmem-perf-dev): CMake defines them on the CPU emulation's builds; here the nvcc build GPU
                takes the place of EMU in each command, at most --max-np PEs, and every plain 2-PE run is repeated with
                SHMEM_DEVICE_PROXY_ALL=1 (every kernel operation through the proxy) as <name>_proxyall.

ctest's own rules decide each result: SKIP_RETURN_CODE and SKIP_REGULAR_EXPRESSION (skip), PASS_REGULAR_EXPRESSION
(then the exit status does not count), FAIL_REGULAR_EXPRESSION, WILL_FAIL, ENVIRONMENT, WORKING_DIRECTORY, TIMEOUT
(capped by --timeout). Writes OUT/<set>.tsv (name, result, seconds, exit status) and OUT/<set>-logs/<name>.log, and
prints a summary. Exit status: 0 when nothing failed, 1 otherwise, 77 when every test skipped.
"""
import argparse
import concurrent.futures as cf
import json
import os
import re
import signal
import subprocess
import sys
import time


def ctest_tests(build):
    out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True, text=True, check=True)
    tests = []
    for t in json.loads(out.stdout)["tests"]:
        if "command" not in t:
            continue
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests.append({"name": t["name"], "cmd": list(t["command"]), "props": props,
                      "env": list(props.get("ENVIRONMENT", []))})
    return tests


def npes(cmd):
    for i, a in enumerate(cmd):
        if a == "-np" and i + 1 < len(cmd):
            return int(cmd[i + 1])
        m = re.match(r"-DNP=(\d+)$", a)
        if m:
            return int(m.group(1))
    return 1


def retarget(test, mapping):
    """the test with every emulation program replaced by its GPU build, or None if it runs none of them"""
    hit = False
    cmd = []
    for a in test["cmd"]:
        for emu, gpu in mapping.items():
            # a program is a whole argument, or a piece of a ;-list (expect_abort.cmake's -DPROG=exe;args)
            parts = re.split(r"([;=])", a)
            if emu in parts:
                parts = [gpu if p == emu else p for p in parts]
                a = "".join(parts)
            # (where the emulated form is not built, CMake defines its tests on the GPU build: gshmem_add_gpu_app_test)
            hit = hit or gpu in parts
        cmd.append(a)
    if not hit:
        return None
    # (a GPU build exits 77 where it finds no GPU, the house rule, even where the emulation's test never needed it)
    t = dict(test, cmd=cmd, props=dict(test["props"]))
    t["props"].setdefault("SKIP_RETURN_CODE", "77")
    t["name"] = "cuda_" + re.sub(r"_?emu_?", "_", test["name"]).strip("_").replace("__", "_")
    return t


def device_set(tests, mapping, max_np):
    out = []
    for t in tests:
        env = " ".join(t["env"])
        if "SHMEM_TRANSPORT=ofi" in env or "SHMEM_TEST_NODE_SIZE" in env:
            continue  # (the network layouts: not in the GPU machine's build)
        g = retarget(t, mapping)
        if not g or npes(g["cmd"]) > max_np:
            continue
        out.append(g)
        plain = "SHMEM_DEVICE_PROXY" not in env and "expect_abort" not in " ".join(g["cmd"])
        if plain and npes(g["cmd"]) == 2:
            p = dict(g, name=g["name"] + "_proxyall", env=g["env"] + ["SHMEM_DEVICE_PROXY_ALL=1"])
            out.append(p)
    # plain runs first, then through the proxy, then the misuse and mutation checks: the deadline cuts the least telling
    def rank(t):
        e = " ".join(t["env"])
        return (2 if "expect_abort" in " ".join(t["cmd"]) else 1 if "PROXY" in e else 0, npes(t["cmd"]), t["name"])

    return sorted(out, key=rank)


def run_one(t, logdir, cap, deadline):
    left = deadline - time.time()
    if left < 5:
        return t["name"], "NOT RUN", 0.0, ""
    limit = min(float(t["props"].get("TIMEOUT", 1500)), cap, left)
    env = dict(os.environ)
    for kv in t["env"]:
        k, _, v = kv.partition("=")
        env[k] = v
    log = os.path.join(logdir, re.sub(r"[^A-Za-z0-9_.-]", "_", t["name"]) + ".log")
    t0 = time.time()
    with open(log, "w") as f:
        f.write("$ " + " ".join(t["env"]) + " " + " ".join(t["cmd"]) + "\n")
        f.flush()
        p = subprocess.Popen(t["cmd"], cwd=t["props"].get("WORKING_DIRECTORY"), env=env, stdout=f,
                             stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = p.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return t["name"], "TIMEOUT", time.time() - t0, f"after {limit:.0f} s"
    secs = time.time() - t0
    with open(log, errors="replace") as f:
        text = f.read()
    pr = t["props"]
    if "SKIP_RETURN_CODE" in pr and rc == int(pr["SKIP_RETURN_CODE"]):
        return t["name"], "SKIP", secs, str(rc)
    if any(re.search(r, text) for r in pr.get("SKIP_REGULAR_EXPRESSION", [])):
        return t["name"], "SKIP", secs, str(rc)
    ok = any(re.search(r, text) for r in pr["PASS_REGULAR_EXPRESSION"]) if "PASS_REGULAR_EXPRESSION" in pr else rc == 0
    if any(re.search(r, text) for r in pr.get("FAIL_REGULAR_EXPRESSION", [])):
        ok = False
    if pr.get("WILL_FAIL"):
        ok = not ok
    return t["name"], "PASS" if ok else "FAIL", secs, str(rc)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--set", choices=["host", "device"], required=True)
    ap.add_argument("--include", default=".")
    ap.add_argument("--exclude", default="^$")
    ap.add_argument("--map", action="append", default=[], metavar="EMU=GPU")
    ap.add_argument("--only", default="", help="of the selected tests, those whose names match this")
    ap.add_argument("--max-np", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=60, help="cap on each test's TIMEOUT (s)")
    ap.add_argument("--deadline", type=float, default=0, help="no test starts after this time (epoch s)")
    ap.add_argument("--list", action="store_true", help="print the selected tests and exit")
    a = ap.parse_args()
    tests = ctest_tests(a.build)
    if a.set == "host":
        sel = [t for t in tests if re.search(a.include, t["name"]) and not re.search(a.exclude, t["name"])]
    else:
        mapping = dict(m.split("=", 1) for m in a.map)
        missing = [g for g in mapping.values() if not os.path.exists(g)]
        if missing:  # (a GPU form that did not build: its tests are reported, not silently dropped)
            print(f"gpu-run-tests: not built, their tests fail: {' '.join(missing)}")
        sel = device_set(tests, mapping, a.max_np)
    if a.only:
        sel = [t for t in sel if re.search(a.only, t["name"])]
    if a.list:
        for t in sel:
            print(t["name"], " ".join(t["env"]), " ".join(t["cmd"]))
        return 0
    deadline = a.deadline or time.time() + 3600
    logdir = os.path.join(a.out, a.set + "-logs")
    os.makedirs(logdir, exist_ok=True)
    res = []
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = [ex.submit(run_one, t, logdir, a.timeout, deadline) for t in sel]
        for f in futs:
            res.append(f.result())
    with open(os.path.join(a.out, a.set + ".tsv"), "w") as f:
        for name, r, secs, rc in res:
            f.write(f"{name}\t{r}\t{secs:.1f}\t{rc}\n")
    count = {k: sum(1 for x in res if x[1] == k) for k in ("PASS", "FAIL", "TIMEOUT", "SKIP", "NOT RUN")}
    print(f"{a.set} tests: {len(res)} selected: {count['PASS']} passed, {count['FAIL']} failed, "
          f"{count['TIMEOUT']} timed out, {count['SKIP']} skipped, {count['NOT RUN']} not run (deadline)")
    for name, r, secs, rc in res:
        if r in ("FAIL", "TIMEOUT"):
            print(f"  {r}: {name} ({secs:.1f} s, exit {rc})")
    # (on a GPU machine a skip means a test found no GPU support: worth seeing at a glance)
    for k in ("SKIP", "NOT RUN"):
        if count[k]:
            print(f"  {k.lower()}: " + " ".join(n for n, r, _, _ in res if r == k))
    if count["FAIL"] or count["TIMEOUT"]:
        return 1
    return 77 if res and count["SKIP"] == len(res) else 0


if __name__ == "__main__":
    sys.exit(main())

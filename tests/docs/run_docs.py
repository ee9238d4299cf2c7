#!/usr/bin/env python3
"""run_docs.py - runs the shell commands that README.md, docs/*.md and bench/README.md show, as written, against a
fresh install of the build, and fails naming the document, line and command that failed.

Which blocks run is said by the fenced block's info string (GitHub renders the first word; the rest is ours):

    ```sh doctest                    run as written, in order, in one shell per document
    ```sh doctest needs=nvcc         run where every named program is on PATH, else reported skipped
    ```sh doctest slow               run only with DOCTEST_SLOW=1 (a whole build, say), else reported skipped
    ```sh doctest skip="why"         never run; the reason is printed with the skip
    ```c doctest file=ring.cu        not run: written to ring.cu (in the document's directory) at that point

A block in a shell language (sh, bash, shell, console, zsh) without `doctest` is an error: every command a reader may
copy is either run here or excluded with a reason, visibly, in the document's own source. needs= and slow combine with
file= (the file is then written only when the block would run).

Each document runs in a scratch directory that looks like the repository root (its top-level entries linked there,
and build/prefix the install, as scripts/demo.sh leaves it), with HOME a scratch directory too, after
`. <prefix>/share/gshmem/env.sh`. Usage:
    run_docs.py --build BUILD_DIR --src SOURCE_DIR [--docs FILE...] [--keep]
Exit status: 0 when every block that ran passed, 1 otherwise.
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

SHELLS = {"sh", "bash", "shell", "console", "zsh"}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
DOC_TIMEOUT_S = int(os.environ.get("DOCTEST_TIMEOUT", "600"))


class Block:
    def __init__(self, doc, line, info, lines):
        self.doc, self.line, self.lines = doc, line, lines  # line: the first line of the body (1-based)
        words = info.split(None, 1)
        self.lang = words[0] if words else ""
        self.marked = False
        self.attrs = {}
        self.error = None
        rest = words[1] if len(words) > 1 else ""
        try:
            toks = shlex.split(rest)
        except ValueError as e:
            toks = []
            self.error = "cannot read the info string %r: %s" % (info, e)
        for t in toks:
            if t == "doctest":
                self.marked = True
            elif t == "slow":
                self.attrs["slow"] = True
            elif "=" in t:
                k, v = t.split("=", 1)
                self.attrs[k] = v
            else:
                self.attrs[t] = True
        if self.marked:
            unknown = set(self.attrs) - {"skip", "needs", "slow", "file"}
            if unknown:
                self.error = "unknown doctest attribute(s) %s" % ", ".join(sorted(unknown))
            elif "skip" in self.attrs and not str(self.attrs["skip"]).strip():
                self.error = 'skip needs a reason: skip="why"'
            elif self.lang not in SHELLS and "file" not in self.attrs and "skip" not in self.attrs:
                self.error = "a %s block runs only as a file (file=NAME)" % (self.lang or "plain")
        elif self.lang in SHELLS:
            self.error = ('a shell block without a doctest mark: add `doctest` to its info string to run it, or '
                          '`doctest skip="why"` to exclude it')

    def where(self):
        return "%s:%d" % (self.doc, self.line)


def read_blocks(path, name):
    blocks = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group(1), m.group(2), m.group(3).strip()
        body, j = [], i + 1
        while j < len(lines):
            e = FENCE.match(lines[j])
            if e and e.group(2)[0] == fence[0] and len(e.group(2)) >= len(fence) and not e.group(3).strip():
                break
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        blocks.append(Block(name, i + 2, info, body))
        i = j + 1
    return blocks


def script_for(doc, blocks, prefix, status):
    """The bash script that runs one document's blocks; returns (text, {script line: (doc line, block)})."""
    out, where = [], {}

    def emit(text, docline=None, block=None):
        out.append(text)
        if docline is not None:
            where[len(out)] = (docline, block)

    emit("set -o pipefail")
    emit("exec 3>>%s" % shlex.quote(status))
    # the failing line of this script (a sourced file's failure is reported where it was sourced)
    emit('__doctest_err() { local rc=$? i line=$1; for ((i = 0; i < ${#BASH_SOURCE[@]}; i++)); do '
         'if [ "${BASH_SOURCE[$i]}" = "$0" ]; then [ $i -gt 0 ] && line=${BASH_LINENO[$((i - 1))]}; break; fi; '
         'done; printf "FAIL %s %s %s\\n" "$line" "$rc" "$BASH_COMMAND" >&3; exit 1; }')
    emit("trap '__doctest_err $LINENO' ERR")
    emit("set -eE")
    emit(". %s" % shlex.quote(os.path.join(prefix, "share", "gshmem", "env.sh")))
    for b in blocks:
        if not b.marked or b.error:
            continue
        if "skip" in b.attrs:
            emit("printf '%%s\\n' %s >&3" % shlex.quote("SKIP %s %s" % (b.where(), b.attrs["skip"])))
            continue
        conds, why = [], []
        if b.attrs.get("slow"):
            conds.append('[ "${DOCTEST_SLOW:-0}" = 1 ]')
            why.append("slow: runs with DOCTEST_SLOW=1")
        needs = [n for n in str(b.attrs.get("needs", "")).split(",") if n]
        for n in needs:
            conds.append("command -v %s >/dev/null 2>&1" % shlex.quote(n))
        if needs:
            why.append("needs %s on PATH" % ", ".join(needs))
        if conds:
            emit("if %s; then" % " && ".join(conds))
        if "file" in b.attrs:
            name = b.attrs["file"]
            emit("cat >%s <<'__DOCTEST_FILE_END__'" % shlex.quote(name))
            for k, text in enumerate(b.lines):
                emit(text, b.line + k, b)
            emit("__DOCTEST_FILE_END__")
            emit("printf '%%s\\n' %s >&3" % shlex.quote("FILE %s %s" % (b.where(), name)))
        else:
            emit("printf '%%s\\n' %s >&3" % shlex.quote("RUN %s" % b.where()))
            for k, text in enumerate(b.lines):
                emit(text, b.line + k, b)
            # a block's last command may leave a non-zero $? that set -e ignored (`a || b`); the next block starts clean
            emit(":")
        if conds:
            emit("else printf '%%s\\n' %s >&3; fi" % shlex.quote("SKIP %s %s" % (b.where(), "; ".join(why))))
    emit("printf 'DONE\\n' >&3")
    return "\n".join(out) + "\n", where


def command_at(block, docline):
    """The whole command around a document line: its continuation lines joined."""
    k = docline - block.line
    lines = block.lines
    s = k
    while s > 0 and lines[s - 1].rstrip().endswith("\\"):
        s -= 1
    e = k
    while e < len(lines) - 1 and lines[e].rstrip().endswith("\\"):
        e += 1
    return " ".join(l.strip().rstrip("\\").strip() for l in lines[s:e + 1])


def make_root(src, prefix, root):
    """A directory that looks like the repository root after scripts/demo.sh: sources linked, build/prefix installed."""
    os.makedirs(os.path.join(root, "build"))
    os.makedirs(os.path.join(root, "home"))
    for e in os.listdir(src):
        if e in ("build", ".git") or e.startswith("build"):
            continue
        os.symlink(os.path.join(src, e), os.path.join(root, e))
    os.symlink(prefix, os.path.join(root, "build", "prefix"))


def run_doc(name, blocks, src, prefix, scratch, keep):
    root = os.path.join(scratch, re.sub(r"[^A-Za-z0-9]+", "_", name))
    make_root(src, prefix, root)
    status = os.path.join(root, ".doctest-status")
    text, where = script_for(name, blocks, prefix, status)
    script = os.path.join(root, ".doctest.sh")
    with open(script, "w") as f:
        f.write(text)
    env = dict(os.environ)
    env["HOME"] = os.path.join(root, "home")
    env["PWD"] = root
    log = os.path.join(root, ".doctest.log")
    with open(log, "wb") as lf:
        p = subprocess.Popen(["bash", script], cwd=root, env=env, stdout=lf, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            rc = p.wait(timeout=DOC_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = None
    events, ran, skipped, failure, done = [], [], [], None, False
    with open(status) as f:
        for l in f.read().splitlines():
            kind, _, rest = l.partition(" ")
            if kind == "RUN":
                ran.append(rest)
                events.append("ran      %s" % rest)
            elif kind == "FILE":
                w, _, fname = rest.partition(" ")
                events.append("wrote    %s: %s" % (w, fname))
            elif kind == "SKIP":
                w, _, why = rest.partition(" ")
                skipped.append(w)
                events.append("skipped  %s: %s" % (w, why))
            elif kind == "FAIL":
                line, status_, cmd = (rest.split(" ", 2) + ["", ""])[:3]
                failure = (int(line), status_, cmd)
            elif kind == "DONE":
                done = True
    with open(log, "rb") as f:
        output = f.read().decode("utf-8", "replace")
    problem = None
    if failure:
        line, st, cmd = failure
        docline, block = where.get(line, (None, None))
        if block is not None:
            problem = "%s:%d: `%s` failed (exit status %s)" % (name, docline, command_at(block, docline), st)
        else:
            problem = "%s: the harness's line %d failed (exit status %s): %s" % (name, line, st, cmd)
    elif rc is None:
        last = ran[-1] if ran else name
        problem = "%s: still running after %d s (last block started: %s)" % (name, DOC_TIMEOUT_S, last)
    elif rc != 0 or not done:
        last = ran[-1] if ran else name
        problem = "%s: the shell ended with status %s before the end (last block started: %s)" % (name, rc, last)
    if not keep:
        shutil.rmtree(root, ignore_errors=True)
    return events, len(ran), len(skipped), problem, output


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="the build directory to install (cmake --install)")
    ap.add_argument("--src", required=True, help="the source tree (the documents and what they name)")
    ap.add_argument("--prefix", help="an existing install to use instead of installing the build")
    ap.add_argument("--docs", nargs="*", help="documents (default: README.md docs/*.md bench/README.md)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directories")
    a = ap.parse_args()
    src = os.path.abspath(a.src)
    docs = a.docs or (["README.md"] + sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "docs", "*.md")))
                      + ["bench/README.md"])
    scratch = tempfile.mkdtemp(prefix="gshmem-docs.")
    problems = []
    try:
        if a.prefix:
            prefix = os.path.abspath(a.prefix)
        else:
            prefix = os.path.join(scratch, "prefix")
            r = subprocess.run(["cmake", "--install", a.build, "--prefix", prefix], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            if r.returncode:
                print(r.stdout.decode(errors="replace"))
                print("run_docs: cmake --install %s failed" % a.build)
                return 1
        parsed = []
        for d in docs:
            path = d if os.path.isabs(d) else os.path.join(src, d)
            name = os.path.relpath(path, src) if path.startswith(src + os.sep) else d
            blocks = read_blocks(path, name)
            for b in blocks:
                if b.error:
                    problems.append("%s: %s" % (b.where(), b.error))
            parsed.append((name, blocks))
        nran = nskip = 0
        for name, blocks in parsed:
            if not any(b.marked and not b.error for b in blocks):
                continue
            events, r, k, problem, output = run_doc(name, blocks, src, prefix, scratch, a.keep)
            nran += r
            nskip += k
            print("\n".join(events))
            sys.stdout.flush()
            if problem:
                print("---- output of %s (last 40 lines):" % name)
                print("\n".join(output.rstrip("\n").split("\n")[-40:]))
                print("----")
                problems.append(problem)
        print("run_docs: %d blocks ran, %d skipped, %d documents" % (nran, nskip, len(parsed)))
    finally:
        if a.keep:
            print("run_docs: scratch kept in %s" % scratch)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    for p in problems:
        print("FAIL: %s" % p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: ptelab's speed and memory against issue 14's targets, in one run.

Prints, measured on this machine in this one run:
  loop                 tools/bench_loop.c (compiled here with $CC -O2): set,
                       young-test-and-clear and clear S1's 2.6 M PTEs, bare
  S1 reclaim phase     `run reclaim-file --size 10G --lru mglru --no-perf`
                       (ref, as reproduce runs S1), the measured phase's host
                       time (JSON host_phase_ns)
  S1 whole run         the same run's host_ns (setup, faults, reclaim, exit)
  S1 phase, perf on    the same reclaim phase keeping the modelled perf
                       profile (what `ptelab run` does by default)
  full reproduce       wall time of `reproduce --jobs <cores>` (every
                       experiment, S3 and whichever kernel trees are fetched)
  reproduce CPU        the CPU time (user + system) of that run and its workers
  bytes per page       peak RSS of `run munmap --size 16G` per 4 KiB page
  check                `check --sequences 8 --json`: ops_per_s_per_core
with each S1 figure's ratio to the loop and the target it is held to, and
S1's phase against the published hardware's reclaim time (data/published.tsv,
labelled published: what the loop ratio stands for). The machine is shared
and noisy: only ratios measured in one run mean much.

With --callgrind it also runs S1 at 1G under valgrind's callgrind
(deterministic instruction counts, unlike the times above) and prints the
functions that executed the most instructions.

    tools/bench.py [--ptelab PATH] [--skip-reproduce] [--callgrind]
"""
import argparse
import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
S1_PTES = (10 << 30) >> 12          # S1 maps 10 GiB in 4 KiB PTEs
TARGETS = {                          # issue 14
    "S1 reclaim phase": ("loop ratio", 3.7),
    "S1 whole run": ("loop ratio", 8.0),
    "full reproduce": ("seconds", 20.0),
    "bytes per page at 16G": ("bytes", 64.0),
    "check": ("ops/s per core", 1e6),
}


def die(msg):
    raise SystemExit(f"bench: {msg}")


def loop_seconds():
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        die("no C compiler (cc, gcc, or $CC) for tools/bench_loop.c")
    exe = os.path.join(ROOT, "build", "bench_loop")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    p = subprocess.run([cc, "-O2", "-o", exe, os.path.join(ROOT, "tools", "bench_loop.c")],
                       capture_output=True, text=True)
    if p.returncode:
        die(f"cannot compile tools/bench_loop.c: {p.stderr.strip()[-300:]}")
    p = subprocess.run([exe, str(S1_PTES)], capture_output=True, text=True)
    if p.returncode:
        die(f"bench_loop failed: {p.stderr.strip()}")
    return float(p.stdout.split()[0])


def published_figure(experiment, row, column):
    """A figure of data/published.tsv (value, unit, source), or None: shown only as published."""
    with open(os.path.join(ROOT, "data", "published.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 6 and cols[:3] == [experiment, row, column]:
                return float(cols[3]), cols[4], cols[5]
    return None


def run_json(ptelab, *args):
    p = subprocess.run([ptelab, *args, "--json"], capture_output=True, text=True)
    if p.returncode not in (0, 1) or not p.stdout.strip():
        die(f"`ptelab {' '.join(args)}` failed: {p.stderr.strip()[-300:]}")
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def reproduce_seconds(ptelab):
    """Wall and CPU seconds of a full reproduce, and the kernel trees it ran."""
    jobs = str(os.cpu_count() or 1)
    t, cpu = time.monotonic(), children_cpu()
    p = subprocess.run([ptelab, "reproduce", "--jobs", jobs], capture_output=True, text=True)
    secs, cpu = time.monotonic() - t, children_cpu() - cpu
    if p.returncode not in (0, 1):
        die(f"`ptelab reproduce` failed: {p.stderr.strip()[-300:]}")
    kernels = sorted(d for d in os.listdir(os.path.join(ROOT, "build", "kernels"))
                     if d.startswith("linux-")) if os.path.isdir(
                         os.path.join(ROOT, "build", "kernels")) else []
    return secs, cpu, kernels


def callgrind_top(ptelab, n=15):
    """S1 at 1G under callgrind: the simulation's child process, top functions by Ir."""
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        die("--callgrind needs valgrind and callgrind_annotate")
    out = os.path.join(ROOT, "build", "callgrind")
    os.makedirs(out, exist_ok=True)
    for f in glob.glob(os.path.join(out, "cg.*")):
        os.remove(f)
    p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg.%p",
                        ptelab, "run", "reclaim-file", "--size", "1G", "--lru", "mglru"],
                       capture_output=True, text=True, timeout=1800)
    if p.returncode not in (0, 1):
        die(f"callgrind run failed: {p.stderr.strip()[-300:]}")
    # the run is a forked child (kernel/isolate): its profile is the biggest
    prof = max(glob.glob(os.path.join(out, "cg.*")), key=os.path.getsize)
    ann = subprocess.run(["callgrind_annotate", prof], capture_output=True, text=True).stdout
    lines = ann.splitlines()
    total = next((l.split()[0] for l in lines if "PROGRAM TOTALS" in l), "?")
    start = next(i for i, l in enumerate(lines) if l.rstrip().endswith("file:function"))
    rows = [l for l in lines[start + 2:] if l.strip()][:n]
    print(f"\ncallgrind, run reclaim-file --size 1G --lru mglru (the simulating child, "
          f"{total} instructions): the top {n}")
    for l in rows:
        print("  " + l[:100])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ptelab", default=os.path.join(ROOT, "ptelab"))
    ap.add_argument("--skip-reproduce", action="store_true",
                    help="leave out the full reproduce (the slowest figure)")
    ap.add_argument("--callgrind", action="store_true",
                    help="also the top functions by instructions of S1 at 1G (valgrind)")
    a = ap.parse_args()
    if not os.access(a.ptelab, os.X_OK):
        die(f"{a.ptelab} is not an executable ptelab; run make first")

    loop = loop_seconds()
    s1 = run_json(a.ptelab, "run", "reclaim-file", "--size", "10G", "--lru", "mglru",
                  "--no-perf")[0]
    s1p = run_json(a.ptelab, "run", "reclaim-file", "--size", "10G", "--lru", "mglru")[0]
    mm = run_json(a.ptelab, "run", "munmap", "--size", "16G")[0]
    chk = run_json(a.ptelab, "check", "--sequences", "8")[-1]["summary"]
    rows = [
        ("loop", loop, "s", None),
        ("S1 reclaim phase", s1["host_phase_ns"] / 1e9, "s", s1["host_phase_ns"] / 1e9 / loop),
        ("S1 whole run", s1["host_ns"] / 1e9, "s", s1["host_ns"] / 1e9 / loop),
        ("S1 phase, perf on", s1p["host_phase_ns"] / 1e9, "s", s1p["host_phase_ns"] / 1e9 / loop),
    ]
    if not a.skip_reproduce:
        secs, cpu, kernels = reproduce_seconds(a.ptelab)
        rows.append(("full reproduce", secs, "s", None))
        rows.append(("reproduce CPU", cpu, "s", None))
    rows.append(("bytes per page at 16G", mm["peak_rss_kb"] * 1024 / ((16 << 30) >> 12), "B", None))
    rows.append(("check", chk["ops_per_s_per_core"], "ops/s/core", None))

    print(f"{'figure':24} {'measured':>14} {'unit':10} {'x loop':>8}  target")
    missed = 0
    for name, v, unit, ratio in rows:
        tgt = TARGETS.get(name)
        if not tgt:
            status = ""
        else:
            what, limit = tgt
            got = ratio if what == "loop ratio" else v
            ok = got >= limit if name == "check" else got <= limit
            missed += not ok
            rel = ">=" if name == "check" else "<="
            status = f"{rel} {limit:g} {'' if what == 'loop ratio' else unit}".rstrip() + \
                f"{' x loop' if what == 'loop ratio' else ''}: {'ok' if ok else 'MISSED'}"
        fmt = f"{v:14,.0f}" if v >= 1000 else f"{v:14.3f}"
        print(f"{name:24} {fmt} {unit:10} {'' if ratio is None else f'{ratio:8.1f}':>8}  {status}")
    if not a.skip_reproduce:
        print(f"reproduce ran on {os.cpu_count()} cores with kernel trees: "
              f"{', '.join(kernels) or 'none fetched (ref rows only)'}")
    print(f"{missed} of {sum(1 for r in rows if r[0] in TARGETS)} targets missed")
    # issue 14's aim behind the loop ratio: S1's reclaim simulated faster than
    # the published hardware ran it (the ratio target was set from a loop
    # measured at about 0.05 s; this machine's loop is what the table divides by)
    pub = published_figure("S1", "mglru", "after")
    if pub:
        print(f"S1 reclaim phase / the published hardware's reclaim (published: {pub[0]:g} {pub[1]}, "
              f"data/published.tsv S1 mglru after): {s1['host_phase_ns'] / 1e9 / pub[0]:.2f}x")
    if a.callgrind:
        callgrind_top(a.ptelab)
    return 0


if __name__ == "__main__":
    sys.exit(main())

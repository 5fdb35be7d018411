# SPDX-License-Identifier: GPL-2.0-only
"""Run one `ptelab check` campaign as N disjoint shards on a Dask cluster
and merge the shards' JSON lines into one report.

Usage: python3 tools/campaign.py [--shards N] [--scheduler ADDR | --local]
                                 [--ptelab PATH] [--json] [CHECK OPTION...]

Each shard is one task: `ptelab check --shard K/N --jobs 1 --json OPTIONS`,
so the N shards do exactly the work of the unsharded campaign. Without
--scheduler a LocalCluster runs one single-threaded worker process per core;
with --scheduler the workers may be anywhere, but PATH (default: ./ptelab of
this repository) must name the binary on every worker. --local uses local
processes and needs no Dask. Every other option goes to `ptelab check`;
--time S is the campaign's budget: the shards default to one per worker
thread, each gets what is left of S when it starts, and one that would start
with less than a second left (ptelab's least --time) does not run.

Exit status as `ptelab check`: 0 every invariant held and every op was
called, 1 a finding or an op never called, 2 bad input, 3 internal error.
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# .ci/run installs here when pip may not write to the interpreter's site-packages
PYDEPS = ROOT / "build" / "pydeps"
NO_DASK = ("campaign: error: dask.distributed is not installed: "
           "pip install -r tools/requirements-campaign.txt")
NUMBER = re.compile(r"0x[0-9a-fA-F]+|\d+")  # addresses, pfns, cpus, counts


class Fail(Exception):
    """One line on stderr, then this exit status (2: bad input, 3: internal)."""

    def __init__(self, message, code=2):
        super().__init__(message)
        self.code = code


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, as ptelab's bad input
        raise Fail(f"campaign: error: {message}")


def run_shard(ptelab, k, n, args, deadline=None):
    """One task (runs on a worker): a shard's exit status, JSON lines, stderr."""
    args = list(args)
    res = {"shard": k, "exit": 3, "lines": [], "stderr": ""}
    if deadline is not None:
        left = deadline - time.time()   # the workers' clocks agree to a second or so
        if left < 1:
            return {**res, "exit": 0, "skipped": True}
        args[args.index("--time") + 1] = str(math.ceil(left))
    argv = [ptelab, "check", "--shard", f"{k}/{n}", "--jobs", "1", "--json", *args]
    try:
        p = subprocess.run(argv, capture_output=True, text=True)
    except OSError as e:
        res["stderr"] = f"campaign: error: cannot run {ptelab}: {e}"
        return res
    res["exit"], res["stderr"] = p.returncode, p.stderr[-4000:]
    try:
        res["lines"] = [json.loads(s) for s in p.stdout.splitlines() if s.strip()]
    except ValueError:
        res["exit"], res["stderr"] = 3, "campaign: error: shard output is not JSON lines"
        return res
    if p.returncode in (0, 1, 4) and not any("summary" in x for x in res["lines"]):
        res["exit"], res["stderr"] = 3, "campaign: error: shard printed no summary"
    return res


def finding_key(f):
    """Findings differing only in numbers (addresses, cpus, ...) are one."""
    return (f.get("impl"), f.get("kind"), NUMBER.sub("#", f.get("message") or ""))


def merge(results, seconds=0.0):
    """Shard results -> {"rows", "coverage", "summary"} of the whole campaign."""
    rows, cov, found = {}, {}, {}
    tot = {"ops": 0, "sequences": 0, "units": 0, "cpu_seconds": 0.0, "configurations_not_run": 0}
    for r in sorted(results, key=lambda r: r["shard"]):  # deterministic order
        for line in r["lines"]:
            if "row" in line:
                x = line["row"]
                key = (x["impl"], x["machine"], x["policy"], x["folio_size"])
                m = rows.setdefault(key, {**x, "sequences": 0, "ops": 0, "violations": 0,
                                          "counts": {}})
                for f, v in x.items():
                    if f in ("sequences", "ops", "violations"):
                        m[f] += v or 0
                    elif f == "counts":   # violations per kind
                        for kind, n in (v or {}).items():
                            m[f][kind] = m[f].get(kind, 0) + n
                    elif not m.get(f) and v:   # first, kind, finding, reproducer, trace
                        m[f] = v
            elif "coverage" in line:
                c = line["coverage"]
                calls = cov.setdefault(c["impl"], {})
                for op, (n, cont) in c["calls"].items():
                    a = calls.setdefault(op, [0, 0])
                    a[0] += n
                    a[1] += cont
            elif "summary" in line:
                s = line["summary"]
                for f in tot:
                    tot[f] += s.get(f) or 0
                for f in s.get("findings") or []:
                    k = finding_key(f)
                    if k in found:
                        found[k]["count"] += 1
                    else:
                        found[k] = {**f, "count": 1}
    coverage = [{"impl": i, "calls": c, "all_called": all(n > 0 for n, _ in c.values())}
                for i, c in cov.items()]
    cpu = tot["cpu_seconds"]
    summary = {**tot, "seconds": seconds, "ops_per_s_per_core": tot["ops"] / cpu if cpu else 0.0,
               "shards": len(results), "skipped": sum(bool(r.get("skipped")) for r in results),
               "findings": list(found.values()),
               "all_called": bool(coverage) and all(c["all_called"] for c in coverage)}
    return {"rows": list(rows.values()), "coverage": coverage, "summary": summary}


def shard_errors(results):
    """(shard, exit, line) for each shard that did not end 0, 1 or 4 (a verdict)."""
    out = []
    for r in sorted(results, key=lambda r: r["shard"]):
        if r["exit"] not in (0, 1, 4):
            lines = [s for s in r["stderr"].splitlines() if s.strip()]
            err = [s for s in lines if "error:" in s]
            out.append((r["shard"], r["exit"], (err or lines or ["(no message)"])[0]))
    return out


def exit_status(merged, results):
    """check's own verdicts over the whole campaign: 1 violated, 4 incomplete
    (an op no shard called, work a shard's --time left undone), 0 clean;
    2 and 3 (errors) from any shard first."""
    codes = {r["exit"] for r in results}
    if codes - {0, 1, 2, 4}:   # 3, a signal, a crash: internal error
        return 3
    if 2 in codes:
        return 2
    s = merged["summary"]
    if s["findings"] or any(x["violations"] for x in merged["rows"]):
        return 1
    # a shard's exit 1 without findings is unexplained: a failure
    for r in results:
        if r["exit"] == 1:
            sm = next((x["summary"] for x in r["lines"] if "summary" in x), {})
            if not sm.get("findings"):
                return 1
    # a shard's exit 4 for an op only it never called is not one (small
    # shards miss ops the others call); the merged coverage decides
    if not s["all_called"] or s.get("configurations_not_run"):
        return 4
    return 0


def folio(n):
    return f"{n // 1024}K" if isinstance(n, int) and n % 1024 == 0 else str(n)


def print_table(m):
    s, rows = m["summary"], m["rows"]
    bad = [r for r in rows if r["violations"]]
    p = print
    p(f"{len(rows)} configurations, {len(bad)} with violations")
    if bad:
        p(f"  {'impl':<24} {'machine':<12} {'policy':<12} {'folio':>6} {'sequences':>10} "
          f"{'ops':>12} {'violations':>10}  first")
        for r in bad:
            p(f"  {r['impl']:<24} {r['machine']:<12} {r['policy']:<12} {folio(r['folio_size']):>6} "
              f"{r['sequences']:>10} {r['ops']:>12} {r['violations']:>10}  {r.get('first') or ''}")
    for f in s["findings"]:
        p(f"FINDING ({f['count']}x) {f.get('impl')} {f.get('machine')} {f.get('policy')} "
          f"{folio(f.get('folio_size'))} {f.get('kind')}: {f.get('message')}")
        if f.get("reproducer"):
            p(f"  reproduce: {f['reproducer']}")
        for t in f.get("trace") or []:
            p(f"    {t}")
    for c in m["coverage"]:
        for op, (n, cont) in c["calls"].items():
            if n == 0:
                p(f"coverage: {c['impl']}: {op} never called")
    skipped = f" ({s['skipped']} not started: --time spent)" if s.get("skipped") else ""
    p(f"summary: {s['ops']} ops, {s['sequences']} sequences, {s['shards']} shards{skipped} "
      f"on {s.get('jobs', '?')} workers, "
      f"{s['ops_per_s_per_core']:.0f} ops/s/core, {s['seconds']:.1f} s, "
      f"{s['cpu_seconds']:.1f} s cpu: {'ok' if s.get('ok') else 'FAILED'}")


def import_distributed():
    try:
        import distributed
    except ImportError:
        if not PYDEPS.is_dir():
            return None
        sys.path.insert(0, str(PYDEPS))
        try:
            import distributed
        except ImportError:
            return None
    return distributed


def cores():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def run_all(opts, passthrough, deadline_of, progress):
    """Run every shard; returns (results, shards, slots, seconds)."""
    from contextlib import ExitStack
    with ExitStack() as stack:
        if opts.local:
            slots = cores()
            pool = stack.enter_context(concurrent.futures.ProcessPoolExecutor(slots))
            submit, completed = pool.submit, concurrent.futures.as_completed
        else:
            distributed = import_distributed()
            if distributed is None:
                raise Fail(NO_DASK)
            import logging
            if opts.scheduler:
                try:
                    client = stack.enter_context(distributed.Client(opts.scheduler, timeout=30))
                except (OSError, ValueError) as e:   # unreachable or malformed address
                    raise Fail(f"campaign: error: no Dask scheduler at {opts.scheduler}: {e}")
                try:   # a cluster started just now: its workers may still be joining
                    client.wait_for_workers(1, timeout=60)
                except (OSError, TimeoutError) as e:
                    raise Fail(f"campaign: error: no Dask worker joined {opts.scheduler}: {e}", 3)
            else:
                try:   # loopback only; no dashboard (it would want bokeh and a port)
                    cluster = stack.enter_context(distributed.LocalCluster(
                        n_workers=cores(), threads_per_worker=1, processes=True, host="127.0.0.1",
                        dashboard_address=None, silence_logs=logging.ERROR))
                except Exception as e:
                    raise Fail(f"campaign: error: the Dask LocalCluster did not start: {e}", 3)
                client = stack.enter_context(distributed.Client(cluster))
            slots = max(1, sum(w["nthreads"] for w in client.scheduler_info()["workers"].values()))
            submit = lambda *a: client.submit(*a, pure=False)
            completed = distributed.as_completed
        t0 = time.monotonic()
        deadline = deadline_of(time.time())
        # 2 per slot balance uneven shards; under --time each runs to the deadline
        n = opts.shards or max(1, slots if deadline else slots * 2)
        futures = {submit(run_shard, opts.ptelab, k, n, passthrough, deadline): k
                   for k in range(1, n + 1)}
        results = []
        for fut in completed(futures):
            try:
                results.append(fut.result())
            except Exception as e:  # a worker lost, a pool broken: this shard did not run
                results.append({"shard": futures[fut], "exit": 3, "lines": [],
                                "stderr": f"campaign: error: shard failed: {e!r}"})
            progress(len(results), n)
        return results, n, slots, time.monotonic() - t0


def parse(argv):
    ap = Parser(prog="campaign.py", allow_abbrev=False,
                description="Run `ptelab check` as N shards on Dask; other options go to it.")
    ap.add_argument("--shards", type=int, help="number of shards (default: 2 per worker thread; 1 under --time)")
    ap.add_argument("--scheduler", help="address of a running dask.distributed scheduler")
    ap.add_argument("--local", action="store_true", help="local processes, no Dask")
    ap.add_argument("--ptelab", default=str(ROOT / "ptelab"), help="the ptelab binary")
    ap.add_argument("--json", action="store_true", help="one merged JSON object")
    opts, rest = ap.parse_known_args(argv)
    if opts.shards is not None and opts.shards < 1:
        raise Fail("campaign: error: --shards takes a number >= 1")
    if opts.local and opts.scheduler:
        raise Fail("campaign: error: --local and --scheduler exclude each other")
    if not opts.scheduler and not os.access(opts.ptelab, os.X_OK):
        raise Fail(f"campaign: error: {opts.ptelab} is not an executable (make, or --ptelab PATH)")
    passthrough = []
    for a in rest:  # --opt=value as two arguments, so --time can be found
        passthrough += a.split("=", 1) if a.startswith("--") and "=" in a else [a]
    for a in passthrough:
        if a in ("--shard", "--jobs"):
            raise Fail(f"campaign: error: {a} is set per shard by the campaign")
    deadline_of = lambda now: None
    if "--time" in passthrough:
        i = passthrough.index("--time") + 1
        try:
            budget = float(passthrough[i])
            deadline_of = lambda now: now + budget
        except (IndexError, ValueError):
            pass  # ptelab check reports it
    return opts, passthrough, deadline_of


def main(argv=None):
    try:
        opts, passthrough, deadline_of = parse(sys.argv[1:] if argv is None else argv)
        tty = sys.stderr.isatty()

        def progress(done, total):
            end = "\n" if not tty or done == total else ""
            print(f"{chr(13) if tty else ''}campaign: {done}/{total} shards done",
                  end=end, file=sys.stderr, flush=True)

        results, n, slots, seconds = run_all(opts, passthrough, deadline_of, progress)
    except Fail as e:
        print(e, file=sys.stderr)
        return e.code
    merged = merge(results, seconds)
    code = exit_status(merged, results)
    errors = shard_errors(results)
    seen = {}
    for k, c, line in errors:  # the same message from every shard once
        seen.setdefault((c, line), []).append(k)
    for (c, line), ks in seen.items():
        more = f" (and {len(ks) - 1} more)" if len(ks) > 1 else ""
        print(f"campaign: shard {ks[0]}/{n}{more} exited {c}: {line}", file=sys.stderr)
    if code == 2:   # bad input: nothing ran
        return code
    merged["summary"].update(jobs=slots, ok=code == 0, exit=code,
                             failed_shards=[{"shard": f"{k}/{n}", "exit": c, "error": line}
                                            for k, c, line in errors])
    if opts.json:
        print(json.dumps(merged))
    else:
        print_table(merged)
    return code


if __name__ == "__main__":
    sys.exit(main())

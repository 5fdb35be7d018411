# SPDX-License-Identifier: GPL-2.0-only
"""tools/campaign.py: merging shards, exit codes, and real campaigns on local
processes and on a Dask LocalCluster, against a fake `ptelab check` that
follows the --shard/--json contract and against the real binary."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, _binary

import campaign

TOOL = ROOT / "tools" / "campaign.py"
HAS_DASK = campaign.import_distributed() is not None
needs_dask = pytest.mark.skipif(not HAS_DASK, reason="dask.distributed is not importable "
                                "(pip install -r tools/requirements-campaign.txt)")

# A stand-in for `ptelab check --json` with --shard: 8 configurations per impl,
# `--sequences` units each, numbered globally; unit u runs in shard u % N + 1.
# BEHAVIOUR: units that find a violation, an op never called, per-shard exits.
FAKE = r'''
import json, sys
BEHAVIOUR = %r
OPS = ["ptep_get", "set_ptes", "wrprotect_ptes", "clear_flush_young_ptes"]
a, opt = sys.argv[2:], {"--impl": "ref", "--sequences": "2", "--seed": "1", "--shard": "1/1"}
while a:
    if a[0] == "--json":
        a = a[1:]
    elif a[0] in ("--impl", "--arch", "--sequences", "--seed", "--time", "--jobs", "--shard") and len(a) > 1:
        opt[a[0]], a = a[1], a[2:]
    else:
        sys.exit(print(f"ptelab: error: unknown option '{a[0]}' for check", file=sys.stderr) or 2)
k, n = map(int, opt["--shard"].split("/"))
if str(k) in BEHAVIOUR.get("exit", {}):
    code, msg = BEHAVIOUR["exit"][str(k)]
    sys.exit(print(msg, file=sys.stderr) or code)
seqs, seed = int(opt["--sequences"]), int(opt["--seed"])
impls = opt["--impl"].split(",")
findings, u, tot = [], 0, 0
calls = {i: {op: [0, 0] for op in OPS} for i in impls}
for impl in impls:
    for machine in ("m1", "m2"):
        for policy in ("accessed", "random"):
            for folio in (16384, 65536):
                row = dict(impl=impl, machine=machine, policy=policy, folio_size=folio, sequences=0,
                           ops=0, violations=0, first="", finding=None, reproducer=None, trace=None)
                for _ in range(seqs):
                    if u %% n == k - 1:
                        row["sequences"] += 1
                        row["ops"] += 50 + u * 7 %% 13
                        calls[impl]["ptep_get"][0] += 10
                        op = OPS[u %% len(OPS)]
                        if op != BEHAVIOUR.get("never"):
                            calls[impl][op][0] += 2
                            calls[impl][op][1] += folio > 16384
                        if u in BEHAVIOUR.get("violate", []):
                            msg = f"pfn {0x1000 + u * 0x40:#x} was written but not dirty (cpu{u %% 2}, seq {u})"
                            f = dict(kind="lost_dirty", message=msg,
                                     reproducer=f"ptelab run fuzz --impl {impl} --seed {seed + u}",
                                     trace=[f"set_ptes va {0x400000 + u * 0x10000:#x}", "hw: write"])
                            row["violations"] += 1
                            if not row["first"]:
                                row.update(first=msg, finding=f, reproducer=f["reproducer"], trace=f["trace"])
                            findings.append(dict(impl=impl, machine=machine, policy=policy, folio_size=folio, **f))
                    u += 1
                tot += row["ops"]
                print(json.dumps({"row": row}))
all_called = all(c[0] for i in impls for c in calls[i].values())
for i in impls:
    print(json.dumps({"coverage": {"impl": i, "calls": calls[i],
                                   "all_called": all(c[0] for c in calls[i].values())}}))
print(json.dumps({"summary": dict(ops=tot, sequences=u // n, seconds=0.01, cpu_seconds=tot * 1e-6,
                  jobs=1, ops_per_s_per_core=1e6, shard=opt["--shard"], findings=findings,
                  all_called=all_called, ok=not findings and all_called, time=opt.get("--time"))}))
sys.exit(1 if findings else 4 if not all_called else 0)
'''


@pytest.fixture
def fake(tmp_path):
    def make(**behaviour):
        p = tmp_path / "ptelab"
        p.write_text(f"#!{sys.executable}\n" + FAKE % behaviour)
        p.chmod(0o755)
        return str(p)
    return make


def campaign_run(*args):
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


# -- merging synthetic shard outputs -------------------------------------

def out(k, rows=(), calls=None, findings=(), ops=100, code=0):
    lines = [{"row": r} for r in rows]
    lines.append({"coverage": {"impl": "ref", "calls": calls or {"a": [1, 0], "b": [2, 1]},
                               "all_called": True}})
    lines.append({"summary": {"ops": ops, "sequences": 1, "seconds": 1.0, "cpu_seconds": 0.5,
                              "findings": list(findings), "all_called": True}})
    return {"shard": k, "exit": code, "lines": lines, "stderr": ""}


def row(violations=0, **kw):
    return {**dict(impl="ref", machine="m", policy="random", folio_size=65536, sequences=1,
                   ops=100, violations=violations, first="", finding=None, reproducer=None,
                   trace=None), **kw}


def finding(addr, cpu):
    return dict(impl="ref", machine="m", policy="random", folio_size=65536, kind="stale_tlb",
                message=f"cpu{cpu} asid 3 va {addr:#x} pfn {addr >> 12:#x} stale",
                reproducer=f"ptelab run fuzz --seed {addr}", trace=[f"set_ptes {addr:#x}"])


def test_same_finding_at_other_addresses_is_one_finding_counted_twice():
    a, b = finding(0x7f0000, 0), finding(0x812000, 1)
    rs = [out(1, [row(1, first=a["message"], reproducer=a["reproducer"], counts={"stale_tlb": 1})],
              findings=[a], code=1),
          out(2, [row(1, first=b["message"], finding=True, counts={"stale_tlb": 2, "lost_dirty": 1})],
              findings=[b], code=1)]
    m = campaign.merge(rs)
    assert len(m["summary"]["findings"]) == 1
    f = m["summary"]["findings"][0]
    assert f["count"] == 2 and f["message"] == a["message"]   # the first one is kept
    assert m["rows"] == [{**row(2, first=a["message"], reproducer=a["reproducer"], finding=True,
                                counts={"stale_tlb": 3, "lost_dirty": 1}),
                          "sequences": 2, "ops": 200}]
    assert campaign.exit_status(m, rs) == 1
    # a different kind of finding stays apart
    c = {**finding(0x1000, 0), "kind": "lost_dirty"}
    assert len(campaign.merge(rs + [out(3, findings=[c], code=1)])["summary"]["findings"]) == 2


def test_coverage_and_totals_are_summed():
    rs = [out(1, [row()], ops=10), out(2, [row()], calls={"a": [3, 3], "b": [0, 0]}, ops=30)]
    m = campaign.merge(rs, seconds=2.0)
    assert m["coverage"] == [{"impl": "ref", "calls": {"a": [4, 3], "b": [2, 1]}, "all_called": True}]
    s = m["summary"]
    assert (s["ops"], s["sequences"], s["cpu_seconds"], s["seconds"]) == (40, 2, 1.0, 2.0)
    assert s["ops_per_s_per_core"] == 40.0 and s["all_called"]
    assert campaign.exit_status(m, rs) == 0


def test_an_op_no_shard_called_fails():
    rs = [out(1, calls={"a": [1, 0], "b": [0, 0]}), out(2, calls={"a": [5, 0], "b": [0, 0]})]
    m = campaign.merge(rs)
    assert not m["summary"]["all_called"] and not m["coverage"][0]["all_called"]
    assert campaign.exit_status(m, rs) == 4   # incomplete, as check says it


def test_shard_exit_codes_are_propagated():
    ok = out(1)
    assert campaign.exit_status(campaign.merge([ok]), [ok]) == 0
    for code, want in ((1, 1), (2, 2), (3, 3), (-11, 3)):
        bad = {**out(2), "exit": code}   # exit 1 unexplained by findings or coverage
        assert campaign.exit_status(campaign.merge([ok, bad]), [ok, bad]) == want, code
    # a shard's exit 4 for an op that only it never called is not a failure
    gap = {**out(2, calls={"a": [1, 0], "b": [0, 0]}), "exit": 4}
    gap["lines"][-1]["summary"]["all_called"] = False
    assert campaign.exit_status(campaign.merge([ok, gap]), [ok, gap]) == 0
    # a shard whose --time left configurations undone: the campaign is incomplete
    late = {**out(2), "exit": 4}
    late["lines"][-1]["summary"]["configurations_not_run"] = 3
    m = campaign.merge([ok, late])
    assert m["summary"]["configurations_not_run"] == 3
    assert campaign.exit_status(m, [ok, late]) == 4


# -- the command line, on the fake ---------------------------------------

def test_table_shows_findings_reproducers_and_traces(fake):
    p = campaign_run("--local", "--shards", "2", "--ptelab", fake(violate=[0, 1]), "--sequences", "2")
    assert p.returncode == 1, p.stderr
    assert "FINDING (2x) ref m1 accessed 16K lost_dirty: pfn 0x1000 was written" in p.stdout
    assert "reproduce: ptelab run fuzz --impl ref --seed 1" in p.stdout
    assert "    set_ptes va 0x400000" in p.stdout
    assert "ref                      m1           accessed        16K          2" in p.stdout
    assert "summary: 886 ops, 16 sequences, 2 shards on " in p.stdout
    assert "campaign: 2/2 shards done" in p.stderr and "\r" not in p.stderr


def test_op_never_called_is_listed_and_fails(fake):
    p = campaign_run("--local", "--shards", "3", "--ptelab", fake(never="set_ptes"), "--json")
    assert p.returncode == 4, p.stderr
    s = json.loads(p.stdout)["summary"]
    assert not s["all_called"] and not s["ok"] and s["exit"] == 4
    p = campaign_run("--local", "--shards", "3", "--ptelab", fake(never="set_ptes"))
    assert "coverage: ref: set_ptes never called" in p.stdout


@pytest.mark.parametrize("code", [2, 3])
def test_shard_error_is_printed_and_propagated(fake, code):
    p = campaign_run("--local", "--shards", "3", "--ptelab",
                     fake(exit={"2": [code, "ptelab: error: shard trouble"]}))
    assert p.returncode == code
    assert "campaign: shard 2/3 exited %d: ptelab: error: shard trouble" % code in p.stderr


def test_bad_input_is_one_line(fake):
    for args, needle in ((["--jobs", "2"], "--jobs is set per shard"),
                         (["--shards", "0"], "--shards takes"),
                         (["--ptelab", "/nonexistent"], "is not an executable")):
        p = campaign_run("--local", "--ptelab", fake(), *args)
        assert p.returncode == 2 and p.stderr.startswith("campaign: error:") and needle in p.stderr
        assert p.stderr.count("\n") == 1
    p = campaign_run("--local", "--shards", "2", "--ptelab", fake(), "--bogus")
    assert p.returncode == 2 and "(and 1 more) exited 2: ptelab: error: unknown option" in p.stderr


def test_without_dask_one_line_and_exit_2(fake):
    code = ("import runpy, sys; sys.modules['distributed'] = None; sys.argv = sys.argv[1:]; "
            "runpy.run_path(sys.argv[0], run_name='__main__')")
    p = subprocess.run([sys.executable, "-c", code, str(TOOL), "--ptelab", fake()],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert p.stderr == ("campaign: error: dask.distributed is not installed: "
                        "pip install -r tools/requirements-campaign.txt\n")


def test_time_is_the_campaign_budget(fake):
    exe = fake()
    assert campaign.parse(["--ptelab", exe, "--time=5"])[1] == ["--time", "5"]
    assert campaign.parse(["--ptelab", exe, "--time", "5"])[2](100.0) == 105.0
    given = lambda deadline: campaign.run_shard(exe, 1, 1, ["--time", "9"], deadline)
    assert given(None)["lines"][-1]["summary"]["time"] == "9"
    assert given(time.time() + 4.5)["lines"][-1]["summary"]["time"] == "5"  # what is left
    late = given(time.time() + 0.5)    # less than ptelab's least --time: not run
    assert late["skipped"] and late["exit"] == 0 and not late["lines"]
    m = campaign.merge([given(time.time() + 5), late])
    assert m["summary"]["skipped"] == 1 and m["summary"]["sequences"] == 16
    assert campaign.exit_status(m, [late]) == 0


# -- whole campaigns: N shards do the unsharded run's work ---------------

def real_has_shard():
    try:
        return subprocess.run([_binary(), "check", "--shard", "1/1", "--sequences", "1", "--json"],
                              capture_output=True, cwd=ROOT, timeout=600).returncode != 2
    except OSError:   # not built
        return False


BINARIES = [
    "fake",
    pytest.param("real", marks=pytest.mark.skipif(
        not real_has_shard(), reason="ptelab check has no --shard (exit 2 for --shard 1/1) or is not built")),
]


@pytest.mark.parametrize("binary", BINARIES)
@pytest.mark.parametrize("executor", ["--local", pytest.param("dask", marks=needs_dask)])
def test_shards_add_up_to_the_unsharded_run(fake, binary, executor):
    exe = fake() if binary == "fake" else _binary()
    args = ["--sequences", "1"] if binary == "real" else ["--sequences", "3"]
    one = subprocess.run([exe, "check", "--json", *args], capture_output=True, text=True,
                         cwd=ROOT, timeout=600)
    assert one.returncode == 0, one.stderr
    lines = [json.loads(x) for x in one.stdout.splitlines()]
    want = next(x["summary"] for x in lines if "summary" in x)
    want_rows = {(r["impl"], r["machine"], r["policy"], r["folio_size"]): (r["sequences"], r["ops"])
                 for r in (x["row"] for x in lines if "row" in x)}
    p = campaign_run(*([executor] if executor == "--local" else []), "--shards", "3",
                     "--ptelab", exe, "--json", *args)
    assert p.returncode == 0, p.stderr
    m = json.loads(p.stdout)
    s = m["summary"]
    assert (s["ops"], s["sequences"]) == (want["ops"], want["sequences"])
    assert s["all_called"] and s["ok"] and s["shards"] == 3 and not s["findings"]
    assert {(r["impl"], r["machine"], r["policy"], r["folio_size"]): (r["sequences"], r["ops"])
            for r in m["rows"]} == want_rows
    assert {c["impl"]: c["calls"] for c in m["coverage"]} == \
        {x["coverage"]["impl"]: x["coverage"]["calls"] for x in lines if "coverage" in x}


@needs_dask
def test_on_a_running_scheduler(fake, tmp_path):
    """--scheduler: workers that never imported campaign.py run the shards."""
    import distributed
    env = {**os.environ, "PYTHONPATH": str(Path(distributed.__file__).parents[1])}
    sched_file = tmp_path / "scheduler.json"
    cmd = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
           "--port", "0", "--no-dashboard", "--scheduler-file", str(sched_file)]
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        for _ in range(300):
            if sched_file.exists() and sched_file.stat().st_size:
                break
            time.sleep(0.1)
        addr = json.loads(sched_file.read_text())["address"]
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", addr, "--nthreads", "1",
             "--nworkers", "2", "--no-dashboard", "--host", "127.0.0.1"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        p = campaign_run("--scheduler", addr, "--ptelab", fake(), "--json", "--sequences", "3")
        assert p.returncode == 0, p.stderr
        s = json.loads(p.stdout)["summary"]
        assert s["sequences"] == 24 and s["ok"]
        assert s["shards"] >= 2    # 2 per worker thread that had joined
    finally:
        for q in reversed(procs):
            q.terminate()
            q.wait(timeout=30)

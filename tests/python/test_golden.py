# SPDX-License-Identifier: GPL-2.0-only
"""Speed work must not change what the lab computes: every run of
`reproduce --size 64M` (all five experiments, the reference backend and
whatever kernel trees are fetched) gives the same events, results,
invariants and modelled time as recorded in tests/data/golden-64M.json.

A change that is meant to change the model (a new cost, a fixed core-mm
path) rewrites the record on purpose and says so in its commit:

    python3 tests/python/test_golden.py --update
"""
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden-64M.json"
# what a run computes; host time, memory and the watchdog are not part of it
KEEP = ("workload", "arch", "impl", "profile", "params", "measured", "events", "setup_events",
        "modelled_ns", "results", "invariants", "kswapd_profile", "finding")


def _binary():
    if os.environ.get("PTELAB_BIN"):
        return Path(os.environ["PTELAB_BIN"])
    san = ROOT / "build" / "san" / "ptelab"
    return san if san.exists() else ROOT / "ptelab"


def runs(tmp):
    p = subprocess.run([str(_binary()), "reproduce", "--size", "64M", "--out", str(tmp)],
                       capture_output=True, text=True, timeout=1800)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    out = {}
    for f in sorted(Path(tmp).glob("*.jsonl")):
        for i, line in enumerate(f.read_text().splitlines()):
            j = json.loads(line)
            j["params"].pop("timeout_s", None)
            rec = {k: j.get(k) for k in KEEP}
            key = f"{f.stem}/{i}/{j['workload']}/{j['impl']}"
            out[key] = hashlib.sha256(json.dumps(rec, sort_keys=True).encode()).hexdigest()[:16]
    return out


def test_reproduce_64M_unchanged(tmp_path):
    want = json.loads(GOLDEN.read_text())
    got = runs(tmp_path)
    assert got, "reproduce wrote no runs"
    # every run of the record that this machine can run, and nothing new
    ref_keys = {k for k in want if k.split("/")[3] == "ref"}
    assert ref_keys <= set(got), sorted(ref_keys - set(got))[:5]
    changed = {k: (want.get(k), v) for k, v in got.items() if want.get(k) != v}
    assert not changed, f"{len(changed)} runs changed, e.g. {sorted(changed.items())[:3]}; " \
        "if the model was meant to change: python3 tests/python/test_golden.py --update"


def _computed(args, env=None):
    p = subprocess.run([str(_binary()), "run", *args, "--json"], capture_output=True, text=True,
                       timeout=600, env={**os.environ, **(env or {})})
    assert p.returncode == 0, p.stderr[-2000:]
    j = json.loads(p.stdout)
    return {k: j.get(k) for k in KEEP + ("perf",)}


# S4's loop and S1's reclaim, where gathers replay (arch/arm64/gather_memo.h), a tree's too
REPLAYED = [
    ["mlock-loop", "--variant", "cold", "--iterations", "6", "--profile", "mobile-arm64-soc"],
    ["mlock-loop", "--variant", "one-young", "--iterations", "6", "--size", "16M"],
    ["reclaim-file", "--size", "64M", "--lru", "mglru"],
    ["reclaim-file", "--size", "64M", "--lru", "classic", "--folio-size", "64K"],
]
KERNELS = ROOT / "build" / "kernels"


def test_replayed_gathers_change_nothing():
    impls = ["ref"] + [k for k in ("linux-7.3", "linux-6.12") if (KERNELS / k).is_dir()]
    for impl in impls:
        for args in REPLAYED:
            a = args + ["--impl", impl]
            assert _computed(a) == _computed(a, {"PTELAB_NO_REPLAY": "1"}), a


def _optimised(args, env=None):
    """A run of the optimised binary (fast-forward is off under a sanitizer)."""
    exe = Path(os.environ.get("PTELAB_OPT_BIN", ROOT / "ptelab"))
    p = subprocess.run([str(exe), "run", *args, "--json"], capture_output=True, text=True,
                       timeout=600, env={**os.environ, **(env or {})})
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout)


def test_fast_forward_changes_nothing():
    """S4's loop skips whole periods of its repeating state (lab/fast_forward.h):
    every event, result, invariant and perf frame is what running them gives."""
    impls = ["ref"] + [k for k in ("linux-7.3", "linux-6.12") if (KERNELS / k).is_dir()]
    for impl in impls:
        for variant in ("touched", "young-dirty", "one-young", "cold"):
            a = ["mlock-loop", "--variant", variant, "--iterations", "50", "--size", "64M",
                 "--profile", "mobile-arm64-soc-debug", "--impl", impl]
            ff = _optimised(a)
            assert ff.get("host_fast_forward", {}).get("skipped", 0) >= 30, (a, ff.get("host_fast_forward"))
            full = _optimised(a, {"PTELAB_NO_FAST_FORWARD": "1"})
            assert "host_fast_forward" not in full
            assert {k: ff.get(k) for k in KEEP + ("perf",)} == \
                {k: full.get(k) for k in KEEP + ("perf",)}, a


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(__doc__)
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        got = runs(d)
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    print(f"{GOLDEN.relative_to(ROOT)}: {len(got)} runs")

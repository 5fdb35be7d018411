# SPDX-License-Identifier: GPL-2.0-only
"""ptelab fit (tools/fit.py, tools/figures.py): figures as reproduce computes
them, profiles that hold what the fit gives, a solver that recovers known
costs, and one-line errors."""
import csv
import json
import os
import re
import subprocess

import pytest

from conftest import ROOT, _binary

import figures
import fit

SMALL = 64 << 20


def run_fit(*args, timeout=900):
    # a fit is arithmetic on figures (the sanitizers add nothing the other
    # tests do not): the optimised binary, whose S4 loops fast-forward
    opt = ROOT / "ptelab"
    env = dict(os.environ, PTELAB_BIN=str(opt) if opt.exists() else _binary(),
               PTELAB_HOME=str(ROOT))
    return subprocess.run(["python3", str(ROOT / "tools" / "fit.py"), *args],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout)


def tsv(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory):
    out = tmp_path_factory.mktemp("rp")
    p = subprocess.run([_binary(), "reproduce", "--size", str(SMALL), "--out", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert p.returncode == 0, p.stderr
    return out


def cell(out, fig):
    """The reproduce table cell that shows the lab's value of a figure."""
    if fig.exp == "S5":
        row = next(r for r in tsv(out / "S5.tsv") if r["arch"] == "x86" and
                   r["folio"] == fig.row)
        return float(row[f"lab_{fig.col}_ms"]) / 1e3, 1e-4
    if fig.exp == "S4" and fig.kind == figures.TIME:
        row = next(r for r in tsv(out / "S4.tsv") if r["run"] == f"{fig.row} {fig.col}")
        return float(row["modelled_s"]), 1e-4
    if fig.exp == "S4":
        # S4:profile-before:contpte_ptep_get is row "total before"; v7-X-profile-after, "v7-X after"
        prow, _, col = fig.row.rpartition("-")
        prow = "total" if prow == "profile" else prow[:-len("-profile")]
        row = next(r for r in tsv(out / "S4.tsv") if r["run"] == f"{prow} {col}")
        return 100 * float(row["contpte_ptep_get_share"]), None
    if fig.exp == "S2":
        row = next(r for r in tsv(out / "S2.tsv") if r["variant"] == fig.row)
        return float(row["lab_1node_pct"]), None
    if fig.exp == "S1":
        row = next(r for r in tsv(out / "S1.tsv") if r["run"] == f"{fig.row} {fig.col}")
        return float(row["modelled_s"]), 1e-3
    if fig.exp == "S3" and fig.kind == figures.TIME:
        row = next(r for r in tsv(out / "S3.tsv") if r["run"] == f"{fig.row} {fig.col}")
        return float(row["x_full_s"]), 2e-3
    return None, None


def test_every_figure_is_what_reproduce_shows(reproduced):
    figs = figures.all_figures(SMALL)
    # every published row of data/published.tsv is modelled by one figure
    assert {f.key for f in figs} == set(figures.published_rows())
    lab = {}
    seen = 0
    for f in figs:
        want, rel = cell(reproduced, f)
        if want is None:
            continue
        prof = fit.Profile(f.profile)
        if f.profile not in lab:
            lab[f.profile] = fit.Lab(prof, [g for g in figs if g.profile == f.profile], 2)
            lab[f.profile].prime()
        got = lab[f.profile].value(f, prof.costs, prof.costs)
        if rel is None:  # a percentage printed with two decimals
            assert abs(got - want) <= 0.006, (f.key, got, want)
        else:
            assert abs(got / want - 1) <= rel, (f.key, got, want)
        seen += 1
    assert seen >= 16


def test_kswapd_shares_are_the_runs_branch(reproduced):
    rows = [json.loads(line) for line in open(reproduced / "S3.jsonl")]
    figs = [f for f in figures.all_figures(SMALL) if f.kind == figures.SHARE and f.exp == "S3"]
    prof = fit.Profile("x86-kvm-host")
    lab = fit.Lab(prof, figs, 2)
    lab.prime()
    for f in figs:
        row = ("v2 " if f.row.startswith("kswapd-v2-") else "mglru ") + \
            ("before" if "spte-test-clear-young" in f.runs["t"] else "after")
        js = next(r for r in rows if r["row"] == row)
        want = 100 * js["kswapd_folio_referenced_branch"].get(f.col, 0.0)
        assert abs(lab.value(f, prof.costs, prof.costs) - want) < 1e-6, f.key


# the profiles whose figures are linear in the costs (x86-kvm-host's S3 fit
# re-runs the simulation per trial: a minute, left to `ptelab fit` itself)
LINEAR = ["xeon-silver-4210r", "arm64-server-32c", "altra-1node", "mobile-arm64-soc",
          "mobile-arm64-soc-debug"]


@pytest.mark.parametrize("name", LINEAR)
def test_profile_holds_what_the_fit_gives(name):
    prof = fit.Profile(name)
    assert prof.free and prof.on, f"{name} names no fit.free / fit.on"
    assert all(k in prof.ranges for k in prof.free)
    p = run_fit(name)
    assert p.returncode == 0, p.stderr
    solved = dict(re.findall(r"(?m)^cost\.(\w+) = ([0-9.e+-]+)", p.stdout))
    assert set(solved) == set(prof.free)
    for k, v in solved.items():
        assert abs(float(v) / prof.costs[k] - 1) < 0.01, (name, k, v, prof.costs[k])
    # every figure of the profile is reported, the fitted ones marked
    for f in figures.all_figures():
        if f.profile == name:
            line = next(ln for ln in p.stdout.splitlines() if ln.startswith(f.key + " "))
            assert line.rstrip().endswith("fitted" if f.key in prof.on else "prediction")
    assert f"fitted_on = {' '.join(prof.on)} (ptelab fit" in prof.text


def synthetic_host(tmp_path, costs):
    """Host records whose times are the lab's own under known costs."""
    recs = []
    for fs in (4, 16, 64, 2048):
        args = ["munmap", "--arch", "x86", "--size", str(SMALL), "--folio-size", f"{fs}K",
                "--profile", "xeon-silver-4210r", "--json"]
        p = subprocess.run([_binary(), "run", *args], capture_output=True, text=True, cwd=ROOT,
                           timeout=600)
        assert p.returncode == 0, p.stderr
        js = json.loads(p.stdout.splitlines()[0])
        ns = fit.modelled(js["events"], costs)
        n = SMALL // (fs << 10)
        recs.append({"workload": "munmap", "mode": "host", "arch": "x86", "kernel": "synthetic",
                     "params": {"size": SMALL, "folio_size": fs << 10, "repeat": 1,
                                "pmd_mapped": False},
                     "host_phase_ns": ns, "host_ns": ns,
                     "results": {"folios": n, "folios_expected": n}})
    path = tmp_path / "host.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_host_fit_recovers_known_costs_and_predicts_the_rest(tmp_path):
    prof = fit.Profile("xeon-silver-4210r")
    truth = dict(prof.costs, pte_atomic=prof.costs["pte_atomic"] * 1.7,
                 folio_free=prof.costs["folio_free"] * 0.6)
    host = synthetic_host(tmp_path, truth)
    out = tmp_path / "fitted-xeon.prof"
    p = run_fit("xeon-silver-4210r", "--host", str(host), "--size", str(SMALL),
                "--free", "pte_atomic,folio_free",
                "--on", "host:munmap-4K:best,host:munmap-2048K:best", "--out", str(out))
    assert p.returncode == 0, p.stderr
    solved = {k: float(v) for k, v in re.findall(r"(?m)^cost\.(\w+) = ([0-9.e+-]+)", p.stdout)}
    for k in ("pte_atomic", "folio_free"):
        assert abs(solved[k] / truth[k] - 1) < 0.03, (k, solved[k], truth[k])
    for fs in (16, 64):
        line = next(ln for ln in p.stdout.splitlines() if ln.startswith(f"host:munmap-{fs}K"))
        err = float(re.search(r"([+-][0-9.]+)%\s+prediction", line).group(1))
        assert abs(err) < 2, line
    text = out.read_text()
    assert "fit.on = host:munmap-4K:best host:munmap-2048K:best" in text
    assert re.search(r"(?m)^cost\.pte_atomic\s*=\s*" + re.escape(f"{solved['pte_atomic']:.4g}"),
                     text)
    assert not list((ROOT / "profiles").glob("fit-scratch-*"))


def test_solve_says_how_much_the_figures_hold_each_cost():
    """A cost the fitted figures depend on is held by them; one they do not
    touch stays at its prior, and the fit says so."""
    fit.need_scipy()  # .ci/run installs it into build/pydeps: a missing scipy fails here

    class Prof:
        costs = {"a": 1.0, "b": 1.0, "c": 3.0}
        ranges = {"a": (0.1, 10.0), "b": (0.1, 10.0), "c": (0.1, 10.0)}

    class Fig:
        kind, simulated = figures.TIME, False

        def __init__(self, published, w):
            self.published, self.w = published, w

    class FakeLab:
        def value(self, f, c, base):
            return f.w["a"] * c["a"] + f.w["c"] * c["c"]  # b: counted by no figure

    figs = [Fig(2.0, {"a": 1.0, "c": 0.0}), Fig(4.0, {"a": 1.0, "c": 1.0})]
    solved, at_bound, held = fit.solve(FakeLab(), Prof(), figs, ["a", "b", "c"])
    held = dict(zip(["a", "b", "c"], held))
    assert abs(solved["a"] - 2) < 0.02 and abs(solved["c"] - 2) < 0.05 and not at_bound
    assert held["a"] > 0.9 and held["c"] > 0.9 and held["b"] < 0.05, held


@pytest.mark.parametrize("args,says", [
    (["no-such-profile"], "unknown profile 'no-such-profile'"),
    (["xeon-silver-4210r", "--on", "S9:x:y"], "--on S9:x:y: not a figure"),
    (["xeon-silver-4210r", "--free", "dsb_cost"], "has no cost.dsb_cost"),
    (["xeon-silver-4210r", "--free", "pte_read"], "states no range for it"),
    (["xeon-silver-4210r", "--host", "/nonexistent.jsonl"], "--host /nonexistent.jsonl"),
    (["xeon-silver-4210r", "--size", "12Q"], "--size '12Q'"),
    (["xeon-silver-4210r", "--bogus"], "unexpected argument '--bogus'"),
])
def test_bad_input_is_one_error_line(args, says):
    p = run_fit(*args)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ptelab: error: ") and says in lines[0], \
        p.stderr


def test_fit_through_the_cli(ptelab):
    p = ptelab("fit", "no-such-profile")
    assert p.returncode == 2 and "unknown profile" in p.stderr


def test_derived_profiles_hold_their_bases_costs():
    """A profile with derive.from is its base's costs times derive.scale, as
    `ptelab fit BASE --write` writes it: never edited apart from its base."""
    derived = 0
    for name in os.listdir(ROOT / "profiles"):
        if not name.endswith(".prof"):
            continue
        d = fit.Profile(str(ROOT / "profiles" / name))
        base = d.get("derive.from")
        if not base:
            continue
        derived += 1
        want = fit.derived_costs(fit.Profile(base), d)
        for k, v in want.items():
            if k not in d.free:  # its own costs (mobile-arm64-soc-debug's lock_acquire)
                assert d.costs[k] == pytest.approx(v, rel=1e-3), (name, k)
        assert base in d.get("fitted_on")
    assert derived >= 2  # altra-2node, mobile-arm64-soc-debug


def test_derive_keeps_a_derived_profiles_own_costs(tmp_path):
    base = fit.Profile("mobile-arm64-soc")
    d = fit.Profile("mobile-arm64-soc-debug")
    assert d.free == ["lock_acquire"]
    (tmp_path / "mobile-arm64-soc.prof").write_text(
        re.sub(r"(?m)^cost\.gup_page = [0-9.]+", "cost.gup_page = 77", base.text))
    (tmp_path / "mobile-arm64-soc-debug.prof").write_text(d.text)
    fit.derive(fit.Profile(str(tmp_path / "mobile-arm64-soc.prof")), refit=False)
    again = fit.Profile(str(tmp_path / "mobile-arm64-soc-debug.prof"))
    assert again.costs["gup_page"] == 77                              # the base's, rewritten
    assert again.costs["lock_acquire"] == d.costs["lock_acquire"]      # its own, kept
    own = d.get("fitted_on").split("; its other costs")[0]
    assert again.get("fitted_on").startswith(own + "; its other costs are mobile-arm64-soc's (")


def test_derive_rewrites_a_derived_profile(tmp_path):
    base = fit.Profile("altra-1node")
    d = fit.Profile("altra-2node")
    # a stale derived profile: its costs are rewritten from the base's
    stale = tmp_path / "altra-2node.prof"
    stale.write_text(re.sub(r"(?m)^cost\.dsb = .*$", "cost.dsb = 1", d.text))
    (tmp_path / "altra-1node.prof").write_text(base.text)
    fit.derive(fit.Profile(str(tmp_path / "altra-1node.prof")))
    again = fit.Profile(str(stale))
    scale = dict(zip(*[iter(d.get("derive.scale").split())] * 2))
    assert again.costs["dsb"] == pytest.approx(base.costs["dsb"] * float(scale["dsb"]), rel=1e-3)
    assert again.costs["pte_read"] == pytest.approx(base.costs["pte_read"], rel=1e-3)
    # a scale naming a cost the base lacks is refused
    bad = tmp_path / "bad.prof"
    bad.write_text(d.text.replace("derive.scale = ", "derive.scale = nosuch 2 "))
    with pytest.raises(fit.FitError, match="nosuch"):
        fit.derived_costs(base, fit.Profile(str(bad)))

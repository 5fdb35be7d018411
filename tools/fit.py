#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""ptelab fit: a profile's costs solved from figures, and every figure judged.

    ptelab fit PROFILE [--on FIG,...] [--free COST,...] [--host FILE]
                       [--write | --out FILE] [--size SIZE]
    ptelab fit [PROFILE] --report [--host FILE]

The costs solved are the profile's `fit.free` (or --free), each bounded by
its `range.COST = LO HI` line; the figures fitted on are the profile's
`fit.on` (or --on): EXP:ROW:COLUMN keys of data/published.tsv, or
host:ROW keys of a `ptelab host ... --json` file. The lab runs each figure
needs (tools/figures.py) once, reads their event counts, and solves with
scipy's bounded least squares: residuals are the fitted figures' relative
errors, plus a weak prior pulling each cost to the middle of its range (in
log space), so a cost the figures do not determine stays where the profile
says it should be. Figures of the S3 simulation are not linear in the
costs and are re-run under each trial's costs.

Then every figure the profile models is printed with the lab's value, the
published (or host) one, the error, and whether it was fitted or is a
prediction; and every published change (after/before, or an increase over
a baseline) with the lab's ratio, the error of that ratio and whether the
direction is right. --write puts the costs, fit.on and fitted_on into the
profile; --out writes the fitted profile elsewhere.
"""
import argparse
import concurrent.futures
import datetime
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import figures  # noqa: E402

ROOT = os.environ.get("PTELAB_HOME") or os.path.dirname(HERE)
EXE = os.environ.get("PTELAB_BIN") or os.path.join(ROOT, "ptelab")
PRIOR_WEIGHT = 0.02  # a cost one range-width (in log) off its centre weighs as a 2 % miss


class FitError(Exception):
    pass


def need_scipy():
    try:
        import numpy  # noqa: F401
        import scipy.optimize  # noqa: F401
    except ImportError:
        sys.path.insert(0, os.path.join(ROOT, "build", "pydeps"))
        try:
            import numpy  # noqa: F401,F811
            import scipy.optimize  # noqa: F401,F811
        except ImportError:
            raise FitError("ptelab fit needs numpy and scipy: "
                           "python3 -m pip install -r tools/requirements-fit.txt")


class Profile:
    def __init__(self, name_or_path):
        path = name_or_path if os.sep in name_or_path or name_or_path.endswith(".prof") else \
            os.path.join(ROOT, "profiles", f"{name_or_path}.prof")
        if not os.path.exists(path):
            names = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "profiles"))
                           if f.endswith(".prof"))
            raise FitError(f"unknown profile '{name_or_path}'; profiles: {', '.join(names)}")
        self.path = path
        self.text = open(path).read()
        self.name = self.get("name") or os.path.basename(path)[:-5]
        self.costs = {m.group(1): float(m.group(2)) for m in
                      re.finditer(r"(?m)^\s*cost\.(\w+)\s*=\s*([0-9.eE+-]+)", self.text)}
        self.ranges = {m.group(1): (float(m.group(2)), float(m.group(3))) for m in
                       re.finditer(r"(?m)^\s*range\.(\w+)\s*=\s*([0-9.eE+-]+)\s+([0-9.eE+-]+)",
                                   self.text)}
        self.free = (self.get("fit.free") or "").split()
        self.on = (self.get("fit.on") or "").split()

    def get(self, key):
        m = re.search(rf"(?m)^\s*{re.escape(key)}\s*=\s*([^#\n]*)", self.text)
        return m.group(1).strip() if m else None

    def with_costs(self, costs, on=None, fitted_on=None, name=None):
        text = self.text
        for k, v in costs.items():
            text = re.sub(rf"(?m)^(\s*cost\.{k}\s*=\s*)[0-9.eE+-]+",
                          lambda m, v=v: f"{m.group(1)}{v:.4g}", text)
        for key, val in (("fit.on", on), ("fitted_on", fitted_on), ("name", name)):
            if val is None:
                continue
            if "#" in val or "\n" in val:
                raise FitError(f"{self.path}: {key} may not hold '#' or a newline: {val[:60]}")
            if re.search(rf"(?m)^\s*{re.escape(key)}\s*=", text):
                text = re.sub(rf"(?m)^(\s*{re.escape(key)}\s*=)[^#\n]*",
                              lambda m, val=val: f"{m.group(1)} {val}", text)
            else:
                text = text.replace("\ncost.", f"\n{key} = {val}\ncost.", 1)
        return text


def derived_profiles(base):
    """The profiles whose costs are base's, scaled (derive.from = base)."""
    out = []
    for f in sorted(os.listdir(os.path.dirname(base.path))):
        if f.endswith(".prof") and not f.startswith("fit-scratch-"):
            d = Profile(os.path.join(os.path.dirname(base.path), f))
            if d.get("derive.from") == base.name:
                out.append(d)
    return out


def derived_costs(base, derived):
    """A derived profile's costs: its base's, times derive.scale's factors
    (pairs COST FACTOR; a cost not named keeps the base's value)."""
    words = (derived.get("derive.scale") or "").split()
    if len(words) % 2:
        raise FitError(f"{derived.path}: derive.scale takes pairs COST FACTOR")
    scale = {words[i]: float(words[i + 1]) for i in range(0, len(words), 2)}
    for k in scale:
        if k not in base.costs:
            raise FitError(f"{derived.path}: derive.scale names {k}, which {base.name} does not cost")
    if set(derived.costs) != set(base.costs):
        raise FitError(f"{derived.path}: its costs are not {base.name}'s: "
                       f"{sorted(set(derived.costs) ^ set(base.costs))}")
    return {k: v * scale.get(k, 1.0) for k, v in base.costs.items()}


def inherited_note(base, derived):
    scaled = ", derive.scale applied" if derived.get("derive.scale") else ""
    return f"{base.name}'s ({base.get('fitted_on')}){scaled}"


def derive(base, refit=True, jobs=None, seen=None):
    """Rewrite every profile derived from base (after base was written). One
    with costs of its own (its fit.free) keeps them, and is then refitted
    on its own figures (refit): they were solved beside base's old costs."""
    seen = (seen or set()) | {base.name}
    for d in derived_profiles(base):
        if d.name in seen:
            raise FitError(f"{d.path}: derive.from makes a cycle through {base.name}")
        costs = derived_costs(base, d)
        for k in d.free:
            costs[k] = d.costs[k]
        if d.free:
            own = (d.get("fitted_on") or "").split("; its other costs")[0]
            fitted_on = f"{own}; its other costs are {inherited_note(base, d)}"
        else:
            fitted_on = f"nothing of its own: {base.name}'s costs ({base.get('fitted_on')}), " \
                        "derive.scale applied"
        with open(d.path, "w") as f:
            f.write(d.with_costs(costs, fitted_on=fitted_on))
        print(f"wrote {d.path} (derived from {base.name})")
        if refit and d.free and d.on:
            print(f"refitting {d.name}'s own costs ({' '.join(d.free)}) on its figures")
            fit_and_write(Profile(d.path), jobs, seen | {d.name})


def lab_run(args, profile_path, timeout=1800):
    """`ptelab run ARGS --profile P --json`: its JSON object."""
    prof = os.path.basename(profile_path)[:-5]
    env = dict(os.environ)
    if os.path.dirname(os.path.abspath(profile_path)) != os.path.join(ROOT, "profiles"):
        raise FitError(f"{profile_path}: a profile must be in {ROOT}/profiles")
    p = subprocess.run([EXE, "run", *args, "--profile", prof, "--json"], capture_output=True,
                       text=True, env=env, timeout=timeout)
    if p.returncode not in (0, 1) or not p.stdout.strip():
        err = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise FitError(f"ptelab run {' '.join(args)}: {err}")
    return json.loads(p.stdout.splitlines()[0])


def modelled(events, costs):
    return sum(n * costs.get(k, 0.0) for k, n in events.items())


class Lab:
    """Runs each configuration once (in parallel); linear figures re-cost its
    events, simulated ones re-run under a scratch profile per trial."""

    def __init__(self, prof, figs, jobs):
        self.prof = prof
        self.figs = figs
        self.jobs = jobs
        self.cache = {}
        self.sim_cache = {}

    def prime(self):
        todo = sorted({tuple(a) for f in self.figs for a in f.runs.values()} - set(self.cache))
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as ex:
            for args, js in zip(todo, ex.map(lambda a: lab_run(list(a), self.prof.path), todo)):
                self.cache[args] = js

    def scratch(self, costs):
        key = tuple(sorted(costs.items()))
        if key in self.sim_cache:
            return self.sim_cache[key]
        fd, path = tempfile.mkstemp(prefix="fit-scratch-", suffix=".prof",
                                    dir=os.path.join(ROOT, "profiles"))
        try:
            with os.fdopen(fd, "w") as f:
                f.write(self.prof.with_costs(costs, name=os.path.basename(path)[:-5]))
            todo = sorted({tuple(a) for f in self.figs if f.simulated for a in f.runs.values()})
            with concurrent.futures.ThreadPoolExecutor(self.jobs) as ex:
                res = dict(zip(todo, ex.map(lambda a: lab_run(list(a), path), todo)))
        finally:
            os.unlink(path)
        self.sim_cache[key] = res
        return res

    def value(self, fig, costs, base_costs):
        outs = {}
        sim = self.scratch(costs) if fig.simulated and costs != base_costs else None
        for name, args in fig.runs.items():
            js = sim[tuple(args)] if sim else self.cache[tuple(args)]
            outs[name] = {"json": js, "ns": modelled(js["events"], costs)}
        return fig.value(outs)


def error(fig, lab):
    """The residual a fit minimises and the report prints (a fraction)."""
    if fig.kind == figures.PERCENT:
        return (1 + lab / 100) / (1 + fig.published / 100) - 1
    if fig.kind == figures.SHARE:
        return (lab - fig.published) / 100
    return (lab - fig.published) / fig.published


def solve(lab, prof, fitted, free):
    import numpy as np
    from scipy.optimize import least_squares

    base = dict(prof.costs)
    lo = np.array([prof.ranges[k][0] for k in free])
    hi = np.array([prof.ranges[k][1] for k in free])
    centre = np.sqrt(lo * hi)
    width = np.log(hi / lo)
    width[width == 0] = 1.0
    x0 = np.clip([base[k] for k in free], lo, hi)
    # log space: costs spanning decades are stepped alike
    simulated = any(f.simulated for f in fitted)

    def costs_of(z):
        c = dict(base)
        c.update({k: float(math.exp(v)) for k, v in zip(free, z)})
        return c

    def fun(z):
        c = costs_of(z)
        r = [error(f, lab.value(f, c, None if simulated else base)) for f in fitted]
        r += list(PRIOR_WEIGHT * (z - np.log(centre)) / width)
        return np.array(r)

    res = least_squares(fun, np.log(x0), bounds=(np.log(lo), np.log(hi)),
                        diff_step=0.02 if simulated else None,
                        max_nfev=40 if simulated else 400)
    fit = {k: float(f"{math.exp(v):.4g}") for k, v in zip(free, res.x)}
    at_bound = [k for k, v in fit.items()
                if v <= prof.ranges[k][0] * 1.001 or v >= prof.ranges[k][1] * 0.999]
    return fit, at_bound, held_by_figures(res.jac, width)


def held_by_figures(jac, width):
    """How much the figures, not the prior, fix each solved cost: 1 - the
    ratio of its (log) uncertainty with the figures to its uncertainty
    under the prior alone, from the solution's Jacobian. 1: the figures
    pin it; 0: they say nothing about it (or only about a sum it is part
    of), and it sits where the prior puts it."""
    import numpy as np

    jac = np.asarray(jac, dtype=float)
    cov = np.linalg.pinv(jac.T @ jac)
    prior_sd = width / PRIOR_WEIGHT
    return [float(min(1.0, max(0.0, 1 - math.sqrt(max(cov[i, i], 0.0)) / prior_sd[i])))
            for i in range(len(width))]


def fmt(v, kind):
    if kind == figures.PERCENT or kind == figures.SHARE:
        return f"{v:.2f}%"
    if v >= 1:
        return f"{v:.4g} s"
    if v >= 1e-3:
        return f"{v * 1e3:.4g} ms"
    return f"{v * 1e6:.4g} us"


def report(prof, figs, vals, fitted_keys, out=sys.stdout):
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p(f"\nprofile {prof.name}: {len(figs)} figures "
      f"(fitted on: {', '.join(sorted(fitted_keys)) or 'nothing'})")
    p(f"{'figure':52} {'lab':>11} {'published':>11} {'error':>8}  ")
    errs = []
    for f in figs:
        e = error(f, vals[f.key])
        mark = "fitted" if f.key in fitted_keys else "prediction"
        note = "" if getattr(f, "host_ok", True) else "  (host gave fewer folios of this size)"
        p(f"{f.key:52} {fmt(vals[f.key], f.kind):>11} {fmt(f.published, f.kind):>11} "
          f"{e * 100:+7.1f}%  {mark}{note}")
        if f.key not in fitted_keys:
            errs.append(abs(e))
    changes = []
    by_key = {f.key: f for f in figs}
    for f in figs:
        if f.pair and f.pair in by_key:
            b = by_key[f.pair]
            changes.append((f"{f.exp}:{f.row} after/before", vals[f.key] / vals[b.key],
                            f.published / b.published, f.key in fitted_keys and
                            b.key in fitted_keys))
        elif f.kind == figures.PERCENT:
            changes.append((f"{f.key} vs baseline", 1 + vals[f.key] / 100,
                            1 + f.published / 100, f.key in fitted_keys))
    if changes:
        p(f"{'change':52} {'lab':>11} {'published':>11} {'error':>8}  direction")
        for name, lab_r, pub_r, fit in changes:
            same = (lab_r - 1) * (pub_r - 1) > 0 or (abs(lab_r - 1) < 0.005 and
                                                       abs(pub_r - 1) < 0.02)
            p(f"{name:52} {lab_r:11.3f} {pub_r:11.3f} {(lab_r / pub_r - 1) * 100:+7.1f}%  "
              f"{'right' if same else 'WRONG'}{' (fitted)' if fit else ''}")
    if errs:
        p(f"predictions: {len(errs)}, mean |error| {100 * sum(errs) / len(errs):.1f}%, "
          f"worst {100 * max(errs):.1f}%")
    return changes


def load_host(path):
    recs = []
    try:
        with open(path) as f:
            for line in f:
                if line.strip():
                    recs.append(json.loads(line))
    except (OSError, ValueError) as e:
        raise FitError(f"--host {path}: {e}; give the output of 'ptelab host WORKLOAD --json'")
    if not recs or any(r.get("mode") != "host" for r in recs):
        raise FitError(f"--host {path}: not 'ptelab host ... --json' output")
    return recs


def parse_size(s):
    m = re.fullmatch(r"(\d+)([KMGT]?)B?", s.upper())
    if not m:
        raise FitError(f"--size '{s}': give a size like 1G or 256M")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2)]


def figures_of(prof, size, host):
    figs = [f for f in figures.all_figures(size) if f.profile == prof.name]
    if host:
        figs += figures.host_figures(host, prof.name)
    return figs


def main(argv, seen=None):
    ap = argparse.ArgumentParser(prog="ptelab fit", add_help=False)
    ap.add_argument("profile", nargs="?")
    ap.add_argument("--on")
    ap.add_argument("--free")
    ap.add_argument("--host")
    ap.add_argument("--size", default="1G")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a, rest = ap.parse_known_args(argv)
    a.seen = seen
    if rest:
        raise FitError(f"unexpected argument '{rest[0]}'; 'ptelab fit --help' lists the options")
    size = parse_size(a.size)
    host = load_host(a.host) if a.host else None
    if a.report and not a.profile:
        names = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "profiles"))
                       if f.endswith(".prof") and not f.startswith("fit-scratch-"))
        worst = 0
        for n in names:
            prof = Profile(n)
            figs = figures_of(prof, size, host)
            if not figs:
                print(f"\nprofile {n}: no published figure is modelled with it")
                continue
            lab = Lab(prof, figs, a.jobs)
            lab.prime()
            vals = {f.key: lab.value(f, prof.costs, prof.costs) for f in figs}
            report(prof, figs, vals, set(prof.on))
            worst = max([worst] + [abs(error(f, vals[f.key])) for f in figs
                                   if f.key not in prof.on])
        return 0
    if not a.profile:
        raise FitError("usage: ptelab fit PROFILE [--on FIG,...] [--free COST,...] [--host FILE] "
                       "[--write | --out FILE] | ptelab fit [PROFILE] --report")
    prof = Profile(a.profile)
    figs = figures_of(prof, size, host)
    if not figs:
        raise FitError(f"profile {prof.name}: no published figure is modelled with it"
                       " (and no --host file given)")
    on = a.on.split(",") if a.on else prof.on
    free = a.free.split(",") if a.free else prof.free
    keys = {f.key: f for f in figs}
    for k in on:
        if k not in keys:
            raise FitError(f"--on {k}: not a figure of profile {prof.name}; its figures: "
                           f"{', '.join(keys)}")
    for k in free:
        if k not in prof.costs:
            raise FitError(f"--free {k}: profile {prof.name} has no cost.{k}")
        if k not in prof.ranges:
            raise FitError(f"--free {k}: profile {prof.name} states no range for it; add "
                           f"'range.{k} = LO HI' (ns) with the reason")
    lab = Lab(prof, figs, a.jobs)
    lab.prime()
    fitted = [keys[k] for k in on]
    costs = dict(prof.costs)
    if a.report or not free or not fitted:
        pass
    else:
        need_scipy()
        if size != 1 << 30 and any(not f.exp == "host" for f in fitted):
            raise FitError("published figures are fitted at the published scale only (--size 1G)")
        fit, at_bound, held = solve(lab, prof, fitted, free)
        costs.update(fit)
        for k, h in zip(free, held):
            lo, hi = prof.ranges[k]
            print(f"cost.{k} = {fit[k]:.4g}   (was {prof.costs[k]:.4g}; range {lo:g} .. {hi:g};"
                  f" held by the figures {100 * h:.0f}%)"
                  f"{'  AT ITS BOUND' if k in at_bound else ''}")
    sim_costs = costs if costs != prof.costs else prof.costs
    vals = {f.key: lab.value(f, sim_costs, prof.costs) for f in figs}
    report(prof, figs, vals, set(on))
    if free and fitted and not a.report and (a.write or a.out):
        today = datetime.date.today().isoformat()
        words = " ".join(on)
        fitted_on = f"{words} (ptelab fit, {today}; solved: {' '.join(free)})"
        if prof.get("derive.from"):
            base = Profile(prof.get("derive.from"))
            fitted_on += f"; its other costs are {inherited_note(base, prof)}"
        text = prof.with_costs({k: costs[k] for k in free}, on=words, fitted_on=fitted_on,
                               name=os.path.basename(a.out)[:-5] if a.out else None)
        dest = a.out or prof.path
        if a.out and not a.out.endswith(".prof"):
            raise FitError(f"--out {a.out}: a profile's file name ends in .prof")
        with open(dest, "w") as f:
            f.write(text)
        print(f"wrote {dest}")
        if not a.out:
            derive(Profile(dest), jobs=a.jobs, seen=a.seen)
    return 0


def fit_and_write(prof, jobs, seen):
    """`ptelab fit PROFILE --write`, for a derived profile after its base."""
    args = [prof.path, "--write"] + (["--jobs", str(jobs)] if jobs else [])
    return main(args, seen)


def _terminated(signum, frame):
    raise SystemExit(128 + signum)  # unwinds: scratch profiles are removed


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGTERM, _terminated)
    try:
        sys.exit(main(sys.argv[1:]))
    except FitError as e:
        print(f"ptelab: error: {e}", file=sys.stderr)
        sys.exit(2)

# SPDX-License-Identifier: GPL-2.0-only
"""profiles/altra-1node.prof says it was fitted by tools/fit_s2.py on S2's
one-node no-opt, simple-full and robust-full: refitting with today's event
counts must give back the costs it holds (a change that moves the counts
must refit the profile, not leave a stale claim)."""
import importlib.util
import os
import re

import pytest

from conftest import ROOT

spec = importlib.util.spec_from_file_location("fit_s2", ROOT / "tools" / "fit_s2.py")
fit_s2 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fit_s2)


def test_solve_is_exact_on_a_known_system():
    a = [[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [1.0, 0.0, 4.0]]
    x = [1.5, -2.0, 0.25]
    b = [sum(r[i] * x[i] for i in range(3)) for r in a]
    assert all(abs(u - v) < 1e-9 for u, v in zip(fit_s2.fitlib.solve(a, b, "test"), x))


@pytest.mark.skipif(not (ROOT / "ptelab").exists(), reason="optimised binary not built")
def test_profile_holds_what_the_fit_gives(capsys, monkeypatch):
    monkeypatch.setenv("PTELAB_BIN", str(ROOT / "ptelab"))
    monkeypatch.setattr("sys.argv", ["fit_s2.py"])
    fit_s2.main()
    out = capsys.readouterr().out
    held = fit_s2.costs()
    for name in fit_s2.FITTED:
        got = float(re.search(rf"cost\.{name} = ([0-9.eE+-]+)", out).group(1))
        assert got == pytest.approx(held[name], rel=0.01), (name, got, held[name])
    for v in fit_s2.VARIANTS:
        line = next(l for l in out.splitlines() if l.startswith(v))
        assert "(fitted)" in line

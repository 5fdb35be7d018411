# SPDX-License-Identifier: GPL-2.0-only
"""profiles/arm64-server-32c.prof says cost.pte_read and cost.pte_atomic were fitted by
tools/fit_s1.py on S1's two published MGLRU times: refitting with today's
event counts must give back what it holds."""
import importlib.util
import re

import pytest

from conftest import ROOT

spec = importlib.util.spec_from_file_location("fit_s1", ROOT / "tools" / "fit_s1.py")
fit_s1 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fit_s1)


@pytest.mark.skipif(not (ROOT / "ptelab").exists(), reason="optimised binary not built")
def test_profile_holds_what_the_fit_gives(capsys, monkeypatch):
    monkeypatch.setenv("PTELAB_BIN", str(ROOT / "ptelab"))
    monkeypatch.setattr("sys.argv", ["fit_s1.py"])
    fit_s1.main()
    out = capsys.readouterr().out
    for name in ("pte_read", "pte_atomic"):
        got = float(re.search(rf"cost\.{name} = ([0-9.eE+-]+)", out).group(1))
        assert got == pytest.approx(fit_s1.costs()[name], rel=0.01)
    assert all("(fitted)" in l for l in out.splitlines() if l.startswith(("before", "after")))

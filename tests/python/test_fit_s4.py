# SPDX-License-Identifier: GPL-2.0-only
"""profiles/mobile-arm64-soc.prof says cost.mem_access was fitted by
tools/fit_s4.py on S4's published before total: refitting with today's
event counts must give back what it holds."""
import importlib.util
import re

import pytest

from conftest import ROOT

spec = importlib.util.spec_from_file_location("fit_s4", ROOT / "tools" / "fit_s4.py")
fit_s4 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fit_s4)


@pytest.mark.skipif(not (ROOT / "ptelab").exists(), reason="optimised binary not built")
def test_profile_holds_what_the_fit_gives(capsys, monkeypatch):
    monkeypatch.setenv("PTELAB_BIN", str(ROOT / "ptelab"))
    monkeypatch.setattr("sys.argv", ["fit_s4.py"])
    fit_s4.main()
    out = capsys.readouterr().out
    got = float(re.search(r"cost\.mem_access = ([0-9.eE+-]+)", out).group(1))
    assert got == pytest.approx(fit_s4.costs()["mem_access"], rel=0.01)
    assert "(fitted)" in next(l for l in out.splitlines() if l.startswith("before"))
    assert "(prediction)" in next(l for l in out.splitlines() if l.startswith("after"))

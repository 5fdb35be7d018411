# SPDX-License-Identifier: GPL-2.0-only
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# tests import tools/ modules (figures.py, fitted.py)
sys.path.insert(0, str(ROOT / "tools"))


def _binary():
    env = os.environ.get("PTELAB_BIN")
    if env:
        return env
    san = ROOT / "build" / "san" / "ptelab"
    return str(san if san.exists() else ROOT / "ptelab")


@pytest.fixture
def ptelab():
    """Run the ptelab CLI (the sanitized build when present)."""

    def run(*args, check_json=False):
        p = subprocess.run([_binary(), *args], capture_output=True, text=True,
                           cwd=ROOT, timeout=600)
        if check_json:
            assert p.returncode == 0, p.stderr
            return json.loads(p.stdout)
        return p

    return run

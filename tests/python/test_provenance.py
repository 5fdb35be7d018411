# SPDX-License-Identifier: GPL-2.0-only
"""Every run's JSON says which ptelab ran it, the command line, and where the
backend's kernel code came from (built in, a fetched package, a tree and its
git revision)."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import _binary

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "build" / "kernels" / "linux-7.3"


def run_json(*args):
    p = subprocess.run([_binary(), *args, "--json"], capture_output=True, text=True, cwd=ROOT,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-1500:]
    return json.loads(p.stdout.splitlines()[0])


def test_version_and_command_of_a_run():
    version = subprocess.run([_binary(), "--version"], capture_output=True, text=True).stdout.strip()
    j = run_json("run", "munmap", "--size=16M", "--seed", "2")
    assert j["version"] == version
    assert j["command"] == "ptelab run munmap --size=16M --seed 2 --json"
    assert j["backend"] == {"kind": "builtin", "core": "ref", "kernel": "ptelab"}
    j = run_json("run", "munmap", "--size", "16M", "--profile", "arm64-generic")
    assert j["command"] == "ptelab run munmap --size 16M --profile arm64-generic --json"


@pytest.mark.skipif(not KERNEL.is_dir(), reason="needs the fetched 7.3 tree")
def test_fetched_and_tree_backends_say_where_their_code_came_from(tmp_path):
    j = run_json("run", "munmap", "--size", "16M", "--impl", "linux-7.3")
    b = j["backend"]
    assert b["kind"] == "fetched" and b["package"] == "linux-source-7.3"
    assert b["package_version"].startswith("7.3") and b["kernel"].startswith("7.3")
    if not shutil.which("git"):
        pytest.skip("no git")
    tree = tmp_path / "linux"
    shutil.copytree(KERNEL, tree)
    git = ["git", "-C", str(tree), "-c", "user.email=lab@example.org", "-c", "user.name=lab"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "base"], check=True)
    rev = subprocess.run(git + ["rev-parse", "--short=12", "HEAD"], capture_output=True,
                         text=True, check=True).stdout.strip()
    b = run_json("run", "munmap", "--size", "16M", "--impl", f"tree:{tree}")["backend"]
    assert b == {"kind": "tree", "core": "tree", "path": str(tree), "git": rev,
                 "kernel": b["kernel"]}
    assert b["kernel"].startswith("7.3")
    # a tracked file changed: the revision says so
    mk = tree / "Makefile"
    mk.write_text(mk.read_text() + "\n# changed\n")
    b = run_json("run", "munmap", "--size", "16M", "--impl", f"tree:{tree}")["backend"]
    assert b["git"] == rev + "-dirty"
    # a tree that is no repository of its own has no revision
    b = run_json("run", "munmap", "--size", "16M", "--impl", f"tree:{KERNEL}")["backend"]
    assert b["git"] is None

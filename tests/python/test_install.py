# SPDX-License-Identifier: GPL-2.0-only
"""make install: the binary works from anywhere, with its data where it looks;
a copy with no data says so in one line; compile_commands.json; W=e."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def make(*args, **kw):
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=900, **kw)


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    if not (ROOT / "ptelab").exists():
        pytest.skip("the optimised binary is not built")
    dest = tmp_path_factory.mktemp("stage")
    p = make("install", f"DESTDIR={dest}")
    assert p.returncode == 0, p.stderr[-2000:]
    return dest / "usr" / "local"


def test_install_puts_everything_where_the_binary_looks(staged, tmp_path):
    for f in ("bin/ptelab", "share/ptelab/profiles/arm64-generic.prof",
              "share/ptelab/data/published.tsv", "share/ptelab/tools/plot.py",
              "share/ptelab/kernel/fetch.sh", "share/ptelab/kernel/shim/api.c",
              "share/ptelab/include/page.h", "share/man/man1/ptelab.1",
              "share/bash-completion/completions/ptelab"):
        assert (staged / f).exists(), f
    env = dict(os.environ, HOME=str(tmp_path))
    env.pop("PTELAB_HOME", None)
    p = subprocess.run([str(staged / "bin" / "ptelab"), "run", "munmap", "--size", "16M", "--json"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["profile"] == "arm64-generic"
    p = subprocess.run([str(staged / "bin" / "ptelab"), "list"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert "xeon-silver-4210r" in p.stdout


KERNEL = ROOT / "build" / "kernels" / "linux-7.3"


@pytest.mark.skipif(not KERNEL.is_dir(), reason="needs the fetched 7.3 tree")
def test_installed_ptelab_builds_a_tree_on_first_use(staged, tmp_path):
    """A fresh install's first tree: its backends built in a state directory made on
    the way (share/ptelab/build where the install is writable, as here for root, else
    ~/.cache/ptelab)."""
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home))
    env.pop("PTELAB_HOME", None)
    env.pop("XDG_CACHE_HOME", None)
    p = subprocess.run([str(staged / "bin" / "ptelab"), "run", "munmap", "--size", "16M",
                        "--impl", f"tree:{KERNEL}", "--json"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["backend"]["core"] == "tree"
    built = [*(home / ".cache" / "ptelab" / "backends").glob("*.so"),
             *(staged / "share" / "ptelab" / "build" / "backends").glob("*.so")]
    assert len(built) == 2, built  # the tree's arch code and its core-mm code


def test_a_copy_without_its_data_says_so(tmp_path):
    if not (ROOT / "ptelab").exists():
        pytest.skip("the optimised binary is not built")
    exe = tmp_path / "ptelab"
    shutil.copy(ROOT / "ptelab", exe)
    env = {k: v for k, v in os.environ.items() if k != "PTELAB_HOME"}
    p = subprocess.run([str(exe), "run", "munmap", "--size", "16M"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    if Path("/usr/local/share/ptelab/profiles").exists():
        pytest.skip("ptelab is installed in /usr/local on this machine")
    assert p.returncode == 2
    assert p.stderr.startswith("ptelab: error: no profiles directory found")
    assert p.stderr.count("\n") == 1


def test_compile_commands_cover_every_source(tmp_path):
    p = make("compile_commands.json")
    assert p.returncode == 0, p.stderr
    cmds = json.loads((ROOT / "compile_commands.json").read_text())
    files = {c["file"] for c in cmds}
    assert {"cli/main.c", "mm/memory.c", "hw/tlb.c"} <= files
    assert all(" -c -o build/opt/" in c["command"] for c in cmds)


def test_werror_only_when_asked():
    # CI exports W=e, and a parent make passes its variables on: start clean
    env = {k: v for k, v in os.environ.items() if k not in ("W", "MAKEFLAGS", "MFLAGS")}
    plain = make("-n", "-B", "build/opt/hw/cpu.o", env=env).stdout
    strict = make("-n", "-B", "build/opt/hw/cpu.o", "W=e", env=env).stdout
    assert "-Werror" not in plain and "-Werror" in strict


def test_first_reproduce_says_how_to_add_the_kernel_rows(staged, tmp_path):
    env = dict(os.environ, HOME=str(tmp_path))
    env.pop("PTELAB_HOME", None)
    p = subprocess.run([str(staged / "bin" / "ptelab"), "reproduce", "S5", "--size", "64M"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "'ptelab kernels fetch 6.12 7.3'" in p.stderr.splitlines()[0]

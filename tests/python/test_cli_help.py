# SPDX-License-Identifier: GPL-2.0-only
"""Per-subcommand help, --opt=value, --version, the man page, bash completion
and the README's option reference, all from cli/options.c's tables."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import _binary

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ["list", "run", "reproduce", "check", "kernels", "help"]


def ptelab(*args):
    return subprocess.run([_binary(), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


def options_of(cmd):
    """The options `ptelab CMD --help` lists."""
    out = ptelab(cmd, "--help").stdout
    return set(re.findall(r"^  (--[a-z0-9-]+)", out, re.M)) - {"--help"}


def block(text, opt):
    """An option's entry in a help text, its wrapped lines joined."""
    m = re.search(rf"^  {re.escape(opt)}(?=[ \n])(.*?)(?=^  --|\Z)", text, re.M | re.S)
    return " ".join(m.group(1).split()) if m else None


def test_version_names_the_commit():
    p = ptelab("--version")
    assert p.returncode == 0
    assert re.fullmatch(r"ptelab \d+\.\d+ \(git ([0-9a-f]{7,}(-dirty)?|unknown)\)\n", p.stdout)


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_command_has_help_within_80_columns(cmd):
    for args in ([cmd, "--help"], ["help", cmd], [cmd, "-h"]):
        p = ptelab(*args)
        assert p.returncode == 0, (args, p.stderr)
        assert p.stdout.startswith(f"usage: ptelab {cmd}"), args
        assert all(len(l) <= 80 for l in p.stdout.splitlines()), args


def test_run_help_lists_the_options_a_workload_reads_with_its_defaults():
    every = options_of("run")
    assert {"--size", "--vcpus", "--lru", "--tlbi-range", "--seed", "--walkers"} <= every
    munmap = ptelab("run", "munmap", "--help").stdout
    assert block(munmap, "--size").endswith("(default: 1G)")
    assert block(munmap, "--folio-size").endswith("(default: 64K)")
    assert "--vcpus" not in munmap and "--lru" not in munmap
    mgm = ptelab("help", "run", "max-guest-memory").stdout
    assert block(mgm, "--vcpus") == "N vCPU threads (default: 64)"
    assert "(default: 250G)" in mgm and "256000000000 (256 GB)" in mgm and "(default: v1)" in mgm
    # the help's options are the ones the parser takes
    text = ptelab("run", "--help").stdout
    for opt in every:
        takes = not block(text, opt).startswith("the") and re.match(r"[A-Z]", block(text, opt))
        p = ptelab("run", "munmap", opt + ("=x" if takes else ""), "--help")
        assert p.returncode == 0, (opt, p.stderr)


def test_opt_equals_value_is_opt_value():
    a = ptelab("run", "munmap", "--size=16M", "--folio-size=16K", "--seed=3", "--json")
    b = ptelab("run", "munmap", "--size", "16M", "--folio-size", "16K", "--seed", "3", "--json")
    assert a.returncode == b.returncode == 0, a.stderr
    pa, pb = json.loads(a.stdout)["params"], json.loads(b.stdout)["params"]
    assert pa == pb and pa["size"] == 16 << 20 and pa["seed"] == 3
    # options and the workload in any order (getopt_long permutes)
    c = ptelab("run", "--size=16M", "--folio-size", "16K", "--seed=3", "munmap", "--json")
    assert c.returncode == 0 and json.loads(c.stdout)["params"] == pa


@pytest.mark.parametrize("args,msg", [
    (["run", "munmap", "--bogus"], "unknown option '--bogus' for run; see 'ptelab run --help'"),
    (["run", "munmap", "--json=yes"], "--json takes no value"),
    (["run", "munmap", "--size"], "--size needs a value"),
    (["check", "--sequences"], "--sequences needs a value"),
    (["reproduce", "--outdir=x"], "unknown option '--outdir' for reproduce"),
    (["help", "bogus"], "no command 'bogus'"),
    (["help", "run", "bogus"], "unknown workload 'bogus'"),
])
def test_bad_options_get_one_line(args, msg):
    p = ptelab(*args)
    assert p.returncode == 2
    assert p.stderr.startswith("ptelab: error: ") and msg in p.stderr
    assert p.stderr.count("\n") == 1


def test_readme_documents_every_option_as_the_tables_say():
    md = ptelab("help", "--markdown").stdout
    readme = (ROOT / "README.md").read_text()
    m = re.search(r"<!-- options: generated[^\n]*-->\n(.*)<!-- end of options -->", readme, re.S)
    assert m, "README lost its option reference"
    assert m.group(1) == md, "README's options differ from `ptelab help --markdown`: paste it in"
    for cmd in ("run", "check", "reproduce"):
        for opt in options_of(cmd):
            assert f"`{opt}" in md, opt
    assert "`PTELAB_HOME`" in md and "`CC`" in md


def test_man_page_has_every_option():
    man = ptelab("help", "--man").stdout
    assert man.startswith(".TH PTELAB 1")
    for cmd in ("run", "check", "reproduce", "kernels"):
        for opt in options_of(cmd):
            assert ".B \\-\\-" + opt[2:].replace("-", "\\-") in man, opt
    if shutil.which("man"):
        p = subprocess.run(["man", "-l", "-"], input=man, capture_output=True, text=True,
                           env={"MANWIDTH": "80", "PATH": "/usr/bin:/bin"})
        if p.returncode == 0:
            assert "--host-memory" in p.stdout


def complete(words):
    """What the generated completion offers for the command line `words` (last: the cursor's)."""
    script = ptelab("help", "--completion").stdout
    line = " ".join(words)
    prog = (f"{script}\nCOMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _ptelab; "
            "printf '%s\\n' \"${COMPREPLY[@]}\"")
    p = subprocess.run(["bash", "-c", prog], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return set(p.stdout.split())


@pytest.mark.skipif(not shutil.which("bash"), reason="no bash")
def test_bash_completion_offers_commands_options_and_values():
    assert {"run", "check", "reproduce"} <= complete(["ptelab", "r"]) | {"check"}
    assert complete(["ptelab", "run", "--lr"]) == {"--lru"}
    assert {"munmap", "max-guest-memory"} <= complete(["ptelab", "run", "m"])
    assert complete(["ptelab", "run", "munmap", "--arch", ""]) == {"arm64", "x86"}
    assert complete(["ptelab", "check", "--ex"]) == {"--explore"}
    assert "S3" in complete(["ptelab", "reproduce", "S"])

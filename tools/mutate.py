#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""How much of a tree's contpte.c (or, with --file and --functions, of the
core-mm functions ptelab runs from it) `ptelab check` guards: mutation testing.

Makes every small mutant of arch/arm64/mm/contpte.c that the operators
below give (one change each, in function bodies only), builds each as a
copy of the tree, runs `ptelab check --impl tree:COPY` on it and says, per
mutant, whether check caught it (the finding's kinds), whether it survived,
whether it did not compile (stillborn: the compiler caught it, not check),
or whether check could not judge it (error: ptelab's own code outran
--timeout). The unmutated tree is checked first and must pass; its mean
unit time sets the mutants' hang timeout (100 times it, 5 to 60 s) unless
--timeout does. Each check stops at its first failing configuration
(check --first). A survivor is either a blind spot of check or an
equivalent mutant (same behaviour as the original); the list of survivors
is what to read.

    tools/mutate.py --tree PATH [--ptelab PATH] [--sequences N]
                    [--only OP[,OP...]] [--functions F[,F...]]
                    [--ids K,...] [--limit N] [--timeout S] [--time S]
                    [--explore] [--list] [--json]

With --explore, a mutant the random sequences leave alive goes through
`check --explore` too (every interleaving point of its scenarios: minutes
per mutant, for the races a random sequence rarely hits).

Operators:
  delete    drop one statement (a call, an assignment, a break)
  negate    negate an if's condition
  relop     == and !=, < and <=, > and >= swapped
  logop     && and || swapped
  assign    a compound assignment (|=, &=, +=, -=) made plain =
  bits      young/old, dirty/clean, pte_young/pte_dirty swapped
  bound     CONT_PTES as CONT_PTES - 1, nr as nr - 1 in an expression
Exit status: 0 all ran, 2 bad input (or the tree itself fails check).
"""
import argparse
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONTPTE = os.path.join("arch", "arm64", "mm", "contpte.c")

SWAPS = {
    "relop": [("==", "!="), ("!=", "=="), ("<=", "<"), (">=", ">"),
              ("<", "<="), (">", ">=")],
    "logop": [("&&", "||"), ("||", "&&")],
    "assign": [("|=", "="), ("&=", "="), ("+=", "="), ("-=", "=")],
    "bits": [("pte_mkyoung", "pte_mkold"), ("pte_mkold", "pte_mkyoung"),
             ("pte_mkdirty", "pte_mkclean"), ("pte_mkclean", "pte_mkdirty"),
             ("pte_young(", "pte_dirty("), ("pte_dirty(", "pte_young(")],
    "bound": [("CONT_PTES", "(CONT_PTES - 1)"), ("nr", "(nr - 1)")],
}
OPERATORS = ("delete", "negate", "relop", "logop", "assign", "bits", "bound")
FUNC = re.compile(r"^[A-Za-z_][\w \*]*?\b(\w+)\(")


def code_mask(lines):
    """Per line: the name of the function whose body holds it, or None.
    Comments are blanked first so that braces in them do not count."""
    text = "\n".join(lines)
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)),
                  text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    clean = text.split("\n")
    owner, depth, name, pending = [], 0, None, None
    for line in clean:
        m = FUNC.match(line)
        if depth == 0 and m and not line.rstrip().endswith(";"):
            pending = m.group(1)
        opened = depth
        depth += line.count("{") - line.count("}")
        if opened == 0 and depth > 0:
            name = pending
        owner.append(name if opened > 0 and depth > 0 else None)
        if depth == 0:
            name = None
    return clean, owner


TOKEN = {
    "==": r"(?<![=!<>])==(?!=)", "!=": r"!=(?!=)",
    "<=": r"(?<!<)<=", ">=": r"(?<![>-])>=",
    "<": r"(?<!<)<(?![<=])", ">": r"(?<![>-])>(?![>=])",
    "&&": r"&&", "||": r"\|\|",
    "|=": r"(?<!\|)\|=", "&=": r"(?<!&)&=", "+=": r"(?<!\+)\+=", "-=": r"(?<!-)-=",
    # nr as a value, not a member or a declaration
    "nr": r"(?<![.>\w])(?<!int )nr\b(?!\s*[,)]\s*$)(?!\s*=[^=])",
}


def token_spots(line, old):
    """Where OLD occurs in LINE as an operator or a whole identifier."""
    pat = TOKEN.get(old) or (r"\b" + re.escape(old) + ("" if old.endswith("(") else r"\b"))
    return [m.start() for m in re.finditer(pat, line)]


DECL = re.compile(r"^(?:const\s+)?(?:struct\s+)?\w+(?:\s+\w+)*(?:\s+|\s*\*+\s*)\w+\s*(?:=|;|,|\[)")


def statements(clean, owner):
    """(first, last) line of each statement in a function body that can be
    dropped and still compile: no declaration, label, return or block."""
    out, i = [], 0
    while i < len(clean):
        line = clean[i].strip()
        ctl = re.match(r"(?:\}\s*)?(?:else\s+)?(if|for|while|switch|return)\b", line)
        if ctl:
            # skip the condition (or the returned expression) to its end
            depth = 0
            while i < len(clean):
                depth += clean[i].count("(") - clean[i].count(")")
                end = clean[i].rstrip()
                if depth <= 0 and (ctl.group(1) != "return" or end.endswith(";")):
                    break
                i += 1
            i += 1
            continue
        if owner[i] is None or not line or line.startswith(("#", "}", "{")) or \
                re.match(r"(else|case|default|do)\b", line) or line.endswith(("{", ":")):
            i += 1
            continue
        first, depth = i, 0
        while i < len(clean):
            depth += clean[i].count("(") - clean[i].count(")")
            if depth == 0 and clean[i].rstrip().endswith(";"):
                break
            i += 1
        if i < len(clean) and (line.startswith("goto ") or not DECL.match(line)):
            out.append((first, i))
        i += 1
    return out


def mutants(src, only=OPERATORS, functions=None):
    """Every mutant of SRC: (op, func, line number, what, mutated text)."""
    lines = src.split("\n")
    clean, owner = code_mask(lines)
    out = []

    def keep(n):
        return owner[n] and (not functions or owner[n] in functions)

    if "delete" in only:
        for first, last in statements(clean, owner):
            if not keep(first):
                continue
            body = clean[first].strip()
            if body.startswith("return") or body.startswith("EXPORT_SYMBOL"):
                continue
            # an empty statement, so that a brace-less loop keeps its body
            indent = re.match(r"\s*", lines[first]).group(0)
            new = lines[:first] + [indent + ";"] + [""] * (last - first) + lines[last + 1:]
            out.append(("delete", owner[first], first + 1,
                        "- " + body, "\n".join(new)))
    for n, line in enumerate(clean):
        if not keep(n):
            continue
        if "negate" in only:
            m = re.match(r"(\s*(?:\}\s*else\s+)?if\s*)\((.*)\)(\s*\{?\s*)$", line)
            if m and m.group(2).count("(") == m.group(2).count(")"):
                new = lines[:]
                new[n] = f"{m.group(1)}(!({m.group(2)})){m.group(3)}"
                out.append(("negate", owner[n], n + 1,
                            line.strip() + "  ->  " + new[n].strip(),
                            "\n".join(new)))
        for op in ("relop", "logop", "assign", "bits", "bound"):
            if op not in only:
                continue
            for old, rep in SWAPS[op]:
                if op == "bound" and re.search(r"\b(for|if|while)\b", line) is None \
                        and "=" not in line.replace("==", ""):
                    continue
                for i in token_spots(line, old):
                    new = lines[:]
                    new[n] = lines[n][:i] + rep + lines[n][i + len(old):]
                    out.append((op, owner[n], n + 1,
                                line.strip() + "  ->  " + new[n].strip(),
                                "\n".join(new)))
    return out


class Fail(Exception):
    pass


def link_or_copy(src, dst):
    """A hard link (the tree is only read), a copy across filesystems."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def backend_dirs(ptelab):
    """Where ptelab may build backends (lab/paths.c): the home's build/, the
    user's cache."""
    dirs, home = set(), os.path.dirname(os.path.realpath(ptelab))
    for _ in range(4):
        if os.path.isdir(os.path.join(home, "profiles")):
            dirs.add(os.path.join(home, "build", "backends"))
            break
        home = os.path.dirname(home)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    dirs.add(os.path.join(cache, "ptelab", "backends"))
    return sorted(dirs)


def listing(dirs):
    return {os.path.join(d, f) for d in dirs if os.path.isdir(d) for f in os.listdir(d)}


def check(ptelab, tree, sequences, timeout, budget, explore=False, explore_timeout=None):
    """Run check on TREE: (verdict, kinds, summary). Verdicts: killed,
    survived, stillborn (does not compile), error (check could not judge it,
    e.g. ptelab's own code outran --timeout). explore: then check --explore
    on what survived (its units with explore_timeout)."""
    verdict, kinds, summary = check_once(ptelab, tree, ["--sequences", str(sequences),
                                                        "--time", str(budget)], timeout)
    if explore and verdict == "survived":
        verdict, kinds, _ = check_once(ptelab, tree, ["--explore"], explore_timeout or timeout)
    return verdict, kinds, summary


def hang_timeout(summary, limit):
    """A unit's timeout for the mutants, from the tree's own clean check:
    100 times its mean unit's CPU time, at least 5 s, at most limit (a
    mutant that makes a unit that much slower loops as a hang would)."""
    units, cpu = summary.get("units") or 0, summary.get("cpu_seconds") or 0
    if not units or not cpu:
        return limit
    return max(5, min(limit, math.ceil(100 * cpu / units)))


def check_once(ptelab, tree, how, timeout):
    # --first: a mutant is killed by its first failing configuration
    p = subprocess.run([ptelab, "check", "--impl", f"tree:{tree}", *how, "--first",
                        "--timeout", str(timeout), "--json"],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        last = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
        if "does not compile" in last:
            return "stillborn", [last.split(": error: ", 1)[-1][:200]], {}
        if "--timeout" in last:
            return "error", [last.split(": error: ", 1)[-1][:200]], {}
        raise Fail(last)
    kinds, blind, summary = set(), False, {}
    for line in p.stdout.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        row, s = rec.get("row"), rec.get("summary")
        if row:
            kinds.update(k for k, n in row.get("counts", {}).items() if n)
        if s:
            summary = s
            kinds.update(f.get("kind", "finding") for f in s.get("findings", []))
            blind = not s.get("all_called", True)
    # an op never called counts only when nothing failed (--first stops before every op ran)
    if blind and not kinds:
        kinds.add("op_never_called")
    if p.returncode == 0 and not kinds:
        return "survived", [], summary
    if not kinds:
        kinds.add(f"exit {p.returncode}")
    return "killed", sorted(kinds), summary


def sweep(a, ms, ids):
    """Check the tree, then every mutant in a copy of it; print each verdict."""
    tally = {"killed": 0, "survived": 0, "stillborn": 0, "error": 0}
    tty = sys.stderr.isatty()
    dirs = backend_dirs(a.ptelab)
    timeout = a.timeout or 60  # the tree's own check; its mutants' from it (hang_timeout)
    with tempfile.TemporaryDirectory(prefix="ptelab-mutate-") as tmp:
        t0 = time.time()
        for done, k in enumerate([None] + ids):
            tree = os.path.join(tmp, "orig" if k is None else f"m{k}")
            shutil.copytree(a.tree, tree, copy_function=link_or_copy)
            if k is not None:
                op, fn, ln, what, text = ms[k]
                dst = os.path.join(tree, a.file)
                os.unlink(dst)  # maybe a hard link: never write through to the tree
                with open(dst, "w") as f:
                    f.write(text)
            before = listing(dirs)
            try:
                verdict, kinds, summary = check(a.ptelab, tree, a.sequences, timeout, a.time,
                                                a.explore, a.timeout or 60)
            finally:
                shutil.rmtree(tree)
                # each copy's backend build is used once: drop it
                for f in listing(dirs) - before:
                    if os.path.basename(f).startswith("tree_"):
                        os.unlink(f)
            if k is None:
                # the tree itself must pass, or no verdict on a mutant means anything
                if verdict != "survived":
                    raise Fail(f"{a.tree} itself does not pass check ({verdict}: "
                               f"{', '.join(kinds)}): mutants of it tell nothing")
                if not a.timeout:
                    timeout = hang_timeout(summary, 60)
                continue
            tally[verdict] += 1
            rec = {"id": k, "op": op, "function": fn, "line": ln,
                   "change": what, "verdict": verdict, "kinds": kinds}
            if a.json:
                print(json.dumps(rec), flush=True)
            elif verdict != "killed":
                print(f"{verdict:9s} {op:7s} {fn}:{ln}  {what}", flush=True)
            msg = (f"mutate: {done}/{len(ids)} killed {tally['killed']} "
                   f"survived {tally['survived']} stillborn {tally['stillborn']} "
                   f"({time.time() - t0:.0f} s)")
            print(("\r" + msg) if tty else msg, end="" if tty else "\n",
                  file=sys.stderr, flush=True)
    if tty:
        print(file=sys.stderr)
    return tally


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", required=True)
    ap.add_argument("--ptelab", default=os.path.join(ROOT, "ptelab"))
    ap.add_argument("--sequences", type=int, default=4)
    ap.add_argument("--timeout", type=int, default=0,
                    help="seconds a check unit may take (a hang is a finding); default: "
                         "100 times the tree's own mean unit, 5 to 60 s")
    ap.add_argument("--time", type=int, default=60,
                    help="check's budget per mutant: no new work after it")
    ap.add_argument("--only", default=",".join(OPERATORS))
    ap.add_argument("--functions", default="")
    ap.add_argument("--file", default=CONTPTE,
                    help="the tree file to mutate (a core-mm file such as mm/memory.c "
                         "needs --functions: ptelab compiles only the ones it takes)")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--ids", default="",
                    help="only these mutants (numbers as --list gives them)")
    ap.add_argument("--explore", action="store_true",
                    help="survivors also go through check --explore (minutes each)")
    ap.add_argument("--list", action="store_true",
                    help="list the mutants, run nothing")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    only = a.only.split(",")
    bad = [o for o in only if o not in OPERATORS]
    if bad:
        print(f"mutate: error: unknown operator {bad[0]!r}: use "
              f"{', '.join(OPERATORS)}", file=sys.stderr)
        return 2
    path = os.path.join(a.tree, a.file)
    if not os.path.isfile(path):
        print(f"mutate: error: {path} not found: --tree names a kernel "
              f"tree with {a.file}", file=sys.stderr)
        return 2
    with open(path) as f:
        src = f.read()
    funcs = set(filter(None, a.functions.split(",")))
    if a.file != CONTPTE and not funcs:
        # a mutant of a function ptelab never compiles would be counted a survivor
        print(f"mutate: error: --file {a.file} needs --functions: ptelab compiles only the "
              "core-mm roots it takes from a tree and their helpers (kernel/core_roots.c)",
              file=sys.stderr)
        return 2
    known = {fn for _, fn, _, _, _ in mutants(src)}
    if funcs - known:
        print(f"mutate: error: no function {sorted(funcs - known)[0]!r} with mutants in "
              f"{path}: use one of {', '.join(sorted(known))}", file=sys.stderr)
        return 2
    ms = mutants(src, only, funcs)
    ids = list(range(len(ms)))
    if a.ids:
        try:
            ids = [int(x) for x in a.ids.split(",")]
        except ValueError:
            ids = [-1]
        if not all(0 <= k < len(ms) for k in ids):
            print(f"mutate: error: --ids takes numbers from 0 to {len(ms) - 1} "
                  f"(got {a.ids!r}): see --list", file=sys.stderr)
            return 2
    if a.limit:
        ids = ids[:a.limit]
    if a.list:
        for k in ids:
            op, fn, ln, what, _ = ms[k]
            print(f"{k:4d} {op:7s} {fn}:{ln}  {what}")
        return 0
    if not os.access(a.ptelab, os.X_OK):
        print(f"mutate: error: {a.ptelab} is not an executable ptelab: "
              "run make, or give --ptelab", file=sys.stderr)
        return 2
    try:
        tally = sweep(a, ms, ids)
    except Fail as e:
        print(f"mutate: error: {e}", file=sys.stderr)
        return 2
    live = tally["killed"] + tally["survived"]
    score = tally["killed"] / live if live else 0.0
    summary = dict(tally, mutants=len(ids), score=round(score, 4))
    if a.json:
        print(json.dumps({"summary": summary}))
    else:
        print(f"{len(ids)} mutants: {tally['killed']} killed, {tally['survived']} "
              f"survived, {tally['stillborn']} stillborn, {tally['error']} not judged; "
              f"score {score:.1%} (killed of those judged)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

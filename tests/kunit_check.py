#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Read make check's whole KTAP document with the kernel's own kunit_parser.py.

    kunit_check.py DOCUMENT TREE...

uses tools/testing/kunit of the first TREE that has it (a fetched kernel)
and prints one "#" line saying what the parser saw. Exit 0 if it read every
test case the document lists, with no parse error; 1 if not; 0 with "SKIP"
if no tree has the parser (nothing is fetched by this check).
"""
import inspect
import os
import re
import sys
from pathlib import Path


def main():
    doc = Path(sys.argv[1]).read_text()
    # the newest fetched tree's parser (linux-6.12 sorts before linux-7.3 by name alone)
    def version(t):
        return tuple(int(x) for x in re.findall(r"\d+", Path(t).name)) or (0,)
    trees = sorted(sys.argv[2:], key=version, reverse=True)
    kunit = next((Path(t) / "tools/testing/kunit" for t in trees
                  if (Path(t) / "tools/testing/kunit/kunit_parser.py").exists()), None)
    if not kunit:
        print("# kunit_parser.py: SKIP, no fetched kernel tree has tools/testing/kunit")
        return 0
    sys.path.insert(0, str(kunit))
    import kunit_parser
    import kunit_printer
    args = [doc.splitlines(keepends=True)]
    if len(inspect.signature(kunit_parser.parse_run_tests).parameters) > 1:
        args.append(kunit_printer.null_printer)
    # parsers print their own summary (to the stdout they bound at import):
    # keep it out of the document's tail, at the file descriptor
    sys.stdout.flush()
    saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    try:
        test = kunit_parser.parse_run_tests(*args)
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)
    want = len(re.findall(r"^    (?:not )?ok \d+ ", doc, re.M))
    suites = len(re.findall(r"^(?:not )?ok \d+ ", doc, re.M))
    c = test.counts
    ok = c.errors == 0 and c.total() == want and len(test.subtests) == suites
    print(f"# kunit_parser.py ({kunit.parents[2].name}) read {len(test.subtests)} suites, "
          f"{c.total()} tests ({c.passed} passed, {c.failed} failed, {c.crashed} crashed, "
          f"{c.skipped} skipped, {c.errors} parse errors); the document has {suites} suites, "
          f"{want} tests{'' if ok else ': MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

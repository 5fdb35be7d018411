#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pytest's JUnit XML report as one KTAP subtest of `make check`'s document.

    pytest_ktap.py REPORT.xml NUMBER [LOG]

prints the "python" suite indented as a KTAP subtest (one case per test,
"# SKIP reason" for skips, a failure's message as "#" diagnostic lines),
the KUnit-style "# python: pass:N fail:N skip:N total:N" line and
"ok NUMBER python" (or "not ok"). Without a report (pytest did not get
as far as writing one) the suite is "not ok" with LOG's tail as diagnostics.
"""
import sys
import xml.etree.ElementTree as ET


def diag(text, limit=40):
    lines = [l for l in text.splitlines() if l.strip()]
    for l in lines[-limit:]:
        print(f"    # {l}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    report, number = sys.argv[1], int(sys.argv[2])
    log = sys.argv[3] if len(sys.argv) > 3 else None
    try:
        root = ET.parse(report).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"    # no pytest report ({e})")
        if log:
            try:
                diag(open(log, errors="replace").read())
            except OSError:
                pass
        print("# python: pass:0 fail:1 skip:0 total:1")
        print(f"not ok {number} python")
        return 1
    cases = list(root.iter("testcase"))
    print("    KTAP version 1\n    # Subtest: python")
    print(f"    1..{len(cases)}")
    passed = failed = skipped = 0
    for i, c in enumerate(cases, 1):
        name = f"{c.get('classname', '')}.{c.get('name', '')}".lstrip(".")
        name = name.replace("tests.python.", "").replace(" ", "_").replace("#", "_")
        bad = c.find("failure") if c.find("failure") is not None else c.find("error")
        skip = c.find("skipped")
        if bad is not None:
            failed += 1
            diag((bad.get("message") or "") + "\n" + (bad.text or ""))
            print(f"    not ok {i} {name}")
        elif skip is not None:
            skipped += 1
            reason = " ".join((skip.get("message") or "").split())
            print(f"    ok {i} {name} # SKIP {reason}")
        else:
            passed += 1
            print(f"    ok {i} {name}")
    if failed and log:
        print(f"    # the whole pytest output: {log}")
    print(f"# python: pass:{passed} fail:{failed} skip:{skipped} total:{len(cases)}")
    print(f"{'not ok' if failed or not cases else 'ok'} {number} python")
    return 0


if __name__ == "__main__":
    sys.exit(main())

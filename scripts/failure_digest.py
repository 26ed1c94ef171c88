#!/usr/bin/env python3
"""Prints, for each test the last ctest run failed, the few lines that say
why: the Python test that failed and its exception, the GoogleTest failure
and its file:line, a sanitizer's report. test.sh prints it after ctest's
summary, so that the end of a long log (all a CI page may show) names the
cause and not only the test.

    failure_digest.py BUILD_DIR [LINES_PER_TEST]
"""
import os
import re
import sys

WHY = re.compile(r'^(FAIL|ERROR): |^[\w.]*(Error|Exception|Timeout)\b|^\s+File "[^"]*test[^"]*", line'
                 r'|: Failure$|^\[  FAILED  \]|Sanitizer|runtime error|^Expected|^  Actual|^Which is')

EXCEPTION = re.compile(r'^[\w.]*(Error|Exception|Timeout)\b')


def outputs(log_text):
    """{test name: its output} from ctest's LastTest.log."""
    found = {}
    parts = re.split(r'^\d+/\d+ Testing: (\S+)$', log_text, flags=re.M)
    for name, body in zip(parts[1::2], parts[2::2]):
        found[name] = body.split("<end of output>")[0]
    return found


def main():
    build = sys.argv[1]
    per_test = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    tmp = os.path.join(build, "Testing", "Temporary")
    try:
        with open(os.path.join(tmp, "LastTestsFailed.log")) as f:
            failed = [line.strip().split(":", 1)[1] for line in f if ":" in line]
        with open(os.path.join(tmp, "LastTest.log"), errors="replace") as f:
            out = outputs(f.read())
    except OSError as e:
        print("failure digest: %s" % e)
        return
    for name in failed:
        lines, after = [], 0
        for line in out.get(name, "").splitlines():
            # An exception's message goes on for a few lines (a set's or a
            # list's difference).
            if WHY.search(line) or after > 0:
                lines.append(line.rstrip()[:240])
                after = 3 if EXCEPTION.search(line) else after - 1
        print("== why %s failed (%d of %d matching lines):" % (name, min(per_test, len(lines)), len(lines)))
        for line in lines[-per_test:]:
            print("   " + line)


if __name__ == "__main__":
    main()

"""The summary table of many fault runs: one row per run (seed, faults
injected, acknowledged messages, records the cleaner removed, each anomaly
count, verdict), then the totals.

    python3 summary.py RUN_DIR/*/verdict.json [--markdown]
"""
import json
import sys

from checker import ANOMALIES


def rows(paths):
    out = []
    for path in paths:
        with open(path) as f:
            v = json.load(f)
        out.append(v)
    return out


def table(verdicts):
    head = ["seed", "faults", "acks", "compacted"] + list(ANOMALIES) + ["verdict"]
    lines = [head]
    totals = {a: 0 for a in ANOMALIES}
    faults, acks, compacted = {}, 0, 0
    for v in verdicts:
        anomalies = v.get("anomalies", {})
        counts = {a: anomalies.get(a, {}).get("count", 0) for a in ANOMALIES}
        for a in ANOMALIES:
            totals[a] += counts[a]
        for k, n in v.get("faults", {}).items():
            faults[k] = faults.get(k, 0) + n
        acks += v.get("totals", {}).get("acks", 0)
        compacted += v.get("totals", {}).get("compacted", 0)
        lines.append([str(v["seed"]), str(sum(v.get("faults", {}).values())),
                      str(v.get("totals", {}).get("acks", 0)),
                      str(v.get("totals", {}).get("compacted", 0))]
                     + [str(counts[a]) for a in ANOMALIES]
                     + ["not carried out" if not v.get("carried_out", True)
                        else "pass" if v.get("passed") else "FAIL"])
    lines.append(["total", str(sum(faults.values())), str(acks), str(compacted)]
                 + [str(totals[a]) for a in ANOMALIES]
                 + ["%d/%d pass" % (sum(1 for v in verdicts if v.get("passed")), len(verdicts))])
    return lines, faults


def main(argv):
    markdown = "--markdown" in argv
    paths = [a for a in argv if a != "--markdown"]
    if not paths:
        print("usage: summary.py VERDICT.json... [--markdown]", file=sys.stderr)
        return 2
    lines, faults = table(rows(paths))
    if markdown:
        print("| " + " | ".join(lines[0]) + " |")
        print("|" + "---|" * len(lines[0]))
        for line in lines[1:]:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
        for line in lines:
            print("  ".join(c.rjust(w) for c, w in zip(line, widths)))
    print("faults injected: " + ", ".join("%s %d" % kv for kv in sorted(faults.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

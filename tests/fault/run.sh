#!/usr/bin/env bash
# Many fault runs by hand, and a summary table of their verdicts.
#
#   tests/fault/run.sh --runs 50 --seconds 60 [--seed S] [run.py options...]
#
# Run i uses seed S+i (S random unless given), so any run replays alone with
# `python3 tests/fault/run.py --seed S+i ...`. Each run's history, verdict
# and (when it failed) broker logs are kept under $STRATA_FAULT_DIR
# (default ./fault-runs/<time>/run-<i>). Needs a built tree (build/) and
# root (packet filters); scripts/setup.sh --tests installs the rest.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs=10
seed=""
pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) pass+=("$1"); shift ;;
  esac
done
[[ "$runs" =~ ^[0-9]+$ ]] && [ "$runs" -ge 1 ] || { echo "run.sh: --runs must be a positive number, not '$runs'" >&2; exit 2; }
[ -z "$seed" ] && seed=$((RANDOM * 32768 + RANDOM))
[[ "$seed" =~ ^[0-9]+$ ]] || { echo "run.sh: --seed must be a number, not '$seed'" >&2; exit 2; }
out="${STRATA_FAULT_DIR:-$PWD/fault-runs/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
export STRATA_BROKER="${STRATA_BROKER:-$root/build/server/strata-broker}"
export STRATA_CLI="${STRATA_CLI:-$root/build/tools/strata}"
failed=0
for i in $(seq 1 "$runs"); do
  s=$((seed + i))
  echo "== run $i of $runs (seed $s)"
  rc=0
  /usr/bin/python3 "$here/run.py" --seed "$s" --out "$out/run-$i" "${pass[@]}" || rc=$?
  [ "$rc" -ne 0 ] && failed=$((failed + 1))
done
/usr/bin/python3 "$here/summary.py" "$out"/run-*/verdict.json
echo "runs: $runs, failed or not carried out: $failed; verdicts under $out"
[ "$failed" -eq 0 ]

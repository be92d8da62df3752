#!/usr/bin/env bash
# External corpus checks (../shared/corpora/README.md) against a built engine.
# Usage, from the project root: scripts/corpus_checks.sh [ENGINE]   (default target/release/tengen)
# Needs: pip install sgfmill. Each check fails the script when its final
# 'N passed, N failed' line has N failed > 0 (or is missing).
set -euo pipefail

root=$(pwd)
engine=$(realpath "${1:-target/release/tengen}")
corpora=$(realpath ../shared/corpora)
tools=$corpora/tools
status=0

# check NAME DIR COMMAND...: run COMMAND in DIR, show its output, judge the last summary line.
check() {
    local name=$1 dir=$2
    shift 2
    echo "=== $name"
    local out
    out=$(cd "$dir" && "$@" 2>&1) || true
    echo "$out" | tail -n 20
    local last
    last=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1 || true)
    if [[ -z $last ]]; then
        echo "FAIL $name: no 'N passed, N failed' line"
        status=1
    elif [[ ${last#*, } != "0 failed" ]]; then
        echo "FAIL $name: $last"
        status=1
    fi
}

# Replay game records and compare with sgfmill + no suicide + positional superko.
mapfile -t games < <(find "$corpora/gnugo-regression/games" "$corpora/fuego-regression/sgf" \
    "$corpora/computer-go-dataset-ai" -iname '*.sgf' | sort)
check replay_compare "$root" python3 "$tools/replay_compare.py" --every 25 "${games[@]}" -- "$engine"

# Derived regression files, each run from the folder its paths are relative to.
check gtp_protocol_basics "$root" python3 "$tools/gtp_regress.py" --cwd "$corpora/derived" \
    "$corpora/derived/gtp_protocol_basics.tst" -- "$engine"
check psk_repetition "$root" python3 "$tools/gtp_regress.py" --cwd "$corpora/fuego-regression" \
    "$corpora/derived/psk_repetition.tst" -- "$engine"
for tst in triple_ko_1582 multistone_suicide sgfmill_play_tests; do
    check "$tst" "$root" python3 "$tools/gtp_regress.py" --cwd "$corpora" \
        "$corpora/derived/$tst.tst" -- "$engine"
done

# Every 'loadsgf FILE N' of the GNU Go suites against the independent position.
check loadsgf_check "$corpora/gnugo-regression" bash -c \
    'python3 "$0" *.tst -- "$1"' "$tools/loadsgf_check.py" "$engine"

exit $status

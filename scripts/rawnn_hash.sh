#!/usr/bin/env bash
# The md5 of Tengen's raw network outputs (`kata-raw-nn`) on a few 9x9 and 19x19 positions,
# to check that a change to the evaluator keeps the same bits: run it before and after.
# usage: scripts/rawnn_hash.sh TENGEN MODEL [extra tengen options, e.g. --set precision=fp32]
set -euo pipefail
tengen=$1 model=$2
shift 2
{
    for n in 9 19; do
        printf 'boardsize %s\nclear_board\nplay b D4\nplay w C3\nplay b E5\nplay w F3\n' "$n"
        printf 'kata-raw-nn 0\nkata-raw-nn 3\nkata-raw-nn 5\nplay b C4\nkata-raw-nn 1\n'
    done
    sleep 8
    echo quit
} | "$tengen" -v 0 --model "$model" "$@" | md5sum

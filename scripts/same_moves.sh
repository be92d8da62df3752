#!/usr/bin/env bash
# Same moves, same trees: two Tengen binaries (say before and after a change that must
# not change play) given the same GTP sessions at fixed seeds and playouts on one thread,
# and the same `bench --search` runs. Compared: every GTP response (the moves, and
# final_score / final_status_list, which run the dead-stone search), and from the `-v 3`
# log each search's playouts, root visits, win rate and tree nodes and its top five
# candidates (visits, win rates, priors, AMAF, score, variation), with the times taken
# blanked; for `bench --search`, playouts= and nodes=. Exits 1 on any difference.
#   scripts/same_moves.sh BINARY_A BINARY_B [PLAYOUTS]
# Extra engine options for every run in SAME_MOVES_ARGS (e.g. "--set prior-learned=0").
# SAME_MOVES_BENCH=0 skips the `bench --search` runs (they refuse GTP-mode options such
# as --model: with a network, compare the GTP sessions only).
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 BINARY_A BINARY_B [PLAYOUTS]" >&2
    exit 2
fi
a=$1
b=$2
playouts=${3:-2000}
extra=${SAME_MOVES_ARGS:-}
work=$(mktemp -d /tmp/same-moves.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0

# The sessions: board size, stones to start from, then genmoves alternating colours
# (each played, so later ones search positions the engine made), then the count.
session() { # SIZE GENMOVES MOVES...
    local size=$1 n=$2 colour=b i
    shift 2
    echo "boardsize $size"
    echo "clear_board"
    echo "komi 7.5"
    for m in "$@"; do
        echo "play $m"
        case $m in b\ *) colour=w ;; *) colour=b ;; esac
    done
    for ((i = 0; i < n; i++)); do
        echo "genmove $colour"
        if [ $colour = b ]; then colour=w; else colour=b; fi
    done
    echo "final_score"
    echo "final_status_list dead"
    echo "quit"
}

sessions() {
    session 9 10 > "$work/s9-open.gtp"
    session 9 8 "b E5" "w E3" "b C4" "w G5" > "$work/s9-shape.gtp"
    session 9 8 "b D5" "w E5" "b E4" "w F4" "b D4" "w E6" "b F3" "w G3" "b F5" "w G4" \
        > "$work/s9-fight.gtp"
    session 13 6 "b D4" "w K10" "b K4" "w D10" "b G7" > "$work/s13-four.gtp"
    session 13 6 "b K10" "w D4" "b C10" "w K4" "b D11" "w F10" "b L6" > "$work/s13-approach.gtp"
    session 19 4 "b Q16" "w D4" "b Q3" "w D16" "b R10" > "$work/s19-sanrensei.gtp"
    session 19 4 "b D4" "w Q16" "b C16" "w Q3" "b E17" "w R5" "b O4" "w P5" > "$work/s19-approach.gtp"
}

# Stdout as it is; from stderr the search lines with the times blanked.
run() { # BINARY SESSION SEED OUT
    # shellcheck disable=SC2086
    "$1" --threads 1 --seed "$3" --playouts "$playouts" -v 3 $extra < "$2" > "$4.out" 2> "$4.log"
    { grep -E '^tengen: (search: [0-9]|  +[A-Za-z0-9]+ +[0-9]+ visits)' "$4.log" || true; } |
        sed -E 's/ in [0-9]+\.[0-9]+ s / in T s /' > "$4.search"
    cat "$4.out" "$4.search" > "$4.cmp"
}

sessions
for s in "$work"/s*.gtp; do
    name=$(basename "$s" .gtp)
    for seed in 1 7; do
        run "$a" "$s" "$seed" "$work/$name-$seed-a"
        run "$b" "$s" "$seed" "$work/$name-$seed-b"
        moves=$({ grep -E '^= [A-Za-z]' "$work/$name-$seed-a.out" || true; } | cut -c3- | tr '\n' ' ')
        nodes=$(sed -nE 's/.* ([0-9]+) nodes$/\1/p' "$work/$name-$seed-a.search" | tr '\n' ' ')
        searches=$(grep -c 'search: ' "$work/$name-$seed-a.search" || true)
        if cmp -s "$work/$name-$seed-a.cmp" "$work/$name-$seed-b.cmp"; then
            echo "same  $name seed $seed: $searches searches, answers: $moves| nodes: $nodes"
        else
            echo "DIFF  $name seed $seed"
            { diff "$work/$name-$seed-a.cmp" "$work/$name-$seed-b.cmp" || true; } | head -n 20
            fail=1
        fi
    done
done

# `bench --search` takes its own options since issue 26; a binary from before then takes
# them before `bench` (and refuses them after it), so that form is the fallback.
bench_search() { # BINARY SIZE PLAYOUTS
    # shellcheck disable=SC2086
    "$1" bench --search --threads 1 --seed 1 $extra --size "$2" --playouts "$3" 2> /dev/null ||
        "$1" --threads 1 --seed 1 $extra bench --search --size "$2" --playouts "$3"
}

for size in 9 13 19; do
    if [ "${SAME_MOVES_BENCH:-1}" = 0 ]; then
        echo "skip  bench --search (SAME_MOVES_BENCH=0)"
        break
    fi
    case $size in 9) p=30000 ;; 13) p=10000 ;; *) p=5000 ;; esac
    ra=$(bench_search "$a" $size $p | grep -oE '(size|playouts|nodes)=[0-9]+' | tr '\n' ' ')
    rb=$(bench_search "$b" $size $p | grep -oE '(size|playouts|nodes)=[0-9]+' | tr '\n' ' ')
    if [ "$ra" = "$rb" ] && [ -n "$ra" ]; then
        echo "same  bench --search: $ra"
    else
        echo "DIFF  bench --search: A: $ra B: $rb"
        fail=1
    fi
done

if [ $fail = 0 ]; then
    echo "same moves and nodes${extra:+ (with $extra)}"
else
    echo "DIFFERENT${extra:+ (with $extra)}"
fi
exit $fail

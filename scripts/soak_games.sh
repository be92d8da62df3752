#!/bin/sh
# Soak: 1,000 fast 9x9 games against GNU Go level 1 through `tengen match` (about an hour
# on two cores). Tengen thinks 0.1 s a move (`--move-time`; GTP clocks take whole
# seconds); `--timeout 1` makes any answer slower than 1 s a lost game ("timeout"), and
# the summary gives each side's longest move. Resumable: rerun with the same OUT.
#   scripts/soak_games.sh [TENGEN_BINARY] [OUT] [GAMES]
set -eu
bin=${1:-target/release/tengen}
out=${2:-runs/soak-gnu1}
games=${3:-1000}
gnugo=${GNUGO:-/usr/games/gnugo}
# A copy, so rebuilding the project during the run does not swap the binary.
copy=$(mktemp /tmp/tengen-soak.XXXXXX)
cp "$bin" "$copy"
chmod +x "$copy"
"$copy" match \
    --a "$copy -v 0 --threads 1 --move-time 0.1 --lag-margin 0.02" \
    --b "$gnugo --mode gtp --level 1 --chinese-rules --positional-superko" \
    --referee "$gnugo --mode gtp --chinese-rules" \
    --games "$games" --size 9 --komi 7.5 --parallel 2 --timeout 1 --out "$out"
rm -f "$copy"

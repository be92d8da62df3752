#!/bin/bash
# A match at equal visits against KataGo with the same network (issue 40's screens and
# its 200-game acceptance match): Tengen BINARY with OPTIONS against KataGo 1.17.2, each on
# one thread at 64 visits a move, two games at a time (PARALLEL=1 in the environment: one,
# leaving a core for other work), from tests/data/openings9, komi
# 7.5, referee GNU Go, into runs/NAME. The same command resumes a run.
#   scripts/katago_v64_match.sh NAME GAMES "OPTIONS" [BINARY]
# Needs ../shared/anchors/build-katago.sh's KataGo in ~/.cache/tengen-anchors/katago with
# ftz.so beside it (the flush-to-zero constructor of scripts/nn_speed_vs_katago.py, built
# with gcc -O2 -shared -fPIC), scripts/fetch-model.sh's network, and /usr/games/gnugo.
set -eu
NAME=$1; GAMES=$2; OPTIONS=$3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${4:-$ROOT/target/release/tengen}
M=~/.local/share/tengen/b10c384h6nbttflrs.bin.gz; K=~/.cache/tengen-anchors/katago
cd "$K"
exec "$B" match --a "$B -v 0 --threads 1 --visits 64 --model $M $OPTIONS" \
    --b "env LD_PRELOAD=$K/ftz.so $K/katago gtp -config $K/gtp.cfg -model $K/b10c384h6nbttflrs.bin.gz -override-config numSearchThreads=1,maxPlayouts=64,allowResignation=true,resignThreshold=-0.90,resignConsecTurns=3" \
    --referee '/usr/games/gnugo --mode gtp --chinese-rules' --openings "$ROOT/tests/data/openings9" \
    --games "$GAMES" --size 9 --komi 7.5 --parallel ${PARALLEL:-2} --out "$ROOT/runs/$NAME"

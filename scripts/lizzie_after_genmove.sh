#!/bin/bash
# Lizzie 0.7.4 with Tengen after the engine plays a move (issue 26): how analysis resumes.
#
#   scripts/lizzie_after_genmove.sh [--katago] [--space-while-thinking] [OUTDIR]
#
# Needs liblizzie-java, xvfb, xdotool, imagemagick and target/release/tengen. Starts Xvfb on
# :99 (unless DISPLAY is set), runs Lizzie with its own home (-Duser.home, so the user's
# ~/.config/leela-zero is not touched) on 9x9, with Tengen behind scripts/gtp_log.py, then:
# analysis runs (Lizzie starts it), Enter ("force AI move": genmove), space, space, space.
# OUTDIR (default /tmp/lizzie-after-genmove) gets gtp.log (every line, both directions),
# gtp-short.log (info lines counted, not shown) and a screenshot after each step.
#   --katago                the wrapper answers `name` with `KataGo`, so Lizzie treats
#                           Tengen as KataGo (kata-analyze): the comparison
#   --space-while-thinking  the first space comes 0.7 s after Enter, before the move
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
name_as=""; early=0; out=/tmp/lizzie-after-genmove
for a in "$@"; do
  case $a in
    --katago) name_as="--name-as KataGo" ;;
    --space-while-thinking) early=1 ;;
    *) out=$a ;;
  esac
done
mkdir -p "$out/home/.config/leela-zero"
out=$(cd "$out" && pwd)
log=$out/gtp.log
rm -f "$log"
cat > "$out/home/.config/leela-zero/lizzie-config.txt" <<EOF
{"leelaz": {"engine-command": "python3 $here/scripts/gtp_log.py $log $name_as -- $here/target/release/tengen --lizzie --threads 1",
  "max-analyze-time-minutes": 99999, "analyze-update-interval-centisec": 10,
  "max-game-thinking-time-seconds": 2, "print-comms": false, "avoid-keep-variations": 30,
  "engine-start-location": ".", "network-file": "", "show-lcb-winrate": false},
 "ui": {"board-size": 9, "resume-previous-game": false, "confirm-exit": false}}
EOF
xvfb=""
if [ -z "${DISPLAY:-}" ]; then
  Xvfb :99 -screen 0 1280x900x24 >/dev/null 2>&1 & xvfb=$!
  export DISPLAY=:99
  sleep 2
fi
JAVA_TOOL_OPTIONS="-Duser.home=$out/home" java -jar /usr/share/java/lizzie.jar \
  >"$out/lizzie.out" 2>&1 & lizzie=$!
trap 'kill $lizzie 2>/dev/null; [ -n "$xvfb" ] && kill $xvfb 2>/dev/null; true' EXIT
sleep 10
mark() { echo "          # $*" >> "$log"; }
shot() { import -window root -quality 70 "$out/$1.jpg"; }
# Focus Lizzie's board window: a click on the empty panel right of the board (no move).
win=$(xdotool search --name "^Lizzie" | tail -1)
eval "$(xdotool getwindowgeometry --shell "$win")"
xdotool mousemove $((X + WIDTH - 100)) $((Y + HEIGHT - 150)) click 1
sleep 0.5
shot 0-analysing
mark "key Return (force AI move)"; xdotool key Return
if [ $early = 1 ]; then sleep 0.7; mark "key space (engine still thinking)"; xdotool key space; fi
sleep 5; shot 1-after-move
for i in 1 2 3; do
  mark "key space ($i)"; xdotool key space; sleep 3; shot "$((i + 1))-space-$i"
done
mark end
awk '/ < info/{n++; next} {if(n){print "          ("n" info lines)"; n=0} print}
     END{if(n)print "          ("n" info lines)"}' "$log" | cut -c1-120 > "$out/gtp-short.log"
cat "$out/gtp-short.log"

#!/bin/bash
# GoGui 1.6.0 drawing Tengen's live graphics while it thinks with the network (issue 28's
# screenshot). Starts Xvfb on :98 (unless DISPLAY is set), GoGui with its own home on the SGF
# at move N with Tengen (`--threads 2 --live-gfx`, so the fetched network) playing the side to
# move, asks it to play (F5), and takes a screenshot of GoGui's window SECONDS later.
#
#   scripts/gogui_live_gfx.sh GAME.sgf N black|white [SECONDS] [OUT.jpg]
#
# Needs xvfb, xdotool, imagemagick, ../shared/anchors/gogui-1.6.0 and target/release/tengen.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
sgf=$(readlink -f "$1"); move=$2; side=$3; wait=${4:-4}; out=${5:-/tmp/gogui-live-gfx.jpg}
home=$(mktemp -d)
xvfb=""
if [ -z "${DISPLAY:-}" ]; then
  Xvfb :98 -screen 0 1000x800x24 >/dev/null 2>&1 & xvfb=$!
  export DISPLAY=:98
  sleep 2
fi
JAVA_TOOL_OPTIONS="-Duser.home=$home" "$here/../shared/anchors/gogui-1.6.0/bin/gogui" -size 9 \
  -program "$here/target/release/tengen --threads 2 --live-gfx" -command "time_settings 0 10 1" \
  -move "$move" -computer-"$side" "$sgf" >"$home/gogui.out" 2>&1 & gogui=$!
trap 'kill $gogui 2>/dev/null; [ -n "$xvfb" ] && kill $xvfb 2>/dev/null; rm -rf "$home"; true' EXIT
sleep 8
win=$(xdotool search --name "Tengen" | head -1)
eval "$(xdotool getwindowgeometry --shell "$win")"
xdotool mousemove $((X + 100)) $((Y + HEIGHT - 10)) click 1   # the status bar: focus, no move
sleep 0.5
xdotool key F5
sleep "$wait"
import -window root -crop "${WIDTH}x$((HEIGHT))+$X+$Y" -quality 80 "$out"
echo "$out"

#!/usr/bin/env bash
# Fetches the network Tengen plays with, KataGo's b10c384h6nbttflrs (KataGo network licence,
# not committed), from the KaTrain 1.20.0 wheel on PyPI, checks its SHA-256 and installs it
# where Tengen looks by default (tengen::nn::default_model_path): $TENGEN_MODEL_DIR, else
# $XDG_DATA_HOME/tengen, else ~/.local/share/tengen. Prints the installed path. Does nothing
# but print it when the file is already there with the right hash. Tengen itself never
# downloads anything.
#
#   scripts/fetch-model.sh            # needs python3 with pip, and the network
set -euo pipefail

name=b10c384h6nbttflrs.bin.gz
sha256=0ba27eced5180b3e3d0b898b280c541112989765e789d1eb6cd0d31b2b2c1229
wheel_spec=katrain==1.20.0
member=katrain/models/$name

if [ -n "${TENGEN_MODEL_DIR:-}" ]; then
    dir=$TENGEN_MODEL_DIR
elif [ -n "${XDG_DATA_HOME:-}" ]; then
    dir=$XDG_DATA_HOME/tengen
elif [ -n "${HOME:-}" ]; then
    dir=$HOME/.local/share/tengen
else
    echo "fetch-model: no TENGEN_MODEL_DIR, XDG_DATA_HOME or HOME: nowhere to put the network" >&2
    exit 1
fi
dest=$dir/$name

hash_of() { sha256sum "$1" | cut -d' ' -f1; }

if [ -f "$dest" ]; then
    if [ "$(hash_of "$dest")" = "$sha256" ]; then
        echo "$dest"
        exit 0
    fi
    echo "fetch-model: $dest has another SHA-256; fetching it again" >&2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-model: downloading $wheel_spec from PyPI (pip)" >&2
python3 -m pip download --quiet --no-deps "$wheel_spec" -d "$tmp" >&2
wheel=$(ls "$tmp"/katrain-*.whl 2>/dev/null | head -n 1)
if [ -z "$wheel" ]; then
    echo "fetch-model: pip downloaded no katrain wheel" >&2
    exit 1
fi
python3 - "$wheel" "$member" "$tmp/$name" <<'EOF'
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst)
EOF
got=$(hash_of "$tmp/$name")
if [ "$got" != "$sha256" ]; then
    echo "fetch-model: $member in $(basename "$wheel") has SHA-256 $got, not $sha256" >&2
    exit 1
fi
mkdir -p "$dir"
# Into place in one rename, so that a reader never sees half a file.
cp "$tmp/$name" "$dest.part"
mv -f "$dest.part" "$dest"
echo "$dest"

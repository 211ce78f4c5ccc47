#!/usr/bin/env bash
# Makes docs/filters.jpg, the README's before/after picture: a real photo from
# ../shared/media (pug.heic, from pillow-heif's test images) and camlib's render of each
# filter, 360 px wide, in a 4x2 grid:
#   original  comic      noir       mono
#   sepia     posterize  vignette   comic + vignette
# Every render goes through `camlib edit` on a scratch library, like a user's would.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
photo=${1:-$root/../shared/media/apple-portrait-heic/pug.heic}
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT

(cd "$root" && swift build -c release --product camlib >/dev/null)
camlib=$root/.build/release/camlib
"$camlib" import --library "$tmp/lib" "$photo" >/dev/null

# A still (HEIC or JPEG) as a 360-px-wide PNG, as displayed.
small() {
  case "$1" in
    *.heic|*.HEIC) heif-dec "$1" "$tmp/full.png" >/dev/null && src=$tmp/full.png ;;
    *) src=$1 ;;
  esac
  ffmpeg -v error -y -i "$src" -vf scale=360:-2 "$2"
}

small "$photo" "$tmp/0.png"
n=1
for recipe in "comic" "noir" "mono" "sepia" "posterize" "vignette" "comic --filter vignette"; do
  # shellcheck disable=SC2086
  render=$("$camlib" edit --library "$tmp/lib" 1 --filter $recipe --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["renders"][0])')
  small "$render" "$tmp/$n.png"
  n=$((n + 1))
done
inputs=()
for i in 0 1 2 3 4 5 6 7; do inputs+=(-i "$tmp/$i.png"); done
ffmpeg -v error -y "${inputs[@]}" -filter_complex \
  "[0][1][2][3]hstack=4[top];[4][5][6][7]hstack=4[bottom];[top][bottom]vstack=2" \
  -q:v 4 "$root/docs/filters.jpg"
echo "wrote $root/docs/filters.jpg"

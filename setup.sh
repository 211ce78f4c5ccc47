#!/usr/bin/env bash
# Installs what camlib needs to build and test on Debian (bookworm or newer).
#
# Idempotent: when every package is present at a good version it only checks and
# exits. Run as root (or with sudo available). It enables the distribution's
# backports suite, which libheif >= 1.19 comes from (1.15 cannot read iOS 18 HEICs),
# by copying the machine's own Debian source entry with the suite changed, so the
# mirror this machine already uses is the one used; no host name is written here.
set -euo pipefail

# Built against: the C libraries camlib wraps (Sources/C*), and pkg-config to find them.
BUILD_PACKAGES=(
  pkg-config
  libexif-dev
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev
  libavdevice-dev  # sound input (ALSA, PulseAudio) for capture; loaded only then
  libv4l-dev
  libsqlite3-dev
  libturbojpeg0-dev
  libpng-dev
  zlib1g-dev
  libxml2  # Foundation's XMLParser (XMP) loads it at run time
)
# From backports: libheif and its codec plugins: HEVC decoding through FFmpeg (camlib's
# choice, faster) or libde265, HEVC encoding through x265, AV1 decoding through dav1d and
# encoding (edits of AVIF photos) through SVT-AV1.
HEIF_PACKAGES=(
  libheif-dev libheif1
  libheif-plugin-ffmpegdec libheif-plugin-libde265 libheif-plugin-x265 libheif-plugin-dav1d libheif-plugin-svtenc
  libheif-examples
)
# Called by the tests and the benchmark as independent witnesses; Leaflet, which the
# gallery's map is drawn with (camlib serve reads it from /usr/share/javascript/leaflet).
TOOL_PACKAGES=(libimage-exiftool-perl ffmpeg sqlite3 time libjs-leaflet)
# A catalog on a PostgreSQL server (15 or newer): the tests start private clusters of
# their own with its initdb and pg_ctl, and psql checks what camlib wrote. PgBouncer:
# the connection pooler the sharing guide sets up, tested and benchmarked in front of it.
SERVER_PACKAGES=(postgresql postgresql-client pgbouncer)
# The browser tests (Tests/Browser): Debian's Chromium and its driver, and Python to
# run Selenium from a project-local virtual environment (.venv/, never a browser download).
BROWSER_PACKAGES=(chromium chromium-driver python3 python3-venv)
MIN_HEIF_VERSION=1.19

say() { printf 'setup: %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else say "must run as root (or with sudo) to install packages"; exit 1
  fi
}

installed_version() {
  dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null | awk '$3 == "installed" { print $4 }'
}

everything_present() {
  local p v
  for p in "${BUILD_PACKAGES[@]}" "${HEIF_PACKAGES[@]}" "${TOOL_PACKAGES[@]}" "${SERVER_PACKAGES[@]}" "${BROWSER_PACKAGES[@]}"; do
    [ -n "$(installed_version "$p")" ] || return 1
  done
  v=$(installed_version libheif-dev)
  dpkg --compare-versions "$v" ge "$MIN_HEIF_VERSION"
}

codename() {
  . /etc/os-release
  if [ -z "${VERSION_CODENAME:-}" ]; then say "cannot tell the Debian release from /etc/os-release"; exit 1; fi
  echo "$VERSION_CODENAME"
}

# Writes /etc/apt/sources.list.d/camlib-backports.{sources,list} from the entry that
# already serves "<codename>", with the suite replaced by "<codename>-backports".
enable_backports() {
  local suite="$1-backports" f out
  if grep -rqsE "(^|[[:space:]])${suite}([[:space:]]|$)" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    return 0
  fi
  # deb822 files first (Debian 12's default), then one-line sources.list entries.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    out=$(awk -v want="$1" -v suite="$suite" '
      function flush() {
        if (isdeb && hassuite && !done) { printf "%s", block; done = 1 }
        block = ""; isdeb = 0; hassuite = 0
      }
      /^[[:space:]]*$/ { flush(); next }
      /^#/ { next }
      /^Types:/ { if ($0 ~ /(^|[[:space:]])deb([[:space:]]|$)/) isdeb = 1; block = block "Types: deb\n"; next }
      /^Suites:/ {
        for (i = 2; i <= NF; i++) if ($i == want) hassuite = 1
        block = block "Suites: " suite "\n"; next
      }
      { block = block $0 "\n" }
      END { flush() }' "$f")
    if [ -n "$out" ]; then
      printf '# Written by camlib setup.sh: a copy of the %s entry in %s with the suite changed.\n%s\n' \
        "$1" "$(basename "$f")" "$out" | as_root tee /etc/apt/sources.list.d/camlib-backports.sources >/dev/null
      say "enabled $suite (copied from $f)"
      return 0
    fi
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    out=$(awk -v want="$1" -v suite="$suite" '
      $1 == "deb" { for (i = 2; i <= NF; i++) if ($i == want) { $i = suite; print; exit } }' "$f")
    if [ -n "$out" ]; then
      printf '# Written by camlib setup.sh: a copy of the %s entry in %s with the suite changed.\n%s\n' \
        "$1" "$(basename "$f")" "$out" | as_root tee /etc/apt/sources.list.d/camlib-backports.list >/dev/null
      say "enabled $suite (copied from $f)"
      return 0
    fi
  done
  say "found no apt source entry for '$1' to copy; add $suite by hand"
  exit 1
}

# .venv/ with Tests/Browser/requirements.txt from PyPI; redone when the list changes.
setup_test_runner() {
  local root requirements stamp
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  requirements="$root/Tests/Browser/requirements.txt"
  stamp="$root/.venv/requirements.sha256"
  if [ -x "$root/.venv/bin/python" ] && [ -f "$stamp" ] && sha256sum --status -c "$stamp" 2>/dev/null; then
    return 0
  fi
  say "making $root/.venv for the browser tests"
  python3 -m venv "$root/.venv"
  "$root/.venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  sha256sum "$requirements" > "$stamp"
}

# `man camlib` and shell completions, made from camlib's own help by swift-argument-parser
# (its generate-manual tool, and `camlib --generate-completion-script`): into
# /usr/local/share as root, else ~/.local/share. Redone when any source changes: the help
# also lists what other modules hold (the filters and their parameters, the formats).
install_manual_and_completions() {
  local root share man completions
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  if [ "$(id -u)" -eq 0 ]; then share=/usr/local/share; else share="${XDG_DATA_HOME:-$HOME/.local/share}"; fi
  man="$share/man/man1"
  completions="$share/bash-completion/completions"
  if [ -f "$man/camlib.1" ] && [ -f "$completions/camlib" ] && [ -z "$(find "$root/Sources" "$root/Package.swift" -newer "$man/camlib.1" -print -quit)" ]; then
    return 0
  fi
  say "building camlib to write its manual and completions"
  (cd "$root" && swift build -q --product camlib && swift build -q --product generate-manual)
  mkdir -p "$man" "$completions" "$share/zsh/site-functions" "$share/fish/vendor_completions.d"
  "$root/.build/debug/generate-manual" "$root/.build/debug/camlib" --output-directory "$man"
  "$root/.build/debug/camlib" --generate-completion-script bash > "$completions/camlib"
  "$root/.build/debug/camlib" --generate-completion-script zsh > "$share/zsh/site-functions/_camlib"
  "$root/.build/debug/camlib" --generate-completion-script fish > "$share/fish/vendor_completions.d/camlib.fish"
  say "installed man camlib ($man/camlib.1) and completions for bash, zsh and fish under $share"
}

main() {
  if everything_present; then
    say "all packages present (libheif $(installed_version libheif-dev))"
    setup_test_runner
    install_manual_and_completions
    return 0
  fi
  local cn; cn=$(codename)
  enable_backports "$cn"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -q
  as_root apt-get install -y -q --no-install-recommends "${BUILD_PACKAGES[@]}" "${TOOL_PACKAGES[@]}" "${SERVER_PACKAGES[@]}" "${BROWSER_PACKAGES[@]}"
  as_root apt-get install -y -q --no-install-recommends -t "$cn-backports" "${HEIF_PACKAGES[@]}"
  if ! everything_present; then
    say "packages still missing or libheif older than $MIN_HEIF_VERSION after install"
    exit 1
  fi
  setup_test_runner
  install_manual_and_completions
  say "done (libheif $(installed_version libheif-dev))"
}

main "$@"

#!/usr/bin/env python3
"""Aux benchmark: extracting every auxiliary image of the Portrait HEICs.

Runs, in one go and on the same files, each file on its own:
  - camlib aux extract FILE --out DIR   (decodes the aux items only, writes PNGs),
  - heif-dec --with-aux FILE OUT.png    (libheif's tool: decodes the photo too).
Prints total seconds and peak memory per tool and the ratio. Goal: camlib in under a
fifth of heif-dec's time.

Usage: bench/aux.py [FOLDER] [--runs N]   (default ../shared/media/apple-portrait-heic, 3 runs)
Not a test: numbers vary with the machine.
"""
import argparse, os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import ROOT, Results, build_camlib, measure  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", default=os.path.join(ROOT, "..", "shared", "media", "apple-portrait-heic"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    folder = os.path.abspath(args.folder)
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.lower().endswith((".heic", ".heif")))
    if not files:
        sys.exit(f"bench: no HEIC files in {folder}")
    if shutil.which("heif-dec") is None:
        sys.exit("bench: heif-dec is missing (run ./setup.sh)")
    camlib = build_camlib()

    totals = {"camlib aux extract": [], "heif-dec --with-aux": []}
    peaks = {name: 0.0 for name in totals}
    for _ in range(args.runs):
        for name in totals:
            seconds = 0.0
            for path in files:
                with tempfile.TemporaryDirectory() as out:
                    if name.startswith("camlib"):
                        cmd = [camlib, "aux", "extract", "--library", os.path.join(out, "no-library"), path, "--out", out]
                    else:
                        cmd = ["heif-dec", "--with-aux", "--no-colons", path, os.path.join(out, "out.png")]
                    t, peak, status = measure(cmd)
                    if status != 0:
                        sys.exit(f"bench: {' '.join(cmd)} failed with status {status}")
                    seconds += t
                    peaks[name] = max(peaks[name], peak)
            totals[name].append(seconds)

    print(f"folder: {folder}: {len(files)} HEICs; best of {args.runs} runs; {os.cpu_count()} cores")
    print(f"{'':24} {'seconds':>8} {'files/s':>9} {'peak MB':>8}")
    for name, runs in totals.items():
        best = min(runs)
        print(f"{name:24} {best:8.2f} {len(files) / best:9.1f} {peaks[name]:8.1f}")
    ours, theirs = min(totals["camlib aux extract"]), min(totals["heif-dec --with-aux"])
    verdict = "met" if ours * 5 < theirs else "NOT met"
    print(f"camlib takes {ours / theirs:.1%} of heif-dec's time (goal: under 20%, {verdict})")
    results = Results("aux", "Auxiliary images")
    results.note(f"{len(files)} Portrait HEICs, each file on its own; best of {args.runs} runs")
    results.add("aux extract of every HEIC's aux images", ours, "s", theirs, "heif-dec --with-aux", "under 0.2x heif-dec", ours * 5 < theirs)
    results.add("peak memory", peaks["camlib aux extract"], "MB", peaks["heif-dec --with-aux"], "heif-dec --with-aux")
    results.write()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Import benchmark: camlib's whole import next to exiftool's metadata read.

Runs, in one go and on the same files:
  - camlib import into a new library (hash, metadata, pairing, thumbnails, copies),
  - camlib import again (every file already there),
  - exiftool -json -r (metadata only: the per-file step Immich and PhotoPrism pay).
Prints wall time, files per second and peak memory (resident set size summed over
the whole process tree, sampled every 10 ms; camlib analyses in worker processes).

Usage: bench/import.py [CORPUS] [--runs N]   (default ../shared/media, 3 runs, best kept)
Builds camlib in release mode first. Not a test: numbers vary with the machine.
"""
import argparse, os, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import build_camlib, measure  # noqa: E402


def count_files(corpus):
    return sum(len([f for f in files if not f.startswith(".")]) for _, _, files in os.walk(corpus))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?", default=os.path.join(ROOT, "..", "shared", "media"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    corpus = os.path.abspath(args.corpus)
    if not os.path.isdir(corpus):
        sys.exit(f"bench: no corpus at {corpus}")
    if shutil.which("exiftool") is None:
        sys.exit("bench: exiftool is missing (run ./setup.sh)")

    camlib = build_camlib()
    files = count_files(corpus)
    size_mb = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(corpus) for f in fs) / 1e6

    results = {"camlib import (new library)": [], "camlib import (again: all known)": [], "exiftool -json -r": []}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            lib = os.path.join(tmp, "lib")
            results["camlib import (new library)"].append(measure([camlib, "import", "--library", lib, corpus]))
            results["camlib import (again: all known)"].append(measure([camlib, "import", "--library", lib, corpus]))
            subprocess.run(["chmod", "-R", "u+w", tmp])
        results["exiftool -json -r"].append(measure(["exiftool", "-json", "-r", corpus]))

    print(f"corpus: {corpus}: {files} files, {size_mb:.1f} MB; best of {args.runs} runs; {os.cpu_count()} cores")
    print(f"{'':34} {'seconds':>8} {'files/s':>9} {'peak MB':>8}")
    for name, runs in results.items():
        seconds, peak, _ = min(runs)
        print(f"{name:34} {seconds:8.2f} {files / seconds:9.1f} {max(r[1] for r in runs):8.1f}")
    ours = min(results["camlib import (new library)"])[0]
    theirs = min(results["exiftool -json -r"])[0]
    verdict = "faster" if ours < theirs else "SLOWER"
    print(f"camlib's whole import is {theirs / ours:.2f}x exiftool's metadata read ({verdict}; goal: faster)")


if __name__ == "__main__":
    main()

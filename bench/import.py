#!/usr/bin/env python3
"""Import benchmark: camlib's whole import next to exiftool's metadata read.

Runs, in one go and on the same files:
  - camlib import into a new library (hash, metadata, pairing, thumbnails, copies),
  - camlib import again (every file already there),
  - exiftool -json -r (metadata only: the per-file step Immich and PhotoPrism pay);
  - a floor: heif-dec (libheif's own tool, same decoders) decoding only the HEIF photos
    that carry no embedded thumbnail camlib can use, one after another: work any
    importer that makes thumbnails must do and exiftool never does.
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


def needs_decoded_thumbnail(path):
    """True for a HEIF/AVIF photo whose primary image has no thumbnail of 240+ px (what
    camlib's import takes instead of decoding, MediaAnalyzer.smallestUsableEmbeddedThumbnail)."""
    info = subprocess.run(["heif-info", path], capture_output=True, text=True)
    if info.returncode != 0:
        return False
    primary = info.stdout.split("\nimage: ")[1] if "\nimage: " in info.stdout else ""
    primary = primary.split("\nimage: ")[0]
    for line in primary.splitlines():
        if line.strip().startswith("thumbnail:"):
            w, h = line.split(":")[1].strip().split("x")
            return max(int(w), int(h)) < 240
    return True


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

    heifs = sorted(os.path.join(d, f) for d, _, fs in os.walk(corpus) for f in fs
                   if f.lower().endswith((".heic", ".heif", ".avif")) and "malformed" not in d)
    undecorated = [f for f in heifs if needs_decoded_thumbnail(f)]
    floor_name = f"floor: heif-dec of {len(undecorated)} thumbnail-less"
    results = {"camlib import (new library)": [], "camlib import (again: all known)": [], "exiftool -json -r": [],
               floor_name: []}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            lib = os.path.join(tmp, "lib")
            results["camlib import (new library)"].append(measure([camlib, "import", "--library", lib, corpus]))
            results["camlib import (again: all known)"].append(measure([camlib, "import", "--library", lib, corpus]))
            subprocess.run(["chmod", "-R", "u+w", tmp])
        results["exiftool -json -r"].append(measure(["exiftool", "-json", "-r", corpus]))
        with tempfile.TemporaryDirectory() as tmp:
            runs = [measure(["heif-dec", f, os.path.join(tmp, "out.y4m")]) for f in undecorated]
            results[floor_name].append((sum(r[0] for r in runs), max(r[1] for r in runs), 0))

    print(f"corpus: {corpus}: {files} files, {size_mb:.1f} MB; best of {args.runs} runs; {os.cpu_count()} cores")
    print(f"{'':34} {'seconds':>8} {'files/s':>9} {'peak MB':>8}")
    for name, runs in results.items():
        seconds, peak, _ = min(runs)
        rate = f"{files / seconds:9.1f}" if name != floor_name else f"{'':9}"
        print(f"{name:34} {seconds:8.2f} {rate} {max(r[1] for r in runs):8.1f}")
    ours = min(results["camlib import (new library)"])[0]
    theirs = min(results["exiftool -json -r"])[0]
    verdict = "faster" if ours < theirs else "SLOWER"
    print(f"camlib's whole import is {theirs / ours:.2f}x exiftool's metadata read ({verdict}; goal: faster)")
    floor = min(results[floor_name])[0]
    print(f"heif-dec decoding the {len(undecorated)} HEIF photos without a usable thumbnail, one process each: {floor:.2f} s "
          f"on one core, {floor / 2:.2f} s split perfectly over two; exiftool's whole run: {theirs:.2f} s")


if __name__ == "__main__":
    main()

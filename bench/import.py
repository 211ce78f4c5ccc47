#!/usr/bin/env python3
"""Import benchmark: camlib's whole import next to exiftool's metadata read.

Runs, in one go and on the same files:
  - camlib import --no-wait into a new library: until every asset is listed (hash,
    metadata, pairing, copies; thumbnails that take decoding left queued as jobs),
  - camlib import into a new library (the same, and its thumbnail jobs run),
  - camlib import again (every file already there),
  - exiftool -json -r (metadata only: the per-file step Immich and PhotoPrism pay);
  - a floor: heif-dec (libheif's own tool, same decoders) decoding only the HEIF photos
    that carry no embedded thumbnail camlib can use, one after another: work any
    importer that makes thumbnails must do and exiftool never does.
Prints wall time, files per second and peak memory (resident set size summed over
the whole process tree, sampled every 10 ms; camlib analyses in worker processes).
Times come from runs nothing watches, memory from one more run that is sampled: the
sampling takes CPU from a command that keeps both cores busy.

With --files N (2000 in the issue's goal), the same comparison runs again on a set of N
files made from the corpus: copies of its folders (the malformed one aside), each file
made unique by a byte that changes nothing it means (a JPEG COM segment, an ISOBMFF
`free` box, a PNG tEXt chunk, an XML comment), so that nothing is skipped as already
known. Its floor is the corpus floor times the number of copies (the same files).

Usage: bench/import.py [CORPUS] [--runs N] [--files N]   (default ../shared/media, 3 runs, best kept)
Builds camlib in release mode first. Not a test: numbers vary with the machine.
"""
import argparse, os, shutil, struct, subprocess, sys, tempfile, zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import Results, build_camlib, measure  # noqa: E402


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


def unique_variant(data, name, k):
    """The file's bytes with a harmless mark `k` that makes them unique (see the docstring)."""
    lower = name.lower()
    mark = f"camlib bench copy {k}".encode()
    if lower.endswith((".jpg", ".jpeg")) and data[:2] == b"\xff\xd8":
        return data[:2] + b"\xff\xfe" + struct.pack(">H", len(mark) + 2) + mark + data[2:]
    if lower.endswith((".heic", ".heif", ".avif", ".mov", ".mp4")):
        return data + struct.pack(">I", 8 + len(mark)) + b"free" + mark
    if lower.endswith(".png") and data[:8] == b"\x89PNG\r\n\x1a\n":
        body = b"Comment\x00" + mark
        chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body) & 0xFFFFFFFF)
        return data[:33] + chunk + data[33:]
    if lower.endswith(".aae"):
        return data + b"\n<!-- " + mark + b" -->\n"
    return data + mark


def lanes_command(files):
    """heif-dec on each of `files`, two processes at a time (as camlib runs its analyses),
    each writing into $TMPDIR."""
    return ["sh", "-c", 'for f in "$@"; do printf "%s\\0" "$f"; done | xargs -0 -P 2 -I{} sh -c \'heif-dec "$1" "$2/$$.y4m" > /dev/null\' sh {} "$TMPDIR"',
            "sh"] + files


def make_set(corpus, wanted, dest):
    """Copies of the corpus's folders (malformed aside) into dest/1, dest/2, … until
    `wanted` files; returns the number of files and of copies."""
    sources = [(d, f) for d, _, fs in os.walk(corpus) for f in fs if "malformed" not in d and not f.startswith(".")
               and f not in ("MANIFEST.json", "README.md")]
    copies = max(1, -(-wanted // len(sources)))
    for k in range(1, copies + 1):
        for d, f in sources:
            out = os.path.join(dest, str(k), os.path.relpath(d, corpus))
            os.makedirs(out, exist_ok=True)
            with open(os.path.join(d, f), "rb") as src, open(os.path.join(out, f), "wb") as dst:
                dst.write(unique_variant(src.read(), f, k))
    return len(sources) * copies, copies


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?", default=os.path.join(ROOT, "..", "shared", "media"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--files", type=int, default=0, help="also run on a set of this many files made from the corpus")
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
    floor2_name = "floor, two at a time (xargs -P 2)"
    listed = "camlib import --no-wait (listed)"
    results = {listed: [], "camlib import (new library)": [], "camlib import (again: all known)": [], "exiftool -json -r": [],
               floor_name: [], floor2_name: []}
    # Timings from runs nothing watches (sampling memory every 10 ms costs a few percent
    # of a machine whose two cores the import keeps busy); peak memory from one more,
    # sampled, run of each.
    def run_all(sample):
        with tempfile.TemporaryDirectory() as tmp:
            results[listed].append(measure([camlib, "import", "--no-wait", "--library", os.path.join(tmp, "listed"), corpus], sample))
            subprocess.run(["chmod", "-R", "u+w", tmp])
        with tempfile.TemporaryDirectory() as tmp:
            lib = os.path.join(tmp, "lib")
            results["camlib import (new library)"].append(measure([camlib, "import", "--library", lib, corpus], sample))
            results["camlib import (again: all known)"].append(measure([camlib, "import", "--library", lib, corpus], sample))
            subprocess.run(["chmod", "-R", "u+w", tmp])
        results["exiftool -json -r"].append(measure(["exiftool", "-json", "-r", corpus], sample))
        with tempfile.TemporaryDirectory() as tmp:
            runs = [measure(["heif-dec", f, os.path.join(tmp, "out.y4m")], sample) for f in undecorated]
            results[floor_name].append((sum(r[0] for r in runs), max(r[1] for r in runs), 0))
            # The same decodes as camlib runs its analyses: two processes at a time.
            results[floor2_name].append(measure(["env", f"TMPDIR={tmp}"] + lanes_command(undecorated), sample))

    for _ in range(args.runs):
        run_all(sample=False)
    timings = {name: [r[0] for r in runs] for name, runs in results.items()}
    for runs in results.values():
        runs.clear()
    run_all(sample=True)
    peaks = {name: runs[0][1] for name, runs in results.items()}

    print(f"corpus: {corpus}: {files} files, {size_mb:.1f} MB; best of {args.runs} runs, peak memory from one more; {os.cpu_count()} cores")
    print(f"{'':34} {'seconds':>8} {'files/s':>9} {'peak MB':>8}")
    for name, seconds in timings.items():
        rate = f"{files / min(seconds):9.1f}" if name not in (floor_name, floor2_name) else f"{'':9}"
        print(f"{name:34} {min(seconds):8.2f} {rate} {peaks[name]:8.1f}")
    ours = min(timings["camlib import (new library)"])
    theirs = min(timings["exiftool -json -r"])
    verdict = "faster" if ours < theirs else "SLOWER"
    print(f"camlib's whole import is {theirs / ours:.2f}x exiftool's metadata read ({verdict}; goal: faster)")
    floor = min(timings[floor_name])
    print(f"heif-dec decoding the {len(undecorated)} HEIF photos without a usable thumbnail, one process each: {floor:.2f} s "
          f"on one core, {floor / 2:.2f} s split perfectly over two; exiftool's whole run: {theirs:.2f} s")
    floor2 = min(timings[floor2_name])
    verdict = "met" if theirs / ours >= 1.0 or ours <= 1.1 * floor2 else "NOT met"
    print(f"camlib / floor: {ours / (floor / 2):.2f}x the floor split perfectly over two cores, {ours / floor2:.2f}x the floor run "
          f"two at a time (goal: exiftool's speed, or within 1.1x of the floor: {verdict})")
    first = min(timings[listed])
    print(f"camlib lists every asset (--no-wait) at {theirs / first:.2f}x exiftool's speed (goal: at least 1x: "
          f"{'met' if first <= theirs else 'NOT met'})")
    results = Results("import", "Import")
    results.note(f"corpus: {files} files, {size_mb:.1f} MB; best of {args.runs} runs")
    results.add("import until every asset is listed (--no-wait)", first, "s", theirs, "exiftool -json -r (metadata only)",
                "at least exiftool's speed", first <= theirs)
    results.add("peak memory until listed", peaks[listed], "MB", goal="under 300 MB", met=peaks[listed] < 300)
    results.add("import of the corpus into a new library", ours, "s", theirs, "exiftool -json -r (metadata only)")
    results.add("the same, against the decoding floor", ours, "s", floor2, f"heif-dec of the {len(undecorated)} thumbnail-less HEIFs, two at a time",
                "within 1.1x of the floor", ours <= 1.1 * floor2)
    results.add("import of the corpus again (every file known)", min(timings["camlib import (again: all known)"]), "s", theirs,
                "exiftool -json -r (metadata only)")
    results.add("peak memory of the import's process tree", peaks["camlib import (new library)"], "MB",
                peaks["exiftool -json -r"], "exiftool")

    if args.files:
        with tempfile.TemporaryDirectory() as tmp:
            folder = os.path.join(tmp, "set")
            count, copies = make_set(corpus, args.files, folder)
            size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(folder) for f in fs) / 1e6
            lib = os.path.join(tmp, "lib")
            first = measure([camlib, "import", "--no-wait", "--library", lib, folder], sample=False)[0]
            subprocess.run(["chmod", "-R", "u+w", lib])
            shutil.rmtree(lib)
            mine = measure([camlib, "import", "--library", lib, folder], sample=False)
            subprocess.run(["chmod", "-R", "u+w", lib])
            shutil.rmtree(lib)
            # Memory from imports that are watched (sampling costs time).
            listed_peak = measure([camlib, "import", "--no-wait", "--library", lib, folder])[1]
            subprocess.run(["chmod", "-R", "u+w", lib])
            shutil.rmtree(lib)
            peak = measure([camlib, "import", "--library", lib, folder])[1]
            subprocess.run(["chmod", "-R", "u+w", lib])
            shutil.rmtree(lib)
            other = measure(["exiftool", "-json", "-r", folder], sample=False)
            # The floor on the set itself, two at a time: every copy's thumbnail-less HEIFs.
            copied = [os.path.join(folder, str(k), os.path.relpath(f, corpus)) for k in range(1, copies + 1) for f in undecorated]
            big_floor2 = measure(["env", f"TMPDIR={tmp}"] + lanes_command(copied), sample=False)[0]
        big_floor = floor * copies
        print(f"\nset: {count} files ({copies} copies of the corpus), {size:.1f} MB; one run each, camlib's peak memory from one more")
        print(f"{'':34} {'seconds':>8} {'files/s':>9} {'peak MB':>8}")
        print(f"{'camlib import --no-wait (listed)':34} {first:8.2f} {count / first:9.1f} {listed_peak:8.1f}")
        print(f"{'camlib import (new library)':34} {mine[0]:8.2f} {count / mine[0]:9.1f} {peak:8.1f}")
        print(f"{'exiftool -json -r':34} {other[0]:8.2f} {count / other[0]:9.1f} {'-':>8}")
        print(f"{'floor (corpus floor x copies)':34} {big_floor:8.2f}")
        print(f"{'floor, two at a time':34} {big_floor2:8.2f}")
        verdict = "met" if other[0] / mine[0] >= 1.0 or mine[0] <= 1.1 * big_floor2 else "NOT met"
        print(f"camlib is {other[0] / mine[0]:.2f}x exiftool's speed, {mine[0] / (big_floor / 2):.2f}x the floor split perfectly "
              f"over two cores, {mine[0] / big_floor2:.2f}x the floor run two at a time ({verdict})")
        print(f"peak memory of the import's process tree until every asset is listed: {listed_peak:.0f} MB "
              f"(goal: under 300 MB: {'met' if listed_peak < 300 else 'NOT met'}); with its thumbnail jobs: {peak:.0f} MB")
        results.note(f"set: {count} files ({copies} copies of the corpus, each file made unique), {size:.0f} MB; one run")
        print(f"camlib lists the set at {other[0] / first:.2f}x exiftool's speed (goal: at least 1x: {'met' if first <= other[0] else 'NOT met'})")
        results.add(f"import of {count} files until every asset is listed (--no-wait)", first, "s", other[0],
                    "exiftool -json -r (metadata only)", "at least exiftool's speed", first <= other[0])
        results.add(f"import of {count} files into a new library", mine[0], "s", other[0], "exiftool -json -r (metadata only)")
        results.add(f"the same, against the decoding floor", mine[0], "s", big_floor2, "heif-dec, two at a time",
                    "within 1.1x of the floor", mine[0] <= 1.1 * big_floor2)
        results.add(f"peak memory until listed, {count} files", listed_peak, "MB", goal="under 300 MB", met=listed_peak < 300)
        results.add(f"peak memory of the whole import, {count} files (thumbnail workers included)", peak, "MB")
    results.write()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Edit benchmark: camlib's whole Live Photo edit next to ffmpeg filtering the movie alone.

Runs, in one go, on ../shared/media/apple-live-photo/IMG_3582 (HEIC + MOV, 55 frames):
  - camlib edit ASSET --filter comic   (the 24-megapixel still and every movie frame,
    HEVC through x265 at the ultrafast preset, the movie's other tracks kept);
  - ffmpeg with a comparable comic-like graph on the movie only (edges over a posterised
    fill), the same encoder, preset and constant rate factor, audio copied;
  - the floor: x265 alone (the encoder both use) re-encoding camlib's own renders, the
    still with heif-enc (libheif's tool) and the movie with ffmpeg, at camlib's settings.
Prints seconds and peak memory; goal: camlib's whole edit in at most half of ffmpeg's
time for the movie alone. The floor rows show what encoding alone costs.

Usage: bench/edit.py [--runs N]   (default 3, best kept). Not a test.
"""
import argparse, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import ROOT, build_camlib, measure  # noqa: E402

MEDIA = os.path.join(ROOT, "..", "shared", "media", "apple-live-photo")
# camlib's render settings (Sources/Library/Edit): libheif quality 60 = x265 CRF 20 for
# the still, CRF 23 for the movie; both at x265's ultrafast preset.
STILL_QUALITY, MOVIE_CRF = 60, 23
# Edges (dark lines) multiplied over a posterised copy: what comic does, in FFmpeg filters.
GRAPH = ("split[a][b];"
         "[a]edgedetect=low=0.08:high=0.2,negate[edges];"
         "[b]lutrgb=r='floor(val/52)*52':g='floor(val/52)*52':b='floor(val/52)*52'[fill];"
         "[fill]format=gbrp[f];[edges]format=gbrp[e];[f][e]blend=all_mode=multiply,format=yuv420p")


def renders(library):
    """Paths of the still and movie camlib rendered into a library."""
    out = subprocess.run(["sqlite3", os.path.join(library, "catalog.sqlite"),
                          "SELECT role, path FROM resource WHERE role IN ('renderedPhoto', 'renderedVideo')"],
                         check=True, capture_output=True, text=True).stdout
    paths = dict(line.split("|", 1) for line in out.splitlines())
    return (os.path.join(library, paths["renderedPhoto"]), os.path.join(library, paths["renderedVideo"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    still, movie = os.path.join(MEDIA, "IMG_3582.HEIC"), os.path.join(MEDIA, "IMG_3582.mov")
    if not (os.path.exists(still) and os.path.exists(movie)):
        sys.exit(f"bench: no IMG_3582 pair in {MEDIA}")
    for tool in ("ffmpeg", "heif-enc", "heif-dec"):
        if shutil.which(tool) is None:
            sys.exit(f"bench: {tool} is missing (run ./setup.sh)")
    camlib = build_camlib()

    results = {"camlib edit (still + movie)": [], "ffmpeg comic-like graph (movie)": [],
               "floor: heif-enc of camlib's still": [], "floor: x265 of camlib's movie": []}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            lib = os.path.join(tmp, "lib")
            subprocess.run([camlib, "import", "--library", lib, still, movie], check=True, stdout=subprocess.DEVNULL)
            results["camlib edit (still + movie)"].append(
                measure([camlib, "edit", "--library", lib, still, "--filter", "comic"]))
            subprocess.run(["chmod", "-R", "u+w", tmp])
            out = os.path.join(tmp, "ffmpeg.mov")
            results["ffmpeg comic-like graph (movie)"].append(measure([
                "ffmpeg", "-v", "error", "-y", "-i", movie, "-map", "0:v", "-map", "0:a", "-filter_complex", GRAPH,
                "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", f"bframes=0:crf={MOVIE_CRF}:log-level=error",
                "-c:a", "copy", out]))
            # The floor: x265 encoding what camlib rendered, nothing else (decoding the
            # rendered still to PNG is not timed).
            rendered_still, rendered_movie = renders(lib)
            png = os.path.join(tmp, "still.png")
            subprocess.run(["heif-dec", rendered_still, png], check=True, stdout=subprocess.DEVNULL)
            results["floor: heif-enc of camlib's still"].append(measure([
                "heif-enc", "-q", str(STILL_QUALITY), "-p", "preset=ultrafast", "-o", os.path.join(tmp, "floor.heic"), png]))
            results["floor: x265 of camlib's movie"].append(measure([
                "ffmpeg", "-v", "error", "-y", "-i", rendered_movie, "-map", "0:v", "-c:v", "libx265", "-preset", "ultrafast",
                "-x265-params", f"bframes=0:crf={MOVIE_CRF}:log-level=error", os.path.join(tmp, "floor.mov")]))
    for name, runs in results.items():
        if any(r[2] != 0 for r in runs):
            sys.exit(f"bench: {name} failed (exit status {runs[0][2]})")

    print(f"IMG_3582: 24-megapixel HEIC + 55-frame 1920x1440 HEVC movie; best of {args.runs} runs; {os.cpu_count()} cores")
    print(f"{'':36} {'seconds':>8} {'peak MB':>8}")
    for name, runs in results.items():
        print(f"{name:36} {min(runs)[0]:8.2f} {max(r[1] for r in runs):8.1f}")
    best = {name: min(runs)[0] for name, runs in results.items()}
    ours, theirs = best["camlib edit (still + movie)"], best["ffmpeg comic-like graph (movie)"]
    verdict = "met" if ours * 2 <= theirs else "NOT met"
    print(f"camlib's whole edit takes {ours / theirs:.2f}x ffmpeg's movie-only time (goal: at most 0.5x, {verdict})")
    floor = best["floor: heif-enc of camlib's still"] + best["floor: x265 of camlib's movie"]
    print(f"x265 alone, encoding camlib's renders: {floor:.2f} s = {floor / theirs:.2f}x ffmpeg's time "
          f"(the goal allows {theirs / 2:.2f} s for everything)")


if __name__ == "__main__":
    main()

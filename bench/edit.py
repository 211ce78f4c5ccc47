#!/usr/bin/env python3
"""Edit benchmark: camlib's whole Live Photo edit next to ffmpeg filtering the movie alone.

Runs, in one go, on ../shared/media/apple-live-photo/IMG_3582 (HEIC + MOV, 55 frames):
  - camlib edit ASSET --filter comic   (the 24-megapixel still and every movie frame,
    HEVC through x265 at the ultrafast preset, the movie's other tracks kept);
  - ffmpeg with a comparable comic-like graph on the movie only (edges over a posterised
    fill), the same encoder and preset, audio copied.
Prints seconds and peak memory; goal: camlib's whole edit in at most half of ffmpeg's
time for the movie alone.

Usage: bench/edit.py [--runs N]   (default 3, best kept). Not a test.
"""
import argparse, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import ROOT, build_camlib, measure  # noqa: E402

MEDIA = os.path.join(ROOT, "..", "shared", "media", "apple-live-photo")
# Edges (dark lines) multiplied over a posterised copy: what comic does, in FFmpeg filters.
GRAPH = ("split[a][b];"
         "[a]edgedetect=low=0.08:high=0.2,negate[edges];"
         "[b]lutrgb=r='floor(val/52)*52':g='floor(val/52)*52':b='floor(val/52)*52'[fill];"
         "[fill]format=gbrp[f];[edges]format=gbrp[e];[f][e]blend=all_mode=multiply,format=yuv420p")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    still, movie = os.path.join(MEDIA, "IMG_3582.HEIC"), os.path.join(MEDIA, "IMG_3582.mov")
    if not (os.path.exists(still) and os.path.exists(movie)):
        sys.exit(f"bench: no IMG_3582 pair in {MEDIA}")
    if shutil.which("ffmpeg") is None:
        sys.exit("bench: ffmpeg is missing (run ./setup.sh)")
    camlib = build_camlib()

    results = {"camlib edit (still + movie)": [], "ffmpeg comic-like graph (movie)": []}
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
                "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "bframes=0:log-level=error", "-c:a", "copy", out]))
    for name, runs in results.items():
        if any(r[2] != 0 for r in runs):
            sys.exit(f"bench: {name} failed (exit status {runs[0][2]})")

    print(f"IMG_3582: 24-megapixel HEIC + 55-frame 1920x1440 HEVC movie; best of {args.runs} runs; {os.cpu_count()} cores")
    print(f"{'':34} {'seconds':>8} {'peak MB':>8}")
    for name, runs in results.items():
        print(f"{name:34} {min(runs)[0]:8.2f} {max(r[1] for r in runs):8.1f}")
    ours = min(results["camlib edit (still + movie)"])[0]
    theirs = min(results["ffmpeg comic-like graph (movie)"])[0]
    verdict = "met" if ours * 2 <= theirs else "NOT met"
    print(f"camlib's whole edit takes {ours / theirs:.2f}x ffmpeg's movie-only time (goal: at most 0.5x, {verdict})")


if __name__ == "__main__":
    main()

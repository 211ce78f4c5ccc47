#!/usr/bin/env python3
"""Capture benchmark: shutter-to-file latency and sustained frame rate of `camlib capture`
on the virtual camera at 1920x1440, next to ffmpeg doing the nearest thing in the same run.

camlib (release build), from its own --events timestamps:
  - shutter-to-file: willBeginCapture -> didFinishProcessingPhoto, per photo, for HEIC and
    JPEG at --quality speed (one frame) and quality (six frames aligned and merged), a HEIC
    with depth and mattes, and a Live Photo's movie (didFinishProcessingLivePhotoMovie:
    it cannot be done before the 1.5 s after the shutter are recorded);
  - sustained: a 5 s H.264 movie at 30 fps: frames written / duration, and whether the
    system-pressure rule had to lower the frame rate.
ffmpeg, as the peer (it has no camera either; its lavfi test source stands in):
  - one 1920x1440 testsrc2 frame to a JPEG file: wall time of the whole process;
  - 5 s of 1920x1440 testsrc2 through libx264 ultrafast, as fast as it goes: frames/s.

Usage: bench/capture.py [--photos N]   (default 5 per row). Not a test.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import Results, build_camlib, measure  # noqa: E402


def events(cmd):
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def latency(camlib, lib, fmt, quality, count, extra=(), until="didFinishProcessingPhoto"):
    evs = events([camlib, "capture", "--library", lib, "--events", "--format", fmt, "--quality", quality,
                  "--count", str(count), "--interval", "1", *extra])
    begin = {e["id"]: e["time"] for e in evs if e["event"] == "willBeginCapture"}
    done = {e["id"]: e["time"] for e in evs if e["event"] == until}
    return [done[i] - begin[i] for i in done]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--photos", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None:
        sys.exit("bench: ffmpeg/ffprobe missing (run ./setup.sh)")
    camlib = build_camlib()
    with tempfile.TemporaryDirectory() as tmp:
        lib = os.path.join(tmp, "lib")
        rows = []
        for fmt in ("heic", "jpeg"):
            for quality in ("speed", "quality"):
                t = latency(camlib, lib, fmt, quality, args.photos)
                rows.append((f"camlib {fmt.upper()} --quality {quality}", statistics.median(t), max(t)))
        t = latency(camlib, lib, "heic", "speed", args.photos, ["--live"], "didFinishProcessingLivePhotoMovie")
        rows.append(("camlib Live Photo movie (1.5 s after shutter)", statistics.median(t), max(t)))
        t = latency(camlib, lib, "heic", "speed", args.photos, ["--depth", "--portrait-matte", "--matte", "skin,hair,teeth"])
        rows.append(("camlib HEIC + depth and 4 mattes", statistics.median(t), max(t)))
        ff = [measure(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1920x1440", "-frames:v", "1",
                       "-q:v", "2", os.path.join(tmp, "ff.jpg")])[0] for _ in range(args.photos)]
        rows.append(("ffmpeg testsrc2 frame -> JPEG (process)", statistics.median(ff), max(ff)))

        evs = events([camlib, "capture", "--library", lib, "--events", "--movie", "--duration", "5", "--fps", "30"])
        movie = next(e["path"] for e in evs if e["event"] == "didFinishRecording")
        pressure = [e for e in evs if e["event"] == "systemPressure"]
        # The file was imported (and removed from incoming); count frames in the library copy.
        stem = os.path.splitext(os.path.basename(movie))[0]
        copy = next(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(lib, "originals")) for f in fs if f.startswith(stem))
        probe = json.loads(subprocess.run(
            ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
             "stream=nb_read_frames:format=duration", "-of", "json", copy], check=True, stdout=subprocess.PIPE).stdout)
        frames = int(probe["streams"][0]["nb_read_frames"])
        duration = float(probe["format"]["duration"])
        start = time.perf_counter()
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1920x1440:r=30", "-t", "5",
                        "-c:v", "libx264", "-preset", "ultrafast", os.path.join(tmp, "ff.mov")], check=True)
        ff_fps = 150 / (time.perf_counter() - start)

    print(f"virtual camera, 1920x1440; {os.cpu_count()} cores; median and worst of {args.photos} photos")
    print(f"{'shutter to file':44} {'median s':>9} {'worst s':>8}")
    for name, med, worst in rows:
        print(f"{name:44} {med:9.3f} {worst:8.3f}")
    print()
    print(f"camlib movie (H.264 ultrafast, asked 30 fps): {frames} frames in {duration:.2f} s = {frames / duration:.1f} fps"
          + (f"; frame rate lowered {len(pressure)}x: " + pressure[-1]["message"] if pressure else "; no system pressure"))
    print(f"ffmpeg testsrc2 -> libx264 ultrafast, unthrottled: {ff_fps:.1f} fps")
    results = Results("capture", "Capture")
    results.note(f"virtual camera at 1920x1440; median of {args.photos} photos per row; ffmpeg's lavfi testsrc2 as the peer")
    ffmpeg_jpeg = next(med for name, med, _ in rows if name.startswith("ffmpeg"))
    for name, med, _ in rows:
        if name.startswith("ffmpeg"):
            continue
        # Only a one-frame JPEG is the same work as ffmpeg's; the others have no peer here.
        if "JPEG --quality speed" in name:
            results.add("shutter to file: " + name.removeprefix("camlib "), med, "s", ffmpeg_jpeg, "ffmpeg: one test frame to a JPEG file")
        else:
            results.add("shutter to file: " + name.removeprefix("camlib "), med, "s")
    results.add("movie at 30 fps asked, 5 s: frames per second written", frames / duration, "fps", ff_fps,
                "ffmpeg testsrc2 to libx264 ultrafast, unthrottled", "30 fps sustained", frames / duration >= 29)
    results.write()


if __name__ == "__main__":
    main()

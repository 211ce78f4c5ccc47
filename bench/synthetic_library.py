"""Grows a real camlib library into a synthetic one of any size, for the catalog benchmarks.

A seed library is made by camlib itself: `camlib import` of the real corpus (less the
malformed folder) plus one `camlib edit`. Its assets are the templates: each synthetic
asset copies one template's rows in every catalog table (asset, resource, metadata,
pairing, embedded_movie, aux_image, adjustment, adjustment_render, asset_version) with
new ids, new paths and sha256s, a new Live Photo content identifier, a capture time
spread over 15 years (a few hundred photos a day on some days, none on most, more in
recent years, the time zone style of the template: with an offset, floating, or UTC), one
of five camera makes, and names and import folders as phones and cameras make them. Assets
are added as imports of month-long folders would add them: each month in capture order,
the months in random order. An asset whose template has a location is moved to one of
3,000 real places (GeoNames' most populous, bigger ones more often, a few hundred metres
off), named as camlib's import would name it (`place`, `metadata.place_id`).
Tables camlib derives from those (through the schema's own triggers) fill themselves, so
the result is what camlib would hold after importing that many files. No media files are
written: query and show read the catalog only.
"""
import datetime, math, os, random, shutil, sqlite3, subprocess, uuid

# The tables that hold what a library knows, in the order their foreign keys need.
BASE_TABLES = ["asset", "resource", "metadata", "pairing", "embedded_movie", "aux_image", "adjustment",
               "adjustment_render", "asset_version"]

# Five makes, weighted as a family library might hold them, each with the names its
# cameras give files.
CAMERAS = [
    (0.55, "Apple", ["iPhone 15 Pro", "iPhone 13", "iPhone 11", "iPhone 8", "iPhone 6s"], "IMG_{n:04d}"),
    (0.15, "Google", ["Pixel 8 Pro", "Pixel 6", "Pixel 4a"], "PXL_{date}_{n:09d}"),
    (0.15, "samsung", ["SM-S918B", "SM-G991B", "SM-G975F"], "{date}_{n:06d}"),
    (0.10, "SONY", ["ILCE-7M3", "DSC-RX100M5"], "DSC{n:05d}"),
    (0.05, "FUJIFILM", ["X-T4", "X100V"], "DSCF{n:04d}"),
]
OFFSETS = [-480, -420, -360, -300, -240, 0, 60, 120, 180, 330, 540]
FIRST_DAY = datetime.date(2011, 1, 1)
DAYS = 15 * 365


def seed(camlib, corpus, library):
    """A seed library made by camlib: the corpus imported (the malformed folder left
    out: a real library holds photos), and one photo edited with comic."""
    folders = [os.path.join(corpus, d) for d in sorted(os.listdir(corpus))
               if os.path.isdir(os.path.join(corpus, d)) and d != "malformed"]
    subprocess.run([camlib, "import", "--library", library, *folders], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = sqlite3.connect(os.path.join(library, "catalog.sqlite"))
    (asset,) = db.execute("SELECT asset_id FROM resource WHERE original_name = 'image-isom-avc1.jpg'").fetchone()
    db.close()
    subprocess.run([camlib, "edit", "--library", library, str(asset), "--filter", "comic"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _columns(db, table):
    return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


def _templates(db):
    """Each seed asset with its rows, table by table, as dicts."""
    cols = {t: _columns(db, t) for t in BASE_TABLES}
    fetch = lambda t, where, args: [dict(zip(cols[t], r)) for r in db.execute(f"SELECT * FROM {t} WHERE {where}", args)]
    out = []
    for (asset_id,) in db.execute("SELECT id FROM asset ORDER BY id").fetchall():
        rows = {t: [] for t in BASE_TABLES}
        rows["asset"] = fetch("asset", "id = ?", (asset_id,))
        rows["resource"] = fetch("resource", "asset_id = ? ORDER BY id", (asset_id,))
        ids = [r["id"] for r in rows["resource"]]
        marks = ",".join("?" * len(ids))
        rows["metadata"] = fetch("metadata", f"resource_id IN ({marks})", ids)
        rows["pairing"] = fetch("pairing", "asset_id = ?", (asset_id,))
        rows["embedded_movie"] = fetch("embedded_movie", f"resource_id IN ({marks})", ids)
        rows["aux_image"] = fetch("aux_image", "asset_id = ? ORDER BY id", (asset_id,))
        rows["adjustment"] = fetch("adjustment", "asset_id = ? ORDER BY id", (asset_id,))
        adj = [r["id"] for r in rows["adjustment"]] or [-1]
        rows["adjustment_render"] = fetch("adjustment_render", f"adjustment_id IN ({','.join('?' * len(adj))})", adj)
        rows["asset_version"] = fetch("asset_version", "asset_id = ?", (asset_id,))
        out.append(rows)
    return cols, out


PLACES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "places", "places.tsv.gz")


def _places(count=3000):
    """The `count` most populous places of camlib's data: (latitude, longitude, city,
    region, country code, country, population)."""
    import gzip
    countries, rows = {}, []
    with gzip.open(PLACES, "rt", encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if parts[0] == "#country":
                countries[parts[1]] = parts[2]
            else:
                rows.append((float(parts[0]), float(parts[1]), parts[2], parts[3], parts[4], int(parts[5] or 0)))
    rows.sort(key=lambda r: -r[5])
    return [(lat, lon, city, region, cc, countries.get(cc, cc), pop) for lat, lon, city, region, cc, pop in rows[:count]]


def _place_rows(db, places):
    """The places' rows in `place`, added where the seed has none; their ids, in order."""
    ids = []
    for _, _, city, region, cc, country, _ in places:
        db.execute("INSERT OR IGNORE INTO place (city, region, country_code, country) VALUES (?, ?, ?, ?)", (city, region, cc, country))
        ids.append(db.execute("SELECT id FROM place WHERE city = ? AND region = ? AND country_code = ?", (city, region, cc)).fetchone()[0])
    return ids


def _day_weights(rng):
    """Which days have photos: most have none, some have a burst; later years more."""
    weights = []
    for d in range(DAYS):
        year = d / 365
        busy = rng.random() < 0.25
        weights.append((1 + year / 3) * (rng.expovariate(1.0) * 4 if busy else 0.05))
    return weights


def grow(seed_catalog, catalog, assets, rng_seed=12):
    """Writes `catalog`: the seed catalog plus synthetic assets up to `assets` in all."""
    if os.path.exists(catalog):
        os.remove(catalog)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(catalog + suffix):
            os.remove(catalog + suffix)
    shutil.copyfile(seed_catalog, catalog)
    rng = random.Random(rng_seed)
    db = sqlite3.connect(catalog, isolation_level=None)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -1000000")
    db.execute("PRAGMA foreign_keys = OFF")  # ids are consistent by construction
    cols, templates = _templates(db)
    have = db.execute("SELECT count(*) FROM asset").fetchone()[0]
    next_id = {t: (db.execute(f"SELECT coalesce(max(id), 0) FROM {t}").fetchone()[0] + 1)
               for t in ("asset", "resource", "aux_image", "adjustment")}
    # Phone and camera files; the orientation test charts (no camera) now and then.
    weights = [1.0 if any(m["make"] for m in t["metadata"]) else 0.1 for t in templates]
    days = rng.choices(range(DAYS), weights=_day_weights(rng), k=max(0, assets - have))
    days.sort()  # numbers on a camera go up with time
    counters = {}
    imported = datetime.datetime(2016, 1, 1)
    step = datetime.timedelta(seconds=(10 * 365 * 86400) / max(1, assets))
    places = _places()
    place_ids = _place_rows(db, places)
    place_weights = [math.sqrt(p[6]) for p in places]
    inserts = {t: f"INSERT INTO {t} ({', '.join(cols[t])}) VALUES ({', '.join('?' * len(cols[t]))})" for t in BASE_TABLES}
    batch = {t: [] for t in BASE_TABLES}

    def flush():
        db.execute("BEGIN")
        for t in BASE_TABLES:
            if batch[t]:
                db.executemany(inserts[t], batch[t])
                batch[t].clear()
        db.execute("COMMIT")

    # A library is built by imports of folders (a camera roll, a month's backup), each in
    # the order its files were taken, the imports themselves in no particular order:
    # months in random order, each month's assets in capture order.
    months = sorted({d // 30 for d in days})
    rank = {m: i for i, m in enumerate(rng.sample(months, len(months)))}
    order = sorted(range(len(days)), key=lambda i: (rank[days[i] // 30], days[i]))
    for done, i in enumerate(order):
        t = rng.choices(templates, weights=weights)[0]
        day = FIRST_DAY + datetime.timedelta(days=days[i])
        moment = datetime.datetime.combine(day, datetime.time()) + datetime.timedelta(seconds=rng.randrange(7 * 3600, 23 * 3600))
        weight, make, models, pattern = rng.choices(CAMERAS, weights=[c[0] for c in CAMERAS])[0]
        model = rng.choice(models)
        key = (make, day.year)
        counters[key] = counters.get(key, 0) + 1
        stem = pattern.format(n=counters[key] % 10000 if "{n:04d}" in pattern else counters[key],
                              date=day.strftime("%Y%m%d"))
        offset = rng.choice(OFFSETS)
        folder = f"/home/me/Pictures/{day.year}/{day.isoformat()}"
        identifier = str(uuid.UUID(int=rng.getrandbits(128))).upper()
        imported += step
        imported_at = imported.strftime("%Y-%m-%dT%H:%M:%S.000Z")

        asset_id = next_id["asset"]; next_id["asset"] += 1
        rid = {}
        for r in t["resource"]:
            rid[r["id"]] = next_id["resource"]; next_id["resource"] += 1
        aid = {}
        for a in t["adjustment"]:
            aid[a["id"]] = next_id["adjustment"]; next_id["adjustment"] += 1
        sha = {r["id"]: "%064x" % rng.getrandbits(256) for r in t["resource"]}

        for a in t["asset"]:
            batch["asset"].append(tuple({**a, "id": asset_id, "imported_at": imported_at}[c] for c in cols["asset"]))
        for r in t["resource"]:
            new = dict(r, id=rid[r["id"]], asset_id=asset_id, sha256=sha[r["id"]], added_at=imported_at,
                       derived_from=rid.get(r["derived_from"]))
            ext = os.path.splitext(r["path"])[1]
            if r["original_name"] is not None:
                original_ext = os.path.splitext(r["original_name"])[1]
                name = stem + original_ext
                if r["role"] == "adjustmentSidecar" and os.path.basename(r["path"]).upper().startswith("IMG_O"):
                    name = "O_" + stem + original_ext  # the camera's adjustments (IMG_O1234.AAE)
                elif r["role"] in ("renderedPhoto", "renderedVideo"):
                    name = "E_" + stem + original_ext  # Apple's rendered edit (IMG_E1234.JPG)
                new["original_name"] = name
                new["source_dir"] = folder
                new["path"] = f"originals/{day.year:04d}/{day.month:02d}/{asset_id}-{name}"
            else:
                top = r["path"].split("/")[1]  # thumbnails, motion, renders
                new["path"] = f"derived/{top}/{sha[r['id']][:2]}/{sha[r['id']]}{ext}"
            batch["resource"].append(tuple(new[c] for c in cols["resource"]))
        where = rng.choices(range(len(places)), weights=place_weights)[0]
        north, east = rng.gauss(0, 0.003), rng.gauss(0, 0.003)
        for m in t["metadata"]:
            new = dict(m, resource_id=rid[m["resource_id"]])
            if m["latitude"] is not None:
                lat, lon = places[where][0], places[where][1]
                new["latitude"] = max(-90.0, min(90.0, lat + north))
                new["longitude"] = (lon + east + 180) % 360 - 180
                new["place_id"] = place_ids[where]
            if m["captured_at"] is not None:
                base = moment.strftime("%Y-%m-%dT%H:%M:%S")
                old = m["captured_at"]
                if old.endswith("Z"):
                    utc = moment - datetime.timedelta(minutes=offset)
                    new["captured_at"] = utc.strftime("%Y-%m-%dT%H:%M:%S") + "Z"
                    new["utc_offset_minutes"] = 0
                elif m["utc_offset_minutes"] is not None:
                    sign = "-" if offset < 0 else "+"
                    new["captured_at"] = base + ".%03d" % rng.randrange(1000) + f"{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"
                    new["utc_offset_minutes"] = offset
                else:
                    new["captured_at"] = base + ".%03d" % rng.randrange(1000)
            if m["make"] is not None:
                new["make"], new["model"] = make, model
            if m["content_identifier"] is not None:
                new["content_identifier"] = identifier
            batch["metadata"].append(tuple(new[c] for c in cols["metadata"]))
        for p in t["pairing"]:
            new = dict(p, asset_id=asset_id, photo_resource_id=rid[p["photo_resource_id"]],
                       video_resource_id=rid[p["video_resource_id"]], paired_at=imported_at,
                       content_identifier=identifier if p["content_identifier"] else None)
            batch["pairing"].append(tuple(new[c] for c in cols["pairing"]))
        for e in t["embedded_movie"]:
            new = dict(e, resource_id=rid[e["resource_id"]], still_resource_id=rid[e["still_resource_id"]])
            batch["embedded_movie"].append(tuple(new[c] for c in cols["embedded_movie"]))
        for x in t["aux_image"]:
            new = dict(x, id=next_id["aux_image"], asset_id=asset_id, resource_id=rid[x["resource_id"]], added_at=imported_at)
            next_id["aux_image"] += 1
            if x["path"] is not None:
                still = sha[x["resource_id"]]
                new["path"] = f"derived/aux/{still[:2]}/{still}/{os.path.basename(x['path'])}"
                # A PNG made already has its sha256 (and bytes); one made on demand, none yet.
                if x["sha256"] is not None:
                    new["sha256"] = "%064x" % rng.getrandbits(256)
            batch["aux_image"].append(tuple(new[c] for c in cols["aux_image"]))
        for a in t["adjustment"]:
            new = dict(a, id=aid[a["id"]], asset_id=asset_id, extends_id=aid.get(a["extends_id"]),
                       sidecar_resource_id=rid.get(a["sidecar_resource_id"]), created_at=imported_at)
            batch["adjustment"].append(tuple(new[c] for c in cols["adjustment"]))
        for a in t["adjustment_render"]:
            new = dict(a, adjustment_id=aid[a["adjustment_id"]], resource_id=rid[a["resource_id"]])
            batch["adjustment_render"].append(tuple(new[c] for c in cols["adjustment_render"]))
        for v in t["asset_version"]:
            new = dict(v, asset_id=asset_id, current_adjustment_id=aid.get(v["current_adjustment_id"]), changed_at=imported_at)
            batch["asset_version"].append(tuple(new[c] for c in cols["asset_version"]))
        if done % 20000 == 19999:
            flush()
    flush()
    db.execute("PRAGMA journal_mode = WAL")
    db.close()


if __name__ == "__main__":
    import sys, time
    start = time.time()
    grow(sys.argv[1], sys.argv[2], int(sys.argv[3]))
    print(f"{sys.argv[3]} assets in {time.time() - start:.1f} s", file=sys.stderr)

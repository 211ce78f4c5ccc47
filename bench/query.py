#!/usr/bin/env python3
"""Catalog benchmark: camlib query and show on libraries of 100,000 and 1,000,000 assets.

Builds the libraries from a real import (bench/synthetic_library.py: every row copied
from camlib's own import of ../shared/media, with new ids, paths, times over 15 years,
five makes; cached in bench/out/query until migrations/ or the generator change), then,
for each size, in one run:
  - every `camlib query` filter, each order, --json and --csv, `--after` pages (the
    gallery's page: newest first after a jump to a random day), and `show`, 20 runs each
    interleaved with `camlib --version` (the process's own start-up), p50 and p95;
  - the floor: the very statements camlib ran (CAMLIB_SQL_TRACE) replayed in the sqlite3
    shell, timed the same way, next to `sqlite3 CATALOG 'SELECT 1'` (the shell's start-up);
  - pages in one long-lived process (bench/CatalogBench: what the gallery server pays);
  - a month-sized listing (about 30,000 assets) next to a 50-asset page: peak memory;
  - importing 250 new files into an empty library and into the largest one.
Goals: at 1M, p95 under 100 ms per command, under 15 ms beyond start-up,
catalog work within 2x of the sqlite3 floor; a page in the long-lived process under 15 ms;
flat memory; import into the large library within 10% of an empty one.

Usage: bench/query.py [--sizes 100000,1000000] [--runs 20] [--cold-runs 5] [--import-files 250] [--import-rounds 5]
The catalog is read into the page cache before the timings, as a library in use sits
there; where the benchmark may drop the page cache (root), it also times the first
listing after a drop, camlib next to sqlite3, both reading the catalog from disk.
Not a test: numbers vary with the machine.
"""
import argparse, base64, datetime, hashlib, json, math, os, random, shutil, sqlite3, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from measure import ROOT, Results, build_camlib, measure  # noqa: E402
import synthetic_library  # noqa: E402

OUT = os.path.join(HERE, "out", "query")
CORPUS = os.path.join(ROOT, "..", "shared", "media")


def stamp():
    """What the cached libraries depend on: the schema and the generator."""
    h = hashlib.sha256()
    for folder, names in [(os.path.join(ROOT, "migrations"), None), (HERE, ["synthetic_library.py"])]:
        for name in sorted(names or os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as f:
                h.update(name.encode() + f.read())
    return h.hexdigest()


def libraries(camlib, sizes):
    """The seed library and one library per size, made again when stale."""
    os.makedirs(OUT, exist_ok=True)
    stamp_file = os.path.join(OUT, "stamp")
    current = stamp()
    if not os.path.exists(stamp_file) or open(stamp_file).read() != current:
        for name in os.listdir(OUT):
            path = os.path.join(OUT, name)
            subprocess.run(["chmod", "-R", "u+w", path])
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
        print("bench: importing the corpus for the seed library...", file=sys.stderr)
        synthetic_library.seed(camlib, CORPUS, os.path.join(OUT, "seed"))
        with open(stamp_file, "w") as f:
            f.write(current)
    out = {}
    for n in sizes:
        lib = os.path.join(OUT, f"lib-{n}")
        catalog = os.path.join(lib, "catalog.sqlite")
        if not os.path.exists(os.path.join(lib, "complete")):
            os.makedirs(lib, exist_ok=True)
            print(f"bench: growing a library of {n:,} assets (minutes; kept for later runs)...", file=sys.stderr)
            start = time.time()
            synthetic_library.grow(os.path.join(OUT, "seed", "catalog.sqlite"), catalog, n)
            open(os.path.join(lib, "complete"), "w").close()
            print(f"bench: {n:,} assets in {time.time() - start:.0f} s", file=sys.stderr)
        out[n] = lib
    return out


def cursor(order, reverse, key, asset_id):
    """An --after cursor in camlib's text form (base64url of its JSON)."""
    text = json.dumps({"id": asset_id, "key": key, "order": order, "reverse": reverse}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def commands(size, rng):
    """Every filter and order, with values as a user of such a library would give them."""
    def page_after_jump():
        day = rng.uniform(2455593.5, 2461041.5)  # 2011-02-01 .. 2026-01-01
        return ["query", "--reverse", "--limit", "50", "--after", cursor("captured", True, day, 2**63 - 1)]
    q = lambda *a: ["query", *a, "--limit", "50"]
    return {
        "query --limit 50": lambda: q(),
        "query --limit 50 --json": lambda: q("--json"),
        "query --limit 50 --csv": lambda: q("--csv"),
        "query --reverse": lambda: q("--reverse"),
        "query --sort imported": lambda: q("--sort", "imported"),
        "query --sort name": lambda: q("--sort", "name"),
        "query --sort name --reverse": lambda: q("--sort", "name", "--reverse"),
        "query --sort id --reverse": lambda: q("--sort", "id", "--reverse"),
        "query --since/--until a month": lambda: q("--since", "2020-03-01", "--until", "2020-03-31"),
        "query --since a month --sort name": lambda: q("--since", "2020-03-01", "--until", "2020-03-31", "--sort", "name"),
        "query --make Apple": lambda: q("--make", "Apple"),
        "query --model X100V": lambda: q("--model", "X100V"),
        "query --make Motorola (one asset)": lambda: q("--make", "Motorola"),
        "query --make Nikon (none)": lambda: q("--make", "Nikon"),
        "query --kind live": lambda: q("--kind", "live"),
        "query --kind video --kind motion": lambda: q("--kind", "video", "--kind", "motion"),
        "query --paired-by contentIdentifier": lambda: q("--paired-by", "contentIdentifier"),
        "query --paired-by stem (none)": lambda: q("--paired-by", "stem"),
        "query --has depth": lambda: q("--has", "depth"),
        "query --has glasses-matte": lambda: q("--has", "glasses-matte"),
        "query --has motion --json": lambda: q("--has", "motion", "--json"),
        "query --name 'IMG_35*'": lambda: q("--name", "IMG_35*"),
        "query --name '*.mov'": lambda: q("--name", "*.mov"),
        "query --name '*3582*' (few, no literal start)": lambda: q("--name", "*3582*"),
        "query --kind live --make Apple --since 2020": lambda: q("--kind", "live", "--make", "Apple", "--since", "2020-01-01"),
        "page: newest 50 after a jump (gallery)": page_after_jump,
        "show ID": lambda: ["show", str(rng.randrange(1, size))],
        "show ID --json": lambda: ["show", str(rng.randrange(1, size)), "--json"],
    }


def warm(path):
    """Reads a file once, so that its pages sit in the page cache; returns seconds."""
    start = time.perf_counter()
    with open(path, "rb", buffering=0) as f:
        while f.read(8 << 20):
            pass
    return time.perf_counter() - start


def drop_page_cache():
    """Empties the kernel's page cache (root only); False where this is not allowed."""
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("1")
        return True
    except OSError:
        return False


def run(cmd, env=None):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return (time.perf_counter() - start) * 1000


def pct(values, p):
    """The nearest-rank percentile, as CatalogBench computes it: p95 of 20 runs is the 19th."""
    values = sorted(values)
    return values[min(len(values) - 1, max(0, math.ceil(p / 100 * len(values)) - 1))]


def trace(camlib, args, lib):
    """The statements camlib runs for `args`, as sqlite3 shell input."""
    with tempfile.NamedTemporaryFile("r", suffix=".sql") as f:
        env = dict(os.environ, CAMLIB_SQL_TRACE=f.name)
        subprocess.run([camlib, *args, "--library", lib], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
        return ".output /dev/null\n" + f.read()


def bench_size(camlib, catalog_bench, size, lib, runs, rng, results):
    catalog = os.path.join(lib, "catalog.sqlite")
    cmds = commands(size, rng)
    names = list(cmds)
    times = {name: [] for name in names}
    floors = {name: [] for name in names}
    startup, shell = [], []
    scripts = {}
    seconds = warm(catalog)
    print(f"catalog {os.path.getsize(catalog) / 1e9:.2f} GB read into the page cache first ({seconds:.1f} s)")
    for _ in range(runs):
        for name in rng.sample(names, len(names)):
            args = cmds[name]()
            times[name].append(run([camlib, *args, "--library", lib]))
            scripts[name] = trace(camlib, args, lib)
            with tempfile.NamedTemporaryFile("w", suffix=".sql") as f:
                f.write(scripts[name])
                f.flush()
                floors[name].append(run(["sqlite3", "-init", f.name, catalog, ".quit"]))
            startup.append(run([camlib, "--version"]))
            shell.append(run(["sqlite3", catalog, "SELECT 1"]))
    s50, s95 = pct(startup, 50), pct(startup, 95)
    h50, h95 = pct(shell, 50), pct(shell, 95)
    print(f"camlib --version (start-up): p50 {s50:.1f} ms, p95 {s95:.1f} ms;  sqlite3 CATALOG 'SELECT 1': p50 {h50:.1f} ms, p95 {h95:.1f} ms")
    print(f"{'':46} {'camlib ms':>16} {'beyond start-up':>16} {'sqlite3 floor':>16} {'catalog work':>13}")
    print(f"{'':46} {'p50':>7} {'p95':>8} {'p50':>7} {'p95':>8} {'p50':>7} {'p95':>8} {'vs floor':>13}")
    worst = {"p95": 0, "beyond": 0, "ratio": 0}
    for name in names:
        c50, c95 = pct(times[name], 50), pct(times[name], 95)
        f50, f95 = pct(floors[name], 50), pct(floors[name], 95)
        beyond50, beyond95 = c50 - s50, c95 - s95
        floor50 = max(f50 - h50, 0.1)
        ratio = max(beyond50, 0) / floor50
        worst = {"p95": max(worst["p95"], c95), "beyond": max(worst["beyond"], beyond95), "ratio": max(worst["ratio"], ratio)}
        print(f"{name:46} {c50:7.1f} {c95:8.1f} {beyond50:7.1f} {beyond95:8.1f} {f50 - h50:7.1f} {f95 - h95:8.1f} {ratio:12.1f}x")
    verdict = lambda ok: "met" if ok else "NOT met"
    print(f"worst p95 {worst['p95']:.1f} ms (goal < 100: {verdict(worst['p95'] < 100)}); "
          f"worst p95 beyond start-up {worst['beyond']:.1f} ms (goal < 15: {verdict(worst['beyond'] < 15)}); "
          f"worst catalog work vs floor {worst['ratio']:.1f}x (goal <= 2x: {verdict(worst['ratio'] <= 2)})")
    at = f"{size:,} assets"
    results.add(f"{at}: slowest listing, whole process, p95", worst["p95"], "ms", goal="under 100 ms", met=worst["p95"] < 100)
    results.add(f"{at}: slowest listing beyond start-up, p95", worst["beyond"], "ms", goal="under 15 ms", met=worst["beyond"] < 15)
    results.add(f"{at}: catalog work against the same SQL in sqlite3, worst of {len(names)} listings", worst["ratio"], "x",
                goal="at most 2x", met=worst["ratio"] <= 2)
    probe = "query --limit 50 --json"
    if probe in times:
        results.add(f"{at}: {probe}, p50 beyond start-up", max(pct(times[probe], 50) - s50, 0), "ms",
                    max(pct(floors[probe], 50) - h50, 0.1), "its SQL in sqlite3")

    pages = subprocess.run([catalog_bench, lib, str(runs)], capture_output=True, text=True, check=True).stdout
    for line in pages.splitlines():
        p = json.loads(line)
        print(f"in one process: {p['name']:44} p50 {p['p50_ms']:6.1f} ms  p95 {p['p95_ms']:6.1f} ms  ({p['rows']} rows; goal < 15: {verdict(p['p95_ms'] < 15)})")
        results.add(f"{at}: in one process, {p['name']}, p95", p["p95_ms"], "ms", goal="under 15 ms", met=p["p95_ms"] < 15)

    # A listing of about 30,000 assets: the busiest months in a row, up to that many.
    db = sqlite3.connect(f"file:{catalog}?mode=ro", uri=True)
    months = db.execute("SELECT substr(captured_at, 1, 7) AS m, count(*) FROM asset_summary WHERE captured_at IS NOT NULL "
                        "GROUP BY m ORDER BY m").fetchall()
    db.close()
    best = max(range(len(months)), key=lambda i: months[i][1])
    first = last = best
    rows = months[best][1]
    while rows < 30_000 and (first > 0 or last < len(months) - 1):
        if last < len(months) - 1:
            last += 1
            rows += months[last][1]
        elif first > 0:
            first -= 1
            rows += months[first][1]
    since, until = months[first][0] + "-01", months[last][0] + "-28"
    big = measure([camlib, "query", "--library", lib, "--since", since, "--until", until, "--json"])
    small = measure([camlib, "query", "--library", lib, "--limit", "50", "--json"])
    print(f"memory: query --json of ~{rows:,} assets ({since}..{until}): {big[1]:.1f} MB peak, {big[0]:.1f} s;  "
          f"--limit 50 --json: {small[1]:.1f} MB peak")
    results.add(f"{at}: peak memory of query --json over ~{rows:,} assets", big[1], "MB", small[1], "a 50-asset page",
                "flat (within 1.5x of a page)", big[1] <= 1.5 * small[1])
    return s50, h50


def bench_cold(camlib, catalog_bench, size, lib, rounds, rng, startups):
    """The first listing after the page cache is dropped: the catalog read from disk, the
    programs themselves already loaded again, camlib next to the same SQL in sqlite3.
    `startups`: the two programs' start-ups with a warm cache, taken off both."""
    catalog = os.path.join(lib, "catalog.sqlite")
    if not drop_page_cache():
        print("cold page cache: not measured (dropping the page cache needs root)")
        return
    cmds = commands(size, rng)
    names = ["query --limit 50", "query --limit 50 --json", "page: newest 50 after a jump (gallery)", "show ID --json"]
    times = {name: ([], []) for name in names}
    for _ in range(rounds):
        for name in names:
            args = cmds[name]()
            script = trace(camlib, args, lib)
            with tempfile.NamedTemporaryFile("w", suffix=".sql") as f:
                f.write(script)
                f.flush()
                for which, cmd in enumerate([[camlib, *args, "--library", lib], ["sqlite3", "-init", f.name, catalog, ".quit"]]):
                    drop_page_cache()
                    run([camlib, "--version"])
                    run(["sqlite3", ":memory:", "SELECT 1"])
                    times[name][which].append(run(cmd))
    print(f"cold page cache, {rounds} runs each (p50 ms, beyond start-up):  camlib  sqlite3 floor")
    for name in names:
        c, f = pct(times[name][0], 50) - startups[0], pct(times[name][1], 50) - startups[1]
        print(f"  {name:46} {c:7.1f} {f:8.1f}")
    drop_page_cache()
    pages = subprocess.run([catalog_bench, lib, "20"], capture_output=True, text=True, check=True).stdout
    for line in pages.splitlines():
        p = json.loads(line)
        print(f"  in one process, from a cold cache: {p['name']:44} p50 {p['p50_ms']:6.1f} ms  p95 {p['p95_ms']:6.1f} ms")
    warm(catalog)


def make_new_files(count, folder, rng):
    """`count` files no library holds: corpus originals, each copy made unique by bytes the
    formats allow anywhere (a JPEG comment, an ISOBMFF free box, a PNG text chunk)."""
    sources = []
    for d in sorted(os.listdir(CORPUS)):
        if d == "malformed" or not os.path.isdir(os.path.join(CORPUS, d)):
            continue
        for name in sorted(os.listdir(os.path.join(CORPUS, d))):
            if os.path.splitext(name)[1].lower() in (".jpg", ".jpeg", ".heic", ".avif", ".png", ".mov", ".mp4"):
                sources.append(os.path.join(CORPUS, d, name))
    made = 0
    copy = 0
    while made < count:
        copy += 1
        target = os.path.join(folder, f"import-{copy:02d}")
        os.makedirs(target, exist_ok=True)
        for src in sources:
            if made == count:
                break
            data = open(src, "rb").read()
            tag = f"camlib bench copy {copy} {rng.getrandbits(64):016x}".encode()
            ext = os.path.splitext(src)[1].lower()
            if ext in (".jpg", ".jpeg"):
                data = data[:2] + b"\xff\xfe" + (len(tag) + 2).to_bytes(2, "big") + tag + data[2:]
            elif ext == ".png":
                import zlib
                chunk = b"tEXt" + b"Comment\x00" + tag
                data = data[:-12] + (len(chunk) - 4).to_bytes(4, "big") + chunk + zlib.crc32(chunk).to_bytes(4, "big") + data[-12:]
            else:
                data = data + (len(tag) + 8).to_bytes(4, "big") + b"free" + tag
            with open(os.path.join(target, os.path.basename(src)), "wb") as f:
                f.write(data)
            made += 1
    return folder


def bench_import(camlib, largest, count, rounds, rng, results):
    with tempfile.TemporaryDirectory(dir=OUT) as tmp:
        files = make_new_files(count, os.path.join(tmp, "files"), rng)
        empty, large = [], []
        for _ in range(rounds):
            for target in rng.sample(["empty", "large"], 2):
                lib = os.path.join(tmp, "lib")
                if os.path.exists(lib):
                    subprocess.run(["chmod", "-R", "u+w", lib])
                    shutil.rmtree(lib)
                if target == "large":
                    os.makedirs(lib)
                    shutil.copyfile(os.path.join(largest, "catalog.sqlite"), os.path.join(lib, "catalog.sqlite"))
                # Written to disk before the clock starts: the kernel writing back a copy
                # of a large catalog meanwhile slowed the import's own fsyncs by a fifth.
                os.sync()
                seconds, _, status = measure([camlib, "import", "--library", lib, files])
                if status not in (0, 2):
                    sys.exit(f"bench: import into the {target} library failed ({status})")
                (large if target == "large" else empty).append(seconds)
        e, l = sorted(empty)[len(empty) // 2], sorted(large)[len(large) // 2]
        print(f"import of {count} new files: into an empty library {e:.2f} s, into the {os.path.basename(largest)} library {l:.2f} s "
              f"(median of {rounds}): {100 * (l / e - 1):+.1f}% (goal: within 10%: {'met' if l <= e * 1.1 else 'NOT met'})")
        results.add(f"import of {count} new files into the {os.path.basename(largest)} library", l, "s", e, "into an empty library",
                    "within 1.1x", l <= e * 1.1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--import-files", type=int, default=250)
    parser.add_argument("--import-rounds", type=int, default=5)
    parser.add_argument("--cold-runs", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("sqlite3") is None:
        sys.exit("bench: sqlite3 is missing (run ./setup.sh)")
    sizes = [int(s) for s in args.sizes.split(",")]
    camlib = build_camlib()
    subprocess.run(["swift", "build", "-c", "release", "--product", "catalog-bench"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    catalog_bench = os.path.join(ROOT, ".build", "release", "catalog-bench")
    libs = libraries(camlib, sizes)
    rng = random.Random(7)
    print(f"{os.cpu_count()} cores; {args.runs} runs of each, interleaved; {datetime.date.today()}")
    results = Results("query", "Catalog: query and show")
    results.note(f"{args.runs} runs of each listing, interleaved with `camlib --version`; the catalog in the page cache")
    for n in sizes:
        print(f"\n== {n:,} assets ==")
        startups = bench_size(camlib, catalog_bench, n, libs[n], args.runs, rng, results)
        bench_cold(camlib, catalog_bench, n, libs[n], args.cold_runs, rng, startups)
    if args.import_rounds > 0:
        print()
        bench_import(camlib, libs[max(sizes)], args.import_files, args.import_rounds, rng, results)
    results.write()


if __name__ == "__main__":
    main()

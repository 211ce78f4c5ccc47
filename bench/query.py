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
  - the search box's text (`query --search`): years, months, days, cameras, a lens,
    cities, regions, countries, file names, alone and combined, whole processes; the
    map's points read once and its clusters for windows at zooms 2 to 14 (in the
    long-lived process);
  - a month-sized listing (about 30,000 assets) next to a 50-asset page: peak memory;
  - a page of the gallery's API through HTTP from a long-lived `camlib serve`;
  - importing 250 new files into an empty library and into the largest one;
  - all of it again on PostgreSQL, over a unix socket to a private cluster kept in
    bench/out/query/postgres (the server's defaults, fsync on, but shared buffers a
    quarter of the memory, as PostgreSQL's documentation advises, read in first with
    pg_prewarm): each library's catalog moved there by `camlib catalog copy`, each listing
    run with the same arguments in the same loop as on SQLite, its figures printed beside
    SQLite's, its floor the same statements replayed in psql (a new connection, as
    camlib's) beyond `psql -c 'SELECT 1'`; and each listing through PgBouncer (session
    pooling, on a unix socket), as the sharing guide advises for many short commands.
Goals: at 1M, p95 under 100 ms per command, under 15 ms beyond start-up,
catalog work within 2x of the sqlite3 floor; a page in the long-lived process under 15 ms;
flat memory; import into the large library within 10% of an empty one; on PostgreSQL, each
listing under 15 ms beyond start-up and an API page under 15 ms, both at p95; every
search under 50 ms at p95, whole process, on both; a window's map clusters under 100 ms
at p95.

Usage: bench/query.py [--sizes 100000,1000000] [--runs 20] [--cold-runs 5] [--import-files 250] [--import-rounds 5] [--no-postgres]
                      [--only search]   (the searches and the map alone: bench/results/query-search.json)
The catalog is read into the page cache before the timings, as a library in use sits
there; where the benchmark may drop the page cache (root), it also times the first
listing after a drop, camlib next to sqlite3, both reading the catalog from disk.
Not a test: numbers vary with the machine.
"""
import argparse, base64, datetime, hashlib, json, math, os, random, shutil, sqlite3, subprocess, sys, tempfile, time, urllib.parse, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from measure import ROOT, PgBouncer, PostgresCluster, Results, build_camlib, measure  # noqa: E402
import synthetic_library  # noqa: E402

OUT = os.path.join(HERE, "out", "query")
CORPUS = os.path.join(ROOT, "..", "shared", "media")


def stamp(*folders):
    """What cached libraries depend on: the SQLite schema and the generator, and the
    files of `folders` (inside the repository) besides."""
    h = hashlib.sha256()
    for folder, names in [(os.path.join(ROOT, "migrations"), None), (HERE, ["synthetic_library.py"]),
                          *[(os.path.join(ROOT, f), None) for f in folders]]:
        for name in sorted(names or os.listdir(folder)):
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                with open(path, "rb") as f:
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


PG_FOLDER = os.path.join(OUT, "postgres")


def postgres_libraries(camlib, cluster, libs):
    """Each size's library again with its catalog on PostgreSQL: catalog.sqlite copied,
    then moved into the cluster by `camlib catalog copy` as a user moves one, and analysed;
    kept with the cluster until the schema, the generator or the PostgreSQL migrations
    change."""
    current = stamp(os.path.join("migrations", "postgres"))
    out = {}
    for n, lib in libs.items():
        pglib, db = os.path.join(OUT, f"pg-lib-{n}"), f"lib_{n}"
        marker = os.path.join(pglib, "complete")
        if not (os.path.exists(marker) and open(marker).read() == current):
            print(f"bench: copying the {n:,}-asset catalog into PostgreSQL (camlib catalog copy; kept for later runs)...", file=sys.stderr)
            start = time.time()
            shutil.rmtree(pglib, ignore_errors=True)
            os.makedirs(pglib)
            shutil.copyfile(os.path.join(lib, "catalog.sqlite"), os.path.join(pglib, "catalog.sqlite"))
            cluster.dropdb(db)
            url = cluster.createdb(db)
            subprocess.run([camlib, "catalog", "copy", "--library", pglib, "--to", url], check=True, stdout=subprocess.DEVNULL)
            os.remove(os.path.join(pglib, "catalog-moved-to-postgresql.sqlite"))
            cluster.psql("VACUUM ANALYZE", db)
            with open(marker, "w") as f:
                f.write(current)
            print(f"bench: {n:,} assets copied in {time.time() - start:.0f} s", file=sys.stderr)
        out[n] = pglib
    return out


def pooled_library(pglib, bouncer):
    """A library beside `pglib` whose catalog.url reaches the same database through
    `bouncer`, made anew each run (a listing reads nothing else of the folder)."""
    pooled = pglib.replace("pg-lib-", "pgbouncer-lib-")
    shutil.rmtree(pooled, ignore_errors=True)
    shutil.copytree(pglib, pooled, ignore=shutil.ignore_patterns("complete"))
    with open(os.path.join(pooled, "catalog.url"), "w") as f:
        f.write(bouncer.url(database_of(pglib)) + "\n")
    return pooled


def database_of(pglib):
    """The database a library's catalog.url names."""
    url = open(os.path.join(pglib, "catalog.url")).read().strip()
    return urllib.parse.urlparse(url).path.lstrip("/")


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


def searches():
    """The search box's text as people type it (issue 40's "Lisbon 2023", "iPhone 15", "the
    beach in May"): each kind of word and date, alone and combined, common and rare."""
    s = lambda text: ["query", "--search", text, "--limit", "50"]
    return {
        "search 2023 (a year)": s("2023"),
        "search 'May 2024' (a month)": s("May 2024"),
        "search 2020-03-14 (a day)": s("2020-03-14"),
        "search may (May of any year)": s("may"),
        "search apple (a camera make)": s("apple"),
        "search '\"iphone 15\"' (a model)": s('"iphone 15"'),
        "search 'f/1.78' (a lens)": s("f/1.78"),
        "search lisbon (a city)": s("lisbon"),
        "search california (a region)": s("california"),
        "search japan (a country)": s("japan"),
        "search 'lisbon 2023'": s("lisbon 2023"),
        "search '2023 apple'": s("2023 apple"),
        "search 'paris may apple'": s("paris may apple"),
        "search img_35 (part of a file name)": s("img_35"),
        "search zqxw (nothing)": s("zqxw"),
    }


def bench_searches(camlib, size, backends, runs, rng, startup95, results):
    """Each search on each backend, interleaved, as whole processes."""
    found = searches()
    times = {(b, n): [] for b, _ in backends for n in found}
    for _ in range(runs):
        for name in rng.sample(list(found), len(found)):
            for backend, library in backends:
                times[(backend, name)].append(run([camlib, *found[name], "--library", library]))
    at = f"{size:,} assets"
    for backend, _ in backends:
        print(f"{'search' + backend:46} {'p50':>7} {'p95':>8} {'beyond p95':>11}")
        for name in found:
            t = times[(backend, name)]
            print(f"  {name:44} {pct(t, 50):7.1f} {pct(t, 95):8.1f} {pct(t, 95) - startup95:11.1f}")
        slowest = max(found, key=lambda n: pct(times[(backend, n)], 95))
        worst = pct(times[(backend, slowest)], 95)
        print(f"search{backend}: slowest {slowest}: p95 {worst:.1f} ms (goal < 50: {'met' if worst < 50 else 'NOT met'})")
        results.add(f"{at}{backend}: slowest of {len(found)} searches (query --search), whole process, p95", worst, "ms",
                    goal="under 50 ms", met=worst < 50)
        results.add(f"{at}{backend}: the same beyond start-up, p95", max(worst - startup95, 0), "ms")


def bench_map(catalog_bench, size, backends, runs, results):
    """The map's figures from the long-lived process of bench/CatalogBench: its points read
    once, then the clusters of windows at zooms 2 to 14."""
    at = f"{size:,} assets"
    for backend, library in backends:
        pages = subprocess.run([catalog_bench, library, str(runs)], capture_output=True, text=True, check=True).stdout
        for line in pages.splitlines():
            p = json.loads(line)
            if not p["name"].startswith("map:"):
                continue
            goal = p.get("goal_ms")
            print(f"in one process{backend}: {p['name']:60} p50 {p['p50_ms']:7.1f} ms  p95 {p['p95_ms']:7.1f} ms  ({p['rows']:,})")
            if goal:
                results.add(f"{at}{backend}: {p['name']}, p95", p["p95_ms"], "ms", goal=f"under {goal} ms", met=p["p95_ms"] < goal)
            else:
                results.add(f"{at}{backend}: {p['name']} ({p['rows']:,} located)", p["p95_ms"], "ms")


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
    """The statements camlib runs for `args` (CAMLIB_SQL_TRACE), one per line."""
    with tempfile.NamedTemporaryFile("r", suffix=".sql") as f:
        env = dict(os.environ, CAMLIB_SQL_TRACE=f.name)
        subprocess.run([camlib, *args, "--library", lib], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
        return f.read()


def replay(script, cmd):
    """Milliseconds `cmd` (a shell reading the file given after it) takes over `script`."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql") as f:
        f.write(script)
        f.flush()
        return run([*cmd(f.name)])


def psql(pglib):
    """psql on the database a library's catalog.url names, over its socket: argv up to
    the script, as a function of the script's path (None: `SELECT 1`)."""
    url = urllib.parse.urlparse(open(os.path.join(pglib, "catalog.url")).read().strip())
    host = urllib.parse.parse_qs(url.query)["host"][0]
    base = ["psql", "-X", "-q", "-h", host, "-U", "postgres", "-d", url.path.lstrip("/"), "-o", "/dev/null"]
    return lambda path: base + (["-f", path] if path else ["-c", "SELECT 1"])


def bench_size(camlib, catalog_bench, size, lib, pglib, pooled, cluster, runs, rng, results):
    """Every listing on the SQLite library and, with `pglib`, the same arguments on the
    same catalog moved to PostgreSQL, directly and through PgBouncer (`pooled`),
    interleaved in one loop."""
    catalog = os.path.join(lib, "catalog.sqlite")
    cmds = commands(size, rng)
    names = list(cmds)
    times = {name: [] for name in names}
    pg_times = {name: [] for name in names}
    pooled_times = {name: [] for name in names}
    floors = {name: [] for name in names}
    pg_floors = {name: [] for name in names}
    startup, shell, pg_shell_times, psql_startup = [], [], [], []
    pg_shell = psql(pglib) if pglib else None
    backends = [("", lib)] + ([(", PostgreSQL", pglib)] if pglib else [])
    seconds = warm(catalog)
    print(f"catalog {os.path.getsize(catalog) / 1e9:.2f} GB read into the page cache first ({seconds:.1f} s)")
    if pglib:
        cluster.prewarm(database_of(pglib))
        for _ in range(2):
            for name in names:
                run([camlib, *cmds[name](), "--library", pglib])
                run([camlib, *cmds[name](), "--library", pooled])
    for _ in range(runs):
        for name in rng.sample(names, len(names)):
            args = cmds[name]()
            times[name].append(run([camlib, *args, "--library", lib]))
            if pglib:
                pg_times[name].append(run([camlib, *args, "--library", pglib]))
                pooled_times[name].append(run([camlib, *args, "--library", pooled]))
            floors[name].append(replay(".output /dev/null\n" + trace(camlib, args, lib), lambda path: ["sqlite3", "-init", path, catalog, ".quit"]))
            if pglib:
                pg_floors[name].append(replay(trace(camlib, args, pglib), pg_shell))
                pg_shell_times.append(run(pg_shell(None)))
                psql_startup.append(run(["psql", "--version"]))
            startup.append(run([camlib, "--version"]))
            shell.append(run(["sqlite3", catalog, "SELECT 1"]))
    s50, s95 = pct(startup, 50), pct(startup, 95)
    h50, h95 = pct(shell, 50), pct(shell, 95)
    print(f"camlib --version (start-up): p50 {s50:.1f} ms, p95 {s95:.1f} ms;  sqlite3 CATALOG 'SELECT 1': p50 {h50:.1f} ms, p95 {h95:.1f} ms")
    if pglib:
        q50, q95 = pct(pg_shell_times, 50), pct(pg_shell_times, 95)
        v50, v95 = pct(psql_startup, 50), pct(psql_startup, 95)
        print(f"psql -c 'SELECT 1' (its start-up and a new connection): p50 {q50:.1f} ms, p95 {q95:.1f} ms;  "
              f"psql --version (its start-up): p50 {v50:.1f} ms, p95 {v95:.1f} ms")
    pg_head = f" {'PostgreSQL beyond':>17} {'psql floor':>16} {'PgBouncer beyond':>17}" if pglib else ""
    print(f"{'':46} {'camlib ms':>16} {'beyond start-up':>16} {'sqlite3 floor':>16} {'catalog work':>13}{pg_head}")
    print(f"{'':46} {'p50':>7} {'p95':>8} {'p50':>7} {'p95':>8} {'p50':>7} {'p95':>8} {'vs floor':>13}"
          + (f" {'p50':>8} {'p95':>8} {'p50':>7} {'p95':>8} {'p50':>8} {'p95':>8}" if pglib else ""))
    worst = {"p95": 0, "beyond": 0, "ratio": 0, "pg p95": 0, "pg beyond": 0, "pg floor": 0, "pg within": 0, "pooled beyond": 0,
             "pooled within": 0, "connected floor": 0, "connected floor within": 0}
    for name in names:
        c50, c95 = pct(times[name], 50), pct(times[name], 95)
        f50, f95 = pct(floors[name], 50), pct(floors[name], 95)
        beyond50, beyond95 = c50 - s50, c95 - s95
        floor50 = max(f50 - h50, 0.1)
        ratio = max(beyond50, 0) / floor50
        worst.update(p95=max(worst["p95"], c95), beyond=max(worst["beyond"], beyond95), ratio=max(worst["ratio"], ratio))
        pg = ""
        if pglib:
            g50, g95 = pct(pg_times[name], 50), pct(pg_times[name], 95)
            worst.update({"pg p95": max(worst["pg p95"], g95), "pg beyond": max(worst["pg beyond"], g95 - s95)})
            p50, p95 = pct(pg_floors[name], 50), pct(pg_floors[name], 95)
            worst["pg floor"] = max(worst["pg floor"], p95 - q95)
            # The same statements with the connection that carries them: what any client
            # connecting directly pays beyond its own start-up.
            worst["connected floor"] = max(worst["connected floor"], p95 - v95)
            worst["connected floor within"] += p95 - v95 < 15
            worst["pg within"] += g95 - s95 < 15
            b50, b95 = pct(pooled_times[name], 50), pct(pooled_times[name], 95)
            worst["pooled beyond"] = max(worst["pooled beyond"], b95 - s95)
            worst["pooled within"] += b95 - s95 < 15
            pg = f" {g50 - s50:8.1f} {g95 - s95:8.1f} {p50 - q50:7.1f} {p95 - q95:8.1f} {b50 - s50:8.1f} {b95 - s95:8.1f}"
        print(f"{name:46} {c50:7.1f} {c95:8.1f} {beyond50:7.1f} {beyond95:8.1f} {f50 - h50:7.1f} {f95 - h95:8.1f} {ratio:12.1f}x{pg}")
    verdict = lambda ok: "met" if ok else "NOT met"
    print(f"SQLite: worst p95 {worst['p95']:.1f} ms (goal < 100: {verdict(worst['p95'] < 100)}); "
          f"worst p95 beyond start-up {worst['beyond']:.1f} ms (goal < 15: {verdict(worst['beyond'] < 15)}); "
          f"worst catalog work vs floor {worst['ratio']:.1f}x (goal <= 2x: {verdict(worst['ratio'] <= 2)})")
    if pglib:
        print(f"PostgreSQL: worst p95 {worst['pg p95']:.1f} ms; worst p95 beyond start-up {worst['pg beyond']:.1f} ms "
              f"(goal < 15: {verdict(worst['pg beyond'] < 15)}); the same statements in psql, beyond its start-up and "
              f"connection, worst p95 {worst['pg floor']:.1f} ms; with its connection, beyond psql's start-up, worst p95 "
              f"{worst['connected floor']:.1f} ms, {worst['connected floor within']} of {len(names)} within 15 ms")
        print(f"PostgreSQL through PgBouncer: worst p95 beyond start-up {worst['pooled beyond']:.1f} ms "
              f"(goal < 15: {verdict(worst['pooled beyond'] < 15)}); {worst['pooled within']} of {len(names)} listings within 15 ms")
    at = f"{size:,} assets"
    results.add(f"{at}: slowest listing, whole process, p95", worst["p95"], "ms", goal="under 100 ms", met=worst["p95"] < 100)
    results.add(f"{at}: slowest listing beyond start-up, p95", worst["beyond"], "ms", goal="under 15 ms", met=worst["beyond"] < 15)
    results.add(f"{at}: catalog work against the same SQL in sqlite3, worst of {len(names)} listings", worst["ratio"], "x",
                goal="at most 2x", met=worst["ratio"] <= 2)
    probe = "query --limit 50 --json"
    if probe in times:
        results.add(f"{at}: {probe}, p50 beyond start-up", max(pct(times[probe], 50) - s50, 0), "ms",
                    max(pct(floors[probe], 50) - h50, 0.1), "its SQL in sqlite3")
    if pglib:
        results.add(f"{at}, PostgreSQL: slowest listing, whole process, p95", worst["pg p95"], "ms", worst["p95"], "SQLite's slowest")
        results.add(f"{at}, PostgreSQL: slowest listing beyond start-up, p95", worst["pg beyond"], "ms", worst["beyond"], "SQLite's slowest",
                    goal="under 15 ms", met=worst["pg beyond"] < 15)
        results.add(f"{at}, PostgreSQL: listings under 15 ms beyond start-up at p95, of {len(names)}", worst["pg within"], "listings")
        results.add(f"{at}, PostgreSQL: the same statements in psql, beyond its start-up and connection, worst p95", worst["pg floor"], "ms")
        results.add(f"{at}, PostgreSQL: the same statements in psql with its new connection, beyond psql's start-up, worst p95",
                    worst["connected floor"], "ms")
        results.add(f"{at}, PostgreSQL: listings whose statements in psql with its new connection take under 15 ms beyond psql's "
                    f"start-up at p95, of {len(names)}", worst["connected floor within"], "listings")
        results.add(f"{at}, PostgreSQL: {probe}, p50 beyond start-up", max(pct(pg_times[probe], 50) - s50, 0), "ms",
                    max(pct(times[probe], 50) - s50, 0.1), "the same on SQLite")
        results.add(f"{at}, PostgreSQL through PgBouncer: slowest listing beyond start-up, p95", worst["pooled beyond"], "ms",
                    worst["pg beyond"], "connected directly", goal="under 15 ms", met=worst["pooled beyond"] < 15)
        results.add(f"{at}, PostgreSQL through PgBouncer: listings under 15 ms beyond start-up at p95, of {len(names)}",
                    worst["pooled within"], "listings")

    for backend, library in backends:
        pages = subprocess.run([catalog_bench, library, str(runs)], capture_output=True, text=True, check=True).stdout
        for line in pages.splitlines():
            p = json.loads(line)
            if p["name"].startswith("map:"):
                continue  # the map's figures go with the searches' (bench_map)
            print(f"in one process{backend}: {p['name']:44} p50 {p['p50_ms']:6.1f} ms  p95 {p['p95_ms']:6.1f} ms  "
                  f"({p['rows']} rows; goal < 15: {verdict(p['p95_ms'] < 15)})")
            results.add(f"{at}{backend}: in one process, {p['name']}, p95", p["p95_ms"], "ms", goal="under 15 ms", met=p["p95_ms"] < 15)
        http = api_pages(camlib, library, max(runs * 5, 50), rng)
        print(f"gallery API page{backend}: 50 assets after a jump (HTTP)  p50 {pct(http, 50):6.1f} ms  p95 {pct(http, 95):6.1f} ms  "
              f"(goal < 15: {verdict(pct(http, 95) < 15)})")
        results.add(f"{at}{backend}: gallery API page, 50 assets after a jump (HTTP), p95", pct(http, 95), "ms", goal="under 15 ms",
                    met=pct(http, 95) < 15)

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
    for backend, library in backends:
        # The kernel's high-water mark (a query runs in one process): a 50-asset page
        # lasts about two of the sampler's 10 ms periods, which caught 14 to 31 MB of it.
        big = measure([camlib, "query", "--library", library, "--since", since, "--until", until, "--json"], sample=False)
        small = measure([camlib, "query", "--library", library, "--limit", "50", "--json"], sample=False)
        print(f"memory{backend}: query --json of ~{rows:,} assets ({since}..{until}): {big[1]:.1f} MB peak, {big[0]:.1f} s;  "
              f"--limit 50 --json: {small[1]:.1f} MB peak")
        results.add(f"{at}{backend}: peak memory of query --json over ~{rows:,} assets", big[1], "MB", small[1], "a 50-asset page",
                    "flat (within 1.5x of a page)", big[1] <= 1.5 * small[1])
    return s50, h50


def api_page_times(base, count, rng):
    """The gallery's API page as the timeline asks for it after a jump (50 assets from a
    random day), through HTTP from the `camlib serve` at `base`: milliseconds each."""
    times = []
    for _ in range(count):
        day = f"{rng.randrange(2011, 2026)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
        start = time.perf_counter()
        with urllib.request.urlopen(f"{base}/api/assets?limit=50&start={day}") as r:
            r.read()
        times.append((time.perf_counter() - start) * 1000)
    return times


def api_pages(camlib, lib, count, rng):
    """api_page_times from a `camlib serve` of its own, after a few pages that open its
    catalog connections."""
    from gallery import Server
    server = Server(camlib, lib, extra=["--no-worker"])
    try:
        api_page_times(server.base, 5, rng)
        return api_page_times(server.base, count, rng)
    finally:
        server.stop()


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
            script = ".output /dev/null\n" + trace(camlib, args, lib)
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


def bench_import(camlib, largest, files, count, rounds, rng, results, cluster=None):
    """Imports of the same new files into an empty library and into a copy of `largest`,
    alternately; on PostgreSQL when `cluster` is given (`largest` then a library whose
    catalog is there: each round imports into a copy of its database)."""
    backend = ", PostgreSQL" if cluster else ""
    with tempfile.TemporaryDirectory(dir=OUT) as tmp:
        empty, large = [], []
        for n in range(rounds):
            for target in rng.sample(["empty", "large"], 2):
                lib = os.path.join(tmp, "lib")
                if os.path.exists(lib):
                    subprocess.run(["chmod", "-R", "u+w", lib])
                    shutil.rmtree(lib)
                if cluster:
                    cluster.dropdb("import_target")
                    if target == "large":
                        # A file copy of the million-asset database (WAL_LOG would log every page).
                        cluster.psql(f"CREATE DATABASE import_target TEMPLATE {database_of(largest)} STRATEGY FILE_COPY")
                        os.makedirs(lib)
                        with open(os.path.join(lib, "catalog.url"), "w") as f:
                            f.write(cluster.url("import_target") + "\n")
                    else:
                        subprocess.run([camlib, "init", "--library", lib, "--catalog", cluster.createdb("import_target")], check=True,
                                       capture_output=True)
                    cluster.psql("CHECKPOINT")
                elif target == "large":
                    os.makedirs(lib)
                    shutil.copyfile(os.path.join(largest, "catalog.sqlite"), os.path.join(lib, "catalog.sqlite"))
                # Written to disk before the clock starts: the kernel writing back a copy
                # of a large catalog meanwhile slowed the import's own fsyncs by a fifth.
                os.sync()
                seconds, _, status = measure([camlib, "import", "--library", lib, files])
                if status != 0:  # 2: some files were not imported, and the time measures less than the work
                    sys.exit(f"bench: import into the {target} library{backend} failed (status {status}): camlib import --library {lib} {files}")
                (large if target == "large" else empty).append(seconds)
        if cluster:
            cluster.dropdb("import_target")
        e, l = sorted(empty)[len(empty) // 2], sorted(large)[len(large) // 2]
        name = os.path.basename(largest).replace("pg-", "")
        print(f"import of {count} new files{backend}: into an empty library {e:.2f} s, into the {name} library {l:.2f} s "
              f"(median of {rounds}): {100 * (l / e - 1):+.1f}% (goal: within 10%: {'met' if l <= e * 1.1 else 'NOT met'})")
        results.add(f"import of {count} new files into the {name} library{backend}", l, "s", e, "into an empty library",
                    "within 1.1x", l <= e * 1.1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--import-files", type=int, default=250)
    parser.add_argument("--import-rounds", type=int, default=5)
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--only", choices=["search"], help="only the searches and the map")
    args = parser.parse_args()
    if shutil.which("sqlite3") is None:
        sys.exit("bench: sqlite3 is missing (run ./setup.sh)")
    sizes = [int(s) for s in args.sizes.split(",")]
    camlib = build_camlib()
    subprocess.run(["swift", "build", "-c", "release", "--product", "catalog-bench"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    catalog_bench = os.path.join(ROOT, ".build", "release", "catalog-bench")
    libs = libraries(camlib, sizes)
    # Tuned as PostgreSQL's documentation advises for a server of its own: shared
    # buffers a quarter of the memory (the default, 128 MB, holds a tenth of 100,000 assets).
    memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)
    cluster = None if args.no_postgres else PostgresCluster(PG_FOLDER, {"shared_buffers": f"{memory_mb // 4}MB"})
    bouncer = None
    try:
        pglibs = postgres_libraries(camlib, cluster, libs) if cluster else {}
        bouncer = PgBouncer(cluster) if cluster else None
        pooled = {n: pooled_library(lib, bouncer) for n, lib in pglibs.items()}
        rng = random.Random(7)
        print(f"{os.cpu_count()} cores; {args.runs} runs of each, interleaved; {datetime.date.today()}")
        results = Results("query", "Catalog: query and show")
        results.note(f"{args.runs} runs of each listing, interleaved with `camlib --version`; the catalog in the page cache")
        if cluster:
            version = cluster.psql("SHOW server_version")
            results.note(f"PostgreSQL {version} over a unix socket, a private cluster with the server's defaults (fsync on) but "
                         f"shared_buffers a quarter of the memory ({memory_mb // 4} MB), each catalog read into them first "
                         "(pg_prewarm); the same listings with the same arguments in the same loop as SQLite's, connected "
                         "directly and through PgBouncer (session pooling, a unix socket)")
        # The searches have results of their own (bench/results/query-search.json), so
        # `--only search` leaves the other listings' as they are.
        found = Results("query-search", "Catalog: search and map")
        found.note(f"{args.runs} runs of each search, interleaved, as whole `camlib query --search TEXT --limit 50` processes; "
                   "the catalog in the page cache; start-up is `camlib --version`'s p95")
        found.note("The synthetic libraries' located assets are spread over GeoNames' 3,000 most populous places")
        for n in sizes:
            print(f"\n== {n:,} assets ==")
            backends = [("", libs[n])] + ([(", PostgreSQL", pglibs[n]), (", PostgreSQL through PgBouncer", pooled[n])] if n in pglibs else [])
            if args.only != "search":
                startups = bench_size(camlib, catalog_bench, n, libs[n], pglibs.get(n), pooled.get(n), cluster, args.runs, rng, results)
                bench_cold(camlib, catalog_bench, n, libs[n], args.cold_runs, rng, startups)
            warm(os.path.join(libs[n], "catalog.sqlite"))
            if n in pglibs:
                cluster.prewarm(database_of(pglibs[n]))
            startup = [run([camlib, "--version"]) for _ in range(max(args.runs, 20))]
            bench_searches(camlib, n, backends, args.runs, rng, pct(startup, 95), found)
            bench_map(catalog_bench, n, backends[:2], args.runs, found)
        found.write()
        if args.only == "search":
            return
        if bouncer:
            # Its pooled connections would keep the catalog from being a template.
            bouncer.stop()
            bouncer = None
        if args.import_rounds > 0:
            print()
            with tempfile.TemporaryDirectory(dir=OUT) as tmp:
                files = make_new_files(args.import_files, os.path.join(tmp, "files"), rng)
                bench_import(camlib, libs[max(sizes)], files, args.import_files, args.import_rounds, rng, results)
                if cluster:
                    bench_import(camlib, pglibs[max(sizes)], files, args.import_files, args.import_rounds, rng, results, cluster)
        results.write()
    finally:
        if bouncer:
            bouncer.stop()
        if cluster:
            cluster.stop()


if __name__ == "__main__":
    main()

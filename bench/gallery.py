#!/usr/bin/env python3
"""The gallery's speed, on the million-asset library of bench/query.py:

  - the first page of the timeline, interactive: from navigation to the last thumbnail in
    view loaded, in headless Chromium (Debian's), the browser's cache off; goal < 500 ms;
  - a jump to a year on the scrubber, to its last thumbnail in view; goal < 300 ms;
  - the search box: each of bench/query.py's searches through HTTP (goal < 50 ms at p95),
    and typed in Chromium, from Enter to the results' tiles;
  - thumbnails served per second by camlib serve on one core (taskset), wrk on the other,
    beside nginx serving the same files from the same disk on one core: the floor of
    sending a small file over HTTP; goal > 1,000/s;
  - one page of the API (50 assets after a jump to a random day) through HTTP: the
    long-lived server's answer, beside the same listing in one process (catalog-bench);
    goal < 15 ms;
  - a Live Photo's H.264 proxy, once made, starting to play when the pointer rests on its
    tile (pointerenter to the video's `playing`); goal < 300 ms. On a library of the real
    corpus: the synthetic library's rows name no movie files;
  - the shared corpus uploaded through Chromium's Upload picker, beside `camlib import
    --no-wait` of the same files: goal at least 0.8x its speed. Beside both, Chromium
    sending the same files (four at a time) from a bare page to a server that discards
    them, and the CPU time each side spent: on one machine the browser's share of the
    cores is time the import does not get;
  - a ZIP of 1,000 assets' originals streamed to curl, beside `cat` of the same files to
    /dev/null (the read floor), with the server's memory: goal at least 0.8x cat, the
    first byte within a second, memory flat. Beside both, the same bytes sent over the same
    loopback to curl by a bare server that only calls sendfile(2): the floor of any HTTP
    server on this machine, which copies each byte twice more than cat does.

The synthetic library's rows name thumbnails that do not exist; before timing, the ones of
the pages visited are linked to the seed library's real thumbnails.

Usage: bench/gallery.py [--runs 10] [--only transfers]   (needs: apt install wrk nginx-light; .venv from setup.sh)
"""
import argparse, json, os, random, shutil, sqlite3, statistics, subprocess, sys, tempfile, time, urllib.parse, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "Browser"))
os.environ["SE_OFFLINE"] = "true"
os.environ["SE_AVOID_STATS"] = "true"
from measure import ROOT, Results, build_camlib, tree_cpu_seconds, tree_rss_kb  # noqa: E402
import query  # noqa: E402

SIZE = 1_000_000
CORPUS = os.path.realpath(os.path.join(ROOT, "..", "shared", "media"))

# Installed before the page's own script: marks when every tile in view shows its
# thumbnail, and when a tile's movie starts playing.
PROBE = r"""
window.__marks = {};
window.__visibleLoaded = () => {
  const tiles = [...document.querySelectorAll('.tile')].filter(t => {
    const r = t.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth; });
  window.__broken = tiles.filter(t => { const i = t.querySelector('img'); return i && i.complete && i.naturalWidth === 0; }).length;
  return tiles.length > 0 && tiles.every(t => { const i = t.querySelector('img'); return i && i.complete; });
};
window.__waitVisible = (name, since) => new Promise(done => {
  const check = () => { if (window.__visibleLoaded() && (!since || since())) { window.__marks[name] = performance.now(); done(); } else requestAnimationFrame(check); };
  requestAnimationFrame(check);
});
document.addEventListener('DOMContentLoaded', () => window.__waitVisible('firstPage'));
document.addEventListener('pointerenter', e => { if (e.target.classList && e.target.classList.contains('tile')) window.__marks.enter = performance.now(); }, true);
document.addEventListener('playing', () => { window.__marks.playing = performance.now(); }, true);
"""


pct = query.pct
RESULTS = Results("gallery", "Gallery")
TRANSFERS = Results("gallery-transfers", "Gallery: uploads and downloads")


def line(name, values, goal):
    """Milliseconds: median, p95, and the goal the p95 must stay under."""
    p50, p95 = statistics.median(values), pct(values, 95)
    print(f"{name:58} p50 {p50:8.1f} ms  p95 {p95:8.1f} ms  (goal < {goal:,} ms: {'met' if p95 < goal else 'NOT met'})")
    RESULTS.add(name + ", p95", p95, "ms", goal=f"under {goal:,} ms", met=p95 < goal)


class Server:
    def __init__(self, camlib, lib, cpu=None, extra=()):
        cmd = ([shutil.which("taskset"), "-c", str(cpu)] if cpu is not None else []) + [camlib, "serve", "--library", lib, "--port", "0", *extra]
        self.process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = self.process.stdout.readline()
        if not first.startswith("camlib serve: "):
            raise SystemExit(f"camlib serve did not start: {first} {self.process.stderr.read()}")
        self.base = first.split(": ", 1)[1].strip().rstrip("/")

    def get(self, path):
        with urllib.request.urlopen(self.base + path) as r:
            return json.load(r)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def materialize_thumbnails(lib, seed, assets):
    """Links the seed's real thumbnails at the paths the given assets' rows name, and, for
    their edits' renders, where the gallery keeps the thumbnail it makes of a render."""
    seed_thumbs = []
    for folder, _, names in os.walk(os.path.join(seed, "derived", "thumbnails")):
        seed_thumbs += [os.path.join(folder, n) for n in names if n.endswith(".jpg")]
    db = sqlite3.connect(f"file:{os.path.join(lib, 'catalog.sqlite')}?mode=ro", uri=True)
    made = 0
    ids = sorted(assets)
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ','.join('?' * len(chunk))
        rows = db.execute(f"SELECT path FROM resource WHERE role = 'thumbnail' AND asset_id IN ({marks})", chunk).fetchall()
        rows += [(f"derived/thumbnails/{sha[:2]}/{sha}.jpg",) for (sha,) in db.execute(
            f"SELECT sha256 FROM resource WHERE role IN ('renderedPhoto', 'renderedVideo') AND asset_id IN ({marks})", chunk)]
        for (path,) in rows:
            target = os.path.join(lib, path)
            if not os.path.exists(target):
                os.makedirs(os.path.dirname(target), exist_ok=True)
                os.link(seed_thumbs[made % len(seed_thumbs)], target)
                made += 1
    db.close()
    return made


def browser():
    from conftest import make_driver
    driver = make_driver(1400, 900)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
    return driver


def wait_mark(driver, name, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        value = driver.execute_script(f"return window.__marks && window.__marks[{json.dumps(name)}]")
        if value:
            return value
        time.sleep(0.02)
    raise SystemExit(f"timed out waiting for {name}")


def page_timings(camlib, lib, seed, runs, rng):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    server = Server(camlib, lib)
    try:
        years = server.get("/api/years")
        # Everything the browser will show: the first pages, and the first pages of each year.
        visited = set()
        for query_string in ["/api/assets?limit=120"] + [f"/api/assets?limit=120&start={y}-12-31" for y in years]:
            page = server.get(query_string)
            visited |= {a["id"] for a in page["assets"]}
            if page["next"]:
                visited |= {a["id"] for a in server.get(query_string + f"&after={page['next']}")["assets"]}
        made = materialize_thumbnails(lib, seed, visited)
        print(f"({len(visited):,} assets on the pages visited, {len(years)} years; {made} thumbnails newly linked from the seed library)")

        driver = browser()
        try:
            first, jumps, broken = [], [], 0
            for _ in range(runs):
                driver.get("about:blank")
                driver.get(server.base + "/")
                first.append(wait_mark(driver, "firstPage"))
                # A person looks at the page before jumping: what it was still loading ends first.
                settle = time.time() + 3
                while time.time() < settle and not driver.execute_script(
                        "return !state.loading && [...document.images].every(i => i.complete)"):
                    time.sleep(0.05)
                # A click where the year is written on the scrubber: it lands as the button is let go.
                labels = {e.text: e for e in driver.find_elements(By.CSS_SELECTOR, "#scrubTrack .year")}
                year = rng.choice(sorted(labels)[:-1] or sorted(labels))
                driver.execute_script(
                    "window.__marks.jump = undefined;"
                    "document.addEventListener('pointerup', () => { const t0 = performance.now();"
                    f"  window.__waitVisible('jumpDone', () => {{ const d = document.querySelector('.day'); return d && d.dataset.day <= '{year}-12-31'; }})"
                    "  .then(() => { window.__marks.jump = window.__marks.jumpDone - t0; }); }, { once: true, capture: true });")
                ActionChains(driver).move_to_element(labels[year]).click().perform()
                jumps.append(wait_mark(driver, "jump"))
                broken += driver.execute_script("return window.__broken")
        finally:
            driver.quit()
        if broken:
            print(f"(warning: {broken} thumbnails in view failed to load)")
        line("first page interactive (Chromium, to last thumbnail in view)", first, 500)
        line("jump to a year on the scrubber (click to last thumbnail in view)", jumps, 300)
        search_timings(server, runs, rng)

        # One page of the API through HTTP, as the page asks for it.
        http = query.api_page_times(server.base, max(runs * 5, 50), rng)
        line("API page: 50 assets after a jump (HTTP, long-lived server)", http, 15)
        return server, visited
    except BaseException:
        server.stop()
        raise


def search_timings(server, runs, rng):
    """The search box: each of bench/query.py's searches as the page asks for it (its
    first page) through HTTP, interleaved; and a person typing one in Chromium and pressing
    Enter, to the first page's tiles in the timeline (the thumbnails are not counted: the
    synthetic library's results name thumbnails not linked from the seed)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    texts = [args[2] for args in query.searches().values()]
    for text in texts:  # each once first: the server's connections and caches
        server.get(f"/api/assets?limit=40&q={urllib.parse.quote(text)}")
    times = {text: [] for text in texts}
    for _ in range(runs):
        for text in rng.sample(texts, len(texts)):
            start = time.perf_counter()
            server.get(f"/api/assets?limit=40&q={urllib.parse.quote(text)}")
            times[text].append((time.perf_counter() - start) * 1000)
    slowest = max(texts, key=lambda t: pct(times[t], 95))
    for text in texts:
        print(f"  search {text!r:28} p50 {pct(times[text], 50):6.1f} ms  p95 {pct(times[text], 95):6.1f} ms")
    line(f"search box answer over HTTP (slowest of {len(texts)}: {slowest!r})", times[slowest], 50)

    driver = browser()
    typed = []
    try:
        for _ in range(runs):
            text = rng.choice(["california", "lisbon 2023", "2023 apple", "iphone"])
            driver.get("about:blank")
            driver.get(server.base + "/")
            wait_mark(driver, "firstPage")
            box = driver.find_element(By.ID, "q")
            ActionChains(driver).click(box).send_keys(text).perform()
            driver.execute_script(
                "window.__marks.search = undefined; const before = state.generation;"
                "document.getElementById('q').addEventListener('keydown', e => { if (e.key !== 'Enter') return; const t0 = performance.now();"
                "  const check = () => { if (state.generation !== before && !state.loading && document.querySelector('.tile'))"
                "    window.__marks.search = performance.now() - t0; else requestAnimationFrame(check); }; requestAnimationFrame(check); }, { once: true });")
            ActionChains(driver).send_keys(Keys.ENTER).perform()
            typed.append(wait_mark(driver, "search"))
    finally:
        driver.quit()
    # The page's own goal for a jump: the search's answer is part of it.
    line("search typed in Chromium: Enter to the results' tiles", typed, 300)


def thumbnail_rate(camlib, lib, visited, server_for_urls):
    """camlib serve on core 0 against nginx on core 0, wrk on core 1, the same thumbnails."""
    urls = []
    for asset in list(visited)[:400]:
        a = server_for_urls.get(f"/api/assets/{asset}")
        if a["media"]["thumbnail"]:
            urls.append(a["media"]["thumbnail"])
    server_for_urls.stop()
    db = sqlite3.connect(f"file:{os.path.join(lib, 'catalog.sqlite')}?mode=ro", uri=True)
    files = [row[0] for row in db.execute(
        f"SELECT path FROM resource WHERE role = 'thumbnail' AND asset_id IN ({','.join(str(a) for a in list(visited)[:400])})")]
    db.close()
    work = tempfile.mkdtemp(prefix="camlib-bench-gallery-")
    try:
        def wrk(base, paths):
            script = os.path.join(work, "paths.lua")
            with open(script, "w") as f:
                f.write("paths = {" + ",".join(json.dumps(p) for p in paths) + "}\n"
                        "i = 0\nrequest = function() i = i % #paths + 1; return wrk.format('GET', paths[i]) end\n")
            out = subprocess.run(["taskset", "-c", "1", "wrk", "-t1", "-c16", "-d8s", "-s", script, base],
                                 capture_output=True, text=True, check=True).stdout
            rate = next(float(l.split()[1]) for l in out.splitlines() if l.startswith("Requests/sec"))
            errors = [l for l in out.splitlines() if "Non-2xx" in l or "Socket errors" in l]
            return rate, errors

        camlib_server = Server(camlib, lib, cpu=0)
        try:
            ours, errors = wrk(camlib_server.base, urls)
        finally:
            camlib_server.stop()
        conf = os.path.join(work, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""worker_processes 1; daemon off; pid {work}/nginx.pid; error_log {work}/error.log;
events {{ worker_connections 256; }}
http {{ access_log off; sendfile on; etag on;
  server {{ listen 127.0.0.1:18766; root {lib}; location / {{ }} }} }}
""")
        nginx = subprocess.Popen(["taskset", "-c", "0", "nginx", "-c", conf], stderr=subprocess.PIPE)
        time.sleep(0.5)
        try:
            theirs, nginx_errors = wrk("http://127.0.0.1:18766", ["/" + p for p in files])
        finally:
            nginx.terminate()
            nginx.wait()
        print(f"{'thumbnails per second, one core (wrk, 16 connections)':58} camlib serve {ours:8.0f}/s   nginx {theirs:8.0f}/s "
              f"({ours / theirs:.2f}x nginx; goal > 1,000/s: {'met' if ours > 1000 else 'NOT met'})"
              + (f"  errors: {errors + nginx_errors}" if errors or nginx_errors else ""))
        RESULTS.add("thumbnails served per second, one core", ours, "/s", theirs, "nginx, the same files, one core",
                    "over 1,000/s", ours > 1000 and not errors)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def hover_to_playing(driver, page, asset_id, timeout=30, settle=1.0):
    """Milliseconds from the pointer entering asset `asset_id`'s tile on `page` (the pointer
    coming from the bar, as a person's does, `settle` seconds after the tile shows: a
    person looks at the page before pointing) to its movie playing."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    driver.get(page)
    tile = None
    end = time.time() + 20
    while tile is None and time.time() < end:
        found = driver.find_elements(By.CSS_SELECTOR, f'.tile[data-id="{asset_id}"]')
        tile = found[0] if found else None
    time.sleep(settle)
    ActionChains(driver).move_to_element(driver.find_element(By.ID, "bar")).perform()
    ActionChains(driver).move_to_element(tile).perform()
    playing = wait_mark(driver, "playing", timeout)
    return playing - driver.execute_script("return window.__marks.enter")


def proxy_start(camlib, runs):
    """A Live Photo's proxy, made once, starting to play on hover (the real corpus)."""
    work = tempfile.mkdtemp(prefix="camlib-bench-live-")
    lib = os.path.join(work, "lib")
    subprocess.run([camlib, "import", "--library", lib, os.path.join(CORPUS, "apple-live-photo")], capture_output=True, check=True)
    server = Server(camlib, lib)
    try:
        lives = [a for a in server.get("/api/assets?kind=live")["assets"] if a["videoCodec"] == "hevc"]
        for a in lives:  # made once, as after the first view
            urllib.request.urlopen(server.base + a["media"]["video"]).read()
        driver = browser()
        starts = []
        try:
            for i in range(runs):
                starts.append(hover_to_playing(driver, server.base + "/?kind=live", lives[i % len(lives)]["id"]))
        finally:
            driver.quit()
        line("Live Photo proxy: pointer on the tile to playing", starts, 300)
    finally:
        server.stop()
        subprocess.run(["chmod", "-R", "u+w", work])
        shutil.rmtree(work, ignore_errors=True)


def corpus_files():
    """Every file of the shared corpus, as a person would pick them all."""
    files = []
    for folder, _, names in os.walk(CORPUS):
        files += [os.path.join(folder, n) for n in sorted(names) if n not in ("MANIFEST.json", "README.md")]
    return sorted(files)


def chromium_cpu():
    """CPU seconds (user and system) so far of each running Chromium process (the browser,
    its renderers, its network service), by pid."""
    tick = os.sysconf("SC_CLK_TCK")
    seconds = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open(f"/proc/{pid}/comm").read().strip() == "chromium":
                fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
                seconds[pid] = (int(fields[11]) + int(fields[12])) / tick
        except OSError:
            pass  # ended meanwhile
    return seconds


def cpu_since(before):
    """Chromium's CPU seconds since `before` (chromium_cpu()): of the processes that lived
    through, and all of those started since (a renderer for a new page)."""
    after = chromium_cpu()
    return sum(after[pid] - before.get(pid, 0) for pid in after)


def wait_for_text(driver, element_id, text):
    """Waits in the page (no polling from here, which would take the cores being measured)
    until the element's text contains `text`."""
    driver.set_script_timeout(600)
    driver.execute_async_script("""
        const [id, text, done] = arguments;
        const element = document.getElementById(id);
        const check = () => { if (element.textContent.includes(text)) { observer.disconnect(); done(); } };
        const observer = new MutationObserver(check);
        observer.observe(element, {childList: true, characterData: true, subtree: true});
        check();
    """, element_id, text)


SINK_PAGE = b"""<!doctype html><input type=file id=pick multiple><p id=state></p><script>
document.getElementById("pick").addEventListener("change", async (e) => {
  const files = [...e.target.files];
  let next = 0;
  const lane = async () => {
    while (next < files.length) {
      const file = files[next++];
      await new Promise((done) => {
        const request = new XMLHttpRequest();
        request.open("POST", "/sink");
        request.upload.onprogress = () => {};
        request.onloadend = done;
        request.send(file);
      });
    }
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
  document.getElementById("state").textContent = "sent";
});
</script>"""


def browser_send_floor(files, runs):
    """Seconds (median) for Chromium to send `files` from a bare page, four at a time, to a
    server that reads and discards them, and Chromium's CPU seconds for it."""
    import http.server, socketserver, threading
    from selenium.webdriver.common.by import By
    from conftest import make_driver

    class Sink(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(SINK_PAGE)))
            self.end_headers()
            self.wfile.write(SINK_PAGE)

        def do_POST(self):
            left = int(self.headers["Content-Length"])
            while left:
                left -= len(self.rfile.read(min(left, 1 << 20)))
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    times, cpus = [], []
    driver = make_driver(1400, 900)
    try:
        for _ in range(runs):
            driver.get(f"http://127.0.0.1:{server.server_address[1]}/")
            cpu, start = chromium_cpu(), time.perf_counter()
            driver.find_element(By.ID, "pick").send_keys("\n".join(files))
            wait_for_text(driver, "state", "sent")
            times.append(time.perf_counter() - start)
            cpus.append(cpu_since(cpu))
    finally:
        driver.quit()
        server.shutdown()
    return statistics.median(times), statistics.median(cpus)


def upload_speed(camlib, runs):
    """The shared corpus picked in Chromium's Upload and sent (tus, three at a time) into
    an empty library, to the panel saying all are done, beside `camlib import --no-wait`
    of the same files into an empty library (both leave thumbnails to workers)."""
    from selenium.webdriver.common.by import By
    from conftest import make_driver
    files = corpus_files()
    total = sum(os.path.getsize(f) for f in files)
    imports, uploads, import_cpus, server_cpus, browser_cpus = [], [], [], [], []
    # Once untimed: the corpus, camlib and its libraries into the page cache (a first import
    # after a build took 7.7 s where the next took 0.5).
    warm = tempfile.mkdtemp(prefix="camlib-bench-upload-")
    subprocess.run([camlib, "import", "--library", os.path.join(warm, "lib"), "--no-wait", *files], capture_output=True)
    subprocess.run(["chmod", "-R", "u+w", warm])
    shutil.rmtree(warm, ignore_errors=True)
    for _ in range(runs):
        work = tempfile.mkdtemp(prefix="camlib-bench-upload-")
        try:
            before = os.times()
            start = time.perf_counter()
            subprocess.run([camlib, "import", "--library", os.path.join(work, "imported"), "--no-wait", *files], capture_output=True)
            imports.append(time.perf_counter() - start)
            after = os.times()
            import_cpus.append(after.children_user + after.children_system - before.children_user - before.children_system)
            subprocess.run([camlib, "init", "--library", os.path.join(work, "uploaded")], capture_output=True, check=True)
            server = Server(camlib, os.path.join(work, "uploaded"), extra=("--no-worker",))
            driver = make_driver(1400, 900)
            try:
                driver.get(server.base + "/")
                time.sleep(0.5)
                cpu_browser, cpu_server = chromium_cpu(), tree_cpu_seconds(server.process.pid)
                start = time.perf_counter()
                driver.find_element(By.ID, "uploadPicker").send_keys("\n".join(files))
                wait_for_text(driver, "uploadSummary", "uploaded")
                uploads.append(time.perf_counter() - start)
                browser_cpus.append(cpu_since(cpu_browser))
                server_cpus.append(tree_cpu_seconds(server.process.pid) - cpu_server)
            finally:
                driver.quit()
                server.stop()
        finally:
            subprocess.run(["chmod", "-R", "u+w", work])
            shutil.rmtree(work, ignore_errors=True)
    floor, floor_cpu = browser_send_floor(files, runs)
    mb = total / 1e6
    up, imp = statistics.median(uploads), statistics.median(imports)
    ratio = imp / up
    print(f"{'upload of the corpus in Chromium vs camlib import':58} {mb / up:7.1f} MB/s vs {mb / imp:7.1f} MB/s "
          f"({len(files)} files, {mb:.0f} MB; {ratio:.2f}x; goal >= 0.8x: {'met' if ratio >= 0.8 else 'NOT met'})")
    print(f"{'  CPU s: import; upload: camlib serve, Chromium':58} {statistics.median(import_cpus):7.2f}; "
          f"{statistics.median(server_cpus):.2f}, {statistics.median(browser_cpus):.2f}")
    print(f"{'Chromium sending the files to a bare sink (the floor)':58} {mb / floor:7.1f} MB/s, {floor_cpu:.2f} CPU s")
    TRANSFERS.add("upload of the shared corpus through Chromium, MB/s", mb / up, "MB/s", mb / imp, "camlib import --no-wait of the same files",
                "at least 0.8x camlib import", ratio >= 0.8)
    TRANSFERS.add("upload of the shared corpus through Chromium, MB/s, beside a bare page and sink", mb / up, "MB/s", mb / floor,
                  "Chromium sending the same files from a bare page to a server that discards them")
    TRANSFERS.add("upload: CPU seconds of camlib serve (import included)", statistics.median(server_cpus), "s", statistics.median(import_cpus),
                  "camlib import --no-wait of the same files")
    TRANSFERS.add("upload: CPU seconds of Chromium", statistics.median(browser_cpus), "s", floor_cpu,
                  "Chromium sending the same files from a bare page to a sink")


def zip_library(camlib):
    """A library of 1,000 assets for the ZIP download: the corpus's readable photos and
    movies, each made a new file by bytes after its end, imported once and kept."""
    lib = os.path.join(query.OUT, "zip-1000")
    if os.path.exists(os.path.join(lib, "catalog.sqlite")):
        return lib
    sources = [f for f in corpus_files() if "/malformed/" not in f and f.lower().endswith((".jpg", ".jpeg", ".heic", ".mov", ".png"))]
    work = tempfile.mkdtemp(prefix="camlib-bench-zip-")
    try:
        for i in range(1000):
            source = sources[i % len(sources)]
            stem, ext = os.path.splitext(os.path.basename(source))
            with open(source, "rb") as f, open(os.path.join(work, f"{stem}-{i:04d}{ext}"), "wb") as out:
                out.write(f.read() + f"camlib-bench-{i}".encode())
        shutil.rmtree(lib, ignore_errors=True)
        subprocess.run([camlib, "import", "--library", lib, "--no-wait", work], capture_output=True, check=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return lib


def sendfile_floor(paths, total, runs):
    """Seconds per transfer (median) of `paths`' bytes in one HTTP response from a bare
    server that writes a header and calls sendfile(2) for each file, to curl."""
    import socket, threading
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def serve():
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                connection.recv(65536)
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % total)
                for path in paths:
                    with open(path, "rb") as f:
                        connection.sendfile(f)

    threading.Thread(target=serve, daemon=True).start()
    times = []
    try:
        for _ in range(runs + 1):
            out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{size_download} %{time_total}",
                                  f"http://127.0.0.1:{listener.getsockname()[1]}/"], capture_output=True, text=True, check=True).stdout.split()
            assert int(out[0]) == total, out
            times.append(float(out[1]))
    finally:
        listener.close()
    return statistics.median(times[1:])


def zip_speed(camlib, runs):
    """A ZIP of 1,000 assets' originals streamed by camlib serve to curl, beside `cat` of
    the same files to /dev/null (the read floor), both from the page cache; the server's
    resident memory before and at its peak during the download."""
    lib = zip_library(camlib)
    listing = json.loads(subprocess.run([camlib, "query", "--library", lib, "--json"], capture_output=True, text=True, check=True).stdout)
    ids = [a["id"] for a in listing][:1000]
    paths = [r["path"] for a in listing[:1000] for r in a["resources"] if r["role"] in ("photo", "video", "pairedVideo")]
    total = sum(os.path.getsize(p) for p in paths)
    cats, zips, firsts = [], [], []
    for _ in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(["cat", *paths], stdout=subprocess.DEVNULL, check=True)
        cats.append(time.perf_counter() - start)
    cats = cats[1:]  # the first warms the page cache
    floor = sendfile_floor(paths, total, runs)
    server = Server(camlib, lib, extra=("--no-worker",))
    try:
        with open("/tmp/camlib-bench-zip-ids", "w") as f:
            f.write("assets=" + ",".join(map(str, ids)) + "&version=original")
        before = tree_rss_kb(server.process.pid) / 1024
        peak = before
        for _ in range(runs + 1):
            curl = subprocess.Popen(["curl", "-s", "-o", "/dev/null", "-G", "--data-binary", "@/tmp/camlib-bench-zip-ids", "-w", "%{size_download} %{time_starttransfer} %{time_total}",
                                     server.base + "/download"], stdout=subprocess.PIPE, text=True)
            while curl.poll() is None:
                peak = max(peak, tree_rss_kb(server.process.pid) / 1024)
                time.sleep(0.01)
            size, first, seconds = curl.stdout.read().split()
            zips.append(float(seconds))
            firsts.append(float(first))
        zips, firsts = zips[1:], firsts[1:]
    finally:
        server.stop()
    mb = total / 1e6
    cat_rate, zip_rate, floor_rate = mb / statistics.median(cats), mb / statistics.median(zips), mb / floor
    ratio = zip_rate / cat_rate
    print(f"{'ZIP of 1,000 assets streamed vs cat of the files':58} {zip_rate:7.0f} MB/s vs {cat_rate:7.0f} MB/s "
          f"({len(paths)} files, {mb:.0f} MB; {ratio:.2f}x; goal >= 0.8x: {'met' if ratio >= 0.8 else 'NOT met'})")
    print(f"{'the same bytes sent with sendfile(2) by a bare server':58} {floor_rate:7.0f} MB/s ({floor_rate / cat_rate:.2f}x cat; camlib {zip_rate / floor_rate:.2f}x this)")
    print(f"{'ZIP of 1,000 assets: first byte':58} p50 {statistics.median(firsts) * 1000:8.1f} ms (goal < 1,000 ms: {'met' if max(firsts) < 1 else 'NOT met'})")
    print(f"{'ZIP of 1,000 assets: server memory':58} {before:7.1f} MB before, {peak:7.1f} MB at its peak")
    TRANSFERS.add("ZIP of 1,000 assets streamed, MB/s", zip_rate, "MB/s", cat_rate, "cat of the same files to /dev/null", "at least 0.8x cat", ratio >= 0.8)
    TRANSFERS.add("ZIP of 1,000 assets streamed, MB/s, beside a bare sendfile(2) server", zip_rate, "MB/s", floor_rate,
                  "the same bytes sent by a server that only calls sendfile(2), to curl over the same loopback")
    TRANSFERS.add("ZIP of 1,000 assets: first byte, slowest", max(firsts) * 1000, "ms", goal="under 1,000 ms", met=max(firsts) < 1)
    TRANSFERS.add("ZIP of 1,000 assets: server memory at its peak", peak, "MB", before, "the server before the download", "flat (within 64 MB)", peak - before < 64)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--only", choices=["transfers"], help="only the uploads and downloads (no million-asset library)")
    args = parser.parse_args()
    for tool in (["curl", "chromium", "chromedriver"] if args.only else ["wrk", "nginx", "taskset", "chromium", "chromedriver", "curl"]):
        if not shutil.which(tool):
            raise SystemExit(f"bench/gallery.py needs {tool} (apt install wrk nginx-light; ./setup.sh for chromium)")
    camlib = build_camlib()
    if args.only == "transfers":
        print(f"== uploads and downloads, {os.cpu_count()} cores, {args.runs} runs ==")
        upload_speed(camlib, max(1, args.runs // 3))
        zip_speed(camlib, args.runs)
        TRANSFERS.note(f"the shared corpus ({len(corpus_files())} files) and a library of 1,000 assets made from it; {args.runs} runs")
        TRANSFERS.write()
        return
    lib = query.libraries(camlib, [SIZE])[SIZE]
    seed = os.path.join(query.OUT, "seed")
    rng = random.Random(13)
    print(f"== camlib serve on {SIZE:,} assets, {os.cpu_count()} cores, {args.runs} runs ==")
    server, visited = page_timings(camlib, lib, seed, args.runs, rng)
    thumbnail_rate(camlib, lib, visited, server)
    proxy_start(camlib, args.runs)
    upload_speed(camlib, max(1, args.runs // 3))
    zip_speed(camlib, args.runs)
    RESULTS.note(f"camlib serve on the {SIZE:,}-asset library of bench/query.py, in Debian's headless Chromium; {args.runs} runs")
    RESULTS.write()
    TRANSFERS.note(f"the shared corpus ({len(corpus_files())} files) and a library of 1,000 assets made from it; {args.runs} runs")
    TRANSFERS.write()


if __name__ == "__main__":
    main()

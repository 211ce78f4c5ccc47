"""Fixtures of the browser tests: a library imported from ../shared/media, `camlib serve`
on it (127.0.0.1, a free port), and headless Chromium driven by Selenium.

Debian's chromium and chromedriver only: nothing is downloaded, nothing phones home
(SE_OFFLINE, SE_AVOID_STATS)."""
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

os.environ["SE_OFFLINE"] = "true"
os.environ["SE_AVOID_STATS"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MEDIA = (ROOT / ".." / "shared" / "media").resolve()
CAMLIB = Path(os.environ.get("CAMLIB", ROOT / ".build" / "debug" / "camlib"))
# Where the tests leave screenshots; CAMLIB_SCREENSHOTS=docs/screenshots refreshes the documentation's.
SHOTS = Path(os.environ.get("CAMLIB_SCREENSHOTS", ROOT / "Tests" / "Browser" / "out"))
HOSTILE_NAME = "<img src=x onerror=alert(1)>.jpg"
FOLDERS = ["apple-live-photo", "apple-portrait-heic", "apple-portrait-jpeg", "orientation", "android-depth-motion"]


def camlib(*args, check=True):
    result = subprocess.run([str(CAMLIB), *args], capture_output=True, text=True, timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"camlib {' '.join(args)} failed ({result.returncode}): {result.stderr}")
    return result


def require_media():
    """The corpus must be there: under CI its absence fails the test, elsewhere it skips."""
    if not MEDIA.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{MEDIA} is missing")
        pytest.skip(f"{MEDIA} is missing")


@pytest.fixture(scope="session")
def library():
    require_media()
    folder = Path(tempfile.mkdtemp(prefix="camlib-browser-"))
    lib = folder / "library"
    # A file whose name is HTML: it must show as those characters. Its own bytes (a
    # JPEG with bytes after its end), so it is a new asset.
    hostile = folder / "hostile"
    hostile.mkdir()
    (hostile / HOSTILE_NAME).write_bytes((MEDIA / "orientation" / "Landscape_1.jpg").read_bytes() + b"camlib-browser-test")
    camlib("import", "--library", str(lib), *[str(MEDIA / f) for f in FOLDERS], str(hostile), check=False)
    listing = json.loads(camlib("query", "--library", str(lib), "--json").stdout)
    assert len(listing) > 30, listing
    yield {"path": lib, "assets": listing}
    subprocess.run(["chmod", "-R", "u+w", str(folder)])
    shutil.rmtree(folder, ignore_errors=True)


class Server:
    """`camlib serve` on 127.0.0.1; its map has no tiles unless `--map-tiles` names a
    server of the test's own: nothing reaches the internet."""
    def __init__(self, lib, *extra, port=0):
        if "--map-tiles" not in extra:
            extra = (*extra, "--map-tiles", "none")
        self.process = subprocess.Popen(
            [str(CAMLIB), "serve", "--library", str(lib), "--port", str(port), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("camlib serve: "):
            self.process.kill()
            raise AssertionError(f"camlib serve did not start: {line!r} {self.process.stderr.read()}")
        self.url = line.split(": ", 1)[1].strip()
        self.base = self.url.split("?")[0].rstrip("/")

    def stop(self):
        self.process.terminate()
        try:
            return self.process.wait(timeout=20)
        finally:
            if self.process.poll() is None:
                self.process.kill()


@pytest.fixture(scope="session")
def server(library):
    s = Server(library["path"])
    yield s
    code = s.stop()
    assert code == 0, f"camlib serve ended with {code} on SIGTERM: {s.process.stderr.read()}"


def pin_today(driver, day):
    """The pages' `new Date()` (today, for "On this day") at noon on `day` (YYYY-MM-DD), for
    every page the driver opens from now on; dates given to Date, and Date.now, as they are."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": f"""
        (() => {{
          const Real = Date, noon = new Real("{day}T12:00:00").getTime();
          class Pinned extends Real {{ constructor(...given) {{ super(...(given.length ? given : [noon])); }} }}
          globalThis.Date = Pinned;
        }})();"""})


def make_driver(width=1400, height=900, touch=False):
    """Headless Chromium at width x height; with `touch`, a phone's: touch events and a
    device pixel ratio of two."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                     "--autoplay-policy=no-user-gesture-required", "--mute-audio", "--disable-background-networking",
                     "--disable-component-update", "--no-first-run", "--hide-scrollbars"]:
        options.add_argument(argument)
    if touch:
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2, "touch": True}})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=options)


@pytest.fixture
def browser():
    driver = make_driver()
    yield driver
    driver.quit()


@pytest.fixture
def desktop():
    """A desktop's window."""
    driver = make_driver(1440, 900)
    yield driver
    driver.quit()


@pytest.fixture
def phone():
    """A phone's screen, touched with a finger."""
    driver = make_driver(390, 844, touch=True)
    yield driver
    driver.quit()


def wait_for(condition, timeout=30, what="the page"):
    end = time.time() + timeout
    last = None
    while time.time() < end:
        try:
            last = condition()
            if last:
                return last
        except Exception as error:  # the page is still loading
            last = error
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def screenshot(driver, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / name))


class TileServer:
    """A map tile server on 127.0.0.1: one plain 256 px PNG for every tile, and the
    paths it was asked for."""
    def __init__(self):
        import io
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from PIL import Image
        png = io.BytesIO()
        Image.new("RGB", (256, 256), (52, 70, 88)).save(png, "PNG")
        body, asked = png.getvalue(), []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                asked.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.asked = asked
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/{{z}}/{{x}}/{{y}}.png"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()

"""Uploads from the page, as a person makes them: files chosen with the Upload button's
picker and files dropped on the page, sent by the tus protocol and imported; a Live
Photo's halves paired, a bad file named with its reason while the rest go on, a
duplicate answered "already in the library", a cut connection resumed from where the
gallery says the file ends, and a file over the size limit refused. Each test has a
library and a server of its own: uploads change the library."""
import hashlib
import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from conftest import require_media, MEDIA, Server, camlib, make_driver, screenshot, wait_for

LIVE = MEDIA / "apple-live-photo"
PAIRS = [LIVE / "IMG_4394.HEIC", LIVE / "IMG_4394.mov", LIVE / "51F2BEF7-431A-4D31-8AC1-3284A57826AE.jpeg",
         LIVE / "51F2BEF7-431A-4D31-8AC1-3284A57826AE_3.mov"]
BAD = MEDIA / "malformed" / "bigcat88__pillow_heif__corrupted.heic"


@pytest.fixture
def empty_library():
    require_media()
    folder = Path(tempfile.mkdtemp(prefix="camlib-upload-"))
    lib = folder / "library"
    camlib("init", "--library", str(lib))
    yield lib
    shutil.rmtree(folder, ignore_errors=True)


def serve(lib, *extra):
    return Server(lib, *extra)


def rows(driver):
    """Each upload row of the panel: its name and what it says."""
    return [(r.find_element(By.CSS_SELECTOR, ".name").text, r.find_element(By.CSS_SELECTOR, ".state").text)
            for r in driver.find_elements(By.CSS_SELECTOR, "#uploadList .upload")]


def wait_until_uploaded(driver, count, timeout=120):
    def finished():
        shown = rows(driver)
        return len(shown) == count and all(s.startswith(("added", "already", "attached", "failed", "not imported")) for _, s in shown) and shown
    return dict(wait_for(finished, timeout=timeout, what=f"{count} uploads to finish"))


def pick(driver, paths):
    """Chooses files with the Upload button's picker."""
    driver.find_element(By.ID, "uploadPicker").send_keys("\n".join(str(p) for p in paths))


def drop(driver, paths):
    """Drags files from the desktop onto the page: the browser's own drag events, with
    the files in their DataTransfer, as a file manager's drop makes them."""
    holder = driver.execute_script(
        "const i = document.createElement('input'); i.type = 'file'; i.multiple = true; i.id = 'testDropSource';"
        "i.style.cssText = 'position:fixed;left:0;top:0;opacity:0'; document.body.append(i); return i;")
    holder.send_keys("\n".join(str(p) for p in paths))
    driver.execute_script(
        "const files = document.getElementById('testDropSource').files; const t = new DataTransfer();"
        "for (const f of files) t.items.add(f);"
        "const at = document.getElementById('timeline');"
        "for (const type of ['dragenter', 'dragover']) at.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: t}));"
        "window.__veilShown = !document.getElementById('dropZone').hidden;"
        "at.dispatchEvent(new DragEvent('drop', {bubbles: true, cancelable: true, dataTransfer: t}));"
        "document.getElementById('testDropSource').remove();")
    assert driver.execute_script("return window.__veilShown"), "dragging files over the page shows where they go"


def library_listing(lib):
    return json.loads(camlib("query", "--library", str(lib), "--json").stdout)


def test_picked_live_photos_are_uploaded_paired_and_shown(empty_library):
    server = serve(empty_library)
    driver = make_driver()
    try:
        driver.get(server.url)
        wait_for(lambda: "empty" in driver.find_element(By.ID, "status").text, what="the empty library")
        driver.find_element(By.ID, "uploadButton").click()  # opens the picker; the test then chooses as a person would
        pick(driver, PAIRS + [LIVE / "IMG_3582.HEIC", LIVE / "IMG_3582.mov", LIVE / "IMG_3582.AAE"])
        shown = wait_until_uploaded(driver, 7)
        # Whichever half of a pair is imported second says it joined the first.
        for still, movie in [("IMG_4394.HEIC", "IMG_4394.mov"), ("51F2BEF7-431A-4D31-8AC1-3284A57826AE.jpeg", "51F2BEF7-431A-4D31-8AC1-3284A57826AE_3.mov")]:
            said = sorted([shown[still], shown[movie]])
            assert said == ["added", "added, paired with its other half"], shown
        assert shown["IMG_3582.AAE"] == "attached to its photo", shown
        assert "7 files uploaded" in driver.find_element(By.ID, "uploadSummary").text
        # The timeline shows them, each Live Photo once, with its badge.
        wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, ".tile")) == 3, what="three tiles")
        assert len(driver.find_elements(By.CSS_SELECTOR, ".badge.live")) == 3
        screenshot(driver, "upload.png")
        listing = library_listing(empty_library)
        assert sorted(a["kind"] for a in listing) == ["live", "live", "live"], listing
        # The originals are the bytes that were sent, and nothing waits in tmp/uploads.
        for path in PAIRS:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            assert list((empty_library / "originals").rglob(path.name)), path.name
            assert any(hashlib.sha256(p.read_bytes()).hexdigest() == digest for p in (empty_library / "originals").rglob("*") if p.is_file())
        assert not [p for p in (empty_library / "tmp" / "uploads").iterdir() if p.suffix == ".part"]
    finally:
        driver.quit()
        server.stop()


def test_a_drop_names_a_bad_file_and_a_duplicate_and_the_rest_go_on(empty_library):
    camlib("import", "--library", str(empty_library), str(MEDIA / "orientation" / "Landscape_1.jpg"))
    server = serve(empty_library)
    driver = make_driver()
    try:
        driver.get(server.url)
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".tile"), what="the library's one photo")
        good = [MEDIA / "orientation" / f"Landscape_{n}.jpg" for n in (2, 3, 4)]
        drop(driver, [BAD, MEDIA / "orientation" / "Landscape_1.jpg", *good])
        shown = wait_until_uploaded(driver, 5)
        assert shown[BAD.name].startswith(("failed: ", "not imported: ")) and len(shown[BAD.name]) > 20, shown
        assert shown["Landscape_1.jpg"] == "already in the library", shown
        assert all(shown[p.name] == "added" for p in good), shown
        assert "1 not imported" in driver.find_element(By.ID, "uploadSummary").text
        assert driver.find_element(By.CSS_SELECTOR, "#uploadList .upload.failed .name").text == BAD.name
        wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, ".tile")) == 4, what="four tiles")
        screenshot(driver, "upload-problems.png")
        assert len(library_listing(empty_library)) == 4
        # The panel closes once everything is done.
        driver.find_element(By.ID, "uploadClose").click()
        assert not driver.find_element(By.ID, "uploads").is_displayed()
    finally:
        driver.quit()
        server.stop()


def test_a_cut_connection_resumes_where_the_file_ends(empty_library):
    camlib("import", "--library", str(empty_library), str(MEDIA / "orientation" / "Landscape_1.jpg"))
    server = serve(empty_library)
    driver = make_driver()
    movie = LIVE / "IMG_4394.mov"
    try:
        # Pieces of 256 KiB, sent slowly, so that the connection can be cut half-way.
        driver.get(server.url + ("&" if "?" in server.url else "?") + "uploadPiece=262144")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".tile"), what="the library's one photo")
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                               {"offline": False, "latency": 20, "downloadThroughput": -1, "uploadThroughput": 512 * 1024})
        pick(driver, [movie])
        progress = lambda: driver.execute_script("return document.querySelector('#uploadList progress').value")
        # The page stays usable meanwhile: a photo opens, and closes.
        wait_for(lambda: progress() > 0.05, what="the movie to start")
        driver.find_element(By.CSS_SELECTOR, ".tile").click()
        wait_for(lambda: driver.find_element(By.ID, "viewer").is_displayed(), what="the photo to open while uploading")
        driver.find_element(By.ID, "close").click()
        assert 0 < progress() < 1, "still uploading"
        wait_for(lambda: progress() > 0.3, what="a third of the movie to be sent")
        driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                               {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        wait_for(lambda: "trying again" in rows(driver)[0][1], what="the page to see the connection lost")
        before = progress()
        seen = []
        driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                               {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        end = time.time() + 60
        while time.time() < end and not rows(driver)[0][1].startswith(("added", "failed")):
            seen.append(progress())
            time.sleep(0.05)
        assert rows(driver)[0][1] == "added", rows(driver)
        assert min(seen) >= before - 0.1, f"the upload started again from the beginning: {before} then {min(seen)}"
        listing = library_listing(empty_library)
        assert len(listing) == 2
        stored = list((empty_library / "originals").rglob(movie.name))
        assert stored and stored[0].read_bytes() == movie.read_bytes()
    finally:
        driver.quit()
        server.stop()


def test_a_file_over_the_limit_is_refused_on_a_phone(empty_library):
    server = serve(empty_library, "--max-upload", "1M")
    driver = make_driver(390, 844, touch=True)
    try:
        driver.get(server.url)
        wait_for(lambda: "empty" in driver.find_element(By.ID, "status").text, what="the empty library")
        assert driver.find_element(By.ID, "uploadButton").is_displayed()
        pick(driver, [LIVE / "IMG_4394.mov", MEDIA / "orientation" / "Landscape_5.jpg"])
        shown = wait_until_uploaded(driver, 2)
        assert shown["IMG_4394.mov"].startswith("failed: IMG_4394.mov is 3.4 MB, larger than the 1 MB"), shown
        assert shown["Landscape_5.jpg"] == "added", shown
        panel = driver.find_element(By.ID, "uploads").rect
        assert panel["width"] >= 380, f"the panel spans a phone's width: {panel}"
        screenshot(driver, "upload-phone.png")
    finally:
        driver.quit()
        server.stop()

"""Downloads from the page, saved by Chromium's own download manager: a Live Photo from
its view (still and movie, one stem), a photo as itself, a selection as a ZIP the
gallery makes as it sends it (names as `camlib export` gives them, bytes identical to
the library's), and a download cut off half-way that leaves nothing behind."""
import hashlib
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from conftest import MEDIA, screenshot, wait_for
from test_gallery import open_asset


def downloads_into(browser):
    folder = Path(tempfile.mkdtemp(prefix="camlib-downloads-"))
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)})
    return folder


def saved(folder, suffix, timeout=60):
    """The file the browser finished saving into `folder` (no .crdownload left)."""
    def done():
        files = [p for p in folder.iterdir() if not p.name.endswith(".crdownload")]
        partial = [p for p in folder.iterdir() if p.name.endswith(".crdownload")]
        return files[0] if files and not partial and files[0].name.endswith(suffix) else None
    return wait_for(done, timeout=timeout, what=f"a {suffix} download")


def originals_by_sha(library_path):
    return {hashlib.sha256(p.read_bytes()).hexdigest(): p for p in (library_path / "originals").rglob("*") if p.is_file()}


def find(library, name):
    """The asset (as `camlib query --json` lists it) holding the original named `name`."""
    for asset in library["assets"]:
        if name in [r.get("originalName") for r in asset["resources"]]:
            return asset
    raise AssertionError(f"no asset with {name}")


def test_a_live_photo_and_a_photo_download_from_their_view(library, server, browser):
    folder = downloads_into(browser)
    live = find(library, "IMG_4394.HEIC")
    open_asset(browser, server, live["id"])
    link = browser.find_element(By.ID, "download")
    assert link.is_displayed() and not browser.find_element(By.ID, "downloadOriginal").is_displayed()
    ActionChains(browser).click(link).perform()
    archive = saved(folder, ".zip")
    assert archive.name == "IMG_4394-originals.zip"
    with zipfile.ZipFile(archive) as z:
        assert sorted(z.namelist()) == ["IMG_4394.HEIC", "IMG_4394.mov"]
        for name in z.namelist():
            assert z.read(name) == (MEDIA / "apple-live-photo" / name).read_bytes(), name
    archive.unlink()
    photo = find(library, "Landscape_3.jpg")
    open_asset(browser, server, photo["id"])
    ActionChains(browser).click(browser.find_element(By.ID, "download")).perform()
    single = saved(folder, ".jpg")
    assert single.name == "Landscape_3.jpg" and single.read_bytes() == (MEDIA / "orientation" / "Landscape_3.jpg").read_bytes()


def test_a_selection_downloads_as_one_zip_named_as_export_names(library, server, browser):
    folder = downloads_into(browser)
    browser.get(server.base + "/")
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, ".tile")) > 10, what="the timeline")
    chosen = [find(library, n)["id"] for n in ("IMG_4394.HEIC", "Landscape_1.jpg", "Landscape_2.jpg")]
    for asset_id in chosen:
        tile = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, f'.tile[data-id="{asset_id}"]'), what=f"tile {asset_id}")
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", tile)
        ActionChains(browser).move_to_element(tile).perform()
        ActionChains(browser).click(tile.find_element(By.CSS_SELECTOR, ".pick")).perform()
    wait_for(lambda: "3 assets selected" in browser.find_element(By.ID, "selectionCount").text, what="three selected")
    screenshot(browser, "download-selection.png")
    select = browser.find_element(By.ID, "selDownload")
    ActionChains(browser).click(select).perform()
    browser.find_element(By.CSS_SELECTOR, '#selDownload option[value="original"]').click()
    archive = saved(folder, ".zip")
    assert archive.name == "camlib-3-assets-originals.zip"
    library_files = originals_by_sha(library["path"])
    with zipfile.ZipFile(archive) as z:
        assert z.testzip() is None
        names = sorted(z.namelist())
        assert names == ["IMG_4394.HEIC", "IMG_4394.mov", "Landscape_1.jpg", "Landscape_2.jpg"], names
        for name in names:
            assert hashlib.sha256(z.read(name)).hexdigest() in library_files, f"{name} is byte for byte a file of the library"


def test_a_download_cut_off_half_way_leaves_nothing_behind(library, server):
    ids = ",".join(str(a["id"]) for a in library["assets"])
    tmp = library["path"] / "tmp"
    before = sorted(p.name for p in tmp.iterdir()) if tmp.exists() else []
    with urllib.request.urlopen(f"{server.base}/download?assets={ids}&version=original", timeout=30) as response:
        length = int(response.headers["Content-Length"])
        assert length > 1 << 20 and response.headers["Content-Type"] == "application/zip"
        response.read(256 * 1024)
    # Closed after a quarter of a megabyte; the gallery goes on, and wrote nothing.
    time.sleep(0.5)
    with urllib.request.urlopen(f"{server.base}/api/work", timeout=30) as response:
        assert response.status == 200
    after = sorted(p.name for p in tmp.iterdir()) if tmp.exists() else []
    assert after == before
    # The whole archive, read to its end, is as long as announced and sound.
    with urllib.request.urlopen(f"{server.base}/download?assets={ids}&version=original", timeout=120) as response:
        body = response.read()
    assert len(body) == length
    path = Path(tempfile.mkdtemp()) / "all.zip"
    path.write_bytes(body)
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        assert len(z.namelist()) >= len(library["assets"])

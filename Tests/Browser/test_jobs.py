"""The library's jobs seen from the gallery: what an import left waits, the bar says so,
and when a worker has done it the bar is clear and the tiles show their thumbnails."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import CAMLIB, MEDIA, Server, camlib, screenshot, wait_for


def test_the_bar_shows_work_waiting_and_clears_when_a_worker_has_done_it(browser):
    folder = Path(tempfile.mkdtemp(prefix="camlib-browser-jobs-"))
    lib = folder / "library"
    camlib("import", "--library", str(lib), "--no-wait", str(MEDIA / "orientation"))
    # No workers beside the gallery: the thumbnails wait.
    server = Server(lib, "--no-worker")
    try:
        browser.get(server.url)
        work = wait_for(lambda: browser.find_element("id", "work").is_displayed() and browser.find_element("id", "work"),
                        what="the jobs in the bar")
        assert "waiting for a worker" in work.text, work.text
        # The tiles whose thumbnails wait are placeholders, with no picture asked for.
        pending = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, ".tile.pending"), what="placeholder tiles")
        assert all(t.get_attribute("aria-busy") == "true" for t in pending)
        assert browser.execute_script("return [...document.querySelectorAll('.tile.pending img')].every(i => !i.getAttribute('src'))")
        screenshot(browser, "jobs-waiting.png")
        subprocess.run([str(CAMLIB), "worker", "--library", str(lib), "--until-idle"], check=True, capture_output=True, timeout=600)
        wait_for(lambda: not browser.find_element("id", "work").is_displayed(), timeout=40, what="the bar to clear")
        # The placeholders fill in with their thumbnails, the page left as it was.
        wait_for(lambda: not browser.find_elements(By.CSS_SELECTOR, ".tile.pending"), timeout=20, what="the placeholders to fill in")
        wait_for(lambda: browser.execute_script(
            "return [...document.querySelectorAll('.tile img')].slice(0, 8).every(i => i.complete && i.naturalWidth > 0)"), what="the first thumbnails")
        screenshot(browser, "jobs-done.png")
    finally:
        assert server.stop() == 0
        subprocess.run(["chmod", "-R", "u+w", str(folder)])
        subprocess.run(["rm", "-rf", str(folder)])


def test_a_selection_is_edited_with_a_filter_from_its_bar(browser):
    folder = Path(tempfile.mkdtemp(prefix="camlib-browser-batch-"))
    lib = folder / "library"
    camlib("import", "--library", str(lib), *[str(MEDIA / "orientation" / f"Landscape_{n}.jpg") for n in (1, 2, 3)])
    listing = json.loads(camlib("query", "--library", str(lib), "--json").stdout)
    chosen = [a["id"] for a in listing[:2]]
    server = Server(lib)
    try:
        browser.get(server.url)
        wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, ".tile")) == 3, what="the tiles")
        before = {i: browser.find_element(By.CSS_SELECTOR, f'.tile[data-id="{i}"] img').get_attribute("src") for i in chosen}
        # Chosen with the rings that show when the pointer rests on a tile.
        for asset_id in chosen:
            tile = browser.find_element(By.CSS_SELECTOR, f'.tile[data-id="{asset_id}"]')
            ActionChains(browser).move_to_element(tile).pause(0.2).click(tile.find_element(By.CSS_SELECTOR, ".pick")).perform()
        wait_for(lambda: browser.find_element(By.ID, "selectionCount").text == "2 assets selected")
        Select(browser.find_element(By.ID, "selEdit")).select_by_visible_text("noir")
        wait_for(lambda: "2 assets edited with noir." in browser.find_element(By.ID, "selectionStatus").text, timeout=300,
                 what="the batch to be done")
        # The tiles show the edits; the library has them, and the third asset is untouched.
        wait_for(lambda: all(browser.find_element(By.CSS_SELECTOR, f'.tile[data-id="{i}"] img').get_attribute("src") != before[i]
                             for i in chosen), what="the edited thumbnails")
        wait_for(lambda: browser.execute_script(
            "return [...document.querySelectorAll('.tile img')].every(i => i.complete && i.naturalWidth > 0)"), what="the thumbnails")
        screenshot(browser, "batch-edit.png")
        after = {a["id"]: a for a in json.loads(camlib("query", "--library", str(lib), "--json").stdout)}
        for asset_id, asset in after.items():
            current = [a for a in asset["adjustments"] if a["current"]]
            if asset_id in chosen:
                assert current and "noir" in current[0]["data"], asset
            else:
                assert not current, asset
    finally:
        assert server.stop() == 0
        shutil.rmtree(folder, ignore_errors=True)


def test_an_edit_goes_on_through_a_restart_of_the_gallery(browser):
    """The page's edit is a job: `camlib serve` stopped while it renders and started again,
    the edit is done by the new gallery's workers, and the page that asked says so."""
    folder = Path(tempfile.mkdtemp(prefix="camlib-browser-restart-"))
    lib = folder / "library"
    camlib("import", "--library", str(lib), str(MEDIA / "apple-live-photo"))
    live = next(a for a in json.loads(camlib("query", "--library", str(lib), "--kind", "live", "--json").stdout))
    server = Server(lib)
    port = int(server.base.rsplit(":", 1)[1])
    try:
        browser.get(f"{server.base}/?asset={live['id']}")
        wait_for(lambda: not browser.find_element(By.ID, "viewer").get_attribute("hidden"), what="the viewer")
        wait_for(lambda: not browser.execute_script("return document.getElementById('editorControls').inert"), what="the editor")
        looks = browser.find_element(By.CSS_SELECTOR, "#looksGroup summary")
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", looks)
        looks.click()
        browser.find_element(By.CSS_SELECTOR, '#filterChoices input[value="comic"]').click()
        wait_for(lambda: browser.find_element(By.ID, "applyEdit").is_enabled(), what="something to apply")
        browser.find_element(By.ID, "applyEdit").click()
        catalog = str(lib / "catalog.sqlite")

        def job_state():
            return subprocess.run(["sqlite3", catalog, "SELECT state FROM job WHERE kind = 'render'"], capture_output=True, text=True).stdout.strip()
        wait_for(lambda: job_state() == "running", timeout=120, what="the render to run")
        # Held where it is, the render cannot finish in the few seconds a stopping gallery
        # gives its workers: it is cut off, as a longer render would be.
        workers = subprocess.run(["pgrep", "-f", f"worker --child --library {lib}"], capture_output=True, text=True).stdout.split()
        assert workers, "the gallery's workers"
        for pid in workers:
            os.kill(int(pid), signal.SIGSTOP)
        assert server.stop() == 0
        assert job_state() in ("running", "available"), job_state()
        wait_for(lambda: "does not answer" in browser.find_element(By.ID, "editStatus").text, what="the page to notice")
        screenshot(browser, "edit-restart-waiting.png")
        server = Server(lib, port=port)
        wait_for(lambda: "Done: the edit is the current version." in browser.find_element(By.ID, "editStatus").text, timeout=600,
                 what="the edit to be done by the new gallery")
        assert "comic" in browser.find_element(By.ID, "history").text
        wait_for(lambda: "loading" not in browser.find_element(By.ID, "stage").get_attribute("class"), what="the edit shown")
        screenshot(browser, "edit-restart-done.png")
        shown = json.loads(camlib("show", "--library", str(lib), str(live["id"]), "--json").stdout)
        assert [a for a in shown["adjustments"] if a["current"] and "comic" in a["data"]], shown["adjustments"]
    finally:
        assert server.stop() == 0
        shutil.rmtree(folder, ignore_errors=True)

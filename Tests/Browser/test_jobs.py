"""The library's jobs seen from the gallery: what an import left waits, the bar says so,
and when a worker has done it the bar is clear and the tiles show their thumbnails."""
import subprocess
import tempfile
from pathlib import Path

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
        screenshot(browser, "jobs-waiting.png")
        subprocess.run([str(CAMLIB), "worker", "--library", str(lib), "--until-idle"], check=True, capture_output=True, timeout=600)
        wait_for(lambda: not browser.find_element("id", "work").is_displayed(), timeout=40, what="the bar to clear")
        # Every tile's thumbnail loads.
        browser.refresh()
        wait_for(lambda: len(browser.find_elements("css selector", ".tile img")) > 10, what="the tiles")
        wait_for(lambda: browser.execute_script(
            "return [...document.querySelectorAll('.tile img')].slice(0, 8).every(i => i.complete && i.naturalWidth > 0)"), what="the first thumbnails")
        screenshot(browser, "jobs-done.png")
    finally:
        assert server.stop() == 0
        subprocess.run(["chmod", "-R", "u+w", str(folder)])
        subprocess.run(["rm", "-rf", str(folder)])

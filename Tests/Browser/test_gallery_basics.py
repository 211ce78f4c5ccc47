"""The gallery's basics as a person meets them, with real pointer, keyboard and touch
events in Chromium, at 1440x900 and at a phone's 390x844 with touch."""
import json
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import MEDIA, Server, camlib, screenshot, wait_for


def tile_of(driver, asset_id):
    tile = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, f'.tile[data-id="{asset_id}"]'), what=f"tile {asset_id}")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", tile)
    return tile


def first_of_kind(library, kind):
    return next(a for a in library["assets"] if a["kind"] == kind and any(r["role"] == "pairedVideo" for r in a["resources"]))


def viewer_open(driver):
    return driver.execute_script("return !document.getElementById('viewer').hidden")


def touch_actions(driver):
    return ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))


def test_a_mouse_click_on_a_live_tile_opens_it_and_its_ring_selects_it(library, server, desktop):
    for kind in ["live", "motion"]:
        asset = first_of_kind(library, kind)
        desktop.get(f"{server.base}/")
        tile = tile_of(desktop, asset["id"])
        ActionChains(desktop).move_to_element(tile).perform()
        # The hover movie is there (playing or on its way): the click lands on the tile.
        wait_for(lambda: tile.find_elements(By.TAG_NAME, "video"), what="the hover movie")
        ActionChains(desktop).click(tile).perform()
        wait_for(lambda: viewer_open(desktop), what=f"one click to open the {kind} tile")
        desktop.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        wait_for(lambda: not viewer_open(desktop), what="Escape to close")
    # The ring of a Live tile, with its movie playing under the pointer, selects it.
    asset = first_of_kind(library, "live")
    tile = tile_of(desktop, asset["id"])
    ActionChains(desktop).move_to_element(tile).perform()
    wait_for(lambda: tile.find_elements(By.TAG_NAME, "video"), what="the hover movie")
    ActionChains(desktop).click(tile.find_element(By.CSS_SELECTOR, ".pick")).perform()
    wait_for(lambda: "selected" in tile.get_attribute("class"), what="the ring to select")
    assert not viewer_open(desktop)
    screenshot(desktop, "basics-live-tile-selected.png")


def test_the_viewer_is_a_dialog_that_back_closes_and_edits_do_not_carry_over(library, server, desktop):
    desktop.get(f"{server.base}/")
    wait_for(lambda: len(desktop.find_elements(By.CSS_SELECTOR, ".tile")) > 5)
    photo = next(a for a in library["assets"] if a["kind"] == "photo")
    ActionChains(desktop).click(tile_of(desktop, photo["id"])).perform()
    wait_for(lambda: viewer_open(desktop))
    viewer = desktop.find_element(By.ID, "viewer")
    assert viewer.get_attribute("role") == "dialog" and viewer.get_attribute("aria-modal") == "true"
    # Focus starts in the viewer and Tab goes round its controls, never to the tiles.
    for _ in range(40):
        ActionChains(desktop).send_keys(Keys.TAB).perform()
        assert desktop.execute_script("return document.getElementById('viewer').contains(document.activeElement)")
    # Tick a filter and preview it, then go to the next asset: nothing carries over.
    wait_for(lambda: not desktop.execute_script("return document.getElementById('editorControls').inert"), what="the editor")
    looks = desktop.find_element(By.CSS_SELECTOR, "#looksGroup summary")
    desktop.execute_script("arguments[0].scrollIntoView({block: 'center'})", looks)
    ActionChains(desktop).click(looks).perform()
    box = desktop.find_element(By.CSS_SELECTOR, '#filterChoices input[value="mono"]')
    ActionChains(desktop).click(box).perform()
    wait_for(lambda: "Preview (not saved)" in desktop.find_element(By.ID, "editStatus").text, what="the preview")
    panel = desktop.find_element(By.ID, "panel")
    desktop.execute_script("arguments[0].scrollTop = 400", panel)
    ActionChains(desktop).move_to_element(desktop.find_element(By.ID, "stage")).click().perform()
    ActionChains(desktop).send_keys(Keys.ARROW_RIGHT).perform()
    wait_for(lambda: f"asset={photo['id']}" not in desktop.current_url, what="the next asset")
    # The next asset's looks are its own edit's (an Apple black and white has mono), not mono carried over.
    wait_for(lambda: not desktop.execute_script("return document.getElementById('editorControls').inert"), what="the editor")
    shown = int(urllib.parse.parse_qs(urllib.parse.urlparse(desktop.current_url).query)["asset"][0])
    start = json.loads(urllib.request.urlopen(f"{server.base}/api/assets/{shown}/editor").read())
    own = {step.split(":")[0] for step in start["steps"]}
    ticked = {box.get_attribute("value") for box in desktop.find_elements(By.CSS_SELECTOR, "#filterChoices input:checked")}
    assert ticked <= own, (ticked, start)
    assert desktop.find_element(By.ID, "editStatus").text == ""
    assert desktop.execute_script("return document.getElementById('panel').scrollTop") == 0
    # The info reads as people read it: no ISO time, no asset number; files under a disclosure.
    info = desktop.find_element(By.ID, "info").text
    assert "T" not in "".join(w for w in info.split() if w[:4].isdigit() and "-" in w), info
    assert "Asset\n" not in info
    assert desktop.find_element(By.ID, "fileDetails").get_attribute("open") is None
    screenshot(desktop, "basics-viewer-desktop.png")
    # The browser's Back closes the photo and stays on the timeline.
    desktop.back()
    wait_for(lambda: not viewer_open(desktop), what="Back to close the viewer")
    assert desktop.current_url.startswith(server.base) and "asset=" not in desktop.current_url
    assert desktop.find_elements(By.CSS_SELECTOR, ".tile")


def test_shift_click_selects_a_range_and_ctrl_a_selects_every_tile(library, server, desktop):
    desktop.get(f"{server.base}/")
    wait_for(lambda: len(desktop.find_elements(By.CSS_SELECTOR, ".tile")) == len(library["assets"]))
    tiles = desktop.find_elements(By.CSS_SELECTOR, ".tile")
    desktop.execute_script("arguments[0].scrollIntoView({block: 'center'})", tiles[1])
    ActionChains(desktop).move_to_element(tiles[1]).click(tiles[1].find_element(By.CSS_SELECTOR, ".pick")).perform()
    ActionChains(desktop).key_down(Keys.SHIFT).click(tiles[5]).key_up(Keys.SHIFT).perform()
    wait_for(lambda: len(desktop.find_elements(By.CSS_SELECTOR, ".tile.selected")) == 5, what="a range of five")
    ActionChains(desktop).send_keys(Keys.ESCAPE).perform()
    wait_for(lambda: not desktop.find_elements(By.CSS_SELECTOR, ".tile.selected"))
    ActionChains(desktop).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
    wait_for(lambda: len(desktop.find_elements(By.CSS_SELECTOR, ".tile.selected")) == len(tiles), what="every tile")
    assert desktop.execute_script("return String(getSelection())") == ""


def test_on_a_phone_the_filters_stay_three_tiles_fit_a_row_and_touch_works(library, server, phone):
    phone.get(f"{server.base}/")
    wait_for(lambda: len(phone.find_elements(By.CSS_SELECTOR, ".tile")) > 10)
    kind = phone.find_element(By.CSS_SELECTOR, '#filters select[name="kind"]')
    assert kind.size["width"] > 60 and phone.find_element(By.ID, "filters").size["width"] > 300
    # The most tiles side by side in a row, and how much of the width a row of them fills.
    row = phone.execute_script(
        "const rows = new Map(); for (const t of document.querySelectorAll('.day .tile')) {"
        "  const r = t.getBoundingClientRect(); const k = Math.round(r.top); const e = rows.get(k) || {n: 0, right: 0};"
        "  rows.set(k, {n: e.n + 1, right: Math.max(e.right, r.right)}); }"
        "return [...rows.values()].sort((a, b) => b.n - a.n)[0]")
    assert row["n"] >= 3, row
    assert row["right"] > 390 * 0.85, f"a row of tiles leaves the screen's right side empty: {row}"
    # The filters work from there: a tap on the kind, a choice.
    ActionChains(phone).click(kind).perform()
    phone.execute_script("arguments[0].value = 'live'; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", kind)
    wait_for(lambda: "kind=live" in phone.current_url)
    screenshot(phone, "basics-phone-timeline.png")
    # Press and hold a Live Photo: its movie plays; lifting the finger does not open it.
    asset = first_of_kind(library, "live")
    tile = tile_of(phone, asset["id"])
    rect = phone.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]", tile)
    hold = touch_actions(phone)
    hold.pointer_action.move_to_location(int(rect[0]), int(rect[1])).pointer_down().pause(1.2).pointer_up()
    hold.perform()
    time.sleep(0.5)
    assert not viewer_open(phone), "lifting a finger after press-and-hold opened the viewer"
    # A tap opens it; a swipe with some vertical drift goes to the next asset.
    tap = touch_actions(phone)
    tap.pointer_action.move_to_location(int(rect[0]), int(rect[1])).pointer_down().pointer_up()
    tap.perform()
    wait_for(lambda: viewer_open(phone), what="a tap to open")
    before = phone.current_url
    stage = phone.find_element(By.ID, "stage").rect
    # Towards the next asset, or the previous one from the last.
    last = phone.execute_script("const ts = document.querySelectorAll('.tile'); return ts[ts.length - 1].dataset.id") == str(asset["id"])
    direction = 1 if last else -1
    x, y = int(stage["x"] + stage["width"] * (0.2 if last else 0.8)), int(stage["y"] + stage["height"] * 0.5)
    swipe = touch_actions(phone)
    swipe.pointer_action.move_to_location(x, y).pointer_down()
    for i in range(1, 9):
        swipe.pointer_action.move_to_location(x + direction * i * 25, y + i * 4)
    swipe.pointer_action.pointer_up()
    swipe.perform()
    wait_for(lambda: phone.current_url != before, what="the swipe to go to the neighbouring asset")
    screenshot(phone, "basics-phone-viewer.png")


@pytest.fixture
def small_library():
    """A library of its own: two photos, one of which loses its original."""
    folder = Path(tempfile.mkdtemp(prefix="camlib-basics-"))
    lib = folder / "library"
    camlib("import", "--library", str(lib), str(MEDIA / "orientation" / "Landscape_1.jpg"), str(MEDIA / "orientation" / "Landscape_2.jpg"))
    yield lib
    subprocess.run(["chmod", "-R", "u+w", str(folder)])
    shutil.rmtree(folder, ignore_errors=True)


def test_failures_are_shown_as_failures(small_library, desktop):
    server = Server(small_library)
    try:
        desktop.get(f"{server.base}/")
        wait_for(lambda: len(desktop.find_elements(By.CSS_SELECTOR, ".tile")) == 2)
        # A missing original: the stage says why, no broken image.
        originals = sorted((small_library / "originals").rglob("*.jpg"))
        subprocess.run(["chmod", "u+w", str(originals[0].parent)])
        victim = originals[0]
        victim.chmod(0o644)
        victim.unlink()
        shutil.rmtree(small_library / "derived" / "previews", ignore_errors=True)
        for tile in desktop.find_elements(By.CSS_SELECTOR, ".tile"):
            ActionChains(desktop).click(tile).perform()
            wait_for(lambda: viewer_open(desktop))
            shown = wait_for(lambda: desktop.execute_script(
                "const s = document.getElementById('still'), m = document.getElementById('stageMessage');"
                "return !m.hidden ? 'message' : (s.complete && s.naturalWidth > 0 ? 'picture' : '')"), what="the still or a message")
            if shown == "message":
                text = desktop.find_element(By.ID, "stageMessage").text
                assert text.startswith("This picture cannot be shown:") and len(text) > 40, text
                screenshot(desktop, "basics-missing-original.png")
                break
            desktop.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
            wait_for(lambda: not viewer_open(desktop))
        else:
            raise AssertionError("no asset showed that its original is missing")
        desktop.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        # An unknown album offers no Rename or Delete; the empty trash's button looks disabled.
        desktop.get(f"{server.base}/?album=No%20such%20album")
        wait_for(lambda: "No album of this name" in desktop.find_element(By.ID, "viewNote").text)
        assert not desktop.find_element(By.ID, "albumTools").is_displayed()
        desktop.get(f"{server.base}/?trashed=1")
        button = wait_for(lambda: desktop.find_element(By.ID, "emptyTrash"))
        wait_for(lambda: button.get_attribute("disabled") is not None, what="Empty trash disabled")
        assert float(desktop.execute_script("return getComputedStyle(arguments[0]).opacity", button)) < 0.6
        # The server goes away: the count does not go on saying what it showed.
        desktop.get(f"{server.base}/")
        wait_for(lambda: "shown" in desktop.find_element(By.ID, "count").text)
    finally:
        server.stop()
    kind = desktop.find_element(By.CSS_SELECTOR, '#filters select[name="kind"]')
    desktop.execute_script("arguments[0].value = 'photo'; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", kind)
    wait_for(lambda: "not connected" in desktop.find_element(By.ID, "count").text, what="the count to say the gallery is gone")
    assert "Could not load" in desktop.find_element(By.ID, "status").text


def test_an_empty_library_says_how_to_add_photos(desktop):
    folder = Path(tempfile.mkdtemp(prefix="camlib-empty-"))
    lib = folder / "library"
    camlib("import", "--library", str(lib), str(MEDIA / "orientation" / "Landscape_1.jpg"))
    camlib("trash", "--library", str(lib), "1")
    camlib("trash", "--library", str(lib), "--empty", "--yes")
    server = Server(lib)
    try:
        desktop.get(f"{server.base}/")
        wait_for(lambda: "library is empty" in desktop.find_element(By.ID, "status").text, what="the empty library's words")
        assert "camlib import" in desktop.find_element(By.ID, "status").text
    finally:
        server.stop()
        subprocess.run(["chmod", "-R", "u+w", str(folder)])
        shutil.rmtree(folder, ignore_errors=True)


def test_a_year_on_the_scrubber_lands_on_a_row_of_that_year(library, server, desktop):
    desktop.get(f"{server.base}/")
    wait_for(lambda: desktop.find_elements(By.CSS_SELECTOR, "#scrubTrack .year"))
    years = [b.text for b in desktop.find_elements(By.CSS_SELECTOR, "#scrubTrack .year")]
    assert len(years) > 2, years
    for year in years[1:4]:
        # A click where the year is written.
        label = next(e for e in desktop.find_elements(By.CSS_SELECTOR, "#scrubTrack .year") if e.text == year)
        ActionChains(desktop).move_to_element(label).click().perform()
        first = wait_for(lambda: desktop.execute_script(
            "return [...document.querySelectorAll('.day')].find(d => d.dataset.day.startsWith(arguments[0]))", year),
            what=f"the days of {year}")
        time.sleep(1)  # newer days are put above meanwhile
        row = desktop.execute_script(
            "const top = arguments[0].offsetTop;"
            "return [...document.querySelectorAll('.day')].filter(d => d.offsetTop === top).map(d => d.dataset.day)", first)
        assert row and all(day.startswith(year) for day in row), f"{year}: the row holds {row}"
        # It is on the screen, near its top.
        top = desktop.execute_script("return arguments[0].getBoundingClientRect().top", first)
        assert -5 < top < 400, top
    screenshot(desktop, "basics-scrubber-year.png")


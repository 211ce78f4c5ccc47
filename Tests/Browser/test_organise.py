"""Favourites, albums, keywords and the trash, done in the page as a person does them, and
checked in the library through `camlib` itself. A library of its own: these tests change it."""
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import require_media, MEDIA, Server, camlib, screenshot, wait_for

FILES = ["apple-live-photo", "apple-portrait-jpeg", "orientation/Landscape_1.jpg", "orientation/Landscape_2.jpg",
         "orientation/Landscape_3.jpg", "orientation/Landscape_4.jpg"]


@pytest.fixture(scope="module")
def own():
    require_media()
    folder = Path(tempfile.mkdtemp(prefix="camlib-organise-"))
    lib = folder / "library"
    camlib("import", "--library", str(lib), *[str(MEDIA / f) for f in FILES])
    server = Server(lib)
    yield {"path": lib, "server": server}
    assert server.stop() == 0
    shutil.rmtree(folder, ignore_errors=True)


def cli(own, *args):
    return json.loads(camlib(*args, "--library", str(own["path"]), "--json").stdout)


def named(own, name):
    for asset in cli(own, "query"):
        if any(r.get("originalName") == name for r in asset["resources"]):
            return asset
    raise AssertionError(f"no asset named {name}")


def shown(browser):
    return sorted(int(t.get_attribute("data-id")) for t in browser.find_elements(By.CSS_SELECTOR, ".tile"))


def open_asset(browser, own, asset_id, query=""):
    browser.get(f"{own['server'].base}/?{query}{'&' if query else ''}asset={asset_id}")
    wait_for(lambda: not browser.find_element(By.ID, "viewer").get_attribute("hidden")
             and browser.find_element(By.ID, "title").text != "", what=f"asset {asset_id} in the viewer")


def status(browser):
    return browser.find_element(By.ID, "organiseStatus").text


def test_a_favourite_marked_in_the_viewer_shows_on_its_tile_and_in_favourites(own, browser):
    asset = named(own, "Landscape_1.jpg")
    open_asset(browser, own, asset["id"])
    button = browser.find_element(By.ID, "favorite")
    assert button.get_attribute("aria-pressed") == "false"
    button.click()
    wait_for(lambda: button.get_attribute("aria-pressed") == "true", what="the favourite button pressed")
    assert cli(own, "show", str(asset["id"]))["favorite"] is True
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, f'.tile[data-id="{asset["id"]}"] .badge.fav'), what="the heart on the tile")

    browser.get(f"{own['server'].base}/?favorite=1")
    wait_for(lambda: shown(browser) == [asset["id"]], what="the favourites")
    assert browser.find_element(By.ID, "viewTitle").text == "Favourites"
    assert browser.find_element(By.CSS_SELECTOR, '#views a[aria-current="page"]').text == "Favourites"
    # "." unmarks it, as in Apple Photos; on closing the viewer it leaves Favourites.
    browser.find_element(By.CSS_SELECTOR, ".tile").click()
    wait_for(lambda: not browser.find_element(By.ID, "viewer").get_attribute("hidden"))
    browser.find_element(By.TAG_NAME, "body").send_keys(".")
    wait_for(lambda: browser.find_element(By.ID, "favorite").get_attribute("aria-pressed") == "false")
    assert cli(own, "show", str(asset["id"]))["favorite"] is False
    browser.find_element(By.ID, "close").click()
    wait_for(lambda: shown(browser) == [], what="the favourite gone from Favourites")


def test_albums_are_made_filled_shown_renamed_and_deleted_in_the_page(own, browser):
    first, second, third = (named(own, f"Landscape_{n}.jpg")["id"] for n in (2, 3, 4))
    # A new album from the viewer, with this asset in it.
    open_asset(browser, own, first)
    browser.find_element(By.ID, "newAlbumForAsset").send_keys("Lisbon")
    browser.find_element(By.CSS_SELECTOR, "#albumForm button").click()
    wait_for(lambda: browser.find_element(By.ID, "albumChips").text.startswith("Lisbon"), what="the album's chip")
    assert [a["name"] for a in cli(own, "album", "list")] == ["Lisbon"]
    # Two more, chosen with the tiles' rings and added from the selection's bar.
    browser.get(f"{own['server'].base}/")
    wait_for(lambda: len(shown(browser)) > 3)
    for asset_id in (second, third):
        browser.execute_script("arguments[0].click()", browser.find_element(By.CSS_SELECTOR, f'.tile[data-id="{asset_id}"] .pick'))
    wait_for(lambda: browser.find_element(By.ID, "selectionCount").text == "2 assets selected")
    assert browser.find_element(By.ID, "viewer").get_attribute("hidden"), "choosing a tile does not open it"
    screenshot(browser, "selection.png")
    Select(browser.find_element(By.ID, "selAlbum")).select_by_visible_text("Lisbon")
    wait_for(lambda: "Added to" in browser.find_element(By.ID, "selectionStatus").text, what="the selection added")
    listed = cli(own, "album", "list")
    assert listed[0]["assets"] == 3

    # The albums: a card with its cover and size; in the album, its assets.
    browser.get(f"{own['server'].base}/?view=albums")
    card = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, ".album"))
    assert "Lisbon" in card.text and "3 assets" in card.text
    wait_for(lambda: browser.execute_script("const i = document.querySelector('.album img'); return i.complete && i.naturalWidth > 0"),
             what="the album's cover")
    screenshot(browser, "albums.png")
    card.click()
    wait_for(lambda: shown(browser) == sorted([first, second, third]), what="the album's assets")
    assert browser.find_element(By.ID, "viewTitle").text == "Lisbon"
    # In the album's own order (the order they were added), not by date.
    in_page = [int(t.get_attribute("data-id")) for t in browser.find_elements(By.CSS_SELECTOR, ".tile")]
    assert in_page == [first, second, third], in_page
    assert "in the album's order" in browser.find_element(By.ID, "viewNote").text

    # A cover chosen in the album; then a rename.
    browser.find_element(By.CSS_SELECTOR, f'.tile[data-id="{third}"]').click()
    cover = wait_for(lambda: browser.find_element(By.ID, "makeCover"))
    wait_for(lambda: cover.is_displayed() and cover.is_enabled())
    cover.click()
    wait_for(lambda: cli(own, "album", "list")[0]["cover"] == third, what="the cover chosen")
    screenshot(browser, "organise-viewer.png")
    # Taken out of the album from its chip: it leaves the album's view when the viewer closes.
    browser.find_element(By.CSS_SELECTOR, "#albumChips button").click()
    wait_for(lambda: "Taken out" in status(browser))
    browser.find_element(By.ID, "close").click()
    wait_for(lambda: shown(browser) == sorted([first, second]), what="the asset out of the album")
    name = browser.find_element(By.ID, "albumName")
    name.clear()
    name.send_keys("Lisbon 2025")
    browser.find_element(By.ID, "renameAlbum").click()
    wait_for(lambda: [a["name"] for a in cli(own, "album", "list")] == ["Lisbon 2025"], what="the rename")
    wait_for(lambda: "album=Lisbon+2025" in browser.current_url or "album=Lisbon%202025" in browser.current_url)

    # Deleting it asks first, and takes no asset anywhere.
    before = len(cli(own, "query"))
    browser.find_element(By.ID, "deleteAlbum").click()
    alert = wait_for(lambda: browser.switch_to.alert)
    assert "stay in the library" in alert.text
    alert.accept()
    wait_for(lambda: "view=albums" in browser.current_url, what="back to the albums")
    assert cli(own, "album", "list") == []
    assert len(cli(own, "query")) == before


def test_keywords_are_added_found_and_taken_off_in_the_page(own, browser):
    asset = named(own, "Landscape_3.jpg")
    open_asset(browser, own, asset["id"])
    field = browser.find_element(By.ID, "keywordInput")
    field.send_keys("waterfall\n")
    wait_for(lambda: "waterfall" in browser.find_element(By.ID, "keywordChips").text, what="the keyword's chip")
    assert cli(own, "show", str(asset["id"]))["keywords"] == ["waterfall"]
    # The chip leads to the keyword's view, which the filter field shows.
    browser.find_element(By.CSS_SELECTOR, "#keywordChips a").click()
    wait_for(lambda: shown(browser) == [asset["id"]], what="the keyword's assets")
    assert browser.find_element(By.NAME, "keyword").get_attribute("value") == "waterfall"
    open_asset(browser, own, asset["id"])
    browser.find_element(By.CSS_SELECTOR, "#keywordChips button").click()
    wait_for(lambda: browser.find_element(By.ID, "keywordChips").text == "No keywords.")
    assert cli(own, "show", str(asset["id"]))["keywords"] == []


def test_the_trash_takes_assets_out_gives_them_back_and_empties(own, browser):
    everything = sorted(a["id"] for a in cli(own, "query"))
    gone = named(own, "Landscape_4.jpg")["id"]
    # Moved to the trash from the viewer: the viewer goes on to the next asset.
    open_asset(browser, own, gone)
    browser.find_element(By.ID, "trashButton").click()
    wait_for(lambda: f"asset={gone}" not in browser.current_url, what="the next asset")
    assert gone not in shown(browser)
    assert [a["id"] for a in cli(own, "query", "--trashed")] == [gone]
    # In the trash: shown there, changes wait, Restore brings it back whole.
    browser.get(f"{own['server'].base}/?trashed=1")
    wait_for(lambda: shown(browser) == [gone], what="the trash")
    assert "1 asset." in browser.find_element(By.ID, "viewNote").text
    screenshot(browser, "trash.png")
    browser.find_element(By.CSS_SELECTOR, ".tile").click()
    wait_for(lambda: browser.find_element(By.ID, "trashButton").text == "Restore")
    assert "In the trash since" in browser.find_element(By.ID, "trashNote").text
    for control in ("applyEdit", "favorite", "keywordInput"):
        assert not browser.find_element(By.ID, control).is_enabled(), f"{control} in the trash"
    browser.find_element(By.ID, "trashButton").click()
    wait_for(lambda: browser.find_element(By.ID, "viewer").get_attribute("hidden") is not None, what="the viewer closed: the trash is empty")
    assert sorted(a["id"] for a in cli(own, "query")) == everything

    # Two chosen in the timeline go to the trash together; emptying it asks, then deletes them.
    browser.get(f"{own['server'].base}/")
    wait_for(lambda: shown(browser) == everything)
    doomed = everything[-2:]
    for asset_id in doomed:
        browser.execute_script("arguments[0].click()", browser.find_element(By.CSS_SELECTOR, f'.tile[data-id="{asset_id}"] .pick'))
    browser.find_element(By.ID, "selTrash").click()
    wait_for(lambda: shown(browser) == everything[:-2], what="the chosen tiles gone")
    browser.get(f"{own['server'].base}/?trashed=1")
    wait_for(lambda: shown(browser) == doomed)
    browser.find_element(By.ID, "emptyTrash").click()
    alert = wait_for(lambda: browser.switch_to.alert)
    assert "2 assets for good" in alert.text
    alert.dismiss()
    assert len(cli(own, "query", "--trashed")) == 2, "dismissed: nothing deleted"
    browser.find_element(By.ID, "emptyTrash").click()
    wait_for(lambda: browser.switch_to.alert).accept()
    wait_for(lambda: browser.find_element(By.ID, "viewStatus").text.startswith("Deleted 2 assets"), what="the trash emptied")
    assert shown(browser) == []
    assert cli(own, "query", "--trashed") == []
    assert sorted(a["id"] for a in cli(own, "query")) == everything[:-2]
    report = json.loads(camlib("verify", "--library", str(own["path"]), "--json").stdout)
    assert report["problems"] == [], report

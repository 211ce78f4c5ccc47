"""Places by name in the gallery: each geotagged photo of the corpus named as the
hand-made list (Tests/Fixtures/corpus-places.json) says, in its info panel and its day's
heading; the place's link and the Place filter show what was taken there."""
import json
import shutil
import time
import tempfile
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import require_media, MEDIA, ROOT, Server, TileServer, camlib, screenshot, wait_for

EXPECTED = json.loads((ROOT / "Tests" / "Fixtures" / "corpus-places.json").read_text())["places"]
COUNTRIES = {"US": "United States", "DE": "Germany", "JP": "Japan", "ZA": "South Africa", "CA": "Canada", "PL": "Poland", "UA": "Ukraine"}


def full_name(e):
    parts = [e["city"]] + ([e["region"]] if e["region"] != e["city"] else []) + [COUNTRIES[e["countryCode"]]]
    return ", ".join(parts)


@pytest.fixture(scope="module")
def places_library():
    require_media()
    folder = Path(tempfile.mkdtemp(prefix="camlib-places-"))
    lib = folder / "library"
    # Every file of the list, with the Live Photos' movies beside their stills.
    paths = sorted({str(MEDIA / e["file"]) for e in EXPECTED} | {str(MEDIA / "apple-live-photo")})
    camlib("import", "--library", str(lib), *paths)
    assets = json.loads(camlib("query", "--library", str(lib), "--json").stdout)
    tiles = TileServer()
    server = Server(lib, "--map-tiles", tiles.url)
    yield {"assets": assets, "server": server, "tiles": tiles}
    server.stop()
    tiles.stop()
    shutil.rmtree(folder, ignore_errors=True)


def asset_of(assets, relative):
    name = Path(relative).name
    return next(a for a in assets if any(r.get("originalName") == name for r in a["resources"]))


def visible_ids(driver):
    return {int(t.get_attribute("data-id")) for t in driver.find_elements(By.CSS_SELECTOR, ".tile")}


def test_each_geotagged_photo_shows_its_place_by_name(places_library, desktop):
    assets, server = places_library["assets"], places_library["server"]
    desktop.get(f"{server.base}/")
    wait_for(lambda: len(visible_ids(desktop)) == len(assets), what="every tile")
    for e in EXPECTED:
        asset = asset_of(assets, e["file"])
        tile = desktop.find_element(By.CSS_SELECTOR, f'.tile[data-id="{asset["id"]}"]')
        desktop.execute_script("arguments[0].scrollIntoView({block: 'center'})", tile)
        ActionChains(desktop).click(tile).perform()

        def place_shown():
            terms = desktop.find_elements(By.CSS_SELECTOR, "#info dt")
            values = desktop.find_elements(By.CSS_SELECTOR, "#info dd")
            shown = {t.text: v.text for t, v in zip(terms, values)}
            return shown if shown.get("Place") else None

        shown = wait_for(place_shown, what=f"the place of {e['file']}")
        assert shown["Place"] == full_name(e), (e["file"], shown)
        # The coordinates stay, under the name.
        assert "°" in shown["Coordinates"], shown
        desktop.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        wait_for(lambda: desktop.execute_script("return document.getElementById('viewer').hidden"), what="the viewer to close")
    # A day's heading names the place of its first photo: the town and its region.
    heading = desktop.find_element(By.CSS_SELECTOR, '.day[data-day="2025-08-06"] h2 .place')
    assert heading.text == "Huntsville, Alabama", heading.text
    screenshot(desktop, "places-day-headings.png")


def test_a_place_link_and_the_place_filter_show_what_was_taken_there(places_library, desktop):
    assets, server = places_library["assets"], places_library["server"]
    berlin = {asset_of(assets, e["file"])["id"] for e in EXPECTED if e["region"] == "State of Berlin"}
    alabama = {asset_of(assets, e["file"])["id"] for e in EXPECTED if e["region"] == "Alabama"}
    # The info panel's place is a link to the timeline of that place.
    desktop.get(f"{server.base}/")
    tile = wait_for(lambda: desktop.find_element(By.CSS_SELECTOR, f'.tile[data-id="{min(berlin)}"]'), what="a Berlin tile")
    desktop.execute_script("arguments[0].scrollIntoView({block: 'center'})", tile)
    ActionChains(desktop).click(tile).perform()
    # (The panel is drawn again when the asset's details arrive: the link is found afresh.)
    def click_link():
        link = desktop.find_element(By.CSS_SELECTOR, "#info a.place-link")
        assert link.text == "Steglitz, State of Berlin, Germany", link.text
        ActionChains(desktop).click(link).perform()
        return True

    wait_for(click_link, what="a click on the place's link")
    wait_for(lambda: "place=Steglitz" in desktop.current_url, what="the place in the URL")
    wait_for(lambda: visible_ids(desktop) == berlin, what="the tiles of Steglitz")
    assert desktop.find_element(By.CSS_SELECTOR, '#filters input[name="place"]').get_attribute("value") == "Steglitz"
    # Typing a region into the Place filter, as a person does.
    field = desktop.find_element(By.CSS_SELECTOR, '#filters input[name="place"]')
    ActionChains(desktop).click(field).perform()
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("alabama", Keys.ENTER)
    wait_for(lambda: visible_ids(desktop) == alabama, what="the tiles of Alabama")
    assert "place=alabama" in desktop.current_url
    # The suggestions hold the library's towns, regions and countries.
    options = {o.get_attribute("value") for o in desktop.find_elements(By.CSS_SELECTOR, "#placeList option")}
    assert {"Huntsville", "Alabama", "United States", "Steglitz", "Japan"} <= options, options
    screenshot(desktop, "places-filter.png")


def names_shown(driver, assets):
    by_id = {a["id"]: a for a in assets}
    return {next(r["originalName"] for r in by_id[i]["resources"] if r.get("originalName")) for i in visible_ids(driver)}


def test_typing_a_search_shows_the_right_tiles_with_the_search_in_the_url(places_library, desktop):
    assets, server = places_library["assets"], places_library["server"]
    desktop.get(f"{server.base}/")
    wait_for(lambda: len(visible_ids(desktop)) == len(assets), what="every tile")
    box = desktop.find_element(By.ID, "q")
    ActionChains(desktop).click(box).perform()
    for key in "2025 apple":
        box.send_keys(key)
    box.send_keys(Keys.ENTER)
    wanted = {"IMG_3582.HEIC", "IMG_4076.HEIC", "IMG_4394.HEIC"}
    wait_for(lambda: names_shown(desktop, assets) == wanted, what="the tiles of 2025 apple")
    assert "q=2025+apple" in desktop.current_url, desktop.current_url
    screenshot(desktop, "search-2025-apple.png")
    # The URL alone shows the same: a bookmark, or a reload.
    desktop.get(desktop.current_url)
    wait_for(lambda: names_shown(desktop, assets) == wanted, what="the search again from its URL")
    assert desktop.find_element(By.ID, "q").get_attribute("value") == "2025 apple"
    # Suggestions as one types: a place, picked with the arrow key and Enter.
    box = desktop.find_element(By.ID, "q")
    ActionChains(desktop).click(box).perform()
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)
    for key in "stegl":
        box.send_keys(key)
    items = wait_for(lambda: desktop.find_elements(By.CSS_SELECTOR, "#suggestions li") or None, what="suggestions for stegl")
    assert items[0].text.replace("\n", " ") == "Steglitz Place", items[0].text
    screenshot(desktop, "search-suggestions.png")
    box.send_keys(Keys.ARROW_DOWN, Keys.ENTER)
    berlin = {Path(e["file"]).name for e in EXPECTED if e["city"] == "Steglitz"}
    wait_for(lambda: names_shown(desktop, assets) == berlin, what="the tiles of Steglitz")
    assert box.get_attribute("value") == "Steglitz "
    assert desktop.find_element(By.ID, "suggestions").get_attribute("hidden") is not None
    # Clearing the box shows everything again.
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)
    wait_for(lambda: len(visible_ids(desktop)) == len(assets), what="every tile after clearing")
    assert "q=" not in desktop.current_url


def test_on_a_phone_a_tapped_suggestion_searches(places_library, phone):
    assets, server = places_library["assets"], places_library["server"]
    phone.get(f"{server.base}/")
    wait_for(lambda: len(visible_ids(phone)) > 0, what="the first tiles")
    box = phone.find_element(By.ID, "q")
    # The box has a row of its own, the full width of the screen.
    assert box.size["width"] > 300, box.size
    ActionChains(phone).click(box).perform()
    for key in "alab":
        box.send_keys(key)
    item = wait_for(lambda: next((i for i in phone.find_elements(By.CSS_SELECTOR, "#suggestions li") if i.text.startswith("Alabama")), None),
                    what="Alabama suggested")
    screenshot(phone, "search-phone-suggestions.png")
    # A finger's tap on the suggestion.
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput
    rect = item.rect
    touch = ActionBuilder(phone, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    touch.pointer_action.move_to_location(int(rect["x"] + rect["width"] / 2), int(rect["y"] + rect["height"] / 2)).pointer_down().pause(0.05).pointer_up()
    touch.perform()
    alabama = {Path(e["file"]).name for e in EXPECTED if e["region"] == "Alabama"}
    wait_for(lambda: names_shown(phone, assets) == alabama, what="the tiles of Alabama on the phone")
    assert "q=Alabama" in phone.current_url
    screenshot(phone, "search-phone-results.png")


def cluster_counts(driver):
    return [int(c.get_attribute("data-count")) for c in driver.find_elements(By.CSS_SELECTOR, ".map-cluster .count")]


def test_the_map_shows_the_corpuss_places_and_a_cluster_opens_its_photos(places_library, desktop):
    assets, server, tiles = places_library["assets"], places_library["server"], places_library["tiles"]
    located = [a for a in assets if a["location"]]
    assert len(located) == len(EXPECTED)
    desktop.get(f"{server.base}/")
    link = wait_for(lambda: desktop.find_element(By.CSS_SELECTOR, '#views a[data-view="map"]'), what="the Map link")
    ActionChains(desktop).click(link).perform()
    wait_for(lambda: "view=map" in desktop.current_url, what="the map's URL")
    # Fitted to where the photos are: every located asset in some cluster, once.
    wait_for(lambda: sum(cluster_counts(desktop)) == len(located), what="clusters holding every located asset")
    assert f"{len(located)} photos here" in desktop.find_element(By.ID, "mapNote").text
    # The background came from the test's own tile server (the page may reach no other).
    wait_for(lambda: len(tiles.asked) > 0, what="tiles from the local server")
    screenshot(desktop, "map-world.png")
    # Alabama at zoom 5: Huntsville and Owens Cross Roads (12 km apart) are one cluster of
    # two; the mouse wheel over it zooms in until they are two.
    desktop.get(f"{server.base}/?view=map&at=33.5,-87.0,5")
    pair = wait_for(lambda: next((m for m in desktop.find_elements(By.CSS_SELECTOR, ".map-cluster")
                                  if m.find_element(By.CSS_SELECTOR, ".count").get_attribute("data-count") == "2"), None), what="Huntsville's pair")
    # The wheel over the pair: Leaflet zooms about the pointer, so the pair stays under it
    # (its marker is drawn anew at each zoom: the origin is the map, offset to the pair).
    area, spot = desktop.find_element(By.ID, "map").rect, pair.rect
    dx = int(spot["x"] + spot["width"] / 2 - (area["x"] + area["width"] / 2))
    dy = int(spot["y"] + spot["height"] / 2 - (area["y"] + area["height"] / 2))
    for _ in range(2):
        ActionChains(desktop).scroll_from_origin(ScrollOrigin.from_element(desktop.find_element(By.ID, "map"), dx, dy), 0, -200).perform()
        time.sleep(0.5)
    def zoom():
        at = parse_qs(urlparse(desktop.current_url).query).get("at", ["0,0,0"])[0]
        return int(at.split(",")[2])

    wait_for(lambda: zoom() >= 8, what="zoom 8 or more")
    wait_for(lambda: "2" not in [str(n) for n in cluster_counts(desktop)] and cluster_counts(desktop).count(1) >= 2,
             what="the pair split in two")
    screenshot(desktop, "map-zoomed.png")
    # A cluster, clicked: its photos in the timeline.
    desktop.get(f"{server.base}/?view=map&at=33.5,-87.0,5")
    pair = wait_for(lambda: next((m for m in desktop.find_elements(By.CSS_SELECTOR, ".map-cluster")
                                  if m.find_element(By.CSS_SELECTOR, ".count").get_attribute("data-count") == "2"), None), what="Huntsville's pair again")
    ActionChains(desktop).click(pair).perform()
    wait_for(lambda: "box=" in desktop.current_url, what="the cluster's timeline")
    wanted = {"IMG_4394.HEIC", "IMG_3582.HEIC"}
    wait_for(lambda: names_shown(desktop, assets) == wanted, what="Huntsville's two photos")
    screenshot(desktop, "map-cluster-timeline.png")


def test_the_info_panel_has_a_small_map_of_where_the_photo_was_taken(places_library, desktop):
    assets, server, tiles = places_library["assets"], places_library["server"], places_library["tiles"]
    huntsville = asset_of(assets, "apple-live-photo/IMG_4394.HEIC")
    desktop.get(f"{server.base}/?asset={huntsville['id']}")
    mini = wait_for(lambda: desktop.find_element(By.CSS_SELECTOR, "#miniMap:not([hidden])"), what="the small map")
    wait_for(lambda: mini.find_elements(By.CSS_SELECTOR, "img.leaflet-tile-loaded"), what="its tiles")
    wait_for(lambda: mini.find_elements(By.CSS_SELECTOR, "path.leaflet-interactive"), what="the photo's dot")
    assert any("/12/" in path for path in tiles.asked), tiles.asked[-5:]
    screenshot(desktop, "map-info-panel.png")

"""What a person sees in `camlib serve`, checked in headless Chromium."""
import io
import json
import subprocess
import urllib.error
import urllib.request

import pytest
from PIL import Image, ImageChops, ImageOps, ImageStat
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from conftest import HOSTILE_NAME, MEDIA, Server, camlib, make_driver, pin_today, screenshot, wait_for


def asset_named(library, name):
    for asset in library["assets"]:
        if any(r.get("originalName") == name for r in asset["resources"]):
            return asset
    raise AssertionError(f"no asset named {name}")


def tiles(driver):
    return driver.find_elements(By.CSS_SELECTOR, ".tile")


def scroll_to_the_end(driver):
    def ended():
        driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        return driver.find_element(By.ID, "status").text == "The end of the timeline."
    wait_for(ended, what="the end of the timeline")


def open_asset(driver, server, asset_id):
    driver.get(f"{server.base}/?asset={asset_id}")
    wait_for(lambda: driver.execute_script(
        "const v = document.getElementById('viewer'), s = document.getElementById('still');"
        "return !v.hidden && s.complete && s.naturalWidth > 0"), what=f"asset {asset_id} in the viewer")


def test_the_timeline_shows_one_tile_per_asset(library, server, browser):
    browser.get(f"{server.base}/?pageSize=10")
    wait_for(lambda: len(tiles(browser)) >= 10, what="the first page")
    scroll_to_the_end(browser)
    shown = [int(t.get_attribute("data-id")) for t in tiles(browser)]
    assert sorted(shown) == sorted(a["id"] for a in library["assets"])
    assert len(shown) == len(set(shown)), "an asset shown twice"
    # Every thumbnail loads (HEIC, AVIF, PNG, movies: all as JPEG).
    browser.execute_script("window.scrollTo(0, 0)")
    for tile in tiles(browser):
        browser.execute_script("arguments[0].scrollIntoView()", tile)
        wait_for(lambda: browser.execute_script("const i = arguments[0].querySelector('img'); return i.complete && i.naturalWidth > 0", tile),
                 what=f"thumbnail of asset {tile.get_attribute('data-id')}")
    browser.get(f"{server.base}/")
    wait_for(lambda: len(tiles(browser)) == len(library["assets"]))
    wait_for(lambda: browser.execute_script("return [...document.images].slice(0, 12).every(i => i.complete && i.naturalWidth > 0)"))
    screenshot(browser, "timeline.png")


def test_filters_live_in_the_url(library, server, browser):
    browser.get(f"{server.base}/?kind=live")
    lives = [a["id"] for a in library["assets"] if a["kind"] == "live"]
    wait_for(lambda: len(tiles(browser)) == len(lives), what="the Live Photos only")
    assert {t.get_attribute("data-kind") for t in tiles(browser)} == {"live"}
    assert browser.find_element(By.NAME, "kind").get_attribute("value") == "live"
    # Choosing another filter changes the URL, so the view can be bookmarked.
    browser.find_element(By.NAME, "has").click()
    wait_for(lambda: "has=depth" in browser.current_url and "kind=live" in browser.current_url)
    with_depth = [a["id"] for a in library["assets"] if a["kind"] == "live" and {x["type"] for x in a["aux"]} & {"depth", "disparity"}]
    wait_for(lambda: sorted(int(t.get_attribute("data-id")) for t in tiles(browser)) == sorted(with_depth))


def upright_score(shot, reference):
    """How far a screenshot is from a reference picture (0: the same), both made small and gray."""
    size = (48, 48)
    a = ImageOps.grayscale(shot).resize(size, Image.BILINEAR)
    b = ImageOps.grayscale(reference).resize(size, Image.BILINEAR)
    return ImageStat.Stat(ImageChops.difference(a, b)).mean[0]


def orientation_cases():
    """Each fixture and how it looks upright. Landscape_0..8 carry EXIF orientations of one
    picture, Landscape_1 unturned. The kimono AVIFs hold a turned or mirrored picture (the
    link-u PNG of the same name) and irot/imir turn it back: upright they are kimono.png.
    The .crop ones (clap) and the HEICs have no PNG: None, compared with libheif's own
    heif-convert, the reference decoder, only."""
    cases = [(f"Landscape_{n}.jpg", "Landscape_1.jpg") for n in range(9)]
    for avif in sorted(p.name for p in (MEDIA / "orientation").glob("kimono*.avif")):
        cases.append((avif, None if ".crop" in avif else "kimono.png"))
    for heic in sorted(p.name for p in (MEDIA / "orientation").iterdir() if p.suffix.lower() == ".heic"):
        cases.append((heic, None))
    return cases


def heif_convert(name, folder):
    """The picture as libheif's own heif-convert writes it (irot, imir and clap applied)."""
    out = folder / "reference.png"
    subprocess.run(["heif-convert", str(MEDIA / "orientation" / name), str(out)], check=True, capture_output=True, timeout=300)
    return Image.open(out).convert("RGB")


def chromium_rendering(browser, server, asset):
    """The AVIF as Chromium's own decoder shows it, opened directly."""
    api = json.load(urllib.request.urlopen(f"{server.base}/api/assets/{asset['id']}"))
    browser.get(server.base + api["media"]["original"])
    image = wait_for(lambda: browser.find_element(By.TAG_NAME, "img"))
    wait_for(lambda: browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image))
    return Image.open(io.BytesIO(image.screenshot_as_png)).convert("RGB")


@pytest.mark.parametrize("name,reference", orientation_cases())
def test_each_orientation_fixture_is_shown_upright(library, server, browser, name, reference, tmp_path):
    asset = asset_named(library, name)
    references = []
    if reference:
        references.append(Image.open(MEDIA / "orientation" / reference).convert("RGB"))
        if name.endswith(".avif"):
            # A second decoder: Chromium's own (libavif), reading irot and imir itself
            # (not clap, which it ignores).
            references.append(chromium_rendering(browser, server, asset))
    else:
        references.append(heif_convert(name, tmp_path))
    open_asset(browser, server, asset["id"])
    shot = Image.open(io.BytesIO(browser.find_element(By.ID, "still").screenshot_as_png)).convert("RGB")
    for truth in references:
        assert_upright(name, shot, truth)


def assert_upright(name, shot, truth):
    right = upright_score(shot, truth)
    # Every other way the picture could be turned or mirrored is further from the reference.
    wrong = [upright_score(shot, truth.transpose(t)) for t in (
        Image.Transpose.ROTATE_90, Image.Transpose.ROTATE_180, Image.Transpose.ROTATE_270,
        Image.Transpose.FLIP_LEFT_RIGHT, Image.Transpose.FLIP_TOP_BOTTOM)]
    assert abs(shot.width / shot.height - truth.width / truth.height) < 0.03, f"{name}: shown {shot.size}, reference {truth.size}"
    assert right < 12, f"{name}: {right:.1f} from the reference"
    assert right < min(wrong) - 5, f"{name}: {right:.1f} from the reference, a turned one {min(wrong):.1f}"


@pytest.mark.parametrize("name", ["IMG_3582.HEIC", "IMG_4394.HEIC"])
def test_resting_on_a_live_photo_plays_its_movie(library, server, browser, name):
    asset = asset_named(library, name)
    assert asset["kind"] == "live" and asset["videoCodec"] == "hevc"
    browser.get(f"{server.base}/")
    tile = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, f'.tile[data-id="{asset["id"]}"]'))
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", tile)
    ActionChains(browser).move_to_element(tile).perform()
    # The HEVC movie reaches Chromium as H.264 (made on first request: allow for that).
    first = wait_for(lambda: browser.execute_script(
        "const v = arguments[0].querySelector('video'); return v && !v.paused && v.currentTime > 0 && v.currentTime", tile),
        timeout=120, what="the movie to play")
    wait_for(lambda: browser.execute_script("return arguments[0].querySelector('video').currentTime", tile) > first + 0.2,
             what="the movie to go on playing")
    assert browser.execute_script("return arguments[0].querySelector('video').error", tile) is None
    # The pointer leaves: the movie goes.
    ActionChains(browser).move_to_element(browser.find_element(By.ID, "bar")).perform()
    wait_for(lambda: not tile.find_elements(By.TAG_NAME, "video"), what="the movie to stop")


def test_opening_a_live_photo_plays_it_once_then_shows_the_still(library, server, browser):
    asset = asset_named(library, "IMG_3582.HEIC")
    open_asset(browser, server, asset["id"])
    wait_for(lambda: browser.execute_script("const v = document.getElementById('motion'); return !v.hidden && v.currentTime > 0"),
             timeout=120, what="the motion to play")
    wait_for(lambda: browser.execute_script(
        "return document.getElementById('motion').hidden && !document.getElementById('still').hidden"),
        timeout=30, what="the still after the motion")


def test_the_depth_of_a_portrait_shows_over_the_photo(library, server, browser):
    # An iPhone Portrait photo: its depth comes as disparity, with a portrait matte.
    portrait = next(a for a in library["assets"]
                    if a["make"] == "Apple" and {x["type"] for x in a["aux"] if x["path"]} >= {"disparity", "portraitEffectsMatte"})
    open_asset(browser, server, portrait["id"])
    button = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, '#auxButtons button[data-type="disparity"]'))
    button.click()
    wait_for(lambda: browser.execute_script(
        "const o = document.getElementById('overlay'); return !o.hidden && o.complete && o.naturalWidth > 0"), what="the depth overlay")
    natural = browser.execute_script(
        "const o = document.getElementById('overlay'), s = document.getElementById('still');"
        "return [o.naturalWidth / o.naturalHeight, s.naturalWidth / s.naturalHeight]")
    assert abs(natural[0] - natural[1]) < 0.02, f"depth {natural[0]:.3f} vs photo {natural[1]:.3f}: not in the photo's orientation"
    slider = browser.find_element(By.ID, "opacity")
    browser.execute_script("arguments[0].value = 30; arguments[0].dispatchEvent(new Event('input'))", slider)
    assert browser.execute_script("return document.getElementById('overlay').style.opacity") == "0.3"
    browser.find_element(By.CSS_SELECTOR, '#auxButtons button[data-type="portraitEffectsMatte"]').click()
    wait_for(lambda: "portraitEffectsMatte" in browser.find_element(By.ID, "overlay").get_attribute("src"))
    wait_for(lambda: browser.execute_script("const o = document.getElementById('overlay'); return o.complete && o.naturalWidth > 0"))
    browser.find_element(By.ID, "sideBySide").click()
    assert browser.execute_script("return document.getElementById('stage').classList.contains('sbs') && !document.getElementById('side').hidden")
    button.click()  # the depth, beside the photo
    wait_for(lambda: "disparity" in browser.find_element(By.ID, "side").get_attribute("src"))
    wait_for(lambda: browser.execute_script("const o = document.getElementById('side'); return !o.hidden && o.complete && o.naturalWidth > 0"))
    screenshot(browser, "asset-view.png")


def test_an_edit_made_in_the_page_changes_the_tile_and_revert_brings_it_back(library, server, browser):
    asset = asset_named(library, "Landscape_1.jpg")
    open_asset(browser, server, asset["id"])
    tile = browser.find_element(By.CSS_SELECTOR, f'.tile[data-id="{asset["id"]}"] img')
    before = tile.get_attribute("src")
    wait_for(lambda: not browser.execute_script("return document.getElementById('editorControls').inert"), what="the editor")
    looks = browser.find_element(By.CSS_SELECTOR, "#looksGroup summary")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", looks)
    looks.click()
    browser.find_element(By.CSS_SELECTOR, '#filterChoices input[value="mono"]').click()
    wait_for(lambda: browser.execute_script("return document.getElementById('still').dataset.preview") == "mono", what="the mono preview")
    wait_for(lambda: browser.execute_script("const s = document.getElementById('still'); return s.complete && s.naturalWidth > 0 && s.src.startsWith('blob:')"))
    browser.find_element(By.ID, "applyEdit").click()
    wait_for(lambda: browser.find_element(By.ID, "editStatus").text.startswith("Done"), timeout=120, what="the edit")
    thumbnail = f'.tile[data-id="{asset["id"]}"] img'
    after = browser.find_element(By.CSS_SELECTOR, thumbnail).get_attribute("src")
    assert after != before
    gray = Image.open(io.BytesIO(urllib.request.urlopen(after).read())).convert("RGB")
    assert max(ImageStat.Stat(ImageChops.difference(gray.getchannel(0), gray.getchannel(2))).mean) < 2, "the tile does not show the mono edit"
    shown = json.loads(camlib("show", "--library", str(library["path"]), str(asset["id"]), "--json").stdout)
    current = [a for a in shown["adjustments"] if a["current"]]
    assert len(current) == 1 and json.loads(current[0]["data"])["steps"][0]["name"] == "mono"
    assert "mono" in browser.find_element(By.ID, "history").text
    browser.find_element(By.ID, "revert").click()
    wait_for(lambda: browser.find_element(By.ID, "editStatus").text.startswith("Reverted"), what="the revert")
    wait_for(lambda: browser.find_element(By.CSS_SELECTOR, f'.tile[data-id="{asset["id"]}"] img').get_attribute("src") == before)
    shown = json.loads(camlib("show", "--library", str(library["path"]), str(asset["id"]), "--json").stdout)
    assert not any(a["current"] for a in shown["adjustments"])
    # Back in the timeline, the tile shows (the original's thumbnail again).
    browser.find_element(By.ID, "close").click()
    tile = browser.find_element(By.CSS_SELECTOR, thumbnail)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", tile)
    wait_for(lambda: browser.execute_script(f"const i = document.querySelector('{thumbnail}'); return i.complete && i.naturalWidth > 0"))


def test_a_hostile_file_name_is_shown_as_text(library, server, browser):
    asset = asset_named(library, HOSTILE_NAME)
    open_asset(browser, server, asset["id"])
    assert browser.find_element(By.ID, "title").text == HOSTILE_NAME
    assert browser.find_element(By.CSS_SELECTOR, f'.tile[data-id="{asset["id"]}"]').get_attribute("title") == HOSTILE_NAME
    # The files are under a disclosure: opened as a person would.
    summary = browser.find_element(By.CSS_SELECTOR, "#fileDetails summary")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
    ActionChains(browser).click(summary).perform()
    assert HOSTILE_NAME in browser.find_element(By.ID, "files").text
    assert browser.execute_script("return document.querySelectorAll('img[src=\"x\"], img[src$=\"/x\"]').length") == 0
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text


def test_arrow_keys_go_to_the_next_and_previous_asset(library, server, browser):
    browser.get(f"{server.base}/")
    wait_for(lambda: len(tiles(browser)) == len(library["assets"]))
    order = [int(t.get_attribute("data-id")) for t in tiles(browser)]
    tiles(browser)[1].click()
    wait_for(lambda: "asset=" in browser.current_url)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("\ue014")  # right arrow
    wait_for(lambda: f"asset={order[2]}" in browser.current_url)
    body.send_keys("\ue012")  # left arrow
    body.send_keys("\ue012")
    wait_for(lambda: f"asset={order[0]}" in browser.current_url)
    body.send_keys("\ue00c")  # escape
    wait_for(lambda: browser.find_element(By.ID, "viewer").get_attribute("hidden") is not None)


def test_a_phone_sized_screen_gets_the_timeline_too(library, server):
    driver = make_driver(390, 844)
    try:
        driver.get(f"{server.base}/")
        wait_for(lambda: len(tiles(driver)) > 10)
        width = driver.execute_script("return document.querySelector('.tile').getBoundingClientRect().width")
        assert 60 < width < 200
        assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        wait_for(lambda: driver.execute_script("return [...document.images].slice(0, 8).every(i => i.complete && i.naturalWidth > 0)"))
        screenshot(driver, "timeline-phone.png")
    finally:
        driver.quit()


def test_with_a_token_requests_without_it_are_refused(library):
    guarded = Server(library["path"], "--token", "browser-test-token-0123456789")
    try:
        assert "token=browser-test-token-0123456789" in guarded.url
        for path in ["/", "/api/assets", "/static/gallery.js"]:
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(guarded.base + path)
            assert refused.value.code == 401
        driver = make_driver()
        try:
            driver.get(guarded.url)
            wait_for(lambda: len(tiles(driver)) > 10, what="the timeline with the token")
            assert "token" not in driver.current_url, "the token stays in the address bar"
            # The page's images carry the token too (a cookie the first answer set).
            wait_for(lambda: driver.execute_script("return [...document.images].slice(0, 5).every(i => i.complete && i.naturalWidth > 0)"))
        finally:
            driver.quit()
    finally:
        assert guarded.stop() == 0


def test_after_a_jump_scrolling_either_way_reaches_every_asset(library, server):
    # A small window and small pages, so that the corpus is many screens long.
    browser = make_driver(600, 450)
    try:
        browser.get(f"{server.base}/?pageSize=10")
        # A click on the scrubber where 2020 is written.
        label = wait_for(lambda: next((e for e in browser.find_elements(By.CSS_SELECTOR, "#scrubTrack .year") if e.text == "2020"), None),
                         what="2020 on the scrubber")
        ActionChains(browser).move_to_element(label).click().perform()
        # The jump: newer assets are put above, and the screen stays on 2020.
        wait_for(lambda: browser.execute_script("return !state.loading && window.scrollY > 0"), what="newer assets above the jump")
        in_view = browser.execute_script(
            "return [...document.querySelectorAll('.day')].filter(d => { const r = d.getBoundingClientRect();"
            " return r.bottom > 0 && r.top < innerHeight; }).map(d => d.dataset.day)")
        assert any(day.startswith("2020") for day in in_view), in_view
        newest = max((a for a in library["assets"] if a["capturedAt"]), key=lambda a: a["capturedAt"])

        def reached_the_top():
            browser.execute_script("window.scrollTo(0, 0)")
            return browser.find_elements(By.CSS_SELECTOR, f'.tile[data-id="{newest["id"]}"]') and browser.execute_script(
                "return state.previous === null && !state.loading")
        wait_for(reached_the_top, what="the newest asset, scrolling up")
        scroll_to_the_end(browser)
        shown = [int(t.get_attribute("data-id")) for t in tiles(browser)]
        assert sorted(shown) == sorted(a["id"] for a in library["assets"]), "every asset once"
        days = [d.get_attribute("data-day") for d in browser.find_elements(By.CSS_SELECTOR, ".day")]
        dated = [d for d in days if d != "undated"]
        assert dated == sorted(dated, reverse=True) and len(set(days)) == len(days), days
    finally:
        browser.quit()


@pytest.mark.parametrize("today", ["2026-11-30", "2026-11-29"])
def test_the_page_keeps_a_window_of_tiles_and_loads_the_rest_again_both_ways(library, server, today):
    # keep=20: past 20 tiles, whole rows of days more than 2 x 100 px off the screen go.
    # On 30 November "On this day" is above the timeline (the corpus has a photo of
    # 30 November 2022); on the 29th it is not. The page scrolls the same under both.
    browser = make_driver(600, 450)
    pin_today(browser, today)
    try:
        browser.get(f"{server.base}/?pageSize=10&keep=20&ahead=100")
        wait_for(lambda: len(tiles(browser)) >= 10)
        wait_for(lambda: browser.execute_script("return document.getElementById('memories').hidden") == (today != "2026-11-30"),
                 what=f"'On this day' {'shown' if today == '2026-11-30' else 'not shown'} on {today}")
        seen, most = set(), 0

        def look():
            nonlocal most
            ids = [int(t.get_attribute("data-id")) for t in tiles(browser)]
            most = max(most, len(ids))
            seen.update(ids)
            assert len(ids) == len(set(ids)), "an asset shown twice"
            order = browser.execute_script("return state.assets.map(a => a.id)")
            assert order == ids, "the page's tiles and its list of assets disagree"

        look()

        def ended():
            browser.execute_script("window.scrollBy(0, 150)")
            look()
            return browser.execute_script("return state.next === null && !state.loading")
        wait_for(ended, timeout=90, what="the end, scrolling down")
        look()  # the last page may have come after the last look
        assert seen == {a["id"] for a in library["assets"]}
        assert browser.execute_script("return state.previous") is not None, "the first days were never taken out"
        newest = max((a for a in library["assets"] if a["capturedAt"]), key=lambda a: a["capturedAt"])

        def at_the_top():
            browser.execute_script("window.scrollBy(0, -150)")
            look()
            return browser.execute_script("return state.previous === null && !state.loading") and browser.find_elements(
                By.CSS_SELECTOR, f'.tile[data-id="{newest["id"]}"]')
        wait_for(at_the_top, timeout=90, what="the newest asset again, scrolling up")
        assert most < len(library["assets"]), f"the page held {most} tiles: all of them"
        days = [d.get_attribute("data-day") for d in browser.find_elements(By.CSS_SELECTOR, ".day")]
        assert len(set(days)) == len(days), days
    finally:
        browser.quit()

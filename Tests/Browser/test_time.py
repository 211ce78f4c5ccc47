"""Moving through time: the scrubber beside the timeline (dragged with a mouse and with a
finger, and used from the keyboard), "On this day" above it, and a slideshow of a view."""
import datetime
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import MEDIA, Server, camlib, require_media, screenshot, wait_for


def months_of(server):
    with urllib.request.urlopen(f"{server.base}/api/months") as response:
        return json.load(response)


def month_title(driver, key):
    return driver.execute_script("return monthTitle(arguments[0])", key)


def first_day(driver):
    """The day of the section at the top of the screen, once a load has settled."""
    return driver.execute_script(
        "const top = document.getElementById('bar').getBoundingClientRect().bottom;"
        "const s = [...document.querySelectorAll('#timeline .day')].find(s => s.getBoundingClientRect().bottom > top + 30);"
        "return !state.loading && s ? s.dataset.day : null")


def month_in_view(driver, key):
    """Whether the newest day of `key` (a month) is in the top row on the screen, or, when
    too little of the timeline is older than it to scroll it up there, on the screen with
    the timeline's end."""
    return driver.execute_script(
        "if (state.loading) return false;"
        "const bar = document.getElementById('bar').getBoundingClientRect().bottom;"
        "const s = [...document.querySelectorAll('#timeline .day')].find(s => s.dataset.day.startsWith(arguments[0]));"
        "if (!s) return false;"
        "const top = s.getBoundingClientRect().top;"
        "const atEnd = scrollY + innerHeight >= document.documentElement.scrollHeight - 2;"
        "return top >= bar - 5 && (top < bar + 300 || (atEnd && top < innerHeight));", key)


def lands_on(driver, key):
    """The timeline comes to `key` (a month) and stays there while newer days load above."""
    wait_for(lambda: month_in_view(driver, key), what=f"the timeline at {key}")
    time.sleep(1)
    wait_for(lambda: month_in_view(driver, key), what=f"the timeline still at {key}")


def scrubber_point(driver, index, count):
    """Where month `index` of `count` is on the scrubber, in the page's pixels."""
    box = driver.execute_script("const r = document.getElementById('scrubTrack').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]")
    left, top, width, height = box
    return int(left + width / 2), int(top + (index + 0.5) * height / count)


def test_dragging_the_scrubber_lands_on_the_month_dragged_to(library, server, desktop):
    months = months_of(server)
    assert len(months) > 6, months
    desktop.get(f"{server.base}/")
    wait_for(lambda: desktop.find_element(By.ID, "scrubber").is_displayed() and first_day(desktop), what="the scrubber")
    # Years are written where they start.
    labels = [e.text for e in desktop.find_elements(By.CSS_SELECTOR, "#scrubTrack .year")]
    assert labels and labels[0] == months[0][:4] and labels == sorted(set(labels), reverse=True), labels
    for target in [len(months) // 2, len(months) - 2]:
        key = months[target]
        before = first_day(desktop)
        x0, y0 = scrubber_point(desktop, 0, len(months))
        x1, y1 = scrubber_point(desktop, target, len(months))
        # Pressed at the top, dragged down in steps as a hand does, the bubble following.
        actions = ActionBuilder(desktop)
        actions.pointer_action.move_to_location(x0, y0).pointer_down()
        for i in range(1, 9):
            actions.pointer_action.move_to_location(x0, y0 + (y1 - y0) * i // 8)
        actions.perform()
        bubble = desktop.find_element(By.ID, "scrubBubble")
        assert bubble.is_displayed() and bubble.text == month_title(desktop, key), (bubble.text, key)
        screenshot(desktop, "time-scrubber-drag.png")
        # Nothing moves until it is let go.
        assert first_day(desktop) == before
        release = ActionBuilder(desktop)
        release.pointer_action.pointer_up()
        release.perform()
        lands_on(desktop, key)
        assert not bubble.is_displayed()
        assert desktop.find_element(By.ID, "scrubber").get_attribute("aria-valuetext") == month_title(desktop, key)
    screenshot(desktop, "time-scrubber-landed.png")


def test_the_scrubber_follows_the_timeline_and_answers_the_keyboard(library, server, desktop):
    months = months_of(server)
    desktop.get(f"{server.base}/?pageSize=10")
    wait_for(lambda: first_day(desktop), what="the first page")
    slider = desktop.find_element(By.ID, "scrubber")
    assert slider.get_attribute("aria-valuetext") == month_title(desktop, months[0])
    # The keyboard: it is a slider; each arrow down is a month back.
    slider_index = lambda: int(slider.get_attribute("aria-valuenow"))  # noqa: E731
    desktop.execute_script("arguments[0].focus()", slider)
    ActionChains(desktop).send_keys(Keys.ARROW_DOWN).send_keys(Keys.ARROW_DOWN).perform()
    assert slider_index() == 2
    lands_on(desktop, months[2])
    # Scrolling down the timeline moves the thumb to the month on the screen.
    before = slider_index()
    for _ in range(40):
        ActionChains(desktop).scroll_by_amount(0, 600).perform()
        time.sleep(0.1)
        if slider_index() > before:
            break
    assert slider_index() > before
    shown = desktop.execute_script(
        "const top = document.getElementById('bar').getBoundingClientRect().bottom;"
        "return [...document.querySelectorAll('#timeline .day')].find(s => s.getBoundingClientRect().bottom > top + 30).dataset.day")
    assert months[slider_index()] == shown[:7], (months[slider_index()], shown)


def test_on_a_phone_a_finger_drags_the_scrubber(library, server, phone):
    months = months_of(server)
    phone.get(f"{server.base}/")
    wait_for(lambda: phone.find_element(By.ID, "scrubber").is_displayed() and first_day(phone), what="the scrubber on a phone")
    target = len(months) - 3
    x0, y0 = scrubber_point(phone, 1, len(months))
    x1, y1 = scrubber_point(phone, target, len(months))
    # What the bubble says, and where the page is, at the moment the finger lifts.
    phone.execute_script(
        "document.addEventListener('pointerup', () => { const b = document.getElementById('scrubBubble');"
        " window.__lifted = { bubble: b.hidden ? null : b.textContent, scrollY }; }, { capture: true, once: true })")
    finger = ActionBuilder(phone, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    finger.pointer_action.move_to_location(x0, y0).pointer_down()
    for i in range(1, 7):
        finger.pointer_action.move_to_location(x0, y0 + (y1 - y0) * i // 6).pause(0.03)
    finger.pointer_action.pause(0.2).pointer_up()
    finger.perform()
    lifted = wait_for(lambda: phone.execute_script("return window.__lifted"), what="the finger lifted")
    assert lifted["bubble"] == month_title(phone, months[target]), lifted
    # The page did not scroll under the finger: the drag was the scrubber's.
    assert lifted["scrollY"] == 0, lifted
    lands_on(phone, months[target])
    screenshot(phone, "time-scrubber-phone.png")


@pytest.fixture(scope="module")
def memories_library():
    """Photos taken on today's date one and three years ago (two that day), and one a few
    days off: copies of a corpus JPEG with their capture dates written by exiftool."""
    require_media()
    folder = Path(tempfile.mkdtemp(prefix="camlib-memories-"))
    today = datetime.date.today()
    years = []
    for back in range(1, 20):
        try:
            years.append(today.replace(year=today.year - back))
        except ValueError:  # 29 February
            continue
    one, three = years[0], years[2]
    shots = [(one, "10:00:00"), (three, "09:00:00"), (three, "17:30:00"), (one - datetime.timedelta(days=5), "12:00:00")]
    photos = folder / "photos"
    photos.mkdir()
    for i, (day, clock) in enumerate(shots):
        path = photos / f"day_{i}.jpg"
        shutil.copy(MEDIA / "orientation" / "Landscape_1.jpg", path)
        subprocess.run(["exiftool", "-q", "-overwrite_original", f"-DateTimeOriginal={day:%Y:%m:%d} {clock}",
                        f"-CreateDate={day:%Y:%m:%d} {clock}", str(path)], check=True)
    lib = folder / "library"
    camlib("import", "--library", str(lib), str(photos))
    server = Server(lib)
    yield {"server": server, "one": one, "three": three, "today": today}
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


def test_on_this_day_shows_earlier_years_and_opens_that_day(memories_library, desktop):
    server, one, three = memories_library["server"], memories_library["one"], memories_library["three"]
    desktop.get(f"{server.base}/")
    strip = wait_for(lambda: desktop.find_element(By.ID, "memories") if desktop.find_element(By.ID, "memories").is_displayed() else None,
                     what="On this day")
    assert strip.find_element(By.TAG_NAME, "h2").text == "On this day"
    cards = strip.find_elements(By.CSS_SELECTOR, ".memory")
    assert [c.get_attribute("data-day") for c in cards] == [one.isoformat(), three.isoformat()]
    assert "1 year ago" in cards[0].text and "1 item" in cards[0].text, cards[0].text
    assert "3 years ago" in cards[1].text and "2 items" in cards[1].text, cards[1].text
    # Each card shows its photos.
    wait_for(lambda: all(i.get_attribute("naturalWidth") != "0" for i in strip.find_elements(By.TAG_NAME, "img")), what="the cards' pictures")
    assert len(cards[1].find_elements(By.TAG_NAME, "img")) == 2
    screenshot(desktop, "time-on-this-day.png")
    ActionChains(desktop).click(cards[1]).perform()
    wait_for(lambda: f"q={three.isoformat()}" in desktop.current_url and len(desktop.find_elements(By.CSS_SELECTOR, ".tile")) == 2,
             what="that day's photos")
    assert all(d.get_attribute("data-day") == three.isoformat() for d in desktop.find_elements(By.CSS_SELECTOR, ".day"))
    # A search is not the whole timeline: no memories above it.
    assert not desktop.find_element(By.ID, "memories").is_displayed()


def viewer_asset(driver):
    return driver.execute_script("return $('viewer').hidden ? null : state.assets[state.current].id")


def order_shown(driver):
    return [int(t.get_attribute("data-id")) for t in driver.find_elements(By.CSS_SELECTOR, "#timeline .tile")]


def test_a_slideshow_plays_the_view_in_order_pauses_and_ends(library, server, desktop):
    # Photos only: each stays for the time chosen.
    desktop.get(f"{server.base}/?kind=photo")
    wait_for(lambda: len(order_shown(desktop)) > 4, what="the photos")
    order = order_shown(desktop)
    ActionChains(desktop).click(desktop.find_element(By.ID, "slideshowButton")).perform()
    wait_for(lambda: viewer_asset(desktop) == order[0], what="the slideshow's first photo")
    assert "slideshow" in desktop.find_element(By.TAG_NAME, "body").get_attribute("class")
    assert not desktop.find_element(By.ID, "panel").is_displayed()
    # The photo has the whole screen (the browser's full screen where it allows it).
    assert desktop.execute_script("return $('stage').getBoundingClientRect().width >= innerWidth - 1 && innerWidth > 700")
    # Two seconds a photo, chosen as a person does.
    controls = desktop.find_element(By.ID, "showControls")
    ActionChains(desktop).move_to_element(controls).perform()
    desktop.find_element(By.CSS_SELECTOR, '#showSeconds option[value="2"]').click()
    seen = [order[0]]
    started = time.time()
    while len(seen) < 3 and time.time() - started < 15:
        shown = viewer_asset(desktop)
        if shown != seen[-1]:
            seen.append(shown)
        time.sleep(0.1)
    assert seen == order[:3], (seen, order[:5])
    screenshot(desktop, "time-slideshow.png")
    # Space pauses: the photo stays.
    ActionChains(desktop).send_keys(Keys.SPACE).perform()
    assert desktop.find_element(By.ID, "showPlay").get_attribute("aria-label") == "Play"
    paused_on = viewer_asset(desktop)
    time.sleep(3)
    assert viewer_asset(desktop) == paused_on
    # The arrow steps, still paused.
    ActionChains(desktop).send_keys(Keys.ARROW_RIGHT).perform()
    wait_for(lambda: viewer_asset(desktop) == order[order.index(paused_on) + 1], what="the next photo")
    # Space plays on.
    ActionChains(desktop).send_keys(Keys.SPACE).perform()
    stepped = viewer_asset(desktop)
    wait_for(lambda: viewer_asset(desktop) == order[order.index(stepped) + 1], timeout=8, what="the slideshow going on")
    # Escape ends it, back on the timeline at the photo last shown.
    last = viewer_asset(desktop)
    ActionChains(desktop).send_keys(Keys.ESCAPE).perform()
    wait_for(lambda: not desktop.find_element(By.ID, "viewer").is_displayed(), what="the slideshow's end")
    assert "slideshow" not in desktop.find_element(By.TAG_NAME, "body").get_attribute("class")
    assert "asset=" not in desktop.current_url
    time.sleep(2.5)
    assert not desktop.find_element(By.ID, "viewer").is_displayed(), "the slideshow stopped"
    assert desktop.execute_script("return document.activeElement.dataset.id") == str(last)


def test_on_a_phone_the_slideshow_is_tapped_and_swiped(library, server, phone):
    phone.get(f"{server.base}/?kind=photo")
    wait_for(lambda: len(order_shown(phone)) > 4, what="the photos on a phone")
    order = order_shown(phone)

    def tap(element):
        r = element.rect
        finger = ActionBuilder(phone, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
        finger.pointer_action.move_to_location(int(r["x"] + r["width"] / 2), int(r["y"] + r["height"] / 2)).pointer_down().pause(0.05).pointer_up()
        finger.perform()

    tap(phone.find_element(By.ID, "slideshowButton"))
    wait_for(lambda: viewer_asset(phone) == order[0], what="the slideshow on a phone")
    tap(phone.find_element(By.ID, "showPlay"))
    assert phone.find_element(By.ID, "showPlay").get_attribute("aria-label") == "Play"
    # The photo fills the phone's screen: no panel below it.
    assert not phone.find_element(By.ID, "panel").is_displayed()
    screenshot(phone, "time-slideshow-phone.png")
    # A swipe to the left: the next photo.
    stage = phone.find_element(By.ID, "stage").rect
    x, y = int(stage["x"] + stage["width"] * 0.8), int(stage["y"] + stage["height"] / 2)
    swipe = ActionBuilder(phone, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    swipe.pointer_action.move_to_location(x, y).pointer_down()
    for i in range(1, 8):
        swipe.pointer_action.move_to_location(x - i * 30, y + i * 2)
    swipe.pointer_action.pointer_up()
    swipe.perform()
    wait_for(lambda: viewer_asset(phone) == order[1], what="the next photo after a swipe")
    tap(phone.find_element(By.ID, "showNext"))
    wait_for(lambda: viewer_asset(phone) == order[2], what="the next photo after a tap")
    tap(phone.find_element(By.ID, "showEnd"))
    wait_for(lambda: not phone.find_element(By.ID, "viewer").is_displayed(), what="the slideshow's end on a phone")

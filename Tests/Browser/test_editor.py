"""The gallery's editor, used as a person uses it: sliders dragged, the crop's corners
dragged, buttons pressed and held, the photo tapped to focus, on a desktop and a phone."""
import io
import json
import urllib.parse
import urllib.request

from PIL import Image, ImageStat
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select

from conftest import camlib, screenshot, wait_for
from test_gallery import asset_named, open_asset


def shown_steps(driver):
    """The steps of the preview on the stage (None: the asset's own picture)."""
    return driver.execute_script("return document.getElementById('still').dataset.preview ?? null")


def preview_loaded(driver):
    return driver.execute_script("const s = document.getElementById('still'); return s.complete && s.naturalWidth > 0 && s.src.startsWith('blob:')")


def preview_image(server, asset_id, steps):
    query = urllib.parse.urlencode({"filters": steps})
    return Image.open(io.BytesIO(urllib.request.urlopen(f"{server.base}/api/assets/{asset_id}/edit-preview?{query}").read())).convert("RGB")


def open_group(driver, group):
    details = driver.find_element(By.ID, group)
    if details.get_attribute("open") is None:
        summary = details.find_element(By.TAG_NAME, "summary")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
        ActionChains(driver).click(summary).perform()
    wait_for(lambda: details.get_attribute("open") is not None, what=f"{group} open")


def editor_ready(driver):
    wait_for(lambda: not driver.execute_script("return document.getElementById('editorControls').inert"), what="the editor")


def start_cropping(driver, server, asset):
    """The asset open with its crop's frame on the photo."""
    open_asset(driver, server, asset["id"])
    editor_ready(driver)
    open_group(driver, "geometryGroup")
    wait_for(lambda: driver.find_element(By.ID, "cropBox").is_displayed(), what="the crop's frame")


def drag_slider(driver, control_id, fraction):
    """Drags the slider's thumb from its middle to `fraction` (-0.5…0.5) of its width."""
    slider = driver.find_element(By.ID, control_id)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", slider)
    width = slider.rect["width"]
    ActionChains(driver).move_to_element(slider).click_and_hold().move_by_offset(int(width * fraction), 0).release().perform()


def shows_slider(driver, control_id, name, key):
    """Whether the preview on the stage has been made for the slider's value (a drag's
    earlier previews come first)."""
    value = float(driver.find_element(By.ID, control_id).get_property("value"))
    step = step_of(shown_steps(driver), name)
    return step is not None and abs(float(step[key]) - value) < 0.006 and preview_loaded(driver)


def step_of(steps, name):
    for text in (steps or "").split(";"):
        if text.split(":")[0] == name:
            return dict(pair.split("=") for pair in text.split(":", 1)[1].split(",")) if ":" in text else {}
    return None


def current_steps(library, asset_id):
    shown = json.loads(camlib("show", "--library", str(library["path"]), str(asset_id), "--json").stdout)
    current = [a for a in shown["adjustments"] if a["current"]]
    return json.loads(current[0]["data"])["steps"] if current else None


def test_sliders_preview_each_change_reset_and_hold_for_the_original(library, server, desktop):
    asset = asset_named(library, "Landscape_3.jpg")
    open_asset(desktop, server, asset["id"])
    editor_ready(desktop)
    drag_slider(desktop, "adjust-exposure", 0.3)
    wait_for(lambda: shows_slider(desktop, "adjust-exposure", "exposure", "ev"), what="the exposure preview")
    ev = float(step_of(shown_steps(desktop), "exposure")["ev"])
    assert ev > 0.5, ev
    assert desktop.find_element(By.CSS_SELECTOR, '[data-control="adjust-exposure"] output').text.startswith("+")
    assert "Preview (not saved)" in desktop.find_element(By.ID, "editStatus").text
    # The preview is brighter than the original by about what the slider says.
    brighter = ImageStat.Stat(preview_image(server, asset["id"], shown_steps(desktop)).convert("L")).mean[0]
    plain = ImageStat.Stat(preview_image(server, asset["id"], "").convert("L")).mean[0]
    assert brighter > plain * 1.2, (brighter, plain)
    drag_slider(desktop, "adjust-warmth", -0.25)
    wait_for(lambda: shows_slider(desktop, "adjust-warmth", "warmth", "amount") and step_of(shown_steps(desktop), "exposure"), what="warmth and exposure together")
    screenshot(desktop, "editor-sliders.png")

    # Held: the original; let go: the edit again.
    compare = desktop.find_element(By.ID, "editCompare")
    desktop.execute_script("arguments[0].scrollIntoView({block: 'center'})", compare)
    ActionChains(desktop).move_to_element(compare).click_and_hold().perform()
    wait_for(lambda: desktop.execute_script("return document.getElementById('still').dataset.showing") == "original", what="the original while held")
    wait_for(lambda: preview_loaded(desktop))
    ActionChains(desktop).release().perform()
    wait_for(lambda: desktop.execute_script("return document.getElementById('still').dataset.showing") is None, what="the edit again")

    # Reset one control: only that step goes.
    reset = desktop.find_element(By.CSS_SELECTOR, '[data-control="adjust-exposure"] .reset')
    ActionChains(desktop).click(reset).perform()
    wait_for(lambda: step_of(shown_steps(desktop), "exposure") is None and step_of(shown_steps(desktop), "warmth"), what="exposure reset")
    assert reset.get_attribute("disabled") is not None
    # Reset all: the original, and nothing to apply.
    ActionChains(desktop).click(desktop.find_element(By.ID, "editResetAll")).perform()
    wait_for(lambda: desktop.find_element(By.ID, "applyEdit").get_attribute("disabled") is not None, what="nothing left to apply")
    assert desktop.find_element(By.ID, "adjust-warmth").get_attribute("value") == "0"


def test_crop_with_an_aspect_turn_flip_and_straighten_then_apply(library, server, desktop):
    asset = asset_named(library, "Landscape_6.jpg")
    # Cropping shows the whole photo with the frame on it.
    start_cropping(desktop, server, asset)
    Select(desktop.find_element(By.ID, "cropAspect")).select_by_visible_text("Square")
    def frame():
        return desktop.find_element(By.ID, "cropBox").rect
    wait_for(lambda: abs(frame()["width"] - frame()["height"]) < 3, what="a square frame")
    # The bottom-right corner dragged in: still square, smaller.
    before = frame()
    corner = desktop.find_element(By.CSS_SELECTOR, '#cropBox [data-handle="se"]')
    ActionChains(desktop).move_to_element(corner).click_and_hold().move_by_offset(-60, -10).release().perform()
    wait_for(lambda: frame()["width"] < before["width"] - 20, what="the frame smaller")
    assert abs(frame()["width"] - frame()["height"]) < 3, frame()
    # The frame moved by dragging its middle.
    ActionChains(desktop).move_to_element(desktop.find_element(By.ID, "cropBox")).click_and_hold().move_by_offset(25, 0).release().perform()
    wait_for(lambda: frame()["x"] > before["x"] + 10, what="the frame moved")
    # Straightened by dragging the dial: left drag turns clockwise.
    dial = desktop.find_element(By.ID, "straightenDial")
    desktop.execute_script("arguments[0].scrollIntoView({block: 'center'})", dial)
    ActionChains(desktop).move_to_element(dial).click_and_hold().move_by_offset(-30, 0).release().perform()
    wait_for(lambda: abs(float(desktop.find_element(By.ID, "adjust-straighten").get_attribute("value")) - 3) < 0.5, what="3 degrees")
    wait_for(lambda: step_of(shown_steps(desktop), "straighten") and preview_loaded(desktop), what="the straightened preview")
    screenshot(desktop, "editor-crop.png")
    ActionChains(desktop).click(desktop.find_element(By.ID, "turnLeft")).perform()
    wait_for(lambda: step_of(shown_steps(desktop), "rotate"), what="turned")
    ActionChains(desktop).click(desktop.find_element(By.ID, "flipButton")).perform()
    wait_for(lambda: desktop.find_element(By.ID, "flipButton").get_attribute("aria-pressed") == "true", what="the flip pressed")
    wait_for(lambda: step_of(shown_steps(desktop), "flip"), what=f"flipped {shown_steps(desktop)}")
    assert step_of(shown_steps(desktop), "rotate")["degrees"] == "270"
    assert float(step_of(shown_steps(desktop), "straighten")["degrees"]) < 0, "a flip turns the straightening the other way"
    # Closed, the crop is what the preview shows: square.
    open_group(desktop, "lightGroup")
    desktop.find_element(By.CSS_SELECTOR, "#geometryGroup summary").click()
    wait_for(lambda: step_of(shown_steps(desktop), "crop") and preview_loaded(desktop), what="the cropped preview")
    size = desktop.execute_script("const s = document.getElementById('still'); return [s.naturalWidth, s.naturalHeight]")
    assert abs(size[0] - size[1]) <= 2, size
    ActionChains(desktop).click(desktop.find_element(By.ID, "applyEdit")).perform()
    wait_for(lambda: desktop.find_element(By.ID, "editStatus").text.startswith("Done"), timeout=120, what="the edit")
    names = [s["name"] for s in current_steps(library, asset["id"])]
    assert names == ["rotate", "flip", "straighten", "crop"], names
    # The editor starts again from what was applied.
    editor_ready(desktop)
    assert float(desktop.find_element(By.ID, "adjust-straighten").get_attribute("value")) < 0
    assert desktop.find_element(By.ID, "applyEdit").get_attribute("disabled") is not None
    ActionChains(desktop).click(desktop.find_element(By.ID, "revert")).perform()
    wait_for(lambda: desktop.find_element(By.ID, "editStatus").text.startswith("Reverted"), what="the revert")


def test_a_portrait_photo_gets_an_aperture_and_a_tap_to_focus(library, server, desktop):
    plain = asset_named(library, "Landscape_1.jpg")
    open_asset(desktop, server, plain["id"])
    editor_ready(desktop)
    assert not desktop.find_element(By.ID, "depthGroup").is_displayed(), "depth offered for a photo without depth"
    portrait = asset_named(library, "pug.heic")
    open_asset(desktop, server, portrait["id"])
    editor_ready(desktop)
    open_group(desktop, "depthGroup")
    drag_slider(desktop, "adjust-aperture", -0.45)
    wait_for(lambda: shows_slider(desktop, "adjust-aperture", "depth", "aperture"), what="the depth preview")
    aperture = float(step_of(shown_steps(desktop), "depth")["aperture"])
    assert aperture < 3, aperture
    # A tap on the photo, a quarter from its left and a third from its top, focuses there.
    still = desktop.find_element(By.ID, "still")
    rect = still.rect
    ActionChains(desktop).move_to_element_with_offset(still, int(-rect["width"] / 4), int(-rect["height"] / 6)).click().perform()
    wait_for(lambda: abs(float((step_of(shown_steps(desktop), "depth") or {}).get("x", 0)) - 0.25) < 0.03, what="the focus where tapped")
    assert abs(float(step_of(shown_steps(desktop), "depth")["y"]) - 1 / 3) < 0.03
    assert desktop.find_element(By.ID, "focusMark").is_displayed()
    wait_for(lambda: preview_loaded(desktop))
    screenshot(desktop, "editor-depth.png")
    # Another asset starts clean; back on this one, so does the editor (nothing was applied).
    ActionChains(desktop).send_keys(Keys.ARROW_RIGHT).perform()
    wait_for(lambda: f"asset={portrait['id']}" not in desktop.current_url, what="the next asset")
    editor_ready(desktop)
    assert shown_steps(desktop) is None
    assert desktop.find_element(By.ID, "adjust-exposure").get_attribute("value") == "0"


def test_the_editor_starts_from_camlibs_steps_and_from_apples(library, server, desktop):
    asset = asset_named(library, "Landscape_2.jpg")
    camlib("edit", "--library", str(library["path"]), str(asset["id"]), "--filter", "exposure:ev=1", "--filter", "crop:aspect=1:1", "--filter", "mono")
    try:
        open_asset(desktop, server, asset["id"])
        editor_ready(desktop)
        assert desktop.find_element(By.ID, "adjust-exposure").get_attribute("value") == "1"
        open_group(desktop, "looksGroup")
        assert desktop.find_element(By.CSS_SELECTOR, '#filterChoices input[value="mono"]').is_selected()
        assert desktop.find_element(By.ID, "applyEdit").get_attribute("disabled") is not None
        # One more change makes the whole recipe, the crop resolved to its square.
        drag_slider(desktop, "adjust-contrast", 0.2)
        wait_for(lambda: shows_slider(desktop, "adjust-contrast", "contrast", "amount"), what="contrast added")
        steps = shown_steps(desktop)
        assert step_of(steps, "exposure")["ev"] == "1" and step_of(steps, "mono") == {}, steps
        crop = step_of(steps, "crop")
        width, height = asset["width"] * float(crop["width"]), asset["height"] * float(crop["height"])
        assert abs(width - height) < 0.01 * width, crop
    finally:
        camlib("revert", "--library", str(library["path"]), str(asset["id"]))
    apple = asset_named(library, "IMG_3582.HEIC")
    open_asset(desktop, server, apple["id"])
    editor_ready(desktop)
    start = json.loads(urllib.request.urlopen(f"{server.base}/api/assets/{apple['id']}/editor").read())
    assert start["from"] == "apple" and start["steps"], start
    assert "Apple's" in desktop.find_element(By.ID, "editorNote").text
    # Its light and colour steps are on the sliders; what follows its first look (black and
    # white's contrast after mono) stays with the looks.
    sliders = ("exposure", "contrast", "highlights", "shadows", "saturation", "vibrance", "warmth", "tint")
    for text in start["steps"]:
        name, _, rest = text.partition(":")
        if name not in sliders + ("crop", "depth", "rotate", "flip", "straighten"):
            break
        if name in sliders:
            value = float(rest.split("=")[1])
            assert abs(float(desktop.find_element(By.ID, f"adjust-{name}").get_attribute("value")) - value) < 0.011, (name, value)
    looks = [t.split(":")[0] for t in start["steps"] if t.split(":")[0] in ("mono", "noir")]
    if looks:
        open_group(desktop, "looksGroup")
        for name in looks:
            assert desktop.find_element(By.CSS_SELECTOR, f'#filterChoices input[value="{name}"]').is_selected()
    screenshot(desktop, "editor-apple.png")


def test_on_a_phone_a_finger_crops_and_a_swipe_does_not_change_the_photo(library, server, phone):
    asset = asset_named(library, "Landscape_8.jpg")
    start_cropping(phone, server, asset)
    phone.execute_script("document.getElementById('viewer').scrollTop = 0")
    rect = phone.find_element(By.ID, "cropBox").rect
    finger = ActionBuilder(phone, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    x, y = int(rect["x"] + 2), int(rect["y"] + 2)
    finger.pointer_action.move_to_location(x, y).pointer_down().pause(0.05).move_to_location(x + 60, y + 40).pause(0.05).move_to_location(x + 90, y + 60).pointer_up()
    finger.perform()
    wait_for(lambda: phone.find_element(By.ID, "cropBox").rect["x"] > rect["x"] + 40, what="the corner dragged")
    assert f"asset={asset['id']}" in phone.current_url, "the drag went to another photo"
    open_group(phone, "lightGroup")
    phone.find_element(By.CSS_SELECTOR, "#geometryGroup summary").click()
    wait_for(lambda: step_of(shown_steps(phone), "crop") and preview_loaded(phone), what="the cropped preview")
    crop = step_of(shown_steps(phone), "crop")
    assert float(crop["x"]) > 0.1 and float(crop["y"]) > 0.05, crop
    phone.execute_script("document.getElementById('viewer').scrollTop = 0")
    screenshot(phone, "editor-phone.png")

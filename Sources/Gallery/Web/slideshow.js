"use strict";
// A slideshow of whatever the timeline shows (the library, a search, an album, the
// favourites): the viewer, full screen and without its panel, going on by itself. A photo
// stays for the chosen time; a Live Photo plays its movie once, then its still stays; a
// video plays to its end. Space pauses and plays, the arrows step, Escape ends it; on a
// touch screen its buttons do the same, and a swipe steps. Uses gallery.js's $, state,
// openViewer, closeViewer and loadPage.

const show = { on: false, paused: false, timer: null, waiting: null, seconds: 3 };
const SHOW_SECONDS = [2, 3, 5, 10];

function startSlideshow() {
  if (!state.assets.length || show.on) return;
  // From the first tile on the screen: what the person was looking at.
  const below = $("bar").getBoundingClientRect().bottom;
  const first = [...document.querySelectorAll("#timeline .tile")].find((t) => t.getBoundingClientRect().bottom > below);
  const index = first ? state.byId.get(Number(first.dataset.id)) ?? 0 : 0;
  show.on = true;
  show.paused = false;
  document.body.classList.add("slideshow");
  $("showControls").hidden = false;
  $("showStatus").textContent = "";
  showPlaying();
  // Full screen where the browser allows it (it may refuse: the slideshow goes on in the window).
  $("viewer").requestFullscreen?.().catch(() => {});
  openViewer(index);
  $("showPlay").focus();
}

// Called by the viewer (showAsset) whenever it shows an asset: during a slideshow, the
// time on this one starts again, whoever moved to it.
function slideshowShown(asset) {
  if (!show.on) return;
  clearTimeout(show.timer);
  show.waiting?.();
  show.waiting = null;
  if (show.paused) return;
  const next = state.assets[state.current + 1];
  if (next?.media.preview) new Image().src = next.media.preview;  // ready before its turn
  const video = $("motion");
  if (asset.kind === "video") {
    // To its end, then on.
    video.loop = false;
    video.controls = false;
    video.play().catch(() => { video.muted = true; video.play().catch(() => after(asset, 0)); });
    until(video, ["ended", "error"], () => after(asset, 0));
  } else if (asset.media.video && (asset.kind === "live" || asset.kind === "motion")) {
    // The viewer plays the movie once on opening: the still's time starts when it ends
    // (or at most 10 s on, should the movie never say); at once when it played already.
    if (video.paused) {
      after(asset, show.seconds);
    } else {
      until(video, ["ended", "error"], () => after(asset, show.seconds));
      show.timer = setTimeout(() => after(asset, show.seconds), 10000);
    }
  } else {
    // The still's time starts when it is on the screen.
    const still = $("still");
    if (still.complete) after(asset, show.seconds);
    else until(still, ["load", "error"], () => after(asset, show.seconds));
  }
}

// Runs `then` once one of `events` comes from `target`; slideshowShown forgets it when
// another asset comes first.
function until(target, events, then) {
  const handler = () => { stop(); then(); };
  const stop = () => { for (const name of events) target.removeEventListener(name, handler); };
  for (const name of events) target.addEventListener(name, handler);
  const before = show.waiting;
  show.waiting = () => { before?.(); stop(); };
}

// `seconds` after now, the asset after `asset` (if it is still the one shown).
function after(asset, seconds) {
  clearTimeout(show.timer);
  if (!show.on || show.paused) return;
  show.timer = setTimeout(() => {
    if (show.on && !show.paused && state.assets[state.current]?.id === asset.id) advance();
  }, seconds * 1000);
}

async function advance() {
  if (state.current + 1 >= state.assets.length && state.next) {
    // The next page, when it is not here yet (the viewer asks for it near the end).
    const current = state.assets[state.current]?.id;
    for (let i = 0; i < 100 && (state.loading || state.current + 1 >= state.assets.length) && state.next; i++) {
      if (!state.loading) loadPage();
      await new Promise((done) => setTimeout(done, 100));
    }
    if (!show.on || state.assets[state.current]?.id !== current) return;
  }
  if (state.current + 1 < state.assets.length) {
    openViewer(state.current + 1);
  } else {
    show.paused = true;
    showPlaying();
    $("showStatus").textContent = "The end of the slideshow.";
  }
}

function togglePause() {
  if (!show.on) return;
  // At the end, play starts again from the first.
  const atEnd = show.paused && state.current + 1 >= state.assets.length && !state.next;
  show.paused = !show.paused;
  $("showStatus").textContent = "";
  showPlaying();
  clearTimeout(show.timer);
  if (show.paused) {
    if (!$("motion").paused) $("motion").pause();
  } else if (atEnd) {
    openViewer(0);
  } else {
    slideshowShown(state.assets[state.current]);
  }
}

function showPlaying() {
  const button = $("showPlay");
  button.textContent = show.paused ? "▶" : "❚❚";
  button.setAttribute("aria-label", show.paused ? "Play" : "Pause");
  button.setAttribute("aria-pressed", String(!show.paused));
  $("viewer").classList.toggle("paused", show.paused);
}

function endSlideshow() {
  if (!show.on) return;
  show.on = false;
  clearTimeout(show.timer);
  show.waiting?.();
  show.waiting = null;
  document.body.classList.remove("slideshow");
  $("showControls").hidden = true;
  if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
}

function wireSlideshow() {
  const stored = Number(localStorage.getItem("camlib.slideshowSeconds"));
  if (SHOW_SECONDS.includes(stored)) show.seconds = stored;
  const select = $("showSeconds");
  select.replaceChildren(...SHOW_SECONDS.map((s) => el("option", { value: s, text: `${s} s`, selected: s === show.seconds })));
  select.addEventListener("change", () => {
    show.seconds = Number(select.value);
    localStorage.setItem("camlib.slideshowSeconds", String(show.seconds));
    // Space goes on pausing and playing, not opening the list again.
    $("showPlay").focus();
    if (show.on && !show.paused) slideshowShown(state.assets[state.current]);
  });
  $("slideshowButton").addEventListener("click", startSlideshow);
  $("showPlay").addEventListener("click", togglePause);
  $("showPrev").addEventListener("click", () => step(-1));
  $("showNext").addEventListener("click", () => step(1));
  $("showEnd").addEventListener("click", closeViewer);
  // Before the viewer's own keys: Space pauses; the arrows step (the time starts again).
  document.addEventListener("keydown", (e) => {
    if (!show.on || e.target.matches("input, select, textarea")) return;
    if (e.key === " ") {
      e.preventDefault();
      e.stopImmediatePropagation();
      togglePause();
    }
  }, true);
  // Leaving full screen (Escape, as the browser does it) ends the slideshow too.
  document.addEventListener("fullscreenchange", () => { if (!document.fullscreenElement && show.on) closeViewer(); });
}

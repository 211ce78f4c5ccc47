"use strict";
// The scrubber beside the timeline, as in Immich and Apple Photos: every month that holds
// photos, newest at the top, each an equal share of its height, the years written where
// they start. Dragging it (mouse, pen or finger) shows the month under the pointer and
// lands there on letting go; a click lands at once; with the keyboard it is a slider
// (arrows: a month; Page Up and Down: a year). While the timeline scrolls, its thumb
// follows the month at the top of the screen. Uses gallery.js's $, el, api, state,
// resetTimeline and loadPage.

const scrub = { months: [], index: -1, dragging: false, timer: null, following: false };

async function loadScrubber() {
  try {
    scrub.months = await api("/api/months");
  } catch (error) {
    scrub.months = [];
  }
  // One month has nowhere to go.
  $("scrubber").hidden = scrub.months.length < 2;
  $("scrubber").setAttribute("aria-valuemax", String(Math.max(0, scrub.months.length - 1)));
  drawScrubber();
  followScroll();
}

// "May 2025", in the browser's language.
function monthTitle(key) {
  const [y, m] = key.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, 1)).toLocaleDateString(undefined, { month: "long", year: "numeric", timeZone: "UTC" });
}

// The years' labels and the months' ticks, placed by share of the track's height.
function drawScrubber() {
  const track = $("scrubTrack"), months = scrub.months;
  if ($("scrubber").hidden || !months.length) return;
  const share = track.clientHeight / months.length;
  const marks = [];
  let lastLabel = -Infinity;
  months.forEach((key, i) => {
    const top = i * share;
    const startsYear = i === 0 || key.slice(0, 4) !== months[i - 1].slice(0, 4);
    // A label where there is room for it (a line of text); a tick for the other months
    // when they are far enough apart to be told from each other.
    let mark = null;
    if (startsYear && top - lastLabel >= 15) {
      mark = el("span", { class: "year", text: key.slice(0, 4), "data-month": key });
      lastLabel = top;
    } else if (share >= 4) {
      mark = el("span", { class: startsYear ? "tick new-year" : "tick", "data-month": key });
    }
    if (mark) {
      mark.style.top = `${top}px`;
      marks.push(mark);
    }
  });
  track.replaceChildren(...marks, $("scrubThumb"));
  setScrubIndex(Math.max(0, scrub.index));
}

// The month at a height of the track.
function monthAt(clientY) {
  const box = $("scrubTrack").getBoundingClientRect();
  const i = Math.floor(((clientY - box.top) / box.height) * scrub.months.length);
  return Math.min(scrub.months.length - 1, Math.max(0, i));
}

function setScrubIndex(i) {
  scrub.index = i;
  const key = scrub.months[i];
  if (!key) return;
  const track = $("scrubTrack"), share = track.clientHeight / scrub.months.length;
  $("scrubThumb").style.top = `${(i + 0.5) * share}px`;
  const slider = $("scrubber");
  slider.setAttribute("aria-valuenow", String(i));
  slider.setAttribute("aria-valuetext", monthTitle(key));
}

// The bubble beside the pointer (or the thumb) saying which month one would land on.
function showBubble(i) {
  const bubble = $("scrubBubble");
  bubble.textContent = monthTitle(scrub.months[i]);
  bubble.style.top = $("scrubThumb").style.top;
  bubble.hidden = false;
}

// The timeline from the month's newest photo on (newer ones load when scrolled up to).
function landOn(i) {
  const key = scrub.months[i];
  if (!key) return;
  const [y, m] = key.split("-").map(Number);
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  $("memories").hidden = true;
  resetTimeline();
  scrollTo(0, 0);
  loadPage({ start: `${key}-${String(last).padStart(2, "0")}` });
  setScrubIndex(i);
}

// The thumb follows the month of the first day section below the bar (a row's last
// pixels showing under it do not count).
function followScroll() {
  if (scrub.following) return;
  scrub.following = true;
  requestAnimationFrame(() => {
    scrub.following = false;
    if (scrub.dragging || $("scrubber").hidden) return;
    const top = $("bar").getBoundingClientRect().bottom;
    const section = [...$("timeline").querySelectorAll(".day")].find((s) => s.getBoundingClientRect().bottom > top + 30);
    const i = section ? scrub.months.indexOf(section.dataset.day.slice(0, 7)) : -1;
    if (i >= 0 && i !== scrub.index) setScrubIndex(i);
  });
}

function wireScrubber() {
  const slider = $("scrubber");
  slider.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 || !scrub.months.length) return;
    e.preventDefault();
    slider.setPointerCapture(e.pointerId);
    slider.focus({ preventScroll: true });
    scrub.dragging = true;
    slider.classList.add("dragging");
    setScrubIndex(monthAt(e.clientY));
    showBubble(scrub.index);
  });
  slider.addEventListener("pointermove", (e) => {
    if (!scrub.dragging) return;
    const i = monthAt(e.clientY);
    if (i !== scrub.index) setScrubIndex(i);
    showBubble(i);
  });
  const finish = (land) => {
    if (!scrub.dragging) return;
    scrub.dragging = false;
    slider.classList.remove("dragging");
    $("scrubBubble").hidden = true;
    if (land) landOn(scrub.index);
  };
  slider.addEventListener("pointerup", () => finish(true));
  slider.addEventListener("pointercancel", () => finish(false));
  slider.addEventListener("keydown", (e) => {
    const steps = { ArrowUp: -1, ArrowDown: 1, PageUp: -12, PageDown: 12 };
    let i;
    if (e.key in steps) i = scrub.index + steps[e.key];
    else if (e.key === "Home") i = 0;
    else if (e.key === "End") i = scrub.months.length - 1;
    else return;
    e.preventDefault();
    i = Math.min(scrub.months.length - 1, Math.max(0, i));
    setScrubIndex(i);
    showBubble(i);
    // Lands when the keys rest, not at every month passed.
    clearTimeout(scrub.timer);
    scrub.timer = setTimeout(() => { $("scrubBubble").hidden = true; landOn(i); }, 500);
  });
  slider.addEventListener("blur", () => { if (!scrub.dragging) $("scrubBubble").hidden = true; });
  addEventListener("scroll", followScroll, { passive: true });
  new ResizeObserver(drawScrubber).observe($("scrubTrack"));
}

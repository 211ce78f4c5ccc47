// camlib's gallery: the timeline, the asset view, depth and mattes, edits, and what a
// person says about assets: favourites, albums, keywords, the trash.
// Everything the library says (names, metadata) goes into the page as text
// (textContent), never as HTML.
"use strict";

// Assets per request; ?pageSize= overrides it (10 to 500).
const PAGE = Math.min(500, Math.max(10, Number(new URLSearchParams(location.search).get("pageSize")) || 120));
// Assets in the first page of a view: this screen's worth of tiles and a little more
// (a browser asks for six images at a time: every one beyond the screen delays it).
const FIRST_PAGE = (() => {
  const tile = innerWidth <= 700 ? 106 : 153;  // --tile and --gap of gallery.css
  const columns = Math.max(1, Math.floor((innerWidth - 60) / tile));
  const rows = Math.ceil(innerHeight / (tile + 20));
  return Math.min(120, Math.max(24, Math.ceil(columns * rows * 1.2)));
})();
// How far below the screen the next page is asked for, in pixels. (?ahead=, ?keep= and
// ?pageSize= override these: the tests use a small library.)
const AHEAD = Math.max(50, Number(new URLSearchParams(location.search).get("ahead")) || 1500);
// Tiles the page holds at most: past them, whole rows of days far off the screen are taken
// out, and loaded again by keyset when they come near.
const KEEP = Math.max(20, Number(new URLSearchParams(location.search).get("keep")) || 1500);
const state = {
  assets: [],          // every asset shown, in timeline order
  byId: new Map(),
  next: null,          // cursor of the next page; null at the end
  previous: null,      // after a jump: cursor of the page before the first shown (newer assets)
  loading: false,
  generation: 0,       // bumped when filters change: late pages of an older view are dropped
  lastDay: null,       // the day section the last tile went into
  current: -1,         // index of the asset open in the viewer
  selected: new Set(), // ids of the tiles chosen for a change to them all
  anchor: null,        // the tile a shift-click's range starts from
  returnFocus: null,   // what had the focus before the viewer opened
  albums: [],          // every album, from /api/albums
  pending: new Set(),  // ids of tiles whose thumbnail a worker has still to make
  warmed: false,       // whether a movie has been opened to ready the browser's player
  watchingPending: false,
};

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) node.append(c);
  return node;
};

async function api(path, options = {}) {
  const response = await fetch(path, options);
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error((body && (body.error?.message || body.error)) || `${response.status} ${response.statusText}`);
  return body;
}

// ---- The library's jobs (thumbnails, proxies, edits) under way ----

// How much work waits and runs, in the bar; asked again every 2 s while there is some,
// every 15 s otherwise.
async function showWork() {
  let busy = false;
  try {
    const work = await api("/api/work");
    busy = work.waiting + work.running > 0;
    const parts = [];
    if (work.running) parts.push(`${work.running} running`);
    if (work.waiting) parts.push(`${work.waiting} waiting` + (work.workers ? "" : " for a worker"));
    $("work").textContent = parts.length ? `Jobs: ${parts.join(", ")}` : "";
    $("work").title = work.failed ? `${work.failed} failed: camlib jobs says why` : "";
    $("work").hidden = !busy;
  } catch (_) { /* the next look will tell */ }
  setTimeout(showWork, busy ? 2000 : 15000);
}

// Tiles whose thumbnails wait for a worker: asked after every 2 s, and filled in as the
// thumbnails are made.
async function watchPending() {
  if (state.watchingPending) return;
  state.watchingPending = true;
  while (state.pending.size > 0) {
    await new Promise((r) => setTimeout(r, 2000));
    const ids = [...state.pending].slice(0, 2000);
    let still;
    try {
      still = new Set((await api(`/api/thumbnails/pending?assets=${ids.join(",")}`)).pending);
    } catch (_) { continue; /* the next look will tell */ }
    for (const id of ids) {
      if (still.has(id)) continue;
      state.pending.delete(id);
      const asset = state.assets[state.byId.get(id)];
      const tile = document.querySelector(`.tile[data-id="${id}"]`);
      if (!asset || !tile) continue;
      asset.media.thumbnailPending = false;
      fillTile(tile, asset);
    }
  }
  state.watchingPending = false;
}

// ---- Filters, kept in the URL so a view can be bookmarked ----

const FILTER_NAMES = ["kind", "make", "model", "since", "until", "has", "edited", "keyword", "place"];
// Which collection the timeline shows, chosen in the bar (#views): the filters narrow it.
const VIEW_NAMES = ["favorite", "trashed", "album", "view", "box"];

function currentView() {
  const params = new URLSearchParams(location.search);
  if (params.get("view") === "albums") return { name: "albums" };
  if (params.get("view") === "map") return { name: "map" };
  if (params.get("trashed") === "1") return { name: "trash" };
  if (params.get("album")) return { name: "album", album: params.get("album") };
  if (params.get("favorite") === "1") return { name: "favorites" };
  return { name: "photos" };
}

function filtersFromURL() {
  const params = new URLSearchParams(location.search);
  $("q").value = params.get("q") || "";
  const form = $("filters");
  for (const name of FILTER_NAMES) {
    const input = form.elements[name];
    if (input.type === "checkbox") input.checked = params.get(name) === input.value;
    else input.value = params.get(name) || "";
  }
  return params;
}

function filtersToURL() {
  const form = $("filters");
  const params = new URLSearchParams();
  const current = new URLSearchParams(location.search);
  for (const name of VIEW_NAMES) if (current.has(name)) params.set(name, current.get(name));
  for (const name of FILTER_NAMES) {
    const input = form.elements[name];
    if (input.type === "checkbox") { if (input.checked) params.set(name, input.value); }
    else if (input.value) params.set(name, input.value);
  }
  const search = $("q").value.trim();
  if (search) params.set("q", search);
  const text = params.toString();
  history.replaceState(null, "", text ? `?${text}` : location.pathname);
  return params;
}

function listingParams(extra = {}) {
  const params = new URLSearchParams(location.search);
  params.delete("token");
  params.delete("asset");
  params.delete("pageSize");
  params.delete("keep");
  params.delete("ahead");
  params.delete("view");
  // The first page of a view is what fills the screen, and comes first; then full pages.
  params.set("limit", state.assets.length === 0 ? Math.min(PAGE, FIRST_PAGE) : PAGE);
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  return params;
}

// ---- The timeline ----

function resetTimeline() {
  state.generation++;
  state.assets = [];
  state.byId.clear();
  state.next = null;
  state.previous = null;
  state.lastDay = null;
  state.loading = false;
  state.selected.clear();
  showSelection();
  $("timeline").replaceChildren();
  $("status").textContent = "";
}

async function loadPage(extra = {}) {
  if (state.loading) return;
  state.loading = true;
  const generation = state.generation;
  const firstOfView = state.assets.length === 0;
  try {
    const params = listingParams(state.next ? { after: state.next } : extra);
    // An album without filters is shown in its own order, a page at a time by place.
    const album = inAlbumOrder() ? albumNamed(currentView().album) : null;
    const page = album
      ? await api(`/api/albums/${album.id}/assets?limit=${params.get("limit")}${state.next ? `&after=${state.next}` : ""}`)
      : await api(`/api/assets?${params}`);
    if (generation !== state.generation) return;
    state.next = page.next;
    for (const asset of page.assets) addTile(asset);
    trimAbove();
    // A view that starts at a jump can be scrolled up, to what is newer.
    if (firstOfView && extra.start && page.assets.length && page.assets[0].capturedAt) state.previous = page.assets[0].cursor;
    $("count").textContent = `${state.assets.length}${state.next ? "+" : ""} shown`;
    $("slideshowButton").hidden = state.assets.length === 0;
    $("status").textContent = state.assets.length === 0 ? emptyText() : (state.next ? "" : inAlbumOrder() ? "The end of the album." : "The end of the timeline.");
  } catch (error) {
    if (generation === state.generation) {
      $("status").textContent = `Could not load the timeline: ${error.message}`;
      $("count").textContent = "not connected";
    }
  } finally {
    if (generation === state.generation) state.loading = false;
  }
  // The first screenful's thumbnails come before the next page's (at most 400 ms).
  if (firstOfView) await screenfulLoaded(400);
  if (generation === state.generation) fill();
}

// What an empty view says: with filters, that nothing matches; a library with nothing in
// it, how photos get in.
function emptyText() {
  const view = currentView();
  const filtered = [...FILTER_NAMES, "q", "box"].some((name) => new URLSearchParams(location.search).get(name));
  if (filtered) return "Nothing here: no asset matches these filters.";
  if (view.name === "favorites") return "No favourites yet: open a photo and choose ♡ Favourite.";
  if (view.name === "trash") return "The trash is empty.";
  if (view.name === "album") return "This album is empty: select photos in the timeline and add them to it.";
  return "The library is empty. Drop photos and movies here or choose Upload; or bring them in with `camlib import FOLDER`, or take one with `camlib capture`.";
}

// Loads what is within reach of the screen and not loaded yet: older assets below, newer
// ones above (after a jump). Called when a load ends, and on scrolling: the observers only
// hear a marker come into reach, not that it stayed there while a page was loading.
function fill() {
  if (state.loading) return;
  if (state.next && $("more").getBoundingClientRect().top < innerHeight + AHEAD) loadPage();
  else if (state.previous && $("newer").getBoundingClientRect().bottom > -AHEAD) loadNewer();
}

/// Resolves when the tiles' thumbnails loaded so far have arrived (or failed), or after `ms`.
function screenfulLoaded(ms) {
  const images = [...document.querySelectorAll(".tile img")].filter((i) => !i.complete && i.loading === "eager");
  const arrived = Promise.all(images.map((i) => new Promise((done) => {
    i.addEventListener("load", done, { once: true });
    i.addEventListener("error", done, { once: true });
  })));
  return Promise.race([arrived, new Promise((done) => setTimeout(done, ms))]);
}

// Loads the page before the first tile (after a jump: newer assets) and puts it above,
// keeping what is on the screen where it is.
async function loadNewer() {
  if (state.loading || !state.previous) return;
  state.loading = true;
  const generation = state.generation;
  try {
    const page = await api(`/api/assets?${listingParams({ before: state.previous })}`);
    if (generation !== state.generation) return;
    state.previous = page.previous;
    const anchor = document.querySelector(".tile");
    const top = anchor ? anchor.getBoundingClientRect().top : 0;
    state.assets = page.assets.concat(state.assets);
    if (state.current >= 0) state.current += page.assets.length;
    state.byId.clear();
    state.assets.forEach((a, i) => state.byId.set(a.id, i));
    for (const asset of [...page.assets].reverse()) {
      const day = dayOf(asset);
      // A row break left at the top (its row above was taken out) is made again below.
      if ($("timeline").firstElementChild?.classList.contains("year-break")) $("timeline").firstElementChild.remove();
      let section = $("timeline").firstElementChild;
      if (!section || section.dataset.day !== day) {
        if (section && yearOf(day) !== yearOf(section.dataset.day)) $("timeline").prepend(yearBreak());
        section = daySection(day, asset);
        $("timeline").prepend(section);
      }
      section.querySelector(".grid").prepend(makeTile(asset));
    }
    if (anchor) scrollBy(0, anchor.getBoundingClientRect().top - top);
    trimBelow();
    $("count").textContent = `${state.assets.length}${state.next || state.previous ? "+" : ""} shown`;
  } catch (error) {
    if (generation === state.generation) $("status").textContent = `Could not load the timeline: ${error.message}`;
  } finally {
    if (generation === state.generation) state.loading = false;
  }
  if (generation === state.generation) fill();
}

// The day sections in rows, as the page lays them out (days flow side by side; a row's
// sections share their top). Only whole rows are taken out, so nothing else moves.
function rows() {
  const out = [];
  for (const section of $("timeline").children) {
    const last = out[out.length - 1];
    if (last && last[0].offsetTop === section.offsetTop) last.push(section);
    else out.push([section]);
  }
  return out;
}

const tileCount = (sections) => sections.reduce((n, s) => n + s.querySelectorAll(".tile").length, 0);

function forget(count, fromStart) {
  const gone = fromStart ? state.assets.splice(0, count) : state.assets.splice(state.assets.length - count, count);
  for (const a of gone) state.byId.delete(a.id);
  state.assets.forEach((a, i) => state.byId.set(a.id, i));
}

// Past KEEP tiles, the rows far above the screen go (scrolling up loads them again with
// before=), the screen staying where it is. The new first asset must have a date: from
// undated ones there is no going back to dated ones.
function trimAbove() {
  // (An album in its own order is read once, top to bottom: its pages have no way back.)
  if (!$("viewer").hidden || state.assets.length <= KEEP || inAlbumOrder()) return;
  const all = rows();
  let cut = 0, count = 0;
  for (let i = 0; i < all.length - 1; i++) {
    const bottom = Math.max(...all[i].map((s) => s.getBoundingClientRect().bottom));
    if (bottom > -2 * AHEAD || state.assets.length - count <= KEEP) break;
    const n = tileCount(all[i]);
    if (!state.assets[count + n]?.capturedAt) break;
    count += n;
    cut = i + 1;
  }
  if (!cut) return;
  const anchor = all[cut][0];
  const top = anchor.getBoundingClientRect().top;
  for (const row of all.slice(0, cut)) for (const section of row) section.remove();
  forget(count, true);
  state.previous = state.assets[0].cursor;
  scrollBy(0, anchor.getBoundingClientRect().top - top);
}

// Past KEEP tiles, the rows far below the screen go; scrolling down loads them again.
function trimBelow() {
  if (!$("viewer").hidden || state.assets.length <= KEEP || inAlbumOrder()) return;
  const all = rows();
  let count = 0, removed = 0;
  for (let i = all.length - 1; i > 0; i--) {
    const top = Math.min(...all[i].map((s) => s.getBoundingClientRect().top));
    if (top < innerHeight + 2 * AHEAD || state.assets.length - count <= KEEP) break;
    count += tileCount(all[i]);
    removed++;
  }
  if (!removed) return;
  for (const row of all.slice(all.length - removed)) for (const section of row) section.remove();
  forget(count, false);
  state.next = state.assets[state.assets.length - 1].cursor;
  state.lastDay = $("timeline").lastElementChild?.dataset.day ?? null;
}

function dayOf(asset) {
  if (inAlbumOrder()) return "album";
  return asset.capturedAt ? asset.capturedAt.slice(0, 10) : "undated";
}

// An album's view without filters: its assets in the album's own order, in one grid.
function inAlbumOrder() {
  const params = new URLSearchParams(location.search);
  return currentView().name === "album" && ![...FILTER_NAMES, "q"].some((name) => params.get(name));
}

function dayTitle(day) {
  if (day === "album") return "In the album's order";
  if (day === "undated") return "Without a date";
  const [y, m, d] = day.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString(undefined, { weekday: "short", year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
}

function coordinatesText(location) {
  if (!location) return "";
  const lat = location.latitude, lon = location.longitude;
  // 0°, 0° is where cameras without a fix write their "place".
  if (lat === 0 && lon === 0) return "";
  return `${Math.abs(lat).toFixed(3)}° ${lat >= 0 ? "N" : "S"}, ${Math.abs(lon).toFixed(3)}° ${lon >= 0 ? "E" : "W"}`;
}

// What a day's heading says of where: "Huntsville, Alabama" (the town, else the region,
// then the region or the country); coordinates while the place has no name yet.
function placeText(asset) {
  const p = asset.place;
  if (!p) return coordinatesText(asset.location);
  const local = p.city || p.region;
  const wider = p.city && p.region && p.region !== p.city ? p.region : p.country;
  return local ? `${local}, ${wider}` : p.country;
}

// The place in full, most local first: "Huntsville, Alabama, United States".
function fullPlaceText(place) {
  return [place.city, place.region !== place.city ? place.region : null, place.country].filter(Boolean).join(", ");
}

function durationText(seconds) {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function assetName(asset) {
  const original = asset.resources.find((r) => r.role === "photo") || asset.resources.find((r) => r.role === "video" || r.role === "pairedVideo");
  return (original && original.originalName) || `Asset ${asset.id}`;
}

function badgesOf(asset) {
  const badges = [];
  if (asset.kind === "live") badges.push(["LIVE", "live"]);
  if (asset.kind === "motion") badges.push(["MOTION", "live"]);
  const types = new Set(asset.aux.map((a) => a.type));
  if (types.has("portraitEffectsMatte")) badges.push(["PORTRAIT", ""]);
  else if (types.has("depth") || types.has("disparity")) badges.push(["DEPTH", ""]);
  if (asset.adjustments.some((a) => a.current)) badges.push(["EDITED", ""]);
  return badges;
}

// Days flow side by side, but a year starts a row of its own: a new year reads as one, not
// as the next day after the last days of the year before.
const yearOf = (day) => (day && /^\d{4}-/.test(day) ? day.slice(0, 4) : null);
const yearBreak = () => el("div", { class: "year-break" });

function addTile(asset) {
  const index = state.assets.length;
  state.assets.push(asset);
  state.byId.set(asset.id, index);
  const day = dayOf(asset);
  let grid = $("timeline").lastElementChild?.querySelector(".grid");
  if (day !== state.lastDay || !grid) {
    if (grid && yearOf(day) !== yearOf(state.lastDay)) $("timeline").append(yearBreak());
    const section = daySection(day, asset);
    $("timeline").append(section);
    grid = section.querySelector(".grid");
    state.lastDay = day;
  }
  grid.append(makeTile(asset));
}

// A day's section: its date, the place of `asset` (its first asset shown), an empty grid.
function daySection(day, asset) {
  const heading = el("h2", { text: dayTitle(day) });
  const place = day === "album" ? "" : placeText(asset);
  if (place) heading.append(el("span", { class: "place", text: place }));
  return el("section", { class: "day", "data-day": day }, heading, el("div", { class: "grid" }));
}

function makeTile(asset) {
  const tile = el("button", { class: "tile", type: "button", "data-id": asset.id, "data-kind": asset.kind, title: assetName(asset) });
  fillTile(tile, asset);
  let held = false;  // a finger pressed and held to play the movie: lifting it does not open
  tile.addEventListener("click", (e) => {
    if (held) { held = false; return; }
    // The ring, or any tile while some are chosen, chooses (shift: the range from the last
    // chosen); otherwise a tile opens.
    if (e.shiftKey && state.anchor !== null) selectRange(state.anchor, asset.id);
    else if (e.target.classList.contains("pick") || state.selected.size > 0 || e.shiftKey) toggleSelected(asset.id);
    else openViewer(state.byId.get(asset.id));
  });
  if (asset.media.video && (asset.kind === "live" || asset.kind === "motion")) {
    warmMoviePlayer(asset);
    // As LivePhotosKit does: the movie plays while the pointer rests on the tile, and
    // while a finger presses and holds it. The movie takes no clicks (the tile does), and
    // a mouse's click leaves it playing: only leaving the tile stops it.
    let timer = null;
    tile.addEventListener("pointerenter", (e) => { if (e.pointerType === "mouse") playInTile(tile); });
    tile.addEventListener("pointerleave", () => { clearTimeout(timer); stopInTile(tile); });
    tile.addEventListener("pointerdown", (e) => {
      if (e.pointerType === "mouse") return;
      held = false;
      timer = setTimeout(() => { held = true; playInTile(tile); }, 250);
    });
    tile.addEventListener("pointerup", (e) => { if (e.pointerType !== "mouse") { clearTimeout(timer); stopInTile(tile); } });
    tile.addEventListener("pointercancel", () => { clearTimeout(timer); stopInTile(tile); held = false; });
    tile.addEventListener("contextmenu", (e) => { if (tile.querySelector("video")) e.preventDefault(); });
  }
  return tile;
}

function fillTile(tile, asset) {
  // The first screenful is asked for at once; the rest as it comes near.
  const eager = (state.byId.get(asset.id) ?? 0) < FIRST_PAGE;
  const img = el("img", { alt: assetName(asset), loading: eager ? "eager" : "lazy", decoding: "async", draggable: false });
  // A thumbnail still to be made by a worker: a placeholder until it is (watchPending).
  const pending = asset.media.thumbnailPending;
  tile.classList.toggle("pending", !!pending);
  tile.setAttribute("aria-busy", String(!!pending));
  if (pending) {
    state.pending.add(asset.id);
    watchPending();
  } else if (asset.media.thumbnail) {
    img.src = asset.media.thumbnail;
  }
  const badges = el("div", { class: "badges" });
  for (const [label, kind] of badgesOf(asset)) badges.append(el("span", { class: `badge ${kind}`, text: label }));
  const children = [img, badges];
  if (asset.kind === "video" && asset.duration) children.push(el("span", { class: "duration", text: durationText(asset.duration) }));
  if (asset.favorite) children.push(el("span", { class: "badge fav", text: "♥", title: "Favourite" }));
  const pick = el("span", { class: "pick", title: "Select" });
  pick.setAttribute("role", "checkbox");
  pick.setAttribute("aria-checked", String(state.selected.has(asset.id)));
  pick.setAttribute("aria-label", `Select ${assetName(asset)}`);
  children.push(pick);
  tile.classList.toggle("selected", state.selected.has(asset.id));
  tile.replaceChildren(...children);
}

// The browser's first movie of a page starts slowly (Chromium readies its media pipeline:
// a quarter of a second): the first Live Photo's movie is opened once, unseen and its
// metadata only, when the page is idle, so that a first hover plays at once. Not while
// files upload: opening a movie may make its browsers' copy, which would compete with
// their import; the tiles drawn after the uploads warm it.
function warmMoviePlayer(asset) {
  if (state.warmed || uploadsBusy()) return;
  state.warmed = true;
  const warm = () => {
    if (uploadsBusy()) { state.warmed = false; return; }
    const video = el("video", { muted: true, preload: "metadata" });
    video.muted = true;
    const done = () => { video.removeAttribute("src"); video.load(); };
    video.addEventListener("loadedmetadata", done, { once: true });
    video.addEventListener("error", done, { once: true });
    video.src = asset.media.video;
  };
  if (window.requestIdleCallback) requestIdleCallback(warm, { timeout: 1000 });
  else setTimeout(warm, 200);
}

function playInTile(tile) {
  const asset = state.assets[state.byId.get(Number(tile.dataset.id))];
  if (!asset || tile.querySelector("video")) return;
  const video = el("video", { muted: true, playsInline: true, loop: true, preload: "auto" });
  video.muted = true;
  video.src = asset.media.video;
  // Until it plays (a movie never played is made for browsers first): a spinner.
  tile.classList.add("loading");
  video.addEventListener("playing", () => tile.classList.remove("loading"), { once: true });
  video.addEventListener("error", () => tile.classList.remove("loading"), { once: true });
  tile.append(video);
  video.play().catch(() => {});
}

function stopInTile(tile) {
  tile.classList.remove("loading");
  const video = tile.querySelector("video");
  if (!video) return;
  video.pause();
  video.removeAttribute("src");
  video.load();
  video.remove();
}

// ---- The asset view ----

// The page behind the viewer while it is open: out of reach of the keyboard and of
// assistive technology (the viewer is a modal dialog).
const BEHIND = ["bar", "viewHead", "selectionBar", "albums", "scrubber", "memories", "timeline", "status"];

function openViewer(index) {
  if (index === undefined || index < 0 || index >= state.assets.length) return;
  const opening = $("viewer").hidden;
  const changed = state.current !== index;
  state.current = index;
  const asset = state.assets[index];
  $("viewer").hidden = false;
  document.body.style.overflow = "hidden";
  for (const id of BEHIND) $(id).inert = true;
  const params = new URLSearchParams(location.search);
  params.set("asset", asset.id);
  // Opening is a step in the browser's history, so Back closes the photo; going from
  // photo to photo is not.
  if (opening) {
    // Opened from an address that names the asset: Back goes to the timeline.
    if (new URLSearchParams(location.search).has("asset")) {
      const without = new URLSearchParams(location.search);
      without.delete("asset");
      history.replaceState(null, "", without.toString() ? `?${without}` : location.pathname);
    }
    history.pushState({ viewer: true }, "", `?${params}`);
    state.returnFocus = document.activeElement;
  } else {
    history.replaceState(history.state, "", `?${params}`);
  }
  if (changed || opening) resetEditor();
  showAsset(asset, true);
  if (changed || opening) startEditor(asset);
  slideshowShown(asset);
  if (opening) $("close").focus();
  refreshAsset(asset.id);
  // Near the end of what is loaded: load more, so "next" keeps working.
  if (index > state.assets.length - 5 && state.next) loadPage();
}

// Closes the viewer: by going back in history when opening it was a step there (the
// popstate that follows closes it), else at once.
function closeViewer() {
  if ($("viewer").hidden) return;
  // At once: leaving full screen, which follows, must not close it a second time.
  endSlideshow();
  if (history.state?.viewer) { history.back(); return; }
  hideViewer();
}

function hideViewer() {
  if ($("viewer").hidden) return;
  endSlideshow();
  // The tile of the asset last shown takes the focus (and comes into sight).
  const shown = state.assets[state.current];
  $("viewer").hidden = true;
  for (const id of BEHIND) $(id).inert = false;
  state.current = -1;
  $("organiseStatus").textContent = "";
  document.body.style.overflow = "";
  resetEditor();
  startEditor(null);
  const back = (shown && document.querySelector(`.tile[data-id="${shown.id}"]`)) || state.returnFocus;
  const video = $("motion");
  video.pause();
  video.removeAttribute("src");
  video.load();
  const params = new URLSearchParams(location.search);
  params.delete("asset");
  const text = params.toString();
  history.replaceState(null, "", text ? `?${text}` : location.pathname);
  back?.focus?.();
  // What was taken out of this view while it was open (a favourite unmarked in
  // Favourites, say) goes now, not under the viewer's eyes.
  pruneView();
}

async function refreshAsset(id) {
  try {
    const fresh = await api(`/api/assets/${id}`);
    const index = state.byId.get(id);
    if (index !== undefined) {
      state.assets[index] = fresh;
      const tile = document.querySelector(`.tile[data-id="${id}"]`);
      if (tile) fillTile(tile, fresh);
    }
    if (state.current === index || index === undefined) showAsset(fresh, false);
    return fresh;
  } catch (error) {
    $("editStatus").textContent = error.message;
  }
}

// What the edit panel and the statuses said of the asset shown before: not carried to
// the next one (the editor starts again on it: startEditor).
function resetEditor() {
  for (const id of ["editStatus", "organiseStatus"]) $(id).textContent = "";
  $("stage").classList.remove("error");
  $("stageMessage").hidden = true;
  $("panel").scrollTop = 0;
  $("viewer").scrollTop = 0;
}

function showAsset(asset, opening) {
  const still = $("still"), video = $("motion"), stage = $("stage");
  $("title").textContent = assetName(asset);
  $("overlay").hidden = true;
  $("side").hidden = true;
  stage.classList.remove("sbs");
  $("sideBySide").checked = false;
  // (A refresh leaves the editor's preview of this asset on the stage.)
  if (still.getAttribute("src") !== asset.media.preview && !(!opening && editorOwnsStill(asset))) {
    $("stageMessage").hidden = true;
    stage.classList.add("loading");
    still.src = asset.media.preview || "";
  }
  still.alt = assetName(asset);
  still.hidden = false;
  $("replay").hidden = !(asset.media.video && (asset.kind === "live" || asset.kind === "motion"));
  if (asset.kind === "video") {
    still.hidden = true;
    video.hidden = false;
    video.controls = true;
    video.muted = false;
    video.loop = false;
    video.poster = asset.media.preview || "";
    if (video.getAttribute("src") !== asset.media.video) video.src = asset.media.video;
  } else if (opening && asset.media.video && (asset.kind === "live" || asset.kind === "motion")) {
    playMotionOnce(asset);
  } else if (opening || asset.kind === "photo") {
    video.pause();
    video.hidden = true;
    video.removeAttribute("src");
  }
  showInfo(asset);
  showOrganise(asset);
  showAux(asset);
  showHistory(asset);
  showDownload(asset);
}

// As Apple Photos does on opening a Live Photo: its motion plays once, then the view
// settles on the still, taken at the movie's still-image-time.
function playMotionOnce(asset) {
  const video = $("motion"), still = $("still");
  video.controls = false;
  video.loop = false;
  video.muted = false;
  video.poster = asset.media.preview || "";
  video.src = asset.media.video;
  // The still stays on the stage, with a spinner, until the movie plays (a movie never
  // played is made for browsers first): never a black stage.
  video.hidden = true;
  $("stage").classList.add("loading");
  video.dataset.asset = asset.id;
  video.onplaying = () => {
    if (video.dataset.asset !== String(asset.id)) return;
    $("stage").classList.remove("loading");
    video.hidden = false;
  };
  const settle = () => {
    if (video.dataset.asset !== String(asset.id)) return;
    $("stage").classList.remove("loading");
    video.pause();
    video.hidden = true;
    still.hidden = false;
  };
  video.onended = settle;
  video.onerror = settle;
  video.play().catch(() => { video.muted = true; video.play().catch(settle); });
}

// A time as people read it, in the browser's language: the clock time where it was taken
// (the offset the file gives), with the offset said when it is not this browser's.
function timeText(iso) {
  if (!iso) return "";
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.exec(iso);
  if (!match) return iso;
  const [, y, mo, d, h, mi, s, zone] = match;
  // The wall-clock time as taken, formatted as if in UTC so no conversion moves it.
  const wall = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
  const text = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }).format(wall);
  if (!zone) return text;
  const minutes = zone === "Z" ? 0 : (zone[0] === "-" ? -1 : 1) * (+zone.slice(1, 3) * 60 + +zone.slice(4, 6));
  const here = -new Date(wall.getTime() - minutes * 60000).getTimezoneOffset();
  if (minutes === here) return text;
  return `${text} (UTC${zone === "Z" ? "" : zone})`;
}

function addInfo(list, label, value) {
  if (value === null || value === undefined || value === "") return;
  list.append(el("dt", { text: label }), el("dd", { text: String(value) }));
}

function showInfo(asset) {
  const info = $("info");
  info.replaceChildren();
  addInfo(info, "Kind", { photo: "Photo", live: "Live Photo", motion: "Motion Photo", video: "Video" }[asset.kind] || asset.kind);
  addInfo(info, "Taken", timeText(asset.capturedAt));
  addInfo(info, "Camera", [asset.make, asset.model].filter(Boolean).join(" "));
  addInfo(info, "Lens", asset.lensModel);
  if (asset.place) {
    // The place's name shows the timeline of everything taken there.
    const name = asset.place.city || asset.place.region || asset.place.country;
    const link = el("a", { class: "place-link", href: `/?place=${encodeURIComponent(name)}`, text: fullPlaceText(asset.place) });
    info.append(el("dt", { text: "Place" }), el("dd", {}, link));
  }
  addInfo(info, "Coordinates", coordinatesText(asset.location));
  showMiniMap(asset);
  addInfo(info, "Size", asset.width && asset.height ? `${asset.width} × ${asset.height}` : "");
  addInfo(info, "Duration", asset.duration ? `${asset.duration.toFixed(2)} s` : "");
  addInfo(info, "Video", [asset.videoCodec, asset.audioCodec].filter(Boolean).join(" + "));
  if (asset.pairing) addInfo(info, "Paired by", `${asset.pairing.rule} (${Math.round(asset.pairing.confidence * 100)}%)`);
  addInfo(info, "Still at", asset.stillImageTime !== null && asset.stillImageTime !== undefined ? `${asset.stillImageTime.toFixed(2)} s into the movie` : "");
  addInfo(info, "Imported", timeText(asset.importedAt));
  // The files, for who wants them, under a disclosure: the originals by their names,
  // what camlib made by what it is.
  const files = $("files");
  const made = { thumbnail: "Thumbnail", renderedPhoto: "Edited photo", renderedVideo: "Edited movie" };
  files.replaceChildren(...asset.resources.map((r) => el("li", {},
    el("div", { text: `${made[r.role] || r.originalName || r.path.split("/").pop()} (${(r.bytes / 1048576).toFixed(2)} MB)` }),
    el("div", { class: "sha", text: `${r.role}, sha256 ${r.sha256}` }))));
}

const AUX_LABELS = {
  depth: "Depth", disparity: "Depth (disparity)", portraitEffectsMatte: "Portrait matte", skinMatte: "Skin matte",
  hairMatte: "Hair matte", teethMatte: "Teeth matte", glassesMatte: "Glasses matte", skyMatte: "Sky matte",
  hdrGainMap: "HDR gain map", other: "Other",
};

function showAux(asset) {
  const panel = $("auxPanel"), buttons = $("auxButtons");
  const entries = Object.entries(asset.media.aux || {});
  panel.hidden = entries.length === 0;
  buttons.replaceChildren(...entries.map(([type, url]) => {
    const b = el("button", { type: "button", text: AUX_LABELS[type] || type, "data-type": type });
    b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", () => toggleAux(b, url));
    return b;
  }));
}

function toggleAux(button, url) {
  const pressed = button.getAttribute("aria-pressed") === "true";
  for (const b of $("auxButtons").children) b.setAttribute("aria-pressed", "false");
  const overlay = $("overlay"), side = $("side");
  if (pressed) { overlay.hidden = true; side.hidden = true; $("stage").classList.remove("sbs"); return; }
  button.setAttribute("aria-pressed", "true");
  overlay.src = url;
  side.src = url;
  overlay.style.opacity = $("opacity").value / 100;
  applySideBySide();
}

function applySideBySide() {
  const anyAux = [...$("auxButtons").children].some((b) => b.getAttribute("aria-pressed") === "true");
  const sbs = $("sideBySide").checked && anyAux;
  $("stage").classList.toggle("sbs", sbs);
  $("side").hidden = !sbs;
  $("overlay").hidden = sbs || !anyAux;
}

function showHistory(asset) {
  const list = $("history");
  const current = asset.adjustments.find((a) => a.current);
  const items = [el("li", { text: `Original${current ? "" : " (current)"}` })];
  for (const a of asset.adjustments) {
    let recipe = a.formatIdentifier;
    try {
      const data = JSON.parse(a.data);
      if (data.steps) recipe = data.steps.map((s) => s.name).join(" + ") || "attached images";
    } catch (_) { /* an adjustment of another app: its identifier says what it is */ }
    items.push(el("li", { text: `${recipe}, ${a.createdAt}${a.current ? " (current)" : ""}` }));
  }
  list.replaceChildren(...items);
  $("revert").disabled = !current;
}

// ---- Edits (the editor is editor.js) ----

async function post(path, body) {
  return api(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Camlib-Request": "1" },
    body: body ? JSON.stringify(body) : undefined,
  });
}

// ---- The search box: words and dates, with suggestions as one types ----

const SUGGESTION_KINDS = { place: "Place", camera: "Camera", lens: "Lens", keyword: "Keyword", album: "Album" };
const searchState = { seq: 0, timer: null, active: -1 };

// The word being typed: after the last space, or after an open quote.
function currentWord(value) {
  if (((value.match(/"/g) || []).length) % 2 === 1) {
    const start = value.lastIndexOf('"');
    return { start, word: value.slice(start + 1) };
  }
  const match = /\S+$/.exec(value);
  return match ? { start: match.index, word: match[0] } : { start: value.length, word: "" };
}

function hideSuggestions() {
  searchState.seq++;
  searchState.active = -1;
  $("suggestions").hidden = true;
  $("suggestions").replaceChildren();
  $("q").setAttribute("aria-expanded", "false");
  $("q").removeAttribute("aria-activedescendant");
}

async function suggest() {
  const { word } = currentWord($("q").value);
  const seq = ++searchState.seq;
  if (word.replace(/"/g, "").length < 2) { hideSuggestions(); return; }
  let found = [];
  try { found = await api(`/api/suggest?q=${encodeURIComponent(word.replace(/"/g, ""))}`); } catch (_) { /* the box works without them */ }
  if (seq !== searchState.seq) return;  // a later keystroke asked again
  if (!found.length) { hideSuggestions(); return; }
  searchState.active = -1;
  $("suggestions").replaceChildren(...found.map((s, i) => {
    const item = el("li", { id: `suggestion-${i}` }, el("span", { text: s.text }), el("span", { class: "kind", text: SUGGESTION_KINDS[s.kind] || s.kind }));
    item.setAttribute("role", "option");
    item.setAttribute("aria-selected", "false");
    item.dataset.text = s.text;
    // Taken on pointerdown, before the box loses its focus and closes the list.
    item.addEventListener("pointerdown", (e) => { e.preventDefault(); pickSuggestion(s.text); });
    return item;
  }));
  $("suggestions").hidden = false;
  $("q").setAttribute("aria-expanded", "true");
}

function markSuggestion(index) {
  const items = [...$("suggestions").children];
  if (!items.length) return;
  searchState.active = (index + items.length) % items.length;
  items.forEach((item, i) => item.setAttribute("aria-selected", String(i === searchState.active)));
  $("q").setAttribute("aria-activedescendant", items[searchState.active].id);
}

// The word being typed becomes the suggestion (quoted when it has spaces), and the
// timeline shows the search.
function pickSuggestion(text) {
  const value = $("q").value;
  const { start } = currentWord(value);
  $("q").value = value.slice(0, start) + (/\s/.test(text) ? `"${text}"` : text) + " ";
  hideSuggestions();
  applyFilters();
}

function applyFilters() {
  // A search from the map shows its results in the timeline.
  if (currentView().name === "map") {
    const params = new URLSearchParams();
    if ($("q").value.trim()) params.set("q", $("q").value.trim());
    location.href = `/?${params}`;
    return;
  }
  filtersToURL();
  resetTimeline();
  loadPage();
  updateViewHead();
  loadMemories();
}

function wireSearch() {
  const box = $("q");
  box.addEventListener("input", () => {
    clearTimeout(searchState.timer);
    searchState.timer = setTimeout(suggest, 120);
    // The box's own clear button (×) empties it: the timeline shows everything again.
    if (box.value === "" && new URLSearchParams(location.search).has("q")) { hideSuggestions(); applyFilters(); }
  });
  box.addEventListener("keydown", (e) => {
    const open = !$("suggestions").hidden;
    if (e.key === "ArrowDown" && open) { e.preventDefault(); markSuggestion(searchState.active + 1); }
    else if (e.key === "ArrowUp" && open) { e.preventDefault(); markSuggestion(searchState.active - 1); }
    else if (e.key === "Escape" && open) { e.preventDefault(); e.stopPropagation(); hideSuggestions(); }
    else if (e.key === "Enter") {
      e.preventDefault();
      clearTimeout(searchState.timer);
      const item = open && searchState.active >= 0 ? $("suggestions").children[searchState.active] : null;
      if (item) pickSuggestion(item.dataset.text);
      else { hideSuggestions(); applyFilters(); }
    }
  });
  box.addEventListener("blur", () => setTimeout(hideSuggestions, 0));
}

// ---- The map (Leaflet, from Debian's libjs-leaflet): clusters the server counts ----

let leafletLoading = null;
let mapSettings = null;

async function loadMapSettings() {
  if (!mapSettings) mapSettings = await api("/api/map/settings");
  return mapSettings;
}

function loadLeaflet() {
  if (window.L) return Promise.resolve(window.L);
  if (!leafletLoading) {
    leafletLoading = new Promise((resolve, reject) => {
      document.head.append(el("link", { rel: "stylesheet", href: "/static/leaflet/leaflet.css" }));
      const script = el("script", { src: "/static/leaflet/leaflet.js" });
      script.addEventListener("load", () => resolve(window.L));
      script.addEventListener("error", () => reject(new Error("Leaflet could not be loaded")));
      document.head.append(script);
    });
  }
  return leafletLoading;
}

const boxParam = (c) => [c.south, c.west, c.north, c.east].map((n) => n.toFixed(6)).join(",");

// A cluster's marker: one of its photos, and how many there are.
function clusterIcon(L, cluster) {
  const photo = el("div", { class: "photo" });
  if (cluster.thumbnail) photo.append(el("img", { src: cluster.thumbnail, alt: "" }));
  const count = el("span", { class: "count", text: cluster.count > 999 ? `${Math.round(cluster.count / 1000)}k` : String(cluster.count) });
  count.dataset.count = String(cluster.count);
  return L.divIcon({ className: "map-cluster", html: el("div", { class: "pin" }, photo, count), iconSize: [56, 56], iconAnchor: [28, 28] });
}

async function showMap() {
  $("timeline").hidden = true;
  $("scrubber").hidden = true;
  $("slideshowButton").hidden = true;
  $("filters").hidden = true;
  $("mapView").hidden = false;
  let settings;
  try {
    settings = await loadMapSettings();
  } catch (error) {
    $("mapNote").textContent = `The map cannot be shown: ${error.message}`;
    return;
  }
  if (!settings.leaflet) {
    $("mapNote").textContent = "The map needs Leaflet: install Debian's libjs-leaflet (./setup.sh does).";
    return;
  }
  let L;
  try {
    L = await loadLeaflet();
  } catch (error) {
    $("mapNote").textContent = `The map cannot be shown: ${error.message}.`;
    return;
  }
  const map = L.map("map", { worldCopyJump: true, minZoom: 0, zoomSnap: 1 });
  if (settings.tiles) L.tileLayer(settings.tiles, { attribution: settings.attribution, maxZoom: 19 }).addTo(map);
  const markers = L.layerGroup().addTo(map);
  let asked = 0;
  async function draw() {
    const bounds = map.getBounds();
    const mine = ++asked;
    const query = new URLSearchParams({
      south: Math.max(-90, bounds.getSouth()).toFixed(6), north: Math.min(90, bounds.getNorth()).toFixed(6),
      west: Math.max(-540, bounds.getWest()).toFixed(6), east: Math.min(540, bounds.getEast()).toFixed(6), zoom: map.getZoom(),
    });
    let answer;
    try {
      answer = await api(`/api/map?${query}`);
    } catch (error) {
      $("mapNote").textContent = `The map's photos could not be read: ${error.message}`;
      return;
    }
    if (mine !== asked) return;  // the map moved again meanwhile
    markers.clearLayers();
    for (const cluster of answer.clusters) {
      const marker = L.marker([cluster.latitude, cluster.longitude], {
        icon: clusterIcon(L, cluster), title: cluster.count === 1 ? "1 photo" : `${cluster.count} photos`, keyboard: true,
      });
      // The cluster's photos, in the timeline.
      marker.on("click", () => { location.href = `/?box=${boxParam(cluster)}`; });
      markers.addLayer(marker);
    }
    const shown = answer.clusters.reduce((n, c) => n + c.count, 0);
    $("mapNote").textContent = answer.total === 0
      ? "No photo has a place yet."
      : `${plural(shown, "photo")} here, ${answer.total.toLocaleString()} with a place in all. Click a group to see its photos.`;
    // New photos are being added to a large map: asked again in a moment.
    if (answer.updating) {
      $("mapNote").textContent += " Adding the newest photos…";
      setTimeout(() => { if (mine === asked) draw(); }, 1500);
    }
  }
  // The map's place is kept in the URL (`at=LAT,LON,ZOOM`), so it can be bookmarked.
  map.on("moveend", () => {
    const c = map.getCenter();
    const params = new URLSearchParams(location.search);
    params.set("at", `${c.lat.toFixed(5)},${c.lng.toFixed(5)},${map.getZoom()}`);
    history.replaceState(null, "", `?${params}`);
    draw();
  });
  const at = (new URLSearchParams(location.search).get("at") || "").split(",").map(Number);
  if (at.length === 3 && at.every(Number.isFinite)) {
    map.setView([at[0], at[1]], at[2]);
    return;
  }
  // First: where the photos are.
  const world = await api("/api/map?south=-90&west=-180&north=90&east=180&zoom=1").catch(() => ({ clusters: [] }));
  if (world.clusters.length) {
    map.fitBounds(L.latLngBounds(world.clusters.map((c) => [[c.south, c.west], [c.north, c.east]]).flat()), { maxZoom: 12 });
  } else {
    map.setView([20, 0], 2);
  }
}

// The info panel's small map: where the asset was taken, when there is a map to draw on.
let miniMap = null;
async function showMiniMap(asset) {
  const box = $("miniMap");
  if (miniMap) { miniMap.remove(); miniMap = null; }
  box.hidden = true;
  const where = asset.location;
  if (!where || (where.latitude === 0 && where.longitude === 0)) return;
  let settings;
  try { settings = await loadMapSettings(); } catch (_) { return; }
  if (!settings.leaflet || !settings.tiles) return;
  const L = await loadLeaflet().catch(() => null);
  if (!L || state.assets[state.current]?.id !== asset.id) return;  // another asset is shown by now
  box.hidden = false;
  miniMap = L.map(box, { zoomControl: false, dragging: false, scrollWheelZoom: false, doubleClickZoom: false, boxZoom: false,
    keyboard: false, touchZoom: false, attributionControl: true }).setView([where.latitude, where.longitude], 12);
  L.tileLayer(settings.tiles, { attribution: settings.attribution, maxZoom: 19 }).addTo(miniMap);
  L.circleMarker([where.latitude, where.longitude], { radius: 7, color: "#fff", weight: 2, fillColor: "#2f6fd6", fillOpacity: 1 }).addTo(miniMap);
}

// ---- Favourites, albums, keywords, the trash ----

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

async function loadAlbums() {
  try {
    state.albums = await api("/api/albums");
  } catch (error) {
    state.albums = [];
  }
  for (const select of [$("addToAlbum"), $("selAlbum")]) {
    const first = select.id === "selAlbum" ? "Add to album…" : "Choose an album…";
    select.replaceChildren(el("option", { value: "", text: first }),
      ...state.albums.map((a) => el("option", { value: String(a.id), text: a.name })));
  }
}

async function loadKeywords() {
  try {
    const keywords = await api("/api/keywords");
    $("keywordList").replaceChildren(...keywords.map((k) => el("option", { value: k.name })));
  } catch (_) { /* the inputs work without suggestions */ }
}

// The place filter's suggestions: every town, region and country assets were taken in.
async function loadPlaces() {
  try {
    const places = await api("/api/places");
    const names = new Set();
    for (const p of places) for (const name of [p.city, p.region, p.country]) if (name) names.add(name);
    $("placeList").replaceChildren(...[...names].sort((a, b) => a.localeCompare(b)).map((name) => el("option", { value: name })));
  } catch (_) { /* the input works without suggestions */ }
}

const albumNamed = (name) => state.albums.find((a) => a.name === name);

function showOrganise(asset) {
  const view = currentView();
  const trashed = Boolean(asset.trashedAt);
  const favorite = $("favorite");
  favorite.setAttribute("aria-pressed", String(Boolean(asset.favorite)));
  favorite.textContent = asset.favorite ? "♥ Favourite" : "♡ Favourite";
  $("trashButton").textContent = trashed ? "Restore" : "Move to trash";
  $("trashNote").hidden = !trashed;
  $("trashNote").textContent = trashed ? `In the trash since ${asset.trashedAt}. It keeps all its files until the trash is emptied.` : "";
  const album = view.name === "album" ? albumNamed(view.album) : null;
  $("makeCover").hidden = !album || trashed;
  $("makeCover").disabled = Boolean(album && album.cover === asset.id);
  // What changes an asset waits until it is out of the trash, as the commands do.
  for (const id of ["favorite", "revert"]) $(id).disabled = trashed || (id === "revert" && !asset.adjustments.some((a) => a.current));
  $("editorControls").inert = trashed || !editor.ready;
  if (trashed) $("applyEdit").disabled = true;
  for (const form of [$("albumForm"), $("keywordForm")]) for (const control of form.elements) control.disabled = trashed;
  $("albumChips").replaceChildren(...chips(asset.albums, (name) => `?album=${encodeURIComponent(name)}`,
    trashed ? null : (name) => changeAlbum(albumNamed(name)?.id, { remove: [asset.id] }, `Taken out of “${name}”.`), "In no album."));
  $("keywordChips").replaceChildren(...chips(asset.keywords, (name) => `?keyword=${encodeURIComponent(name)}`,
    trashed ? null : (name) => changeKeywords([asset.id], { remove: [name] }, `“${name}” taken off.`), "No keywords."));
}

// A list of names as chips: each a link to its view, with a button that takes it off.
function chips(names, link, remove, empty) {
  if (!names || names.length === 0) return [el("li", { class: "none", text: empty })];
  return names.map((name) => {
    const item = el("li", {}, el("a", { href: link(name), text: name }));
    if (remove) {
      const button = el("button", { type: "button", text: "×", title: `Take off “${name}”` });
      button.setAttribute("aria-label", `Take off ${name}`);
      button.addEventListener("click", () => remove(name));
      item.append(button);
    }
    return item;
  });
}

function say(text) {
  if (!$("viewer").hidden) $("organiseStatus").textContent = text;
  else if (state.selected.size > 0 || !$("selectionBar").hidden) $("selectionStatus").textContent = text;
  else $("viewStatus").textContent = text;
}

// Runs a change, then shows every asset it touched as the library has it now.
async function organise(ids, change, done) {
  try {
    await change();
    await Promise.all(ids.map((id) => refreshAsset(id)));
    say(done);
    return true;
  } catch (error) {
    say(`Not done: ${error.message}`);
    return false;
  }
}

function toggleFavorite() {
  const asset = state.assets[state.current];
  if (!asset || asset.trashedAt) return;
  const on = !asset.favorite;
  organise([asset.id], () => post("/api/assets/favorite", { assets: [asset.id], favorite: on }),
    on ? "A favourite now." : "Not a favourite any more.");
}

async function changeKeywords(ids, change, done) {
  const ok = await organise(ids, () => post("/api/assets/keywords", { assets: ids, ...change }), done);
  if (ok) loadKeywords();
  return ok;
}

async function changeAlbum(album, change, done) {
  if (!album) { say("That album is gone: reload the page."); return false; }
  const ids = [...(change.add || []), ...(change.remove || [])];
  const ok = await organise(ids, () => post(`/api/albums/${album}/assets`, change), done);
  if (ok) loadAlbums();
  return ok;
}

// The album chosen in the viewer's list, or a new one of the name typed.
async function addToChosenAlbum(ids, select, nameInput) {
  const name = nameInput ? nameInput.value.trim() : "";
  let album = select.value ? Number(select.value) : null;
  try {
    if (name) {
      const existing = albumNamed(name);
      album = existing ? existing.id : (await post("/api/albums", { name })).id;
      await loadAlbums();
    }
  } catch (error) {
    say(`Not done: ${error.message}`);
    return;
  }
  if (!album) { say("Choose an album, or type a new album's name."); return; }
  const albumName = state.albums.find((a) => a.id === album)?.name ?? "the album";
  if (await changeAlbum(album, { add: ids }, `Added to “${albumName}”.`)) {
    select.value = "";
    if (nameInput) nameInput.value = "";
  }
}

async function makeCover() {
  const asset = state.assets[state.current];
  const album = albumNamed(currentView().album);
  if (!asset || !album) return;
  try {
    await post(`/api/albums/${album.id}`, { cover: asset.id });
    await loadAlbums();
    showOrganise(asset);
    say(`The cover of “${album.name}” now.`);
  } catch (error) {
    say(`Not done: ${error.message}`);
  }
}

// Moves the open asset to the trash, or out of it, and shows the next one: in this view
// it is no more.
async function trashOrRestore() {
  const asset = state.assets[state.current];
  if (!asset) return;
  const restoring = Boolean(asset.trashedAt);
  try {
    await post(restoring ? "/api/assets/restore" : "/api/assets/trash", { assets: [asset.id] });
  } catch (error) {
    say(`Not done: ${error.message}`);
    return;
  }
  const index = state.current;
  removeFromTimeline([asset.id]);
  updateViewHead();
  if (state.assets.length === 0) closeViewer();
  else openViewer(Math.min(index, state.assets.length - 1));
  say(restoring ? `${assetName(asset)} is back in the library.` : `${assetName(asset)} is in the trash: Trash brings it back.`);
}

// Takes assets out of the page (they left this view), keeping the rest where they are.
function removeFromTimeline(ids) {
  for (const id of ids) {
    const tile = document.querySelector(`.tile[data-id="${id}"]`);
    if (tile) {
      const section = tile.closest(".day");
      tile.remove();
      if (section && !section.querySelector(".tile")) section.remove();
    }
    state.selected.delete(id);
  }
  const gone = new Set(ids);
  const current = state.assets[state.current];
  state.assets = state.assets.filter((a) => !gone.has(a.id));
  state.byId.clear();
  state.assets.forEach((a, i) => state.byId.set(a.id, i));
  state.current = current && !gone.has(current.id) ? state.byId.get(current.id) : -1;
  state.lastDay = $("timeline").lastElementChild?.dataset.day ?? null;
  $("count").textContent = `${state.assets.length}${state.next ? "+" : ""} shown`;
  if (state.assets.length === 0 && !state.next) $("status").textContent = emptyText();
  showSelection();
}

// Whether an asset still belongs in this view, after a change to it.
function belongs(asset) {
  const view = currentView();
  const params = new URLSearchParams(location.search);
  if (Boolean(asset.trashedAt) !== (view.name === "trash")) return false;
  if (params.get("favorite") === "1" && !asset.favorite) return false;
  if (view.name === "album" && !asset.albums.includes(view.album)) return false;
  for (const keyword of params.getAll("keyword")) if (keyword && !asset.keywords.includes(keyword)) return false;
  return true;
}

// On leaving the viewer, or after a change to a selection: what left the view goes.
function pruneView() {
  const gone = state.assets.filter((a) => !belongs(a)).map((a) => a.id);
  if (gone.length) removeFromTimeline(gone);
  updateViewHead();
}

// ---- The selection ----

// Chooses every tile from `from` to `to` in the timeline's order (shift-click).
function selectRange(from, to) {
  const a = state.byId.get(from), b = state.byId.get(to);
  if (a === undefined || b === undefined) { toggleSelected(to); return; }
  for (let i = Math.min(a, b); i <= Math.max(a, b); i++) {
    const id = state.assets[i].id;
    if (!state.selected.has(id)) toggleSelected(id);
  }
  state.anchor = to;
}

function toggleSelected(id) {
  if (state.selected.has(id)) state.selected.delete(id);
  else state.selected.add(id);
  state.anchor = state.selected.size ? id : null;
  const tile = document.querySelector(`.tile[data-id="${id}"]`);
  if (tile) {
    tile.classList.toggle("selected", state.selected.has(id));
    tile.querySelector(".pick")?.setAttribute("aria-checked", String(state.selected.has(id)));
  }
  showSelection();
}

function clearSelection() {
  for (const id of [...state.selected]) toggleSelected(id);
}

function showSelection() {
  const n = state.selected.size;
  const view = currentView();
  $("selectionBar").hidden = n === 0;
  document.body.classList.toggle("selecting", n > 0);
  $("selectionCount").textContent = `${plural(n, "asset")} selected`;
  const inTrash = view.name === "trash";
  for (const id of ["selFavorite", "selUnfavorite", "selAlbum", "selKeywordForm", "selEdit", "selTrash"]) $(id).hidden = inTrash;
  $("selRestore").hidden = !inTrash;
  $("selRemoveFromAlbum").hidden = view.name !== "album";
  if (n === 0) $("selectionStatus").textContent = "";
}

async function changeSelection(what) {
  const ids = [...state.selected];
  if (ids.length === 0) return;
  const n = plural(ids.length, "asset");
  const view = currentView();
  let ok = true;
  switch (what) {
    case "favorite":
    case "unfavorite":
      ok = await organise(ids, () => post("/api/assets/favorite", { assets: ids, favorite: what === "favorite" }),
        what === "favorite" ? `${n} marked as favourites.` : `${n} not favourites any more.`);
      break;
    case "album":
      await addToChosenAlbum(ids, $("selAlbum"), null);
      break;
    case "keyword": {
      const name = $("selKeyword").value.trim();
      if (!name) { say("Type a keyword first."); return; }
      ok = await changeKeywords(ids, { add: [name] }, `“${name}” given to ${n}.`);
      if (ok) $("selKeyword").value = "";
      break;
    }
    case "edit":
      await editSelection(ids, $("selEdit").value);
      $("selEdit").value = "";
      return;
    case "removeFromAlbum":
      ok = await changeAlbum(albumNamed(view.album)?.id, { remove: ids }, `${n} taken out of “${view.album}”.`);
      break;
    case "trash":
    case "restore":
      try {
        await post(what === "trash" ? "/api/assets/trash" : "/api/assets/restore", { assets: ids });
        removeFromTimeline(ids);
        updateViewHead();
        $("selectionBar").hidden = false;
        say(what === "trash" ? `${n} moved to the trash.` : `${n} restored to the library.`);
        setTimeout(showSelection, 2500);
      } catch (error) {
        say(`Not done: ${error.message}`);
      }
      return;
  }
  if (ok) pruneView();
}

// One filter over every chosen asset: render jobs made as a batch, run by the workers,
// followed here until the last is done; then the tiles show the edits.
async function editSelection(ids, filter) {
  if (!filter) return;
  const n = plural(ids.length, "asset");
  let batch;
  try {
    batch = await post("/api/edits", { assets: ids, filters: [filter] });
  } catch (error) {
    say(`Not edited: ${error.message}`);
    return;
  }
  const status = $("selectionStatus");
  let unanswered = 0;
  while (batch.done + batch.failed + batch.cancelled < batch.total) {
    status.textContent = `Editing ${n} with ${filter}: ${batch.done} of ${batch.total} done` +
      (batch.queued === batch.total ? " (waiting for a worker)" : "");
    await new Promise((r) => setTimeout(r, 500));
    try {
      batch = await api(`/api/edits/${batch.batch}`);
      unanswered = 0;
    } catch (error) {
      // The edits are jobs in the library: a gallery restarted meanwhile goes on with them.
      if (++unanswered > 180) {
        status.textContent = `Lost track of the edits: ${error.message} (camlib jobs says how they go)`;
        return;
      }
      status.textContent = "The gallery does not answer; the edits are kept, asking again…";
    }
  }
  for (const id of ids) if (state.byId.has(id)) await refreshAsset(id);
  const failures = batch.failures.map((f) => f.error);
  let text = `${plural(batch.done, "asset")} edited with ${filter}.`;
  if (batch.failed) text += ` ${plural(batch.failed, "edit")} failed: ${failures.join("; ")}`;
  if (batch.missing.length) text += ` ${plural(batch.missing.length, "asset")} no longer in the library.`;
  status.textContent = text;
}

// ---- The views: photos, favourites, an album, the trash, the albums ----

function showViewNav() {
  const view = currentView();
  const active = view.name === "album" ? "albums" : view.name;
  for (const link of $("views").querySelectorAll("a")) {
    if (link.dataset.view === active) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

async function updateViewHead() {
  const view = currentView();
  const head = $("viewHead");
  head.hidden = view.name === "photos" || view.name === "albums" || view.name === "map";
  // Rename and Delete only for an album that exists.
  $("albumTools").hidden = view.name !== "album" || !albumNamed(view.album);
  if (albumNamed(view.album)) $("downloadAlbum").href = `/download?album=${albumNamed(view.album).id}&version=current`;
  $("emptyTrash").hidden = view.name !== "trash";
  if (view.name === "favorites") {
    $("viewTitle").textContent = "Favourites";
    $("viewNote").textContent = "Mark an asset with ♡ in its view, or select tiles and choose ♥ Favourite.";
  } else if (view.name === "album") {
    $("viewTitle").textContent = view.album;
    const album = albumNamed(view.album);
    $("viewNote").textContent = album
      ? `${plural(album.assets, "asset")}, ${inAlbumOrder() ? "in the album's order" : "by date (the filters are on)"}`
      : "No album of this name (renamed or deleted?): Albums lists them.";
    if (document.activeElement !== $("albumName")) $("albumName").value = view.album;
  } else if (view.name === "trash") {
    $("viewTitle").textContent = "Trash";
    try {
      const trash = await api("/api/trash");
      $("viewNote").textContent = trash.assets === 0
        ? "The trash is empty."
        : `${plural(trash.assets, "asset")}. Assets here keep all their files and history until the trash is emptied; Restore brings one back whole.`;
      $("emptyTrash").disabled = trash.assets === 0;
    } catch (error) {
      $("viewNote").textContent = error.message;
    }
  }
}

function showAlbums() {
  $("timeline").hidden = true;
  $("scrubber").hidden = true;
  $("slideshowButton").hidden = true;
  $("filters").hidden = true;
  $("albums").hidden = false;
  const grid = $("albumGrid");
  if (state.albums.length === 0) {
    grid.replaceChildren(el("p", { text: "No albums yet. Name one above, or add assets to a new album from their view." }));
    return;
  }
  grid.replaceChildren(...state.albums.map((album) => {
    const cover = el("img", { class: "cover", alt: "", loading: "lazy" });
    if (album.thumbnail) cover.src = album.thumbnail;
    return el("a", { class: "album", href: `?album=${encodeURIComponent(album.name)}`, "data-album": album.id },
      cover, el("span", { class: "name", text: album.name }), el("span", { class: "size", text: plural(album.assets, "asset") }));
  }));
}

async function createAlbum(event) {
  event.preventDefault();
  const name = $("newAlbumName").value.trim();
  if (!name) return;
  try {
    await post("/api/albums", { name });
    $("newAlbumName").value = "";
    await loadAlbums();
    showAlbums();
  } catch (error) {
    $("albumGrid").prepend(el("p", { text: `Not made: ${error.message}` }));
  }
}

async function renameAlbum(event) {
  event.preventDefault();
  const view = currentView();
  const album = albumNamed(view.album);
  const name = $("albumName").value.trim();
  if (!album || !name || name === view.album) return;
  try {
    const renamed = await post(`/api/albums/${album.id}`, { name });
    const params = new URLSearchParams(location.search);
    params.set("album", renamed.name);
    history.replaceState(null, "", `?${params}`);
    await loadAlbums();
    updateViewHead();
    say(`Renamed “${renamed.name}”.`);
  } catch (error) {
    say(`Not renamed: ${error.message}`);
  }
}

async function deleteAlbum() {
  const view = currentView();
  const album = albumNamed(view.album);
  if (!album) return;
  const question = album.assets > 0
    ? `Delete the album “${album.name}”? Its ${plural(album.assets, "asset")} stay in the library.`
    : `Delete the empty album “${album.name}”?`;
  if (!confirm(question)) return;
  try {
    await post(`/api/albums/${album.id}/delete`, { evenIfNotEmpty: true });
    location.href = "/?view=albums";
  } catch (error) {
    say(`Not deleted: ${error.message}`);
  }
}

async function emptyTrash() {
  let count = 0;
  try { count = (await api("/api/trash")).assets; } catch (_) { /* asked below all the same */ }
  if (!confirm(`Delete ${plural(count, "asset")} for good? Their originals, edits and every file made from them go, and cannot be brought back.`)) return;
  $("emptyTrash").disabled = true;
  $("viewStatus").textContent = "Emptying the trash…";
  try {
    const result = await post("/api/trash/empty");
    resetTimeline();
    await loadPage();
    await updateViewHead();
    $("viewStatus").textContent = `Deleted ${plural(result.assets.length, "asset")}: ${plural(result.files, "file")}, ${(result.bytes / 1048576).toFixed(1)} MB.`
      + (result.problems.length ? ` Problems: ${result.problems.join("; ")}` : "");
  } catch (error) {
    $("viewStatus").textContent = `The trash was not emptied: ${error.message}`;
    $("emptyTrash").disabled = false;
  }
}

// ---- Wiring ----

// Opens the viewer for a step forward in history that holds an asset (no new entry).
function openViewerFromHistory(index) {
  const asset = state.assets[index];
  if (!asset) return;
  state.current = index;
  $("viewer").hidden = false;
  document.body.style.overflow = "hidden";
  for (const id of BEHIND) $(id).inert = true;
  resetEditor();
  showAsset(asset, true);
  $("close").focus();
}

function step(delta) {
  if ($("viewer").hidden) return;
  const index = state.current + delta;
  if (index >= 0 && index < state.assets.length) openViewer(index);
}

document.addEventListener("DOMContentLoaded", () => {
  // The token came in the URL and is kept in a cookie now: out of the address bar, so a
  // link copied from it does not give it away.
  const given = new URLSearchParams(location.search);
  if (given.has("token")) {
    given.delete("token");
    const rest = given.toString();
    history.replaceState(null, "", rest ? `?${rest}` : location.pathname);
  }
  // The bar wraps on narrow windows: what sits below it (the scrubber, the selection) follows.
  const barHeight = () => document.documentElement.style.setProperty("--bar", `${$("bar").offsetHeight}px`);
  new ResizeObserver(barHeight).observe($("bar"));
  const params = filtersFromURL();
  $("filters").addEventListener("change", applyFilters);
  wireSearch();
  wireScrubber();
  wireSlideshow();
  const observer = new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) fill(); }, { rootMargin: `${AHEAD}px` });
  observer.observe($("more"));
  observer.observe($("newer"));
  addEventListener("scroll", fill, { passive: true });
  $("close").addEventListener("click", closeViewer);
  $("prev").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  $("replay").addEventListener("click", () => playMotionOnce(state.assets[state.current]));
  $("opacity").addEventListener("input", (e) => { $("overlay").style.opacity = e.target.value / 100; });
  $("sideBySide").addEventListener("change", applySideBySide);
  wireEditor();
  $("favorite").addEventListener("click", toggleFavorite);
  $("trashButton").addEventListener("click", trashOrRestore);
  $("makeCover").addEventListener("click", makeCover);
  $("albumForm").addEventListener("submit", (e) => {
    e.preventDefault();
    const asset = state.assets[state.current];
    if (asset) addToChosenAlbum([asset.id], $("addToAlbum"), $("newAlbumForAsset"));
  });
  $("keywordForm").addEventListener("submit", async (e) => {
    e.preventDefault();
    const asset = state.assets[state.current], name = $("keywordInput").value.trim();
    if (!asset || !name) return;
    if (await changeKeywords([asset.id], { add: [name] }, `“${name}” added.`)) $("keywordInput").value = "";
  });
  $("selFavorite").addEventListener("click", () => changeSelection("favorite"));
  $("selUnfavorite").addEventListener("click", () => changeSelection("unfavorite"));
  $("selAlbum").addEventListener("change", () => { if ($("selAlbum").value) changeSelection("album"); });
  $("selEdit").addEventListener("change", () => { if ($("selEdit").value) changeSelection("edit"); });
  $("selKeywordForm").addEventListener("submit", (e) => { e.preventDefault(); changeSelection("keyword"); });
  $("selRemoveFromAlbum").addEventListener("click", () => changeSelection("removeFromAlbum"));
  $("selTrash").addEventListener("click", () => changeSelection("trash"));
  $("selRestore").addEventListener("click", () => changeSelection("restore"));
  $("selClear").addEventListener("click", clearSelection);
  $("newAlbum").addEventListener("submit", createAlbum);
  $("albumTools").addEventListener("submit", renameAlbum);
  $("deleteAlbum").addEventListener("click", deleteAlbum);
  $("emptyTrash").addEventListener("click", emptyTrash);
  document.addEventListener("keydown", (e) => {
    if (e.target.matches("input, select, textarea")) return;
    if ($("viewer").hidden) {
      if (e.key === "Escape" && state.selected.size > 0) clearSelection();
      // Ctrl+A (⌘A) chooses every tile shown, not the page's text.
      if (e.key === "a" && (e.ctrlKey || e.metaKey) && state.assets.length) {
        e.preventDefault();
        for (const asset of state.assets) if (!state.selected.has(asset.id)) toggleSelected(asset.id);
      }
      return;
    }
    // The viewer is modal: Tab goes round its own controls.
    if (e.key === "Tab") {
      const focusable = [...$("viewer").querySelectorAll("button, input, select, summary, a[href], [tabindex]")]
        .filter((n) => !n.disabled && !n.closest("[hidden], [inert]") && n.offsetParent !== null);
      const first = focusable[0], last = focusable[focusable.length - 1];
      if (!$("viewer").contains(document.activeElement)) { e.preventDefault(); first?.focus(); }
      else if (e.shiftKey && document.activeElement === first) { e.preventDefault(); last.focus(); }
      else if (!e.shiftKey && document.activeElement === last) { e.preventDefault(); first.focus(); }
      return;
    }
    if (e.key === "ArrowLeft") step(-1);
    else if (e.key === "ArrowRight") step(1);
    else if (e.key === "Escape") closeViewer();
    // As in Apple Photos: "." marks a favourite; Delete moves to the trash (which keeps it).
    else if (e.key === ".") toggleFavorite();
    else if (e.key === "Delete") trashOrRestore();
  });
  // Back closes the photo (opening it was a step in history); Forward opens it again.
  addEventListener("popstate", () => {
    const id = Number(new URLSearchParams(location.search).get("asset"));
    if (!id) hideViewer();
    else if ($("viewer").hidden && state.byId.has(id)) openViewerFromHistory(state.byId.get(id));
  });
  $("still").addEventListener("load", () => $("stage").classList.remove("loading"));
  // A still that cannot be shown says why, in words, instead of a broken image.
  $("still").addEventListener("error", async () => {
    const url = $("still").getAttribute("src");
    $("stage").classList.remove("loading");
    if (!url) return;
    let reason = "it could not be loaded";
    try {
      const response = await fetch(url);
      const body = await response.json().catch(() => null);
      reason = body?.error?.message || body?.error || `${response.status} ${response.statusText}`;
    } catch (error) { reason = `the gallery cannot be reached (${error.message})`; }
    if ($("still").getAttribute("src") !== url) return;
    $("still").hidden = true;
    $("stage").classList.add("error");
    $("stageMessage").textContent = `This picture cannot be shown: ${reason}`;
    $("stageMessage").hidden = false;
  });
  // Swipe for next and previous on touch screens.
  let startX = null;
  // (Not while the editor's crop or focus takes the photo's touches.)
  $("stage").addEventListener("pointerdown", (e) => { if (e.pointerType !== "mouse" && !editorHoldsStage()) startX = e.clientX; });
  $("stage").addEventListener("pointerup", (e) => {
    if (startX === null) return;
    const dx = e.clientX - startX;
    startX = null;
    if (Math.abs(dx) > 50) step(dx < 0 ? 1 : -1);
  });
  loadFilters();
  loadKeywords();
  loadPlaces();
  showViewNav();
  showWork();
  const view = currentView();
  const albumsLoaded = loadAlbums().then(updateViewHead);
  if (view.name === "albums") {
    albumsLoaded.then(showAlbums);
    return;
  }
  if (view.name === "map") {
    showMap();
    return;
  }
  // The scrubber moves through the whole library, and "On this day" is at its top; the
  // other views are short enough to scroll.
  if (view.name === "photos") {
    loadScrubber();
    loadMemories();
  } else {
    $("scrubber").hidden = true;
  }
  const open = Number(params.get("asset"));
  // An album's pages are asked for by its id, which the list of albums gives.
  (view.name === "album" ? albumsLoaded : Promise.resolve()).then(loadPage).then(async () => {
    if (!open) return;
    if (state.byId.has(open)) openViewer(state.byId.get(open));
    else {
      try {
        const asset = await api(`/api/assets/${open}`);
        state.byId.set(asset.id, state.assets.length);
        state.assets.push(asset);
        openViewer(state.byId.get(asset.id));
      } catch (_) { /* not in the library any more */ }
    }
  });
});

// camlib's gallery: the timeline, the asset view, depth and mattes, edits.
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

// ---- Filters, kept in the URL so a view can be bookmarked ----

const FILTER_NAMES = ["kind", "make", "model", "since", "until", "has", "edited"];

function filtersFromURL() {
  const params = new URLSearchParams(location.search);
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
  for (const name of FILTER_NAMES) {
    const input = form.elements[name];
    if (input.type === "checkbox") { if (input.checked) params.set(name, input.value); }
    else if (input.value) params.set(name, input.value);
  }
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
    const page = await api(`/api/assets?${params}`);
    if (generation !== state.generation) return;
    state.next = page.next;
    for (const asset of page.assets) addTile(asset);
    trimAbove();
    // A view that starts at a jump can be scrolled up, to what is newer.
    if (firstOfView && extra.start && page.assets.length && page.assets[0].capturedAt) state.previous = page.assets[0].cursor;
    $("count").textContent = `${state.assets.length}${state.next ? "+" : ""} shown`;
    $("status").textContent = state.assets.length === 0 ? "Nothing here: no asset matches these filters." : (state.next ? "" : "The end of the timeline.");
  } catch (error) {
    if (generation === state.generation) $("status").textContent = `Could not load the timeline: ${error.message}`;
  } finally {
    if (generation === state.generation) state.loading = false;
  }
  // The first screenful's thumbnails come before the next page's (at most 400 ms).
  if (firstOfView) await screenfulLoaded(400);
  if (generation === state.generation) fill();
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
      let section = $("timeline").firstElementChild;
      if (!section || section.dataset.day !== day) {
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
  if (!$("viewer").hidden || state.assets.length <= KEEP) return;
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
  if (!$("viewer").hidden || state.assets.length <= KEEP) return;
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
  return asset.capturedAt ? asset.capturedAt.slice(0, 10) : "undated";
}

function dayTitle(day) {
  if (day === "undated") return "Without a date";
  const [y, m, d] = day.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString(undefined, { weekday: "short", year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
}

function placeText(location) {
  if (!location) return "";
  const lat = location.latitude, lon = location.longitude;
  // 0°, 0° is where cameras without a fix write their "place".
  if (lat === 0 && lon === 0) return "";
  return `${Math.abs(lat).toFixed(3)}° ${lat >= 0 ? "N" : "S"}, ${Math.abs(lon).toFixed(3)}° ${lon >= 0 ? "E" : "W"}`;
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

function addTile(asset) {
  const index = state.assets.length;
  state.assets.push(asset);
  state.byId.set(asset.id, index);
  const day = dayOf(asset);
  let grid = $("timeline").lastElementChild?.querySelector(".grid");
  if (day !== state.lastDay || !grid) {
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
  const place = placeText(asset.location);
  if (place) heading.append(el("span", { class: "place", text: place }));
  return el("section", { class: "day", "data-day": day }, heading, el("div", { class: "grid" }));
}

function makeTile(asset) {
  const tile = el("button", { class: "tile", type: "button", "data-id": asset.id, "data-kind": asset.kind, title: assetName(asset) });
  fillTile(tile, asset);
  tile.addEventListener("click", () => openViewer(state.byId.get(asset.id)));
  if (asset.media.video && (asset.kind === "live" || asset.kind === "motion")) {
    // As LivePhotosKit does: the movie plays while the pointer rests on the tile, and
    // while a finger presses and holds it.
    let timer = null;
    tile.addEventListener("pointerenter", (e) => { if (e.pointerType === "mouse") playInTile(tile); });
    tile.addEventListener("pointerleave", () => { clearTimeout(timer); stopInTile(tile); });
    tile.addEventListener("pointerdown", (e) => { if (e.pointerType !== "mouse") timer = setTimeout(() => playInTile(tile), 250); });
    tile.addEventListener("pointerup", () => { clearTimeout(timer); stopInTile(tile); });
    tile.addEventListener("contextmenu", (e) => { if (tile.querySelector("video")) e.preventDefault(); });
  }
  return tile;
}

function fillTile(tile, asset) {
  // The first screenful is asked for at once; the rest as it comes near.
  const eager = (state.byId.get(asset.id) ?? 0) < FIRST_PAGE;
  const img = el("img", { alt: assetName(asset), loading: eager ? "eager" : "lazy", decoding: "async", draggable: false });
  if (asset.media.thumbnail) img.src = asset.media.thumbnail;
  const badges = el("div", { class: "badges" });
  for (const [label, kind] of badgesOf(asset)) badges.append(el("span", { class: `badge ${kind}`, text: label }));
  const children = [img, badges];
  if (asset.kind === "video" && asset.duration) children.push(el("span", { class: "duration", text: durationText(asset.duration) }));
  tile.replaceChildren(...children);
}

function playInTile(tile) {
  const asset = state.assets[state.byId.get(Number(tile.dataset.id))];
  if (!asset || tile.querySelector("video")) return;
  const video = el("video", { muted: true, playsInline: true, loop: true, preload: "auto" });
  video.muted = true;
  video.src = asset.media.video;
  tile.append(video);
  video.play().catch(() => {});
}

function stopInTile(tile) {
  const video = tile.querySelector("video");
  if (!video) return;
  video.pause();
  video.removeAttribute("src");
  video.load();
  video.remove();
}

async function loadYears() {
  try {
    const years = await api("/api/years");
    const nav = $("years");
    nav.replaceChildren(...years.map((year) => {
      const b = el("button", { type: "button", text: String(year), "data-year": year });
      b.addEventListener("click", () => jumpTo(year));
      return b;
    }));
  } catch (error) {
    $("years").replaceChildren();
  }
}

function jumpTo(year) {
  resetTimeline();
  scrollTo(0, 0);
  loadPage({ start: `${year}-12-31` });
}

// ---- The asset view ----

function openViewer(index) {
  if (index === undefined || index < 0 || index >= state.assets.length) return;
  state.current = index;
  const asset = state.assets[index];
  $("viewer").hidden = false;
  document.body.style.overflow = "hidden";
  const params = new URLSearchParams(location.search);
  params.set("asset", asset.id);
  history.replaceState(null, "", `?${params}`);
  showAsset(asset, true);
  refreshAsset(asset.id);
  // Near the end of what is loaded: load more, so "next" keeps working.
  if (index > state.assets.length - 5 && state.next) loadPage();
}

function closeViewer() {
  $("viewer").hidden = true;
  document.body.style.overflow = "";
  const video = $("motion");
  video.pause();
  video.removeAttribute("src");
  video.load();
  const params = new URLSearchParams(location.search);
  params.delete("asset");
  const text = params.toString();
  history.replaceState(null, "", text ? `?${text}` : location.pathname);
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

function showAsset(asset, opening) {
  const still = $("still"), video = $("motion"), stage = $("stage");
  $("title").textContent = assetName(asset);
  $("overlay").hidden = true;
  $("side").hidden = true;
  stage.classList.remove("sbs");
  $("sideBySide").checked = false;
  if (still.getAttribute("src") !== asset.media.preview) still.src = asset.media.preview || "";
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
  showAux(asset);
  showHistory(asset);
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
  video.hidden = false;
  video.dataset.asset = asset.id;
  const settle = () => {
    if (video.dataset.asset !== String(asset.id)) return;
    video.pause();
    video.hidden = true;
    still.hidden = false;
  };
  video.onended = settle;
  video.onerror = settle;
  video.play().catch(() => { video.muted = true; video.play().catch(settle); });
}

function addInfo(list, label, value) {
  if (value === null || value === undefined || value === "") return;
  list.append(el("dt", { text: label }), el("dd", { text: String(value) }));
}

function showInfo(asset) {
  const info = $("info");
  info.replaceChildren();
  addInfo(info, "Kind", { photo: "Photo", live: "Live Photo", motion: "Motion Photo", video: "Video" }[asset.kind] || asset.kind);
  addInfo(info, "Taken", asset.capturedAt);
  addInfo(info, "Camera", [asset.make, asset.model].filter(Boolean).join(" "));
  addInfo(info, "Lens", asset.lensModel);
  addInfo(info, "Place", placeText(asset.location));
  addInfo(info, "Size", asset.width && asset.height ? `${asset.width} × ${asset.height}` : "");
  addInfo(info, "Duration", asset.duration ? `${asset.duration.toFixed(2)} s` : "");
  addInfo(info, "Video", [asset.videoCodec, asset.audioCodec].filter(Boolean).join(" + "));
  if (asset.pairing) addInfo(info, "Paired by", `${asset.pairing.rule} (${Math.round(asset.pairing.confidence * 100)}%)`);
  addInfo(info, "Still at", asset.stillImageTime !== null && asset.stillImageTime !== undefined ? `${asset.stillImageTime.toFixed(2)} s into the movie` : "");
  addInfo(info, "Imported", asset.importedAt);
  addInfo(info, "Asset", asset.id);
  const files = $("files");
  files.replaceChildren(...asset.resources.map((r) => el("li", {},
    el("div", { text: `${r.role}: ${r.originalName || r.path.split("/").pop()} (${(r.bytes / 1048576).toFixed(2)} MB)` }),
    el("div", { class: "sha", text: r.sha256 }))));
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

// ---- Edits ----

function chosenFilters() {
  return [...$("filterChoices").querySelectorAll("input:checked")].map((i) => i.value);
}

async function loadFilters() {
  try {
    const filters = await api("/api/filters");
    $("filterChoices").replaceChildren(...filters.map((f) =>
      el("label", {}, el("input", { type: "checkbox", value: f.name }), ` ${f.name}`)));
  } catch (error) {
    $("editStatus").textContent = `Filters unavailable: ${error.message}`;
  }
}

async function post(path, body) {
  return api(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Camlib-Request": "1" },
    body: body ? JSON.stringify(body) : undefined,
  });
}

function previewEdit() {
  const asset = state.assets[state.current];
  const filters = chosenFilters();
  if (!asset || filters.length === 0) { $("editStatus").textContent = "Choose a filter first."; return; }
  $("editStatus").textContent = "Preview (not saved): Apply keeps it.";
  $("motion").hidden = true;
  $("still").hidden = false;
  $("still").src = `/api/assets/${asset.id}/edit-preview?filters=${encodeURIComponent(filters.join(";"))}`;
}

async function applyEdit() {
  const asset = state.assets[state.current];
  const filters = chosenFilters();
  if (!asset || filters.length === 0) { $("editStatus").textContent = "Choose a filter first."; return; }
  const progress = $("editProgress");
  progress.hidden = false;
  progress.removeAttribute("value");
  $("applyEdit").disabled = true;
  $("editStatus").textContent = "Rendering…";
  try {
    let job = await post(`/api/assets/${asset.id}/edit`, { filters });
    while (job.state === "running") {
      await new Promise((r) => setTimeout(r, 300));
      job = await api(`/api/jobs/${job.job}`);
      if (job.phase === "movie" && job.framesExpected) {
        progress.max = job.framesExpected;
        progress.value = job.framesDone;
        $("editStatus").textContent = `Rendering the movie: frame ${job.framesDone} of ${job.framesExpected}`;
      } else if (job.phase === "still") {
        $("editStatus").textContent = "Rendering the still…";
      }
    }
    if (job.state === "failed") throw new Error(job.error);
    await refreshAsset(asset.id);
    $("editStatus").textContent = job.warnings.length ? `Done, with warnings: ${job.warnings.join("; ")}` : "Done: the edit is the current version.";
  } catch (error) {
    $("editStatus").textContent = `The edit failed: ${error.message}`;
  } finally {
    progress.hidden = true;
    $("applyEdit").disabled = false;
  }
}

async function revert() {
  const asset = state.assets[state.current];
  if (!asset) return;
  try {
    const result = await post(`/api/assets/${asset.id}/revert`);
    await refreshAsset(asset.id);
    $("editStatus").textContent = result.reverted ? "Reverted: the original is current again." : "The original already was current.";
  } catch (error) {
    $("editStatus").textContent = `Revert failed: ${error.message}`;
  }
}

// ---- Wiring ----

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
  const params = filtersFromURL();
  $("filters").addEventListener("change", () => { filtersToURL(); resetTimeline(); loadPage(); });
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
  $("previewEdit").addEventListener("click", previewEdit);
  $("applyEdit").addEventListener("click", applyEdit);
  $("revert").addEventListener("click", revert);
  document.addEventListener("keydown", (e) => {
    if ($("viewer").hidden || e.target.matches("input, select, textarea")) return;
    if (e.key === "ArrowLeft") step(-1);
    else if (e.key === "ArrowRight") step(1);
    else if (e.key === "Escape") closeViewer();
  });
  // Swipe for next and previous on touch screens.
  let startX = null;
  $("stage").addEventListener("pointerdown", (e) => { if (e.pointerType !== "mouse") startX = e.clientX; });
  $("stage").addEventListener("pointerup", (e) => {
    if (startX === null) return;
    const dx = e.clientX - startX;
    startX = null;
    if (Math.abs(dx) > 50) step(dx < 0 ? 1 : -1);
  });
  loadFilters();
  loadYears();
  const open = Number(params.get("asset"));
  loadPage().then(async () => {
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

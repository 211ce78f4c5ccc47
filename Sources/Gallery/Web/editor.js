// The editor: sliders for light and colour, crop with handles and aspect choices, turn,
// flip and straighten, the depth of field for photos with depth, and the looks. Each
// change is previewed on the photo at 1024 pixels (GET edit-preview, not saved) until
// Apply renders it as `camlib edit` does. The editor's state belongs to one asset.
"use strict";

// The order of the light and colour sliders, as Apple Photos lists them.
const EDITOR_ADJUSTMENTS = ["exposure", "highlights", "shadows", "contrast", "saturation", "vibrance", "warmth", "tint"];
const EDITOR_ASPECTS = [["Free", 0], ["Original", -1], ["Square", 1], ["4:3", 4 / 3], ["3:4", 3 / 4], ["3:2", 3 / 2], ["2:3", 2 / 3], ["16:9", 16 / 9], ["9:16", 9 / 16]];
const FULL_CROP = { x: 0, y: 0, width: 1, height: 1 };

const editor = {
  filters: new Map(),  // name → /api/filters entry
  asset: null,         // the asset the state belongs to
  ready: false,        // its starting steps have come
  start: [],           // the steps it started from
  // What the controls say.
  values: {},          // slider name → value; absent at its default
  order: [],           // the sliders set, in the order their steps run
  looks: [],           // [{name, parameters}], after the sliders, in order
  rotation: 0,         // clockwise quarter turns, in degrees: 0, 90, 180, 270
  flipped: false,      // mirrored left to right, after the turn
  straighten: 0,       // degrees
  crop: { ...FULL_CROP },  // fractions of the turned and straightened photo
  aspect: 0,           // the crop's locked width:height, in pixels; 0: free
  depth: null,         // {aperture, x, y}: the focus as fractions of the edited photo
  // The preview.
  seq: 0,
  busy: false,
  again: false,        // a change came while a preview was being made
  shown: null,         // the blob URL of the last preview
  stageURL: null,      // what the editor last put on the stage
  original: null,      // the original's preview (held to compare)
};

// ---- Steps as text, as `camlib edit --filter` writes them ----

const round4 = (v) => Math.round(v * 10000) / 10000;

function stepText(name, parameters) {
  const keys = Object.keys(parameters).sort();
  return keys.length ? `${name}:${keys.map((k) => `${k}=${parameters[k]}`).join(",")}` : name;
}

// "crop:aspect=4:3,height=1" → {name, parameters}; words (flip's direction) and ratios
// are read as the server writes them.
function parseStep(text) {
  const [name, rest] = text.split(/:(.*)/s);
  const parameters = {};
  for (const pair of (rest || "").split(",").filter(Boolean)) {
    const [key, value] = pair.split("=");
    if (/^\d+:\d+$/.test(value)) { const [w, h] = value.split(":").map(Number); parameters[key] = w / h; }
    else if (isNaN(Number(value))) parameters[key] = value;
    else parameters[key] = Number(value);
  }
  return { name, parameters };
}

// ---- Geometry: each change is what the person sees done to the photo shown ----

// A quarter turn anticlockwise of the photo as shown: the crop and the focus turn with it.
function turnLeft() {
  editor.rotation = (editor.rotation + (editor.flipped ? 90 : 270)) % 360;
  const c = editor.crop;
  editor.crop = { x: c.y, y: round4(1 - c.x - c.width), width: c.height, height: c.width };
  if (editor.depth) editor.depth = { ...editor.depth, x: editor.depth.y, y: round4(1 - editor.depth.x) };
  if (editor.aspect > 0) editor.aspect = 1 / editor.aspect;
}

// Mirrored left to right as shown: the straightening turns the other way.
function flipAcross() {
  editor.flipped = !editor.flipped;
  editor.straighten = -editor.straighten;
  const c = editor.crop;
  editor.crop = { ...c, x: round4(1 - c.x - c.width) };
  if (editor.depth) editor.depth = { ...editor.depth, x: round4(1 - editor.depth.x) };
}

// The focus stays on the same spot of the photo when the crop changes from `before`.
function keepFocus(before) {
  if (!editor.depth) return;
  const c = editor.crop, d = editor.depth;
  const x = before.x + d.x * before.width, y = before.y + d.y * before.height;
  editor.depth = { ...d, x: round4(Math.min(1, Math.max(0, (x - c.x) / c.width))), y: round4(Math.min(1, Math.max(0, (y - c.y) / c.height))) };
}

function cropIsFull() {
  const c = editor.crop;
  return c.x <= 0.0001 && c.y <= 0.0001 && c.width >= 0.9999 && c.height >= 0.9999;
}

// The displayed photo's width:height before the crop (the asset's, turned).
function uncroppedAspect() {
  const a = editor.asset;
  if (!a || !a.width || !a.height) return 1;
  return editor.rotation % 180 ? a.height / a.width : a.width / a.height;
}

// The largest crop of `ratio` (pixels) centred in the photo.
function centredCrop(ratio) {
  const photo = uncroppedAspect();
  let width = 1, height = 1;
  if (ratio > photo) height = photo / ratio; else width = ratio / photo;
  return { x: round4((1 - width) / 2), y: round4((1 - height) / 2), width: round4(width), height: round4(height) };
}

// A crop step of the server, into the editor's crop (inside the one it already has).
function takeCrop(p) {
  let rect = { x: p.x ?? 0, y: p.y ?? 0, width: p.width ?? 1, height: p.height ?? 1 };
  if (p.aspect > 0) {
    const inner = centredCrop(p.aspect / (rect.width / rect.height));
    rect = { x: rect.x + inner.x * rect.width, y: rect.y + inner.y * rect.height, width: inner.width * rect.width, height: inner.height * rect.height };
  }
  const c = editor.crop;
  editor.crop = { x: round4(c.x + rect.x * c.width), y: round4(c.y + rect.y * c.height), width: round4(rect.width * c.width), height: round4(rect.height * c.height) };
}

// ---- The state from steps, and steps from the state ----

function clearEditorState() {
  Object.assign(editor, { values: {}, order: [], looks: [], rotation: 0, flipped: false, straighten: 0, crop: { ...FULL_CROP }, aspect: 0, depth: null });
}

// Reads steps into the controls. What the controls cannot hold as it was is said.
function takeSteps(texts) {
  clearEditorState();
  const merged = [];
  let looksBegun = false;
  for (const text of texts) {
    const { name, parameters: p } = parseStep(text);
    const group = editor.filters.get(name)?.group;
    if (name === "rotate") {
      for (let turns = ((p.degrees / 90) % 4 + 4) % 4; turns < 4 && turns > 0; turns++) turnLeft();
    } else if (name === "flip") {
      flipAcross();
      if (p.direction === "vertical" || p.direction === 1) { turnLeft(); turnLeft(); }
    } else if (name === "straighten") {
      editor.straighten = round4(editor.straighten + p.degrees);
    } else if (name === "crop") {
      takeCrop(p);
    } else if (name === "depth") {
      // Read as a point of the uncropped photo (Apple's focus comes before its crop), and
      // made a point of the cropped one at the end.
      const c = editor.crop;
      editor.depth = { aperture: p.aperture, x: c.x + p.x * c.width, y: c.y + p.y * c.height };
    } else if ((group === "light" || group === "colour") && !looksBegun) {
      const [key] = Object.keys(p);
      if (name in editor.values) merged.push(name);
      else editor.order.push(name);
      editor.values[name] = p[key];
    } else {
      looksBegun = true;
      editor.looks.push({ name, parameters: p });
    }
  }
  if (editor.depth) keepFocus(FULL_CROP);
  return merged.length ? `This edit sets ${[...new Set(merged)].join(", ")} more than once: the sliders show the last.` : "";
}

// The steps the controls say, in the order they run: the geometry, the depth of field,
// the sliders, the looks.
function editorSteps({ withCrop = true, withDepth = true } = {}) {
  const steps = [];
  if (editor.rotation) steps.push(stepText("rotate", { degrees: editor.rotation }));
  if (editor.flipped) steps.push(stepText("flip", { direction: "horizontal" }));
  if (Math.abs(editor.straighten) >= 0.05) steps.push(stepText("straighten", { degrees: round4(editor.straighten) }));
  if (withCrop && !cropIsFull()) {
    const c = editor.crop;
    const x = round4(c.x), y = round4(c.y);
    steps.push(stepText("crop", { x, y, width: Math.floor(Math.min(c.width, 1 - x) * 10000) / 10000, height: Math.floor(Math.min(c.height, 1 - y) * 10000) / 10000 }));
  }
  if (withDepth && editor.depth) steps.push(stepText("depth", editor.depth));
  const order = [...editor.order, ...EDITOR_ADJUSTMENTS.filter((n) => !editor.order.includes(n))];
  for (const name of order) {
    if (!(name in editor.values)) continue;
    const filter = editor.filters.get(name);
    const key = filter.parameters[0].name;
    if (editor.values[name] !== filter.parameters[0].defaultValue) steps.push(stepText(name, { [key]: round4(editor.values[name]) }));
  }
  for (const look of editor.looks) steps.push(stepText(look.name, look.parameters));
  return steps;
}

// Whether two lists of steps do the same: the same names, the same values.
function sameSteps(a, b) {
  if (a.length !== b.length) return false;
  return a.every((text, i) => {
    const x = parseStep(text), y = parseStep(b[i]);
    if (x.name !== y.name) return false;
    const keys = new Set([...Object.keys(x.parameters), ...Object.keys(y.parameters)]);
    const defaults = Object.fromEntries((editor.filters.get(x.name)?.parameters || []).map((p) => [p.name, p.defaultValue]));
    return [...keys].every((k) => {
      const u = x.parameters[k] ?? defaults[k], v = y.parameters[k] ?? defaults[k];
      return typeof u === "number" && typeof v === "number" ? Math.abs(u - v) < 0.0002 : String(u) === String(v);
    });
  });
}

const editorChanged = () => editor.ready && !sameSteps(editorSteps(), editor.start);
const croppingNow = () => $("geometryGroup").open;

// ---- The controls ----

async function loadFilters() {
  try {
    const filters = await api("/api/filters");
    editor.filters = new Map(filters.map((f) => [f.name, f]));
    buildSliders();
    buildDepthControls();
    // The looks: a checkbox each, run in the order ticked.
    const looks = filters.filter((f) => f.group === "look");
    $("filterChoices").replaceChildren(...looks.map((f) =>
      el("label", { title: f.summary }, el("input", { type: "checkbox", value: f.name }), ` ${f.name}`)));
    // A selection takes the looks and auto: an adjustment at its default changes nothing.
    const batch = filters.filter((f) => f.group === "look" || f.group === "auto");
    $("selEdit").replaceChildren(el("option", { value: "", text: "Edit with…" }),
      ...batch.map((f) => el("option", { value: f.name, text: f.name })));
    if (state.current >= 0) startEditor(state.assets[state.current]);
  } catch (error) {
    $("editStatus").textContent = `Filters unavailable: ${error.message}`;
  }
}

const LABELS = { exposure: "Exposure", highlights: "Highlights", shadows: "Shadows", contrast: "Contrast", saturation: "Saturation", vibrance: "Vibrance", warmth: "Warmth", tint: "Tint" };

function slider(id, label, min, max, step, help, onInput, onReset) {
  const input = el("input", { type: "range", id, min, max, step, title: help });
  input.setAttribute("aria-label", label);
  const value = el("output", { class: "value" });
  value.htmlFor = id;
  const reset = el("button", { type: "button", class: "reset", text: "↺", title: `Reset ${label.toLowerCase()}` });
  reset.setAttribute("aria-label", `Reset ${label.toLowerCase()}`);
  input.addEventListener("input", () => onInput(Number(input.value)));
  // A double-click puts a slider back, as in Apple Photos.
  input.addEventListener("dblclick", onReset);
  reset.addEventListener("click", onReset);
  return el("div", { class: "control", "data-control": id }, el("label", { htmlFor: id, text: label }), input, value, reset);
}

function buildSliders() {
  for (const [group, box] of [["light", $("lightControls")], ["colour", $("colourControls")]]) {
    const names = EDITOR_ADJUSTMENTS.filter((n) => editor.filters.get(n)?.group === group);
    box.replaceChildren(...names.map((name) => {
      const p = editor.filters.get(name).parameters[0];
      const step = name === "exposure" ? 0.05 : 0.01;
      return slider(`adjust-${name}`, LABELS[name] || name, p.minimum, p.maximum, step, p.help,
        (v) => { setAdjustment(name, v); }, () => { setAdjustment(name, p.defaultValue); });
    }));
  }
  $("straightenControl").replaceChildren(slider("adjust-straighten", "Straighten", -45, 45, 0.1, "degrees; positive turns clockwise",
    (v) => { editor.straighten = v; editorChange(); }, () => { editor.straighten = 0; editorChange(); }));
  $("cropAspect").replaceChildren(...EDITOR_ASPECTS.map(([name], i) => el("option", { value: String(i), text: name })));
}

function buildDepthControls() {
  const p = editor.filters.get("depth")?.parameters.find((q) => q.name === "aperture");
  if (!p) return;
  $("apertureControl").replaceChildren(slider("adjust-aperture", "Aperture", p.minimum, p.maximum, 0.1, p.help,
    (v) => { editor.depth = { ...(editor.depth || { x: 0.5, y: 0.5 }), aperture: v }; $("depthOn").checked = true; editorChange(); },
    () => { editor.depth = editor.depth && { ...editor.depth, aperture: p.defaultValue }; editorChange(); }));
}

function setAdjustment(name, value) {
  const filter = editor.filters.get(name);
  if (value === filter.parameters[0].defaultValue) delete editor.values[name];
  else editor.values[name] = value;
  editorChange();
}

// The controls as the state says.
function showEditorControls() {
  for (const name of EDITOR_ADJUSTMENTS) {
    const input = $(`adjust-${name}`);
    if (!input) continue;
    const p = editor.filters.get(name).parameters[0];
    const v = editor.values[name] ?? p.defaultValue;
    input.value = v;
    input.parentElement.querySelector("output").textContent = name === "exposure" ? `${v > 0 ? "+" : ""}${v.toFixed(2)} EV` : `${v > 0 ? "+" : ""}${Math.round(v * 100)}`;
    input.parentElement.querySelector(".reset").disabled = v === p.defaultValue;
  }
  const straighten = $("adjust-straighten");
  if (straighten) {
    straighten.value = editor.straighten;
    straighten.parentElement.querySelector("output").textContent = `${editor.straighten.toFixed(1)}°`;
    straighten.parentElement.querySelector(".reset").disabled = Math.abs(editor.straighten) < 0.05;
  }
  $("straightenDial").style.backgroundPositionX = `${-editor.straighten * 10}px`;
  $("flipButton").setAttribute("aria-pressed", String(editor.flipped));
  $("resetCrop").disabled = cropIsFull() && !editor.rotation && !editor.flipped && Math.abs(editor.straighten) < 0.05;
  const aperture = $("adjust-aperture");
  $("depthOn").checked = Boolean(editor.depth);
  if (aperture) {
    const v = editor.depth?.aperture ?? editor.filters.get("depth").parameters[0].defaultValue;
    aperture.value = v;
    aperture.parentElement.querySelector("output").textContent = `ƒ/${v.toFixed(1)}`;
    aperture.parentElement.querySelector(".reset").disabled = !editor.depth || v === editor.filters.get("depth").parameters[0].defaultValue;
  }
  for (const box of $("filterChoices").querySelectorAll("input")) box.checked = editor.looks.some((l) => l.name === box.value);
  const changed = editorChanged();
  $("applyEdit").disabled = !changed || editor.asset?.trashedAt != null;
  $("editCancel").disabled = !changed;
  $("editResetAll").disabled = editorSteps().length === 0;
  placeCropBox();
  placeFocus();
}

// ---- The editor's life: an asset opened, a change, Apply ----

// Starts the editor on `asset`, from the steps of its current version (camlib's, or
// Apple's that camlib reproduces).
async function startEditor(asset) {
  editor.seq++;
  editor.asset = asset;
  editor.ready = false;
  clearEditorState();
  $("editorNote").hidden = true;
  $("editorControls").inert = true;
  dropPreviews();
  if (!asset || editor.filters.size === 0) return;
  const hasDepth = (asset.aux || []).some((a) => a.type === "depth" || a.type === "disparity");
  $("depthGroup").hidden = !hasDepth;
  const seq = editor.seq;
  try {
    const start = await api(`/api/assets/${asset.id}/editor`);
    if (seq !== editor.seq) return;
    const merged = takeSteps(start.steps);
    // What the controls hold of them (a ratio's crop as its rectangle) is the start.
    editor.start = editorSteps();
    const note = [start.note, merged, start.from === "apple" && start.steps.length ? "This edit is Apple's, shown as camlib's steps: Apply makes it camlib's." : ""].filter(Boolean).join(" ");
    $("editorNote").textContent = note;
    $("editorNote").hidden = !note;
    editor.ready = true;
    $("editorControls").inert = Boolean(asset.trashedAt);
    showEditorControls();
  } catch (error) {
    if (seq === editor.seq) $("editStatus").textContent = `The editor cannot start: ${error.message}`;
  }
}

function dropPreviews() {
  for (const url of [editor.shown, editor.original]) if (url) URL.revokeObjectURL(url);
  editor.shown = editor.original = editor.stageURL = null;
  const still = $("still");
  still.removeAttribute("data-preview");
  if (still.getAttribute("src")?.startsWith("blob:")) still.src = editor.asset?.media.preview || "";
}

// Whether the stage shows the editor's preview of `asset` (which a refresh leaves there).
const editorOwnsStill = (asset) => editor.asset?.id === asset.id && editor.stageURL !== null && editor.stageURL !== asset.media.preview;

// A control changed: the controls follow, and a preview is asked for (one at a time; the
// latest change is what the next one shows).
function editorChange() {
  if (!editor.ready) return;
  showEditorControls();
  if (editor.busy) { editor.again = true; return; }
  previewNow();
}

async function previewNow() {
  const asset = editor.asset;
  if (!asset) return;
  const cropping = croppingNow();
  // While cropping, the whole photo is shown with the crop's frame on it.
  const steps = editorSteps({ withCrop: !cropping, withDepth: !cropping });
  const seq = editor.seq;
  if (!cropping && sameSteps(steps, editor.start) && asset.media.preview) {
    showOnStage(asset.media.preview, steps);
    return;
  }
  editor.busy = true;
  try {
    const url = await previewURL(asset, steps);
    if (seq !== editor.seq) { URL.revokeObjectURL(url); return; }
    if (editor.shown) URL.revokeObjectURL(editor.shown);
    editor.shown = url;
    showOnStage(url, steps);
    $("editStatus").textContent = editorChanged() ? "Preview (not saved): Apply keeps it." : "";
  } catch (error) {
    if (seq === editor.seq) $("editStatus").textContent = `The preview failed: ${error.message}`;
  } finally {
    if (seq === editor.seq) {
      editor.busy = false;
      if (editor.again) { editor.again = false; previewNow(); }
    }
  }
}

async function previewURL(asset, steps) {
  const response = await fetch(`/api/assets/${asset.id}/edit-preview?filters=${encodeURIComponent(steps.join(";"))}`);
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    throw new Error(body?.error?.message || body?.error || `${response.status} ${response.statusText}`);
  }
  return URL.createObjectURL(await response.blob());
}

// The picture on the stage, its steps kept on it (what the tests and a person's
// inspector read).
function showOnStage(url, steps) {
  const still = $("still");
  $("motion").hidden = true;
  still.hidden = false;
  $("replay").hidden = true;
  still.dataset.preview = steps.join(";");
  editor.stageURL = url;
  if (still.getAttribute("src") !== url) still.src = url;
}

async function applyEdit() {
  const asset = state.assets[state.current];
  if (!asset || !editor.ready) return;
  const filters = editorSteps();
  if (filters.length === 0) return revert();
  const progress = $("editProgress");
  progress.hidden = false;
  progress.removeAttribute("value");
  $("applyEdit").disabled = true;
  $("editStatus").textContent = "Rendering…";
  try {
    let job = await post(`/api/assets/${asset.id}/edit`, { filters });
    let unanswered = 0;
    while (job.state === "running" || job.state === "queued") {
      await new Promise((r) => setTimeout(r, 300));
      // The edit is a job in the library: a gallery restarted meanwhile goes on with it.
      try {
        job = await api(`/api/jobs/${job.job}`);
        unanswered = 0;
      } catch (error) {
        if (++unanswered > 300) throw error;
        $("editStatus").textContent = "The gallery does not answer; the edit is kept, asking again…";
        continue;
      }
      if (job.state === "queued") $("editStatus").textContent = "Waiting for the edits before it…";
      if (job.phase === "movie" && job.framesExpected) {
        progress.max = job.framesExpected;
        progress.value = job.framesDone;
        $("editStatus").textContent = `Rendering the movie: frame ${job.framesDone} of ${job.framesExpected}`;
      } else if (job.phase === "still") {
        $("editStatus").textContent = "Rendering the still…";
      }
    }
    if (job.state === "failed") throw new Error(job.error);
    const fresh = await refreshAsset(asset.id);
    if (fresh) await startEditor(fresh);
    $("editStatus").textContent = job.warnings.length ? `Done, with warnings: ${job.warnings.join("; ")}` : "Done: the edit is the current version.";
  } catch (error) {
    $("editStatus").textContent = `The edit failed: ${error.message}`;
    showEditorControls();
  } finally {
    progress.hidden = true;
  }
}

async function revert() {
  const asset = state.assets[state.current];
  if (!asset) return;
  try {
    const result = await post(`/api/assets/${asset.id}/revert`);
    const fresh = await refreshAsset(asset.id);
    if (fresh) await startEditor(fresh);
    $("editStatus").textContent = result.reverted ? "Reverted: the original is current again." : "The original already was current.";
  } catch (error) {
    $("editStatus").textContent = `Revert failed: ${error.message}`;
  }
}

// ---- On the stage: the crop's frame, the focus point, holding for the original ----

// Where the photo is drawn on the stage, in the stage's pixels.
function photoBox() {
  const still = $("still"), stage = $("stage").getBoundingClientRect(), box = still.getBoundingClientRect();
  return { left: box.left - stage.left, top: box.top - stage.top, width: box.width, height: box.height };
}

function placeCropBox() {
  const frame = $("cropBox");
  const show = croppingNow() && editor.ready && !$("still").hidden && $("still").naturalWidth > 0;
  frame.hidden = !show;
  if (!show) return;
  const box = photoBox(), c = editor.crop;
  frame.style.left = `${box.left + c.x * box.width}px`;
  frame.style.top = `${box.top + c.y * box.height}px`;
  frame.style.width = `${c.width * box.width}px`;
  frame.style.height = `${c.height * box.height}px`;
}

function placeFocus() {
  const mark = $("focusMark");
  const show = editor.ready && editor.depth && $("depthGroup").open && !$("depthGroup").hidden && !croppingNow() && !$("still").hidden;
  mark.hidden = !show;
  if (!show) return;
  const box = photoBox();
  mark.style.left = `${box.left + editor.depth.x * box.width}px`;
  mark.style.top = `${box.top + editor.depth.y * box.height}px`;
}

// Dragging a corner, an edge or the whole frame. With an aspect chosen, a corner keeps it.
function wireCropBox() {
  const frame = $("cropBox");
  let drag = null;
  frame.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    e.stopPropagation();
    frame.setPointerCapture(e.pointerId);
    drag = { handle: e.target.dataset.handle || "move", x: e.clientX, y: e.clientY, crop: { ...editor.crop }, box: photoBox() };
  });
  frame.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = (e.clientX - drag.x) / drag.box.width, dy = (e.clientY - drag.y) / drag.box.height;
    editor.crop = movedCrop(drag.crop, drag.handle, dx, dy, drag.box);
    placeCropBox();
  });
  const end = (e) => {
    if (!drag) return;
    const before = drag.crop;
    drag = null;
    e.stopPropagation();
    keepFocus(before);
    editorChange();
  };
  frame.addEventListener("pointerup", end);
  frame.addEventListener("pointercancel", end);
}

function movedCrop(c, handle, dx, dy, box) {
  const min = 0.05;
  if (handle === "move") {
    return { ...c, x: round4(Math.min(1 - c.width, Math.max(0, c.x + dx))), y: round4(Math.min(1 - c.height, Math.max(0, c.y + dy))) };
  }
  let left = c.x, top = c.y, right = c.x + c.width, bottom = c.y + c.height;
  if (handle.includes("w")) left = Math.min(right - min, Math.max(0, left + dx));
  if (handle.includes("e")) right = Math.max(left + min, Math.min(1, right + dx));
  if (handle.includes("n")) top = Math.min(bottom - min, Math.max(0, top + dy));
  if (handle.includes("s")) bottom = Math.max(top + min, Math.min(1, bottom + dy));
  const ratio = editor.aspect;
  if (ratio > 0) {
    // The ratio in fractions of this photo: a side dragged sideways sets the width, any
    // other handle the height; the other follows, from the side or corner held still.
    const r = ratio * box.height / box.width;
    // A corner follows whichever way it was dragged further.
    const byWidth = right - left, byHeight = (bottom - top) * r;
    const sideways = handle === "e" || handle === "w" || (handle.length === 2 && Math.abs(byWidth - c.width) > Math.abs(byHeight - c.width));
    let width = sideways ? byWidth : byHeight;
    let height = width / r;
    const roomX = handle.includes("w") ? right : 1 - left;
    const roomY = handle.includes("n") ? bottom : 1 - top;
    if (width > roomX) { width = roomX; height = width / r; }
    if (height > roomY) { height = roomY; width = height * r; }
    if (handle.includes("w")) left = right - width; else right = left + width;
    if (handle.includes("n")) top = bottom - height; else bottom = top + height;
  }
  return { x: round4(left), y: round4(top), width: round4(right - left), height: round4(bottom - top) };
}

// The dial below the crop: dragging it sideways straightens, a tenth of a degree a pixel.
function wireStraightenDial() {
  const dial = $("straightenDial");
  let drag = null;
  dial.addEventListener("pointerdown", (e) => {
    if (!editor.ready) return;
    dial.setPointerCapture(e.pointerId);
    drag = { x: e.clientX, degrees: editor.straighten };
  });
  dial.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const degrees = Math.max(-45, Math.min(45, drag.degrees - (e.clientX - drag.x) / 10));
    editor.straighten = Math.round(degrees * 10) / 10;
    showEditorControls();
  });
  const end = () => {
    if (!drag) return;
    drag = null;
    editorChange();
  };
  dial.addEventListener("pointerup", end);
  dial.addEventListener("pointercancel", end);
}

// Holding the button (or the photo, with a mouse's long press) shows the original; letting
// go shows the edit again.
function wireCompare() {
  const button = $("editCompare");
  let holding = false;
  const hold = async (e) => {
    e.preventDefault();
    const asset = editor.asset;
    if (!asset || holding) return;
    holding = true;
    button.setAttribute("aria-pressed", "true");
    try {
      if (!editor.original) editor.original = await previewURL(asset, []);
      if (holding && editor.asset === asset) {
        $("still").src = editor.original;
        $("still").dataset.showing = "original";
      }
    } catch (error) {
      $("editStatus").textContent = `The original cannot be shown: ${error.message}`;
    }
  };
  const letGo = () => {
    if (!holding) return;
    holding = false;
    button.setAttribute("aria-pressed", "false");
    delete $("still").dataset.showing;
    const back = editor.stageURL || editor.asset?.media.preview;
    if (back) $("still").src = back;
  };
  button.addEventListener("pointerdown", hold);
  for (const type of ["pointerup", "pointerleave", "pointercancel"]) button.addEventListener(type, letGo);
  button.addEventListener("keydown", (e) => { if ((e.key === " " || e.key === "Enter") && !e.repeat) hold(e); });
  button.addEventListener("keyup", (e) => { if (e.key === " " || e.key === "Enter") letGo(); });
  button.addEventListener("contextmenu", (e) => e.preventDefault());
}

// With the depth of field open, a tap on the photo sets the focus there.
function focusAt(e) {
  if (!editor.ready || $("depthGroup").hidden || !$("depthGroup").open || croppingNow()) return false;
  const box = photoBox(), stage = $("stage").getBoundingClientRect();
  const x = (e.clientX - stage.left - box.left) / box.width, y = (e.clientY - stage.top - box.top) / box.height;
  if (x < 0 || x > 1 || y < 0 || y > 1) return false;
  const aperture = editor.depth?.aperture ?? editor.filters.get("depth").parameters[0].defaultValue;
  editor.depth = { aperture, x: round4(x), y: round4(y) };
  editorChange();
  return true;
}

// Whether the stage's pointer belongs to the editor (no swipe to the next photo).
const editorHoldsStage = () => croppingNow() || (!$("depthGroup").hidden && $("depthGroup").open);

function wireEditor() {
  wireCropBox();
  wireStraightenDial();
  wireCompare();
  $("applyEdit").addEventListener("click", applyEdit);
  $("revert").addEventListener("click", revert);
  $("editCancel").addEventListener("click", () => { takeSteps(editor.start); editorChange(); });
  $("editResetAll").addEventListener("click", () => { clearEditorState(); $("cropAspect").value = "0"; editorChange(); });
  $("editAuto").addEventListener("click", async () => {
    const asset = editor.asset;
    if (!asset || !editor.ready) return;
    $("editStatus").textContent = "Measuring the photo…";
    try {
      const geometry = editorSteps({ withDepth: false }).filter((s) => editor.filters.get(parseStep(s).name)?.group === "geometry");
      const chosen = await api(`/api/assets/${asset.id}/auto?filters=${encodeURIComponent(geometry.join(";"))}`);
      if (asset !== editor.asset) return;
      for (const name of EDITOR_ADJUSTMENTS) delete editor.values[name];
      editor.order = [];
      for (const text of chosen.steps) {
        const { name, parameters } = parseStep(text);
        editor.values[name] = Object.values(parameters)[0];
        editor.order.push(name);
      }
      editorChange();
    } catch (error) {
      $("editStatus").textContent = `Auto failed: ${error.message}`;
    }
  });
  $("turnLeft").addEventListener("click", () => { turnLeft(); editorChange(); });
  $("flipButton").addEventListener("click", () => { flipAcross(); editorChange(); });
  $("resetCrop").addEventListener("click", () => {
    while (editor.rotation || editor.flipped) editor.flipped ? flipAcross() : turnLeft();
    const before = editor.crop;
    Object.assign(editor, { straighten: 0, crop: { ...FULL_CROP }, aspect: 0 });
    keepFocus(before);
    $("cropAspect").value = "0";
    editorChange();
  });
  $("cropAspect").addEventListener("change", () => {
    const [, ratio] = EDITOR_ASPECTS[Number($("cropAspect").value)];
    editor.aspect = ratio === -1 ? uncroppedAspect() : ratio;
    const before = editor.crop;
    editor.crop = ratio === 0 ? editor.crop : centredCrop(editor.aspect);
    keepFocus(before);
    editorChange();
  });
  $("depthOn").addEventListener("change", () => {
    const p = editor.filters.get("depth").parameters;
    editor.depth = $("depthOn").checked ? { aperture: p[0].defaultValue, x: 0.5, y: 0.5 } : null;
    editorChange();
  });
  $("filterChoices").addEventListener("change", (e) => {
    const name = e.target.value;
    if (e.target.checked) editor.looks.push({ name, parameters: {} });
    else editor.looks = editor.looks.filter((l) => l.name !== name);
    editorChange();
  });
  // Opening or closing the crop shows the whole photo with its frame, or the crop.
  $("geometryGroup").addEventListener("toggle", () => { if (editor.ready) editorChange(); });
  $("depthGroup").addEventListener("toggle", placeFocus);
  $("still").addEventListener("load", () => { placeCropBox(); placeFocus(); });
  $("still").addEventListener("click", focusAt);
  new ResizeObserver(() => { placeCropBox(); placeFocus(); }).observe($("stage"));
}

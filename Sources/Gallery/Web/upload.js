"use strict";
// Uploads: files dropped on the page or chosen with Upload, sent a few at a time by the
// tus protocol (/api/uploads): in pieces that say where they start, so that after a
// dropped connection a file goes on from where the gallery says it ends. Each whole file
// is imported as `camlib import` imports it; the panel says what became of each.
// Uses gallery.js's $, el, api, state, resetTimeline and loadPage; gives it uploadsBusy.

const UPLOAD = {
  atOnce: 4,                  // files sent at the same time (a fifth connection follows the imports)
  piece: Math.max(64 << 10, Number(new URLSearchParams(location.search).get("uploadPiece")) || 8 << 20), // bytes a request
  hashUpTo: 256 << 20,        // files hashed first (to skip those in the library): up to this size
  tries: 6,                   // tries of a piece before the file is reported as failed
  items: [],                  // every file of this page's uploads, in the panel's order
  running: 0,
  batch: null,                // the files sent together: imported from one folder, so pairs find each other
  added: 0,                   // new assets since the timeline was last shown again
  refreshed: 0,
};

// Sidecars (Apple's .AAE, .XMP) after the photos they belong to.
const isSidecar = (name) => /\.(aae|xmp)$/i.test(name);

function queueUploads(files) {
  if (!files.length) return;
  const busy = uploadsBusy();
  if (!UPLOAD.batch || !busy) UPLOAD.batch = `b${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const ordered = [...files].sort((a, b) => isSidecar(a.name) - isSidecar(b.name));
  const sizes = knownSizes(ordered);
  for (const file of ordered) {
    const row = el("li", { class: "upload" },
      el("span", { class: "name", text: file.webkitRelativePath || file.name, title: file.name }),
      el("progress", { max: 1, value: 0 }),
      el("span", { class: "state", text: "waiting" }));
    const item = { file, batch: UPLOAD.batch, row, sent: 0, state: "waiting", sizes };
    UPLOAD.items.push(item);
    $("uploadList").append(row);
  }
  $("uploads").hidden = false;
  redraw();
  pump();
}

function pump() {
  while (UPLOAD.running < UPLOAD.atOnce) {
    const item = UPLOAD.items.find((i) => i.state === "waiting" && !(isSidecar(i.file.name) && mediaOfBatchUnfinished(i.batch)));
    if (!item) break;
    UPLOAD.running++;
    item.state = "sending";
    // Once its bytes are sent, a file is imported while the next is sent.
    upload(item)
      .then((result) => { release(); return result || importOutcome(item); })
      .then((result) => done(item, result))
      .catch((error) => { release(); finish(item, "failed", error.message); });
    let released = false;
    function release() {
      if (released) return;
      released = true;
      UPLOAD.running--;
      pump();
    }
  }
}

// The sizes among `files`' that some original of the library has: only a file of one of
// them can be in the library, so only those are hashed before they are sent (hashing
// every file cost the page more than sending it). Null when the gallery cannot say:
// then every file is hashed.
async function knownSizes(files) {
  const sizes = [...new Set(files.map((f) => f.size))];
  try {
    const known = new Set();
    for (let i = 0; i < sizes.length; i += 1000) {  // a URL of at most 1,000 sizes
      const answer = await api(`/api/known-sizes?bytes=${sizes.slice(i, i + 1000).join(",")}`);
      for (const size of answer.known) known.add(size);
    }
    return known;
  } catch (_) {
    return null;
  }
}

// A sidecar waits for the photos and movies sent with it: it attaches to one of them.
const mediaOfBatchUnfinished = (batch) =>
  UPLOAD.items.some((i) => i.batch === batch && !isSidecar(i.file.name) && ["waiting", "sending", "importing"].includes(i.state));

async function upload(item) {
  const file = item.file;
  showUploadState(item, "checking");
  const meta = { filename: file.name, batch: item.batch, filetype: file.type || "" };
  const known = await item.sizes;
  const sha = !known || known.has(file.size) ? await sha256(file) : null;
  if (sha) meta.sha256 = sha;
  // The first piece goes with the request that makes the upload (a small file whole).
  const first = file.slice(0, Math.min(file.size, UPLOAD.piece));
  let created, carried = true;
  try {
    created = await tus("POST", "/api/uploads", {
      "Upload-Length": String(file.size),
      "Upload-Metadata": Object.entries(meta).map(([k, v]) => `${k} ${base64(v)}`).join(","),
      "Content-Type": "application/offset+octet-stream",
    }, first, (loaded) => progress(item, loaded));
  } catch (error) {
    created = { status: 0 };
  }
  if (created.status === 200) return JSON.parse(created.responseText); // already in the library
  if (created.status === 0) {
    // Cut off before the answer: nothing says where the upload is; made again.
    carried = false;
    created = await tus("POST", "/api/uploads", {
      "Upload-Length": String(file.size),
      "Upload-Metadata": Object.entries(meta).map(([k, v]) => `${k} ${base64(v)}`).join(","),
    });
    if (created.status === 200) return JSON.parse(created.responseText);
  }
  if (created.status !== 201) throw new Error(reason(created));
  item.url = created.getResponseHeader("Location");
  let offset = Number(created.getResponseHeader("Upload-Offset") || 0), failures = 0;
  progress(item, offset);
  if (carried && offset >= file.size) return null;
  while (offset < file.size || file.size === 0) {
    showUploadState(item, "sending");
    const end = Math.min(file.size, offset + UPLOAD.piece);
    let answer;
    try {
      answer = await tus("PATCH", item.url, { "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream" },
        file.slice(offset, end), (loaded) => progress(item, offset + loaded));
    } catch (error) {
      answer = { status: 0, error };
    }
    if (answer.status === 204) {
      offset = Number(answer.getResponseHeader("Upload-Offset"));
      failures = 0;
      progress(item, offset);
      if (offset >= file.size) break;
      continue;
    }
    // Refused for good: the reason is the file's.
    if ([400, 404, 410, 413, 415, 507].includes(answer.status)) throw new Error(reason(answer));
    // Cut off, busy or failed for a moment: ask where the file ends, and go on from there.
    if (++failures >= UPLOAD.tries) throw new Error(answer.status ? reason(answer) : "the connection to the gallery failed, again and again");
    showUploadState(item, `connection lost; trying again (${failures} of ${UPLOAD.tries - 1})`);
    await waitToRetry(failures);
    try {
      const where = await tus("HEAD", item.url);
      if (where.status === 200) offset = Number(where.getResponseHeader("Upload-Offset"));
      else if (where.status === 404) throw new Error(reason(where));
    } catch (error) {
      if (/no upload/.test(error.message)) throw error;
    }
    progress(item, offset);
  }
  return null;
}

// What the gallery's import made of a file whose bytes are all there. One request asks
// for every file being imported (a request each would hold the browser's few
// connections to the gallery, and the next files' pieces would wait behind them).
const importing = new Map(); // upload id → resolve
function importOutcome(item) {
  item.state = "importing";
  showUploadState(item, "importing");
  const id = item.url.split("/").pop();
  const outcome = new Promise((resolve) => importing.set(id, resolve));
  if (importing.size === 1) followImports();
  return outcome;
}

async function followImports() {
  let failures = 0;
  while (importing.size) {
    try {
      const asked = [...importing.keys()].slice(0, 1000);
      const answer = await api(`/api/uploads?ids=${asked.join(",")}&wait=1`);
      failures = 0;
      const known = new Set();
      for (const upload of answer.uploads) {
        known.add(upload.id);
        if (!upload.outcome) continue;
        importing.get(upload.id)?.(upload);
        importing.delete(upload.id);
      }
      // An upload the gallery no longer has (cancelled, or abandoned): said so.
      for (const id of asked) {
        if (known.has(id) || !importing.has(id)) continue;
        importing.get(id)({ outcome: "failed", message: `the gallery no longer has this upload` });
        importing.delete(id);
      }
    } catch (_) {
      await waitToRetry(Math.min(++failures, 3));
    }
  }
}

// A second, then 2, 4, 8…; at once when the browser says it is online again.
function waitToRetry(failures) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 1000 * 2 ** (failures - 1));
    addEventListener("online", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

// A request of the protocol, with the page's write header; resolves with the finished
// XMLHttpRequest (any status), rejects when no answer came. XMLHttpRequest, as fetch
// says nothing of how much of a body was sent.
function tus(method, url, headers = {}, body = null, sent = null) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open(method, url);
    request.setRequestHeader("Tus-Resumable", "1.0.0");
    if (method !== "HEAD") request.setRequestHeader("X-Camlib-Request", "1");
    for (const [k, v] of Object.entries(headers)) request.setRequestHeader(k, v);
    if (sent) request.upload.onprogress = (e) => sent(e.loaded);
    request.onload = () => resolve(request);
    request.onerror = () => reject(new Error("the connection to the gallery failed"));
    request.ontimeout = request.onerror;
    request.send(body);
  });
}

function reason(request) {
  try {
    const body = JSON.parse(request.responseText);
    if (body?.error?.message) return body.error.message;
  } catch (_) { /* not JSON */ }
  return `${request.status} ${request.statusText}`.trim();
}

const base64 = (text) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

// The file's sha256 in hex, when the browser can make it (a secure context: https, or
// this machine) and the file is small enough to read at once; else null.
async function sha256(file) {
  if (!crypto.subtle || file.size > UPLOAD.hashUpTo || file.size === 0) return null;
  try {
    const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  } catch (_) {
    return null;
  }
}

const OUTCOME_TEXT = {
  imported: (r) => (r.paired ? "added, paired with its other half" : "added"),
  duplicate: () => "already in the library",
  attached: () => "attached to its photo",
  skipped: (r) => `not imported: ${r.message}`,
  failed: (r) => `failed: ${r.message}`,
};

function done(item, result) {
  const outcome = result.outcome || "failed";
  let text = (OUTCOME_TEXT[outcome] || OUTCOME_TEXT.failed)(result);
  if (result.message && (outcome === "imported" || outcome === "duplicate")) text += ` (${result.message})`;
  if (outcome === "imported" || outcome === "attached") UPLOAD.added++;
  finish(item, outcome === "failed" || outcome === "skipped" ? "failed" : "done", text, result.asset);
}

function finish(item, state, text, asset) {
  item.state = state;
  item.label = state === "failed" && !text.startsWith("failed") && !text.startsWith("not imported") ? `failed: ${text}` : text;
  if (asset) item.row.dataset.asset = asset;
  redraw(item);
  pump();  // a sidecar may have waited for this file
  uploadsIdle();
}

function showUploadState(item, text) {
  item.label = text;
  redraw(item);
}

function progress(item, sent) {
  item.sent = sent;
  redraw(item);
}

// The panel is drawn at most once a frame, for the files that changed since: progress
// moves many times a second per file, and drawing every move (and reading the scroll
// position after each) cost the page more than sending the files.
const UNDRAWN = new Set();
let drawing = 0;

function redraw(item) {
  if (item) UNDRAWN.add(item);
  if (!drawing) drawing = requestAnimationFrame(drawUploads);
}

function drawUploads() {
  if (drawing) cancelAnimationFrame(drawing);
  drawing = 0;
  for (const item of UNDRAWN) {
    const finished = item.state === "done" || item.state === "failed";
    item.row.classList.toggle("failed", item.state === "failed");
    item.row.classList.toggle("done", item.state === "done");
    if (!finished || item.state === "done") {
      item.row.querySelector("progress").value = item.state === "done" || !item.file.size ? 1 : item.sent / item.file.size;
    }
    if (item.label !== undefined) item.row.querySelector(".state").textContent = item.label;
  }
  UNDRAWN.clear();
  showUploadTotals();
  // New photos show up while others are still sent, if the timeline's top is in view
  // (the scroll position read last: reading it makes the browser lay the page out).
  if (UPLOAD.added && Date.now() - UPLOAD.refreshed > 5000 && $("viewer").hidden && scrollY < 80) showNewAssets();
}

function showUploadTotals() {
  const all = UPLOAD.items;
  let bytes = 0, sent = 0, finished = 0, failed = 0;
  for (const i of all) {
    const over = i.state === "done" || i.state === "failed";
    bytes += i.file.size;
    sent += over ? i.file.size : i.sent;
    finished += over;
    failed += i.state === "failed";
  }
  bytes = bytes || 1;
  $("uploadTotal").value = sent / bytes;
  $("uploadSummary").textContent = finished < all.length
    ? `Uploading ${finished + 1 > all.length ? all.length : finished + 1} of ${all.length} · ${Math.round((100 * sent) / bytes)}%`
    : `${all.length} ${all.length === 1 ? "file" : "files"} uploaded` + (failed ? `, ${failed} not imported` : "");
  $("uploadClose").hidden = finished < all.length;
}

// Whether files are being sent or imported.
function uploadsBusy() {
  return UPLOAD.items.some((i) => ["waiting", "sending", "importing"].includes(i.state));
}

function uploadsIdle() {
  if (uploadsBusy()) return;
  drawUploads();  // the last word at once, not at the next frame (none comes in a hidden tab)
  if (UPLOAD.added) showNewAssets();
}

// The timeline again, from its top, with what was added: where the new photos go
// depends on when they were taken.
function showNewAssets() {
  UPLOAD.added = 0;
  UPLOAD.refreshed = Date.now();
  if (!$("viewer").hidden || currentView().name === "albums") return;
  resetTimeline();
  loadPage();
}

// Files and folders dropped on the page (a folder's files, however deep).
async function droppedFiles(transfer) {
  const entries = [...transfer.items].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
  if (!entries.length) return [...transfer.files];
  const files = [];
  async function walk(entry) {
    if (entry.isFile) {
      files.push(await new Promise((resolve, reject) => entry.file(resolve, reject)));
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (!batch.length) break;
        for (const child of batch) await walk(child);
      }
    }
  }
  for (const entry of entries) await walk(entry);
  return files;
}

document.addEventListener("DOMContentLoaded", () => {
  $("uploadButton").addEventListener("click", () => $("uploadPicker").click());
  $("uploadPicker").addEventListener("change", () => {
    queueUploads([...$("uploadPicker").files]);
    $("uploadPicker").value = "";
  });
  $("uploadClose").addEventListener("click", () => {
    $("uploads").hidden = true;
    UPLOAD.items = UPLOAD.items.filter((i) => i.state === "waiting" || i.state === "sending");
    $("uploadList").replaceChildren(...UPLOAD.items.map((i) => i.row));
  });
  // Dragging files over the page shows where they go; dropping them anywhere sends them.
  let depth = 0;
  const carriesFiles = (e) => [...(e.dataTransfer?.types || [])].includes("Files");
  addEventListener("dragenter", (e) => {
    if (!carriesFiles(e)) return;
    depth++;
    $("dropZone").hidden = false;
  });
  addEventListener("dragleave", (e) => {
    if (!carriesFiles(e)) return;
    if (--depth <= 0) { depth = 0; $("dropZone").hidden = true; }
  });
  addEventListener("dragover", (e) => { if (carriesFiles(e)) e.preventDefault(); });
  addEventListener("drop", async (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    depth = 0;
    $("dropZone").hidden = true;
    queueUploads(await droppedFiles(e.dataTransfer));
  });
});

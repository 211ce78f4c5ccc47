"use strict";
// Downloads: an asset's files from its view, a selection's or an album's as a ZIP the
// gallery makes as it sends it (/download). Links, so the browser's own download
// manager saves them (the page holds none of it). Uses gallery.js's $, el and state.

// The asset view's links: what the library shows (an edit's renders), and for an
// edited asset its originals too.
function showDownload(asset) {
  const edited = asset.adjustments.some((a) => a.current);
  $("download").href = `/download?assets=${asset.id}&version=${edited ? "current" : "original"}`;
  $("download").textContent = edited ? "⬇ Download edited" : "⬇ Download";
  $("downloadOriginal").href = `/download?assets=${asset.id}&version=original`;
  $("downloadOriginal").hidden = !edited;
}

// The selection's files, as a ZIP: as shown, or the originals with their sidecars.
function downloadSelection(version) {
  const ids = [...state.selected];
  if (!ids.length) return;
  const link = el("a", { href: `/download?assets=${ids.join(",")}&version=${version}`, download: "" });
  document.body.append(link);
  link.click();
  link.remove();
  $("selectionStatus").textContent = `Downloading ${ids.length} ${ids.length === 1 ? "asset" : "assets"}: the browser saves the ZIP.`;
}

document.addEventListener("DOMContentLoaded", () => {
  $("selDownload").addEventListener("change", () => {
    const version = $("selDownload").value;
    $("selDownload").value = "";
    if (version) downloadSelection(version);
  });
});

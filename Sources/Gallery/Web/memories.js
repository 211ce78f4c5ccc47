"use strict";
// "On this day", at the top of the timeline: the photos taken on today's date in earlier
// years, a card for each year that links to that day. Today is the browser's own date:
// the library's capture dates are the places' local dates, and so is a person's "today".
// Uses gallery.js's $, el, api, dayTitle and assetName.

async function loadMemories() {
  const strip = $("memories");
  strip.hidden = true;
  const now = new Date();
  const pad = (n) => String(n).padStart(2, "0");
  const today = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  let memories;
  try {
    memories = await api(`/api/memories?today=${today}`);
  } catch (error) {
    return;  // the timeline is what matters; it says itself when the gallery is gone
  }
  // A jump or a filter may have come while this was asked for.
  if (!memories.length || !showsMemories()) return;
  const cards = memories.map((memory) => {
    const ago = now.getFullYear() - memory.year;
    const card = el("a", { class: "memory", href: `/?q=${memory.day}`, "data-day": memory.day });
    const pictures = el("span", { class: "pictures" });
    for (const asset of memory.assets) {
      if (asset.media.thumbnail) pictures.append(el("img", { src: asset.media.thumbnail, alt: assetName(asset), loading: "lazy", draggable: false }));
    }
    const things = memory.count === 1 ? "1 item" : `${memory.count} items`;
    card.append(
      pictures,
      el("strong", { text: ago === 1 ? "1 year ago" : `${ago} years ago` }),
      el("span", { class: "when", text: `${dayTitle(memory.day)} · ${things}` }));
    card.setAttribute("aria-label", `${ago === 1 ? "1 year ago" : `${ago} years ago`}: ${dayTitle(memory.day)}, ${things}`);
    return card;
  });
  strip.replaceChildren(el("h2", { text: "On this day" }), el("div", { class: "cards" }, ...cards));
  strip.hidden = false;
}

// The whole timeline from its start: not a filtered view, not after a jump.
function showsMemories() {
  const params = new URLSearchParams(location.search);
  return currentView().name === "photos" && ![...FILTER_NAMES, "q", "box"].some((name) => params.get(name)) && !state.previous;
}

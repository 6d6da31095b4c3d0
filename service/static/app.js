// The page: plain JavaScript, no build step, no network beyond this server.
// Every number shown comes from the API; the page only draws and forwards taps.
"use strict";

const $ = (sel) => document.querySelector(sel);
const SVG_NS = "http://www.w3.org/2000/svg";
const NO_DOMINOES = "No dominoes found — retake the photo?";

// An access token given as ?token= was turned into a cookie by the server; keep it out of the address bar.
if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);

const UNREACHABLE = "Could not reach the server: check that chickenfoot serve is still running.";

async function api(path, options = {}) {
  let res;
  try {
    res = await fetch(path, options);
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new Error(UNREACHABLE); // the browser's own words ("Failed to fetch") say nothing to a player
  }
  let body = null;
  try { body = await res.json(); } catch (e) { /* not JSON: described below */ }
  if (!res.ok) {
    if (res.status === 503 && body && String(body.error || "").startsWith("store_")) checkStorage();
    throw new Error(body && body.message ? body.message : `the server answered ${res.status}: please try again`);
  }
  return body;
}

function setStatus(el, text, isError = false) {
  el.textContent = text;
  el.classList.toggle("error", isError);
}

// An error as the page says it: a sentence, whatever the server or the browser wrote.
function problem(e) {
  const text = sentence(String((e && e.message) || e || "something went wrong").trim());
  return /[.!?…]$/.test(text) ? text : text + ".";
}

function showError(el, e) { setStatus(el, problem(e), true); }

// ---- one request at a time per kind -------------------------------------------
// A newer request of a kind (a second photo, a changed rule) aborts the older one, and an
// answer that still arrives late is dropped: it must never overwrite the newer result.
const inFlight = new Map();

function startRequest(kind) {
  if (inFlight.has(kind)) inFlight.get(kind).abort();
  const ctl = new AbortController();
  inFlight.set(kind, ctl);
  return ctl;
}

function isCurrent(kind, ctl) { return inFlight.get(kind) === ctl; }

function endRequest(kind, ctl) {
  if (!isCurrent(kind, ctl)) return false;
  inFlight.delete(kind);
  return true;
}

// While a request is on the way the section says so, and the result it will replace is dimmed.
function setBusy(section, busy) {
  section.setAttribute("aria-busy", String(busy));
  section.querySelectorAll(".result").forEach((el) => el.classList.toggle("stale", busy));
}

function askConfirm(text, yes = "Yes", no = "Cancel") {
  const dialog = $("#confirm-dialog");
  $("#confirm-text").textContent = text;
  $("#confirm-yes").textContent = yes;
  $("#confirm-no").textContent = no;
  return new Promise((resolve) => {
    dialog.onclose = () => resolve(dialog.returnValue === "yes");
    dialog.returnValue = "";
    dialog.showModal();
  });
}

function countedTiles(hand) { return hand.tiles.filter((t) => t.pips); }

// A photo where nothing was read is not a hand that went out: it says so instead of "0".
function foundNothing(hand) { return countedTiles(hand).length === 0 && !hand.face_down; }

// ---- tabs ----------------------------------------------------------------
// A tab list as screen readers know it: one tab in the Tab order, the arrow keys move between them.
const tabButtons = [...document.querySelectorAll("nav [role=tab]")];
tabButtons.forEach((btn) => btn.addEventListener("click", () => showTab(btn.dataset.tab)));
$("nav").addEventListener("keydown", (ev) => {
  const at = tabButtons.indexOf(document.activeElement);
  if (at < 0) return;
  const last = tabButtons.length - 1;
  const to = { ArrowRight: at === last ? 0 : at + 1, ArrowLeft: at === 0 ? last : at - 1, Home: 0, End: last }[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  tabButtons[to].focus();
  showTab(tabButtons[to].dataset.tab);
});
function showTab(name) {
  tabButtons.forEach((b) => {
    const on = b.dataset.tab === name;
    b.setAttribute("aria-selected", String(on));
    b.tabIndex = on ? 0 : -1;
  });
  document.querySelectorAll(".tab").forEach((s) => { s.hidden = s.id !== "tab-" + name; });
  if (name === "game") loadGames();
  fillPresets();
}
// ---- drawing tiles over a photo -------------------------------------------
function endCentres(c) {
  const m0 = [(c[0][0] + c[1][0]) / 2, (c[0][1] + c[1][1]) / 2];
  const m1 = [(c[2][0] + c[3][0]) / 2, (c[2][1] + c[3][1]) / 2];
  const mix = (a, b, t) => [a[0] * (1 - t) + b[0] * t, a[1] * (1 - t) + b[1] * t];
  return [mix(m0, m1, 0.25), mix(m0, m1, 0.75)];
}

// How sure a tile's reading is, as a class shared by its outline and its chip (colours in app.css;
// the legend on the hand tab names them): green read surely, orange unsure, blue fixed by hand,
// red against the rules, grey dashed "not a tile".
function tileKind(t) {
  if (t.status === "illegal") return " illegal";
  if (t.corrected) return t.pips ? " fixed" : " gone";
  if ((t.pip_confidence ?? 1) < 0.5 || (t.notes && t.notes.length)) return " unsure";
  return "";
}

// The outlines are drawn in the photo's pixels (they scale with it); the numbers are drawn on a
// second layer in screen pixels, so they stay readable however small the photo is shown. Where the
// two ends of a tile lie too close together on screen for two numbers, the tile gets one "6-4".
const LABEL_GAP = 24; // screen pixels between a tile's two end centres below which it gets one label

function drawTiles(svg, width, height, tiles, onTap) {
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.replaceChildren();
  for (const t of tiles) {
    if (!t.corners) continue; // a tile the reader inferred without a place in the picture
    const poly = document.createElementNS(SVG_NS, "polygon");
    poly.setAttribute("points", t.corners.map((p) => p.join(",")).join(" "));
    poly.setAttribute("class", "tile" + tileKind(t));
    poly.dataset.tile = t.id;
    const title = document.createElementNS(SVG_NS, "title");
    title.textContent = t.pips ? `${t.pips[0]}-${t.pips[1]}` : "not a tile";
    poly.appendChild(title);
    if (onTap) {
      poly.classList.add("tappable");
      poly.addEventListener("click", () => onTap(t));
    }
    svg.appendChild(poly);
  }
  const layer = labelLayer(svg);
  layer.drawn = { width, height, tiles, onTap, highlight: [] };
  drawLabels(layer);
}

// Ring the tiles with these ids on the screen-pixel layer (the Table tab's findings); [] clears.
function highlightTiles(svg, ids) {
  const layer = labelLayer(svg);
  if (!layer.drawn) return null;
  layer.drawn.highlight = ids;
  drawLabels(layer);
  return layer.querySelector(".ring");
}

const HIGHLIGHT_PAD = 6; // screen pixels between a tile's edge and the ring drawn round it

function highlightRing(corners, sx, sy) {
  // each side moved out by HIGHLIGHT_PAD along the tile's own axes, so the ring sits evenly round it
  const pts = corners.map(([x, y]) => [x * sx, y * sy]);
  const unit = (a, b) => { const d = Math.hypot(b[0] - a[0], b[1] - a[1]) || 1; return [(b[0] - a[0]) / d, (b[1] - a[1]) / d]; };
  const u = unit(pts[0], pts[1]);
  const v = unit(pts[0], pts[3]);
  const cx = pts.reduce((a, p) => a + p[0], 0) / pts.length;
  const cy = pts.reduce((a, p) => a + p[1], 0) / pts.length;
  const out = pts.map(([x, y]) => {
    const su = Math.sign((x - cx) * u[0] + (y - cy) * u[1]);
    const sv = Math.sign((x - cx) * v[0] + (y - cy) * v[1]);
    return [x + HIGHLIGHT_PAD * (su * u[0] + sv * v[0]), y + HIGHLIGHT_PAD * (su * u[1] + sv * v[1])];
  });
  const points = out.map((p) => p.map((n) => n.toFixed(1)).join(",")).join(" ");
  const g = svgEl("g", { class: "ring" });
  g.append(svgEl("polygon", { points, class: "ring-edge" }), svgEl("polygon", { points, class: "highlight" }));
  return g;
}

function labelLayer(svg) {
  let layer = svg.nextElementSibling;
  if (layer && layer.classList.contains("labels")) return layer;
  layer = document.createElementNS(SVG_NS, "svg");
  layer.setAttribute("class", "labels");
  layer.setAttribute("aria-hidden", "true"); // the same tiles are listed as buttons beside the photo
  svg.after(layer);
  let shownWidth = 0;
  new ResizeObserver(() => {
    const w = layer.getBoundingClientRect().width;
    if (Math.abs(w - shownWidth) < 1) return;
    shownWidth = w;
    drawLabels(layer);
  }).observe(layer);
  return layer;
}

function labelAt(x, y, text, kind) {
  const g = svgEl("svg", { x: `${x}%`, y: `${y}%`, overflow: "visible", class: "pip" + kind });
  const half = text.length > 2 ? 6 + 5 * text.length : 13;
  g.append(svgEl("rect", { x: -half, y: -13, width: 2 * half, height: 26, rx: 13 }),
    Object.assign(svgEl("text", { x: 0, y: 0, "text-anchor": "middle", "dominant-baseline": "central" }), { textContent: text }));
  return g;
}

function drawLabels(layer) {
  const d = layer.drawn;
  layer.replaceChildren();
  if (!d) return;
  const box = layer.getBoundingClientRect();
  const scale = box.width / d.width || 0;
  const pct = (pt) => [(100 * pt[0]) / d.width, (100 * pt[1]) / d.height];
  for (const id of d.highlight || []) {
    const t = d.tiles.find((x) => x.id === id);
    if (!t || !t.corners) continue;
    const ring = highlightRing(t.corners, scale, box.height / d.height || 0);
    ring.dataset.tile = t.id;
    layer.append(ring);
  }
  for (const t of d.tiles) {
    if (!t.pips || !t.corners) continue;
    const ends = endCentres(t.corners);
    const apart = Math.hypot(ends[0][0] - ends[1][0], ends[0][1] - ends[1][1]) * scale;
    const kind = tileKind(t);
    const labels = apart >= LABEL_GAP
      ? ends.map((pt, i) => labelAt(...pct(pt), String(t.pips[i]), kind))
      : [labelAt(...pct([(ends[0][0] + ends[1][0]) / 2, (ends[0][1] + ends[1][1]) / 2]), `${t.pips[0]}-${t.pips[1]}`, kind)];
    for (const label of labels) {
      label.dataset.tile = t.id;
      if (d.onTap) {
        label.classList.add("tappable");
        label.addEventListener("click", () => d.onTap(t));
      }
      layer.append(label);
    }
  }
}

// The tiles read, as buttons: the way to fix one with a keyboard or a screen reader, and a list
// that can be read at a glance.
function tileChips(holder, tiles, onTap) {
  holder.replaceChildren(...tiles.filter((t) => t.pips).map((t) => {
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = "chip" + tileKind(t);
    chip.textContent = `${t.pips[0]}-${t.pips[1]}`;
    chip.dataset.tile = t.id;
    chip.setAttribute("aria-label", `tile ${chip.textContent}${chip.className.includes("unsure") ? ", unsure" : ""}: fix it`);
    chip.addEventListener("click", () => onTap(t));
    return chip;
  }));
}

// ---- zooming a photo ----------------------------------------------------------------
// A tap on the photo (or its Zoom button) shows it twice as big, to be scrolled inside its frame;
// another tap fits it again. Two fingers pinch it to any size from fitted to four times. The
// outlines scale with the photo, and the numbers and rings are drawn again at screen size, so all
// stay on their tiles. A tap on a tile that opens the fixer does that instead.
const ZOOM_MAX = 4;

function makeZoomable(frame) {
  const view = frame.querySelector(".zoom");
  const wrap = view.querySelector(".photo-wrap");
  const button = frame.querySelector(".zoom-btn");
  let level = 1;
  let fitWidth = 0;
  function set(z, at) {
    const box = wrap.getBoundingClientRect();
    if (level === 1) fitWidth = box.width;
    z = Math.min(ZOOM_MAX, Math.max(1, z));
    if (z > 1 && (!fitWidth || !box.width)) return; // no photo shown yet
    const frameBox = view.getBoundingClientRect();
    const p = at || [frameBox.left + frameBox.width / 2, frameBox.top + Math.min(frameBox.height, box.height) / 2];
    const fx = (p[0] - box.left) / box.width || 0;
    const fy = (p[1] - box.top) / box.height || 0;
    level = z;
    view.classList.toggle("zoomed", z > 1);
    wrap.style.width = z > 1 ? `${Math.round(fitWidth * z)}px` : "";
    button.setAttribute("aria-pressed", String(z > 1));
    button.textContent = z > 1 ? "Fit" : "Zoom";
    button.setAttribute("aria-label", z > 1 ? "fit the photo to the screen" : "zoom the photo");
    if (z > 1) { // the point under the finger stays under it
      const grown = wrap.getBoundingClientRect();
      const shown = view.getBoundingClientRect();
      view.scrollLeft = fx * grown.width - (p[0] - shown.left);
      view.scrollTop = fy * grown.height - (p[1] - shown.top);
      const now = wrap.getBoundingClientRect(); // what the frame could not scroll, the page does
      window.scrollBy(0, now.top + fy * now.height - p[1]);
    }
  }
  view.addEventListener("click", (ev) => {
    if (ev.target.closest(".tappable")) return;
    set(level > 1 ? 1 : 2, [ev.clientX, ev.clientY]);
  });
  button.addEventListener("click", () => set(level > 1 ? 1 : 2));
  let pinch = null;
  const spread = (t) => Math.hypot(t[0].clientX - t[1].clientX, t[0].clientY - t[1].clientY);
  const middle = (t) => [(t[0].clientX + t[1].clientX) / 2, (t[0].clientY + t[1].clientY) / 2];
  view.addEventListener("touchstart", (ev) => {
    if (ev.touches.length === 2) pinch = { spread: spread(ev.touches) || 1, level };
  }, { passive: true });
  view.addEventListener("touchmove", (ev) => {
    if (!pinch || ev.touches.length !== 2) return;
    ev.preventDefault(); // the photo grows, not the page
    set((pinch.level * spread(ev.touches)) / pinch.spread, middle(ev.touches));
  }, { passive: false });
  view.addEventListener("touchend", (ev) => { if (ev.touches.length < 2) pinch = null; });
  view.addEventListener("touchcancel", () => { pinch = null; });
  frame.zoomTo = set;
}

document.querySelectorAll(".zoom-frame").forEach(makeZoomable);

function fitPhoto(img) {
  const frame = img.closest(".zoom-frame");
  if (frame && frame.zoomTo) frame.zoomTo(1);
}

// ---- the tile editor --------------------------------------------------------
function editTile(handId, tile, statusEl) {
  const dialog = $("#tile-dialog");
  $("#tile-a").value = tile.pips ? tile.pips[0] : "";
  $("#tile-b").value = tile.pips ? tile.pips[1] : "";
  return new Promise((resolve) => {
    dialog.onclose = async () => {
      const action = dialog.returnValue;
      if (action !== "save" && action !== "remove") return resolve(null);
      const pips = action === "remove" ? null : [Number($("#tile-a").value), Number($("#tile-b").value)];
      try {
        resolve(await api(`/api/v1/hands/${handId}/tiles/${tile.id}`, {
          method: "PATCH", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ pips }),
        }));
      } catch (e) {
        showError(statusEl, e);
        resolve(null);
      }
    };
    dialog.returnValue = ""; // Esc must not repeat the last choice
    dialog.showModal();
  });
}

// ---- shrinking a photo before it is sent ----------------------------------------
// A phone's photo is 3-4 MB; the reader needs no more than 2048 px on the long side. The photo is
// decoded with its EXIF orientation applied, drawn smaller and sent as a JPEG. A photo already small
// enough, or one this browser cannot decode (HEIC in most browsers), is sent as it is.
const MAX_SIDE = 2048;
const shrunk = new WeakMap(); // file -> Promise<File>: a photo read again (other rules) is shrunk once

async function shrinkPhoto(file) {
  if (typeof createImageBitmap !== "function") return file;
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch (e) {
    return file; // not decodable here: the server reads it
  }
  try {
    const long = Math.max(bitmap.width, bitmap.height);
    if (!long || long <= MAX_SIDE) return file;
    const scale = MAX_SIDE / long;
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    const ctx = canvas.getContext("2d");
    ctx.imageSmoothingQuality = "high";
    ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.9));
    if (!blob || blob.size >= file.size) return file;
    const name = (file.name || "photo").replace(/\.[^.]*$/, "") + ".jpg";
    return new File([blob], name, { type: "image/jpeg", lastModified: file.lastModified });
  } catch (e) {
    return file;
  } finally {
    bitmap.close();
  }
}

function photoToSend(file) {
  if (!shrunk.has(file)) shrunk.set(file, shrinkPhoto(file));
  return shrunk.get(file);
}

// ---- Hand -------------------------------------------------------------------
async function scorePhoto(file, fields, signal) {
  const photo = await photoToSend(file);
  const form = new FormData();
  form.append("photo", photo, photo.name || "photo.jpg");
  for (const [k, v] of Object.entries(fields)) if (v !== "" && v != null) form.append(k, v);
  return api("/api/v1/score", { method: "POST", body: form, signal });
}

function showPhoto(img, file, fallback) {
  img.onerror = () => { if (fallback && img.src !== fallback) img.src = fallback; };
  img.src = URL.createObjectURL(file);
}

function renderHand(hand) {
  const nothing = foundNothing(hand);
  $("#hand-score-line").hidden = nothing;
  $("#hand-none").hidden = !nothing;
  $("#hand-score").textContent = nothing ? "–" : String(hand.score);
  const n = countedTiles(hand).length;
  $("#hand-detail").textContent = `${n} tile${n === 1 ? "" : "s"}, ${hand.total} pips` +
    (hand.face_down ? `, ${hand.face_down} face down` : "") +
    ` · double-blank counts ${hand.house_rules.double_blank_value}`;
  const fix = async (tile) => {
    const updated = await editTile(hand.hand_id, tile, $("#hand-status"));
    if (updated) renderHand(updated);
  };
  drawTiles($("#hand-svg"), hand.width, hand.height, hand.tiles, fix);
  const warned = (hand.warnings || []).length > 0;
  $("#hand-score").classList.toggle("success", !nothing && !warned);
  $("#hand-score").classList.toggle("warned", warned);
  $("#hand-summary").classList.toggle("has-warnings", warned);
  const warnings = $("#hand-warnings");
  warnings.replaceChildren(...(hand.warnings || []).map((w) => Object.assign(document.createElement("li"), { textContent: w })));
  warnings.hidden = !warned;
  const chips = $("#hand-chips");
  tileChips(chips, hand.tiles, fix);
  chips.hidden = nothing;
  $("#hand-legend").hidden = nothing;
}

// The rules a hand is scored by: the open game's when one is open, else the choices on the tab.
function handFields() {
  const g = currentGame();
  if (g) return { house_rules: JSON.stringify(g.house_rules), set: String(g.set) };
  return {
    house_rules: JSON.stringify({ double_blank_value: Number($("#hand-blank").value) }),
    set: $("#hand-set").value,
  };
}

function ensureOption(select, value) {
  if (![...select.options].some((o) => o.value === value)) select.append(new Option(value, value));
  select.value = value;
}

// Both photo tabs say whose rules they count by; with a game open its rules win.
function showRulesInUse() {
  const g = currentGame();
  $("#hand-blank").disabled = Boolean(g);
  $("#hand-set").disabled = Boolean(g);
  if (g) {
    ensureOption($("#hand-blank"), String(g.house_rules.double_blank_value));
    ensureOption($("#hand-set"), String(g.set));
  }
  const who = g ? `the open game's house rules (${g.players.join(", ")}): ${g.rules_summary}` : null;
  $("#hand-rules").textContent = who ? `Scored under ${who}. Close the game on the Game tab to choose here.` : "";
  $("#table-rules").textContent = who ? `Checked under ${who}.` : "No game is open: checked under the standard rules.";
  rescoreIfRulesChanged();
}

// A photo already read is scored again when a game with other rules is opened or closed.
let handRulesShown = null;
function rescoreIfRulesChanged() {
  const rules = JSON.stringify(handFields());
  if (handRulesShown !== null && rules !== handRulesShown) readHand();
  handRulesShown = rules;
}

let handFile = null;

async function readHand() {
  if (!handFile) return;
  const file = handFile;
  const ctl = startRequest("hand");
  const status = $("#hand-status");
  setBusy($("#tab-hand"), true);
  setStatus(status, "Reading the tiles…");
  try {
    const hand = await scorePhoto(file, handFields(), ctl.signal);
    if (!isCurrent("hand", ctl)) return;
    showHandResult(file, hand);
  } catch (e) {
    if (!isCurrent("hand", ctl)) return;
    $("#hand-result").hidden = true;
    showError(status, e);
  } finally {
    if (endRequest("hand", ctl)) setBusy($("#tab-hand"), false);
  }
}

function showHandResult(file, hand) {
  fitPhoto($("#hand-img"));
  showPhoto($("#hand-img"), file, hand.annotated_image);
  const link = $("#hand-annotated");
  link.href = hand.annotated_image || "";
  link.hidden = !hand.annotated_image;
  $("#hand-result").hidden = false;
  renderHand(hand);
  const read = `Read in ${hand.seconds} s.`;
  setStatus($("#hand-status"), foundNothing(hand) ? read : `${read} Tap a tile to fix it.`);
}

// The chosen file is kept and the input emptied, so choosing the same photo again reads it again.
function takeFile(input) {
  const file = input.files[0] || null;
  input.value = "";
  return file;
}

$("#hand-photo").addEventListener("change", (ev) => {
  const file = takeFile(ev.target);
  if (!file) return;
  handFile = file;
  readHand();
});
// Another double-blank value or set scores the same photo again.
$("#hand-blank").addEventListener("change", readHand);
$("#hand-set").addEventListener("change", readHand);

// ---- Table ------------------------------------------------------------------
function auditForm(file) {
  const form = new FormData();
  form.append("photo", file, file.name || "table.jpg");
  if ($("#table-double").value !== "") form.append("round_double", $("#table-double").value);
  const g = currentGame();
  if (g) form.append("house_rules", JSON.stringify(g.house_rules));
  return form;
}

function listItem(text, cls) {
  const li = document.createElement("li");
  li.textContent = text;
  if (cls) li.className = cls;
  return li;
}

// A finding as a chip: tapping it rings its tiles on the photo (again: the ring goes).
function findingChip(text, tiles, cls = "") {
  const chip = document.createElement("button");
  chip.type = "button";
  chip.className = "chip finding" + cls;
  chip.textContent = text;
  chip.setAttribute("aria-pressed", "false");
  chip.dataset.tiles = tiles.join(" ");
  chip.addEventListener("click", () => showFinding(chip, tiles));
  return chip;
}

function showFinding(chip, tiles) {
  const on = chip.getAttribute("aria-pressed") !== "true";
  document.querySelectorAll("#table-result .finding").forEach((c) => c.setAttribute("aria-pressed", String(c === chip && on)));
  const ring = highlightTiles($("#table-svg"), on ? tiles : []);
  if (ring) ring.scrollIntoView({ block: "nearest", inline: "center" });
}

function renderAudit(audit, file) {
  const img = $("#table-img");
  fitPhoto(img);
  showPhoto(img, file, audit.annotated_image);
  const violations = audit.violations || [];
  const against = new Set(violations.flatMap((v) => (typeof v === "object" && v.tiles) || []));
  // the photo as taken, with each tile outlined (red where it breaks a rule) and its numbers on top
  const tiles = (audit.tiles || []).map((t) => ({ ...t, status: against.has(t.id) ? "illegal" : "ok" }));
  drawTiles($("#table-svg"), audit.width, audit.height, tiles, null);
  $("#table-violations").replaceChildren(...(violations.length
    ? violations.map((v) => {
      if (typeof v === "string") return listItem(withoutCodes(v));
      const li = listItem("", "bad");
      li.append(findingChip(withoutCodes(v.message || ruleWords(v.rule)), v.tiles || [], " illegal"));
      return li;
    })
    : [listItem("none", "calm")]));
  const ends = audit.open_ends || [];
  const pipsOf = Object.fromEntries((audit.tiles || []).filter((t) => t.pips).map((t) => [t.id, t.pips.join("-")]));
  $("#table-ends").replaceChildren(...(ends.length
    ? ends.map((e) => (typeof e === "object"
      ? findingChip(`${e.value ?? "?"} (on ${pipsOf[e.tile] ?? "an unread tile"})`, [e.tile])
      : cell("span", String(e))))
    : [cell("span", "none")]));
  $("#table-result").hidden = false;
  const read = `${(audit.tiles || []).length} tiles read.`;
  setStatus($("#table-status"), audit.message ? `${read} ${audit.message}` : read);
  (audit.warnings || []).forEach((w) => $("#table-violations").append(listItem(w)));
  showTableBlocked(audit.blocked);
}

// ---- why a round is blocked: the engine's proof, in words -------------------------------
// Shared by the Table tab (a photo), the Live tab (a round followed play by play) and replays.
function plural(n, one, many = one + "s") { return `${n} ${n === 1 ? one : many}`; }

function sentence(text) { return text ? text.charAt(0).toUpperCase() + text.slice(1) : ""; }

function doubleValue(tile) { return Number(String(tile).split("-")[0]); }

function endWords(end) {
  const where = end.kind === "spinner" ? `The spinner ${end.on}` : end.kind === "chickie" ? `The chickie ${end.on}` : end.on;
  const room = end.free > 1 ? ` (room for ${end.free} more)` : "";
  const waits = end.playable_now ? "" : ", but only once the double that must be fed first is finished";
  return `${where} takes a ${end.value}${room}${waits}`;
}

function deadWords(dead) {
  const what = dead.kind === "spinner" ? "spinner" : "chickie";
  const need = plural(dead.missing, dead.kind === "spinner" ? "more arm" : "more toe");
  const value = doubleValue(dead.tile);
  const left = dead.possible ? `only ${plural(dead.possible, "tile")} with a ${value} can still come`
    : `every tile with a ${value} is already on the table`;
  return `The ${what} on ${dead.tile} can no longer be completed: it needs ${need}, and ${left}.`;
}

function verdictWords(proof) {
  if (!proof.ends.length) return "Nothing to check: no open end is showing.";
  return (proof.blocked ? "Blocked: " : "Play can go on: ") + proof.reason + ".";
}

function inHandsCell(value) {
  const n = String(value.in_hands);
  return value.in_boneyard ? `${n} (${value.in_boneyard} left to draw)` : n;
}

function valuesTable(values) {
  const table = document.createElement("table");
  const head = document.createElement("tr");
  head.append(cell("th", "Value"), cell("th", "In the set"), cell("th", "On the table"), cell("th", "Could still be in hands"));
  const body = document.createElement("tbody");
  for (const v of values) {
    const tr = document.createElement("tr");
    tr.className = v.exhausted ? "used-up" : "";
    tr.dataset.value = v.value;
    tr.append(cell("td", `${v.value}s`), cell("td", String(v.in_set)), cell("td", String(v.on_table)), cell("td", inHandsCell(v)));
    body.append(tr);
  }
  const thead = document.createElement("thead");
  thead.append(head);
  table.append(thead, body);
  const wrap = document.createElement("div");
  wrap.className = "sheet-wrap";
  wrap.tabIndex = 0; // a table wider than the phone scrolls: the keyboard can scroll it too
  wrap.setAttribute("role", "region");
  wrap.setAttribute("aria-label", "tiles of each value");
  wrap.append(table);
  return wrap;
}

function renderProof(holder, proof) {
  const parts = [];
  const basis = cell("p", `(${proof.basis_words})`);
  basis.className = "basis";
  parts.push(basis);
  if (proof.dead.length) {
    const dead = document.createElement("ul");
    dead.className = "dead";
    dead.append(...proof.dead.map((d) => listItem(deadWords(d), "bad")));
    parts.push(dead);
  }
  if (proof.ends.length) {
    parts.push(cell("h4", "Open ends"));
    const ends = document.createElement("ul");
    ends.className = "ends";
    ends.append(...proof.ends.map((e) => listItem(endWords(e))));
    parts.push(ends, cell("h4", "Tiles of each value those ends take"), valuesTable(proof.values));
  }
  if (proof.boneyard != null) {
    parts.push(cell("p", proof.boneyard ? `${plural(proof.boneyard, "tile")} left to draw.` : "Nothing is left to draw."));
  }
  if (proof.unread) {
    parts.push(cell("p", `${plural(proof.unread, "tile")} in the picture could not be read, so the answer could change.`));
  }
  holder.replaceChildren(...parts);
}

function showTableBlocked(proof) {
  const box = $("#table-blocked");
  box.hidden = !proof;
  if (!proof) return;
  $("#table-verdict").textContent = verdictWords(proof);
  $("#table-verdict").classList.toggle("bad", proof.blocked);
  const why = $("#table-why");
  why.textContent = proof.blocked ? "Why is it blocked?" : "Why can play go on?";
  why.hidden = !proof.ends.length;
  why.setAttribute("aria-expanded", "false");
  $("#table-proof").hidden = true;
  renderProof($("#table-proof"), proof);
}

$("#table-why").addEventListener("click", () => {
  const why = $("#table-why");
  const open = why.getAttribute("aria-expanded") !== "true";
  why.setAttribute("aria-expanded", String(open));
  $("#table-proof").hidden = !open;
});

$("#table-photo").addEventListener("change", async (ev) => {
  const file = takeFile(ev.target);
  if (!file) return;
  const ctl = startRequest("table");
  setBusy($("#tab-table"), true);
  setStatus($("#table-status"), "Reading the layout…");
  try {
    const audit = await api("/api/v1/audit", { method: "POST", body: auditForm(await photoToSend(file)), signal: ctl.signal });
    if (isCurrent("table", ctl)) renderAudit(audit, file);
  } catch (e) {
    if (!isCurrent("table", ctl)) return;
    $("#table-result").hidden = true;
    showError($("#table-status"), e);
  } finally {
    if (endRequest("table", ctl)) setBusy($("#tab-table"), false);
  }
});

// ---- Games ------------------------------------------------------------------
let games = [];
let game = null; // the selected game with its sheet
let opening = null; // the game whose sheet is being fetched

function currentGame() { return game; }

const GAMES_SHOWN = 100; // the newest games offered in the list; an older one chosen before still opens

async function loadGames() {
  const wanted = () => opening || (game ? game.id : localStorage.getItem("chickenfoot.game"));
  try {
    games = (await api(`/api/v1/games?limit=${GAMES_SHOWN}`)).games;
    const early = wanted();
    if (early && !games.some((g) => g.id === early)) {
      try { games.push(await api(`/api/v1/games/${encodeURIComponent(early)}`)); } catch (e) { /* gone: not offered */ }
    }
  } catch (e) {
    showError($("#game-status"), e);
    return;
  }
  // the game chosen now, not when the list was asked for: a choice made while it loaded stands
  const chosen = wanted();
  const select = $("#game-select");
  select.replaceChildren(new Option("—", ""), ...games.map((g) =>
    new Option(`${g.players.join(", ")} · ${g.created_at.slice(0, 10)}`, g.id)));
  if (chosen && games.some((g) => g.id === chosen)) {
    select.value = chosen;
    if (opening !== chosen) await openGame(chosen);  // (one being opened finishes by itself)
  } else if (!opening) {
    closeGame();
  }
}

$("#game-select").addEventListener("change", (ev) => openGame(ev.target.value));
$("#game-new-toggle").addEventListener("click", () => { $("#game-new").hidden = !$("#game-new").hidden; });

function newPlayers() {
  return $("#new-players").value.split("\n").map((s) => s.trim()).filter(Boolean);
}

// The rules chosen on the form, without the hand size typed in (the advisor asks which is best).
async function chosenRules() {
  const rules = { ...(await presets())[$("#new-preset").value].rules };
  if ($("#new-blank").value !== "") rules.double_blank_value = Number($("#new-blank").value);
  if ($("#new-curved").checked) rules.curved_scoring = true;
  return rules;
}

async function newGameBody() {
  const rules = await chosenRules();
  if ($("#new-hand-size").value !== "") rules.hand_size = Number($("#new-hand-size").value);
  return { players: newPlayers(), set: Number($("#new-set").value), house_rules: rules };
}

// ---- the deal advisor: how many tiles to deal, from practice rounds played on the server ----
const ADVICE_ROUNDS = 1000;
let advised = null;

function percent(share) { return `${(share * 100).toFixed(1)}%`; }

function adviceRow(size, advice) {
  const tr = document.createElement("tr");
  const marks = [size.hand_size === advice.recommended ? "suggested" : "",
    size.hand_size === advice.table_hand_size ? "the usual table" : ""].filter(Boolean);
  tr.className = size.hand_size === advice.recommended ? "recommended" : "";
  tr.dataset.size = size.hand_size;
  const first = cell("td", String(size.hand_size));
  if (marks.length) first.append(document.createElement("br"), cell("small", marks.join(", ")));
  tr.append(first,
    cell("td", String(size.boneyard)), cell("td", percent(size.stall_share)),
    cell("td", size.turns_mean.toFixed(1)), cell("td", size.points_left_mean.toFixed(1)));
  return tr;
}

function renderAdvice(advice) {
  const head = document.createElement("tr");
  head.append(cell("th", "Tiles each"), cell("th", "Left to draw"), cell("th", "Rounds that stall"),
    cell("th", "Turns per round"), cell("th", "Points left per hand"));
  const thead = document.createElement("thead");
  thead.append(head);
  const body = document.createElement("tbody");
  body.append(...advice.sizes.map((size) => adviceRow(size, advice)));
  $("#advice-table").replaceChildren(thead, body);
  $("#advice-pick").textContent = `Suggested: ${advice.recommended} tiles each, ${advice.reason}. ` +
    `Measured over ${advice.rounds_per_size} practice rounds for each hand size.`;
  $("#advice-use").textContent = `Deal ${advice.recommended} tiles each`;
  $("#advice-result").hidden = false;
}

$("#advice-run").addEventListener("click", async () => {
  const players = newPlayers().length;
  const ctl = startRequest("advice");
  $("#advice-result").hidden = true;
  setStatus($("#advice-status"), `Playing ${ADVICE_ROUNDS} practice rounds for each hand size…`);
  try {
    const body = { players, set: Number($("#new-set").value), house_rules: await chosenRules(), rounds: ADVICE_ROUNDS };
    const advice = await api("/api/v1/advise", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal: ctl.signal,
    });
    if (!isCurrent("advice", ctl)) return;
    advised = advice;
    renderAdvice(advice);
    setStatus($("#advice-status"), `For ${plural(players, "player")} with a double-${advice.set} set:`);
  } catch (e) {
    if (e.name !== "AbortError" && isCurrent("advice", ctl)) showError($("#advice-status"), e);
  } finally {
    endRequest("advice", ctl);
  }
});

$("#advice-use").addEventListener("click", () => {
  if (!advised) return;
  $("#new-hand-size").value = String(advised.recommended);
  setStatus($("#advice-status"), `The game will deal ${advised.recommended} tiles each.`);
});

// Advice for another table would mislead: it goes when the players, set or rules change.
["#new-players", "#new-set", "#new-preset", "#new-blank", "#new-curved"].forEach((sel) =>
  $(sel).addEventListener("change", () => {
    if (inFlight.has("advice")) inFlight.get("advice").abort();
    advised = null;
    $("#advice-result").hidden = true;
    setStatus($("#advice-status"), "");
  }));

// One tap, one game: the button stays off until the server has answered.
$("#game-new").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const button = $("#game-start");
  if (button.disabled) return;
  button.disabled = true;
  setStatus($("#new-status"), "Starting the game…");
  try {
    const created = await api("/api/v1/games", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(await newGameBody()),
    });
    setStatus($("#new-status"), "");
    $("#game-new").hidden = true;
    game = created;
    localStorage.setItem("chickenfoot.game", created.id);
    await loadGames();
    setStatus($("#game-status"), "Game started.");
  } catch (e) {
    showError($("#new-status"), e);
  } finally {
    button.disabled = Boolean(storageProblem);
  }
});

let presetCache = null;
async function presets() {
  if (!presetCache) presetCache = (await api("/api/v1/house-rules")).presets;
  return presetCache;
}

async function fillPresets() {
  try {
    const all = await presets();
    const select = $("#new-preset");
    const chosen = select.value;
    select.replaceChildren(...Object.entries(all).map(([name, p]) => new Option(`${name}: ${p.summary}`, name)));
    if (chosen in all) select.value = chosen;
  } catch (e) { /* the form keeps its built-in choices */ }
}

function closeGame() {
  game = null;
  $("#game-view").hidden = true;
  showRulesInUse();
}

// ---- the game store's health: when it cannot be written, say so on the Game tab and turn off
// the buttons that would write (reading games still works). Checked on load, after a write the
// server refused for it, and every so often while the problem lasts.
const WRITE_BUTTONS = ["#game-start", "#round-record", "#game-delete", "#round-save", "#round-delete"];
let storageProblem = null;
let storageTimer = null;

async function checkStorage() {
  let health;
  try {
    health = await api("/api/v1/health");
  } catch (e) {
    return; // the server itself is away: each control says so when it is used
  }
  const storage = (health && health.storage) || {};
  storageProblem = storage.writable === false ? problem(storage.message || "the game store cannot be written") : null;
  const banner = $("#storage-banner");
  banner.textContent = storageProblem ? `${storageProblem} Recording is off until it is fixed.` : "";
  banner.hidden = !storageProblem;
  WRITE_BUTTONS.forEach((sel) => { $(sel).disabled = Boolean(storageProblem); });
  clearTimeout(storageTimer);
  if (storageProblem) storageTimer = setTimeout(checkStorage, 15000);
}

async function openGame(id) {
  if (!id) { opening = null; localStorage.removeItem("chickenfoot.game"); closeGame(); return; }
  opening = id;
  let fetched;
  try {
    fetched = await api(`/api/v1/games/${id}`);
  } catch (e) {
    if (opening === id) { opening = null; showError($("#game-status"), e); }
    return;
  }
  if (opening !== id) return; // a later choice won: its answer is the one to show
  opening = null;
  game = fetched;
  localStorage.setItem("chickenfoot.game", id);
  $("#game-over-note").textContent = "";
  setStatus($("#round-status"), "");
  renderSheet(game.sheet);
  renderRoundForm();
  showRulesInUse();
  $("#game-export").href = `/api/v1/games/${id}/record`;
  $("#game-export").download = `chickenfoot-${id}.json`;
  $("#game-view").hidden = false;
}

function cell(tag, text) { return Object.assign(document.createElement(tag), { textContent: text }); }

// A score on the sheet is a button-like cell: tapping it opens that round to change or delete it.
function scoreCell(score, index, seat) {
  const td = cell("td", String(score));
  td.className = "editable";
  td.tabIndex = 0;
  td.dataset.round = index;
  td.dataset.seat = seat;
  td.setAttribute("role", "button");
  td.setAttribute("aria-label", `round ${index + 1}, ${game.players[seat]}: ${score}. Tap to change`);
  td.addEventListener("click", () => openRoundEditor(index, seat));
  td.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") openRoundEditor(index, seat); });
  return td;
}

// The leaders: the lowest total so far (all of them when tied), marked on the sheet; once the game
// is over, the winners after the tie-breaks.
function leaders(sheet) {
  if (!sheet.rounds.length) return new Set();
  if (sheet.complete) return new Set(sheet.standings.filter((s) => s.rank === 1).map((s) => s.player));
  const low = Math.min(...sheet.totals);
  return new Set(sheet.totals.flatMap((t, seat) => (t === low ? [seat] : [])));
}

function nameCell(name, leading) {
  const th = cell("th", name);
  th.scope = "col";
  if (leading) {
    th.className = "leader";
    const note = cell("span", " (leading)");
    note.className = "visually-hidden";
    th.append(note);
  }
  return th;
}

function renderSheet(sheet) {
  const table = $("#sheet");
  const lead = leaders(sheet);
  const head = document.createElement("tr");
  head.append(cell("th", "Double"), ...sheet.player_names.map((n, seat) => nameCell(n, lead.has(seat))));
  const body = document.createElement("tbody");
  sheet.rounds.forEach((r, index) => {
    const tr = document.createElement("tr");
    tr.append(cell("td", String(r.double)), ...r.scores.map((s, seat) => scoreCell(s, index, seat)));
    body.append(tr);
  });
  const foot = document.createElement("tfoot");
  const totals = document.createElement("tr");
  totals.append(cell("td", "Total"), ...sheet.totals.map((t, seat) =>
    Object.assign(cell("td", String(t)), { className: lead.has(seat) ? "leader" : "" })));
  const ranks = document.createElement("tr");
  const rankOf = Object.fromEntries(sheet.standings.map((s) => [s.player, s.rank]));
  ranks.append(cell("td", "Place"), ...sheet.player_names.map((_, p) => cell("td", sheet.rounds.length ? String(rankOf[p]) : "–")));
  foot.append(totals, ranks);
  const thead = document.createElement("thead");
  thead.append(head);
  table.replaceChildren(thead, body, foot);
  $("#sheet-hint").hidden = !sheet.rounds.length;
  $("#sheet-rules").textContent = "House rules: " + sheet.rules_summary;
  $("#round-double").textContent = sheet.complete ? "(game over)" : `(double ${sheet.next_double})`;
  $("#round-form").hidden = sheet.complete;
  $("#game-over").hidden = !sheet.complete;
  if (sheet.complete) renderGameOver(sheet);
}

// ---- the end of a game: the winner, and how any tie on points was broken ------------------------
// The engine ranks (engine/scoring.py rank_players): lowest total, then most rounds at zero, then
// the lowest single round that was not zero; players still tied share the place.
function ordinal(n) {
  const tens = n % 100;
  const end = tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${end}`;
}

function joinNames(names) {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

function lowestWords(s) { return s.lowest_nonzero == null ? "no round above 0" : String(s.lowest_nonzero); }

function groupBy(items, key) {
  const groups = new Map();
  for (const item of items) {
    const k = key(item);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(item);
  }
  return [...groups.values()];
}

function winnerWords(sheet) {
  const names = sheet.player_names;
  const name = (s) => names[s.player];
  const st = sheet.standings;
  const top = st.filter((s) => s.total === st[0].total);
  const first = st.filter((s) => s.rank === 1);
  const points = plural(first[0].total, "point");
  if (first.length > 1) {
    return `${joinNames(first.map(name))} share first place: ${points}, ${plural(first[0].zero_rounds, "round")} ` +
      `at zero and a lowest single round of ${lowestWords(first[0])} each.`;
  }
  const win = first[0];
  if (top.length === 1) return `${name(win)} wins with ${points}.`;
  const others = top.filter((s) => s !== win);
  const tied = `${name(win)} wins the tie on ${points} with ${joinNames(others.map(name))}`;
  const sameZeros = others.filter((s) => s.zero_rounds === win.zero_rounds);
  if (!sameZeros.length) {
    const next = Math.max(...others.map((s) => s.zero_rounds));
    return `${tied} by having the most rounds at zero (${win.zero_rounds} against ${next}).`;
  }
  const next = Math.min(...sameZeros.map((s) => s.lowest_nonzero ?? Infinity));
  return `${tied}: the same ${plural(win.zero_rounds, "round")} at zero as ${joinNames(sameZeros.map(name))}, ` +
    `and the lowest single round (${lowestWords(win)} against ${Number.isFinite(next) ? next : "none above 0"}).`;
}

// Below first place, each tie on points and how it was broken, place by place.
function tieWords(group, names) {
  const name = (s) => names[s.player];
  const parts = [`${joinNames(group.map(name))} tied on ${plural(group[0].total, "point")}.`];
  if (new Set(group.map((s) => s.zero_rounds)).size > 1) {
    parts.push(`Rounds at zero: ${group.map((s) => `${name(s)} ${s.zero_rounds}`).join(", ")}.`);
  }
  for (const same of groupBy(group, (s) => s.zero_rounds)) {
    if (same.length > 1 && new Set(same.map((s) => s.lowest_nonzero)).size > 1) {
      parts.push(`Lowest single round: ${same.map((s) => `${name(s)} ${lowestWords(s)}`).join(", ")}.`);
    }
  }
  const places = groupBy(group, (s) => s.rank).map((g) =>
    (g.length > 1 ? `${joinNames(g.map(name))} share ${ordinal(g[0].rank)}` : `${name(g[0])} ${ordinal(g[0].rank)}`));
  parts.push(`Places: ${places.join(", ")}.`);
  return parts.join(" ");
}

function renderGameOver(sheet) {
  $("#game-winner").textContent = winnerWords(sheet);
  const st = sheet.standings;
  const ties = groupBy(st, (s) => s.total).filter((g) => g.length > 1 && g[0].total !== st[0].total);
  $("#game-ties").replaceChildren(...ties.map((g) => listItem(tieWords(g, sheet.player_names))));
  $("#game-ties").hidden = !ties.length;
}

function setSheet(sheet) {
  game.sheet = sheet;
  renderSheet(sheet);
}

// ---- changing or deleting a recorded round ---------------------------------------
// What a stored hand is sent back as when its score is left alone.
function keptEntry(hand) {
  if (hand.source === "photo") return { hand_id: hand.hand_id };
  if (hand.source === "typed tiles") return { tiles: hand.tiles };
  return { points: hand.points };
}

function editRow(name, hand) {
  const input = Object.assign(document.createElement("input"),
    { type: "number", min: 0, max: 10000, inputMode: "numeric", required: true, value: hand.points });
  input.dataset.original = String(hand.points);
  const label = document.createElement("label");
  label.append(name, input);
  return label;
}

function openRoundEditor(index, seat) {
  const detail = game.sheet.round_details[index];
  const holder = $("#round-edit-players");
  holder.replaceChildren(...game.players.map((name, s) => editRow(name, detail.hands[s])));
  $("#round-edit-title").textContent = `Round ${index + 1} (double ${detail.double})`;
  $("#round-delete").hidden = index !== game.sheet.round_details.length - 1;
  const dialog = $("#round-dialog");
  dialog.onclose = () => roundEditorClosed(index, dialog.returnValue);
  dialog.returnValue = "";
  dialog.showModal();
  const input = holder.querySelectorAll("input")[seat];
  input.focus();
  input.select();
}

function editedHands(index) {
  const inputs = [...$("#round-edit-players").querySelectorAll("input")];
  return game.sheet.round_details[index].hands.map((hand, seat) =>
    (inputs[seat].value === inputs[seat].dataset.original ? keptEntry(hand) : { points: Number(inputs[seat].value) }));
}

async function roundEditorClosed(index, action) {
  if (action === "save") await saveRound(index, editedHands(index));
  else if (action === "delete") await deleteRound(index);
}

function everyoneZero(points) { return points.length > 0 && points.every((p) => p === 0); }

async function zeroRoundAgreed(points) {
  return !everyoneZero(points) ||
    askConfirm("Every player scored 0 in this round. Is that right?", "Yes, record it", "Go back");
}

async function saveRound(index, hands) {
  const points = hands.map((h, seat) => (h.points ?? game.sheet.round_details[index].hands[seat].points));
  if (!(await zeroRoundAgreed(points))) return;
  try {
    const result = await api(`/api/v1/games/${game.id}/rounds/${index}`, {
      method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ hands }),
    });
    setSheet(result.sheet);
    setStatus($("#game-status"), `Round ${index + 1} changed.`);
  } catch (e) {
    showError($("#game-status"), e);
  }
}

async function deleteRound(index) {
  if (!(await askConfirm(`Delete round ${index + 1}? Its scores leave the sheet for good.`, "Delete round", "Keep it"))) return;
  try {
    const result = await api(`/api/v1/games/${game.id}/rounds/${index}`, { method: "DELETE" });
    setSheet(result.sheet);
    setStatus($("#game-status"), `Round ${index + 1} deleted.`);
  } catch (e) {
    showError($("#game-status"), e);
  }
}

$("#game-delete").addEventListener("click", async () => {
  if (!game) return;
  const doomed = game;
  const question = `Delete the game of ${doomed.players.join(", ")} and its score sheet for good?`;
  if (!(await askConfirm(question, "Delete game", "Keep it"))) return;
  setStatus($("#delete-status"), "");
  try {
    await api(`/api/v1/games/${doomed.id}`, { method: "DELETE" });
    localStorage.removeItem("chickenfoot.game");
    closeGame();
    await loadGames();
    setStatus($("#game-status"), "Game deleted.");
  } catch (e) {
    showError($("#delete-status"), e);
  }
});

// ---- recording a round ---------------------------------------------------------
function playerRow(name, seat) {
  const row = document.createElement("div");
  row.className = "player-row";
  row.dataset.seat = seat;
  const points = Object.assign(document.createElement("input"),
    { type: "number", min: 0, inputMode: "numeric", placeholder: "points", required: true });
  points.setAttribute("aria-label", `points for ${name}`);
  const photo = Object.assign(document.createElement("input"), { type: "file", accept: "image/*,.heic,.heif,.avif" });
  const photoLabel = document.createElement("label");
  photoLabel.append("or photo", photo);
  const read = cell("span", "");
  read.className = "read";
  const wrap = document.createElement("div");
  wrap.className = "photo-wrap result";
  wrap.hidden = true;
  const img = Object.assign(document.createElement("img"), { alt: `the photo of ${name}'s tiles` });
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("aria-hidden", "true");
  wrap.append(img, svg);
  const chips = document.createElement("div");
  chips.className = "chips";
  chips.setAttribute("aria-label", `tiles read for ${name} (tap one to fix it)`);
  chips.hidden = true;
  const parts = { row, points, read, wrap, img, svg, chips };
  photo.addEventListener("change", () => {
    const file = takeFile(photo);
    if (file) readSeatPhoto(parts, file, seat);
  });
  row.append(cell("span", name), points, photoLabel, read, chips, wrap);
  row.firstChild.className = "name";
  return row;
}

function showSeatHand(parts, hand) {
  setStatus(parts.read, "");
  if (foundNothing(hand)) {
    delete parts.row.dataset.hand;
    parts.points.readOnly = false;
    parts.points.value = "";
    parts.read.textContent = NO_DOMINOES;
  } else {
    parts.row.dataset.hand = hand.hand_id;
    parts.points.value = hand.score;
    parts.points.readOnly = true;
    parts.read.textContent = `read ${countedTiles(hand).map((t) => t.pips.join("-")).join(", ")} = ${hand.score}`;
  }
  const fix = async (tile) => {
    const updated = await editTile(hand.hand_id, tile, parts.read);
    if (updated) showSeatHand(parts, updated);
  };
  drawTiles(parts.svg, hand.width, hand.height, hand.tiles, fix);
  tileChips(parts.chips, hand.tiles, fix);
  parts.chips.hidden = foundNothing(hand);
}

async function readSeatPhoto(parts, file, seat) {
  const kind = `seat-${seat}`;
  const ctl = startRequest(kind);
  setBusy(parts.row, true);
  setStatus(parts.read, "reading…");
  try {
    const hand = await scorePhoto(file, { game_id: game.id }, ctl.signal);
    if (!isCurrent(kind, ctl)) return;
    showPhoto(parts.img, file, hand.annotated_image);
    parts.wrap.hidden = false;
    showSeatHand(parts, hand);
  } catch (e) {
    if (isCurrent(kind, ctl)) showError(parts.read, e);
  } finally {
    if (endRequest(kind, ctl)) setBusy(parts.row, false);
  }
}

function renderRoundForm() {
  game.players.forEach((_, seat) => { if (inFlight.has(`seat-${seat}`)) inFlight.get(`seat-${seat}`).abort(); });
  $("#round-players").replaceChildren(...game.players.map(playerRow));
}

function roundHands() {
  return [...document.querySelectorAll("#round-players .player-row")].map((row) =>
    row.dataset.hand ? { hand_id: row.dataset.hand } : { points: Number(row.querySelector("input[type=number]").value) });
}

$("#round-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const button = $("#round-record");
  if (button.disabled) return;
  const points = [...document.querySelectorAll("#round-players input[type=number]")].map((i) => Number(i.value));
  button.disabled = true;
  try {
    if (!(await zeroRoundAgreed(points))) return;
    setStatus($("#round-status"), "Recording…");
    const result = await api(`/api/v1/games/${game.id}/rounds`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ hands: roundHands(), index: game.sheet.rounds.length }),
    });
    setSheet(result.sheet);
    renderRoundForm();
    if (result.sheet.complete) { // the form has gone: the end of the game is what to look at
      $("#game-over-note").textContent = `Round ${result.index + 1} recorded: that was the last round.`;
      $("#game-over").scrollIntoView({ block: "nearest" });
      $("#game-over").focus({ preventScroll: true });
    } else {
      setStatus($("#round-status"), `Round ${result.index + 1} recorded.`);
      $("#round-form .record-row").scrollIntoView({ block: "nearest" }); // the sheet grew above it
    }
  } catch (e) {
    showError($("#round-status"), e);
  } finally {
    button.disabled = Boolean(storageProblem);
  }
});

// ---- Live -------------------------------------------------------------------
// One camera and one connection at a time: `attempt` counts starts, so a start still waiting
// for the camera when Stop is tapped (or a second tap) lets its camera go instead of keeping it.
const live = {
  ws: null, stream: null, waiting: false, timer: null, attempt: 0,
  canvas: document.createElement("canvas"), minInterval: 0.5,
  pending: [], // what was sent and awaits its one answer, in order: {kind: "frame", at} or {kind: "note", ...}
  names: null, // the open game's players when the connection opened
  owed: [], // seats down to one tile that have not called it
  ready: false, // the server said "ready" on this connection
  refused: null, // the server's reason when it would not watch (a wrong game, no models): not retried
  retries: 0, retryTimer: null, // reconnecting after a lost connection, waiting longer each time
  lagTimer: null, wake: null, audio: null,
};

// ---- when the connection drops: say so, stop the camera, try again later and later -------------
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30000;
const LAG_MS = 3000; // an answer this late means the server (or the network) cannot keep up

function retryDelay(n) { return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** n); }

function showLost(text) {
  $("#live-lost-text").textContent = text;
  $("#live-lost").hidden = !text;
}

function connectionLost() {
  const delay = retryDelay(live.retries);
  live.retries += 1;
  showLost(`Connection lost: the camera is stopped. Trying again in ${Math.round(delay / 1000)} s` +
    ` (try ${live.retries}). Start camera tries now; Stop gives up.`);
  setStatus($("#live-state"), "connection lost", true);
  $("#live-stop").disabled = false; // Stop also ends the tries
  clearTimeout(live.retryTimer);
  live.retryTimer = setTimeout(() => {
    live.retryTimer = null;
    showLost(`Connection lost: trying again now (try ${live.retries})…`);
    startLive();
  }, delay);
}

function stopRetrying() {
  clearTimeout(live.retryTimer);
  live.retryTimer = null;
  live.retries = 0;
  showLost("");
}

// The answer awaited for the oldest frame: late by more than LAG_MS, the page says it is behind.
function checkLag() {
  const oldest = live.pending.find((p) => p.kind === "frame");
  const late = oldest ? performance.now() - oldest.at : 0;
  const lag = $("#live-lag");
  lag.hidden = late < LAG_MS;
  if (!lag.hidden) {
    lag.textContent = `Falling behind: no answer for the last ${Math.floor(late / 1000)} s. ` +
      "Plays shown may be late; the server is busy or the network is slow.";
  }
}

// Keep the screen on while watching, where the browser can; elsewhere quietly do without.
async function keepAwake() {
  if (!navigator.wakeLock || typeof navigator.wakeLock.request !== "function" || live.wake) return;
  try {
    const lock = await navigator.wakeLock.request("screen");
    if (!live.ready) { lock.release().catch(() => {}); return; } // stopped meanwhile
    live.wake = lock;
    $("#live-awake").hidden = false;
    lock.addEventListener("release", () => {
      if (live.wake === lock) { live.wake = null; $("#live-awake").hidden = true; }
    });
  } catch (e) { /* refused (battery saver, a hidden page): the screen may dim */ }
}

function letSleep() {
  const lock = live.wake;
  live.wake = null;
  $("#live-awake").hidden = true;
  if (lock) lock.release().catch(() => {});
}

// A phone lets go of the lock when the page is hidden; it is taken again on return.
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && live.ready) keepAwake();
});

// ---- a play against the rules: a short beep and a buzz, unless switched off ------------------
const ALERT_KEY = "chickenfoot.alert";
$("#live-alert").checked = localStorage.getItem(ALERT_KEY) !== "off";
$("#live-alert").addEventListener("change", (ev) => localStorage.setItem(ALERT_KEY, ev.target.checked ? "on" : "off"));

function prepareSound() {
  // made on a tap (Start camera): browsers let only a page the user touched make a sound
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!live.audio && Ctx) {
    try { live.audio = new Ctx(); } catch (e) { live.audio = null; }
  }
  if (live.audio && live.audio.state === "suspended") live.audio.resume().catch(() => {});
}

function signalIllegal() {
  if (!$("#live-alert").checked) return;
  if (typeof navigator.vibrate === "function") navigator.vibrate([200, 100, 200]);
  const ctx = live.audio;
  if (!ctx) return;
  try {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 880;
    gain.gain.value = 0.2;
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.25);
  } catch (e) { /* no sound here: the red line in the list still says it */ }
}

function logEvent(text, kind, link) {
  const li = document.createElement("li");
  li.className = kind || "";
  const when = document.createElement("time");
  when.textContent = new Date().toLocaleTimeString();
  li.append(when, text);
  if (link) {
    const a = document.createElement("a");
    a.href = link;
    a.target = "_blank";
    a.textContent = " (frame)";
    li.append(a);
  }
  $("#live-events").prepend(li);
}

function scheduleFrame(delayMs) {
  clearTimeout(live.timer);
  live.timer = setTimeout(sendFrame, delayMs);
}

function sendFrame() {
  const video = $("#live-video");
  if (!live.ws || live.ws.readyState !== WebSocket.OPEN || live.waiting) return;
  if (video.readyState < 2 || !video.videoWidth) return scheduleFrame(200);
  const scale = Math.min(1, 960 / Math.max(video.videoWidth, video.videoHeight));
  live.canvas.width = Math.round(video.videoWidth * scale);
  live.canvas.height = Math.round(video.videoHeight * scale);
  live.canvas.getContext("2d").drawImage(video, 0, 0, live.canvas.width, live.canvas.height);
  live.waiting = true;
  live.canvas.toBlob((blob) => {
    if (blob && live.ws && live.ws.readyState === WebSocket.OPEN) {
      live.pending.push({ kind: "frame", at: performance.now() });
      live.ws.send(blob);
    } else {
      live.waiting = false;
    }
  }, "image/jpeg", 0.8);
}

function frameAnswered() {
  live.waiting = false;
  checkLag();
  scheduleFrame(live.minInterval * 1000);
}

// The server answers every frame and every table note exactly once, in the order they were sent.
function onLiveMessage(ev) {
  let msg;
  try { msg = JSON.parse(ev.data); } catch (e) { return; }
  if (msg.type === "ready") {
    live.minInterval = msg.min_interval || 0.5;
    live.ready = true;
    if (live.retries) logEvent("Connection back: watching again.", "notice");
    stopRetrying();
    setStatus($("#live-state"), "watching");
    keepAwake();
    clearInterval(live.lagTimer);
    live.lagTimer = setInterval(checkLag, 500);
    scheduleFrame(0);
  } else if (msg.type === "overlay") {
    live.pending.shift();
    drawTiles($("#live-svg"), msg.width, msg.height, msg.tiles, null);
    if (msg.state) showLiveState(msg.state);
    frameAnswered();
  } else if (msg.type === "skipped") {
    live.pending.shift();
    frameAnswered();
  } else if (msg.type === "state") {
    noteAnswered(live.pending.shift(), msg.state);
  } else if (msg.type === "error") {
    if (!live.ready) { live.refused = problem(msg); return; } // it will not watch: the socket closes next
    const sent = live.pending.shift();
    if (sent && sent.kind === "note") return noteRefused(sent, msg);
    setStatus($("#live-state"), problem(msg), true);
    frameAnswered();
  } else if (msg.type === "event") {
    onLiveEvent(msg);
  }
}

// ---- the last-tile watch: each hand's size, the calls owed, what the table tells ------------
function seatName(seat) {
  return (live.names && live.names[seat]) || `Player ${seat + 1}`;
}

function penaltyWords(ev) {
  const who = seatName(ev.player);
  const cost = ev.form === "draw" ? "draws a tile" : "misses a turn (nothing is left to draw)";
  return `${who} did not call their last tile before ${seatName(ev.by)} played: ${who} ${cost}.`;
}

function lastTileWords(ev) {
  return `${seatName(ev.player)} is down to one tile` + (ev.must_call ? " and must call it before the next play." : ".");
}

function blockedWords(ev) {
  return (ev.blocked ? "The round is blocked: " : "Everyone passed, but the round is not blocked: ") + ev.reason + ".";
}

function onLiveEvent(ev) {
  if (ev.event === "last_tile") {
    logEvent(lastTileWords(ev), ev.event);
    if (ev.must_call && !live.owed.includes(ev.player)) showCallsOwed([...live.owed, ev.player]);
  } else if (ev.event === "chickenlittle_penalty") {
    const words = penaltyWords(ev);
    logEvent(words, ev.event);
    $("#live-penalty").textContent = words;
    $("#live-penalty").hidden = false;
  } else if (ev.event === "round_blocked") {
    logEvent(blockedWords(ev), ev.event);
    if (ev.proof && ev.proof.ends) showLiveBlocked(ev.proof);
  } else {
    if (ev.event === "round_started") $("#live-penalty").hidden = true;
    if (ev.event === "violation") signalIllegal();
    logEvent(eventWords(ev), ev.event, ev.evidence_url);
  }
}

// The tracker's own lines are for a terminal (seats from 0, rule codes): each kind of event gets
// its own words here, and anything else has its codes taken out.
function withoutCodes(text) {
  return sentence(String(text || "")
    .replace(/^ILLEGAL:\s*/, "Against the rules: ")
    .replace(/\s*\(([a-z]+(?:_[a-z0-9]+)+)\)/g, "")
    .replace(/\b[a-z]+(?:_[a-z0-9]+)+\b/g, (code) => code.replace(/_/g, " ")));
}

const EVENT_WORDS = {
  tracking_started: (ev) => "Now watching: " + (ev.message ? withoutCodes(ev.message.replace(/^watching:\s*/i, "")).replace(/^./, (c) => c.toLowerCase())
    : `double-${ev.set} set, ${plural(ev.players, "player")}`) + ".",
  tile_taken_back: (ev) => `${ev.player == null ? "Someone" : seatName(ev.player)} took back ${ev.tile}` +
    (ev.was_legal === false ? " (the play against the rules is withdrawn)." : "."),
  board_disturbed: () => "The layout was disturbed: check the tiles on the table.",
  camera_moved: () => "The camera moved; the layout was found again.",
  board_cleared: () => "The table was cleared.",
  stream_lost: () => "The camera's picture stopped; the game so far is kept.",
  stream_resumed: () => "The camera's picture is back.",
  frame_rejected: () => "A frame could not be used.",
};

function eventWords(ev) {
  const words = playWords(ev) || (EVENT_WORDS[ev.event] ? EVENT_WORDS[ev.event](ev) : null);
  if (words) return words;
  if (ev.message) return withoutCodes(ev.message);
  return ev.event === "violation" ? "A play against the rules." : withoutCodes(ev.event) + ".";
}

// Plays and violations by the players' names (the tracker counts seats from 0).
function playWords(ev) {
  const who = ev.player == null ? "Someone" : seatName(ev.player);
  const where = ev.on ? ` on ${ev.on}` : "";
  if (ev.event === "round_started") {
    return `Round ${ev.round_index + 1} (double ${ev.round_double}) started with the spinner ${ev.spinner}; ` +
      `${seatName(ev.first_player)} plays first.`;
  }
  if (ev.event === "tile_played" && ev.legal !== false) return `${who} played ${ev.tile}${where}.`;
  if (ev.event === "violation" && ev.tile) {
    return `Against the rules: ${who} played ${ev.tile}${where}. ${sentence(ruleWords(ev.rule))}` +
      (ev.rule_message ? ` (${withoutCodes(ev.rule_message).replace(/^./, (c) => c.toLowerCase())}).` : ".");
  }
  if (ev.event === "violation") return `Against the rules: ${sentence(ruleWords(ev.rule))}.`;
  return null;
}

function showLiveState(state) {
  const hands = state.hands;
  if (!hands) return;
  showHands(hands);
  showCallsOwed(hands.unannounced || []);
  showLiveBlocked(state.blocked);
}

function handRow(seat) {
  const li = document.createElement("li");
  li.dataset.seat = seat;
  const who = cell("span", seatName(seat));
  who.className = "who";
  const count = cell("span", "");
  count.className = "count";
  const seatBox = document.createElement("div");
  seatBox.className = "seat";
  seatBox.append(who, count);
  const drew = noteButton("Drew a tile", `${seatName(seat)} drew a tile`, "draw", seat);
  const passed = noteButton("Passed", `${seatName(seat)} passed`, "pass", seat);
  li.append(seatBox, drew, passed);
  return li;
}

function noteButton(text, label, action, seat) {
  const button = cell("button", text);
  button.type = "button";
  button.className = "secondary note";
  button.dataset.action = action;
  button.setAttribute("aria-label", label);
  button.addEventListener("click", () => sendNote(action, seat));
  return button;
}

// Rows are made once per table and then only their numbers change, so a button under the
// finger (or the keyboard's focus) stays put while frames come in.
function showHands(hands) {
  const list = $("#live-hand-list");
  if (list.children.length !== hands.sizes.length) list.replaceChildren(...hands.sizes.map((_, seat) => handRow(seat)));
  hands.sizes.forEach((size, seat) => {
    const row = list.children[seat];
    const turn = !hands.over && hands.turn === seat ? " · to play" : "";
    row.querySelector(".count").textContent = plural(size, "tile") + turn;
    row.classList.toggle("one-left", size === 1);
    row.classList.toggle("turn", Boolean(turn));
  });
  const winner = hands.over && hands.winner != null ? ` ${seatName(hands.winner)} went out.` : "";
  $("#live-boneyard").textContent = `${plural(hands.boneyard, "tile")} left to draw.${winner}`;
  $("#live-hands").hidden = false;
  enableNotes();
}

function enableNotes() {
  const open = Boolean(live.ws && live.ws.readyState === WebSocket.OPEN);
  document.querySelectorAll("#live-hands button.note, #live-call button").forEach((b) => { b.disabled = !open; });
}

function showCallsOwed(seats) {
  const same = seats.length === live.owed.length && seats.every((s, i) => s === live.owed[i]);
  live.owed = [...seats];
  const box = $("#live-call");
  if (same && (seats.length === 0) === box.hidden) return;
  box.replaceChildren(...seats.map((seat) => {
    const p = cell("p", `${seatName(seat)} is down to one tile. Did ${seatName(seat)} call it before the next play?`);
    const confirm = cell("button", `Yes, ${seatName(seat)} called it`);
    confirm.type = "button";
    confirm.dataset.seat = seat;
    confirm.addEventListener("click", () => sendNote("announce", seat));
    p.append(" ", confirm);
    return p;
  }));
  box.hidden = seats.length === 0;
  enableNotes();
}

function showLiveBlocked(proof) {
  $("#live-blocked").hidden = !proof;
  if (proof) renderProof($("#live-proof"), proof);
}

const NOTE_WORDS = { draw: "drew a tile", pass: "passed", announce: "called their last tile" };

function sendNote(action, seat) {
  if (!live.ws || live.ws.readyState !== WebSocket.OPEN) {
    setStatus($("#live-note-status"), "Start the camera first: the table's notes go with what it sees.", true);
    return;
  }
  live.pending.push({ kind: "note", action, seat });
  live.ws.send(JSON.stringify({ type: "table", action, player: seat }));
  setStatus($("#live-note-status"), `Telling it: ${seatName(seat)} ${NOTE_WORDS[action]}…`);
}

function noteAnswered(sent, state) {
  const what = sent && sent.kind === "note" ? `${seatName(sent.seat)} ${NOTE_WORDS[sent.action]}` : "the table's note";
  if (state && state.hands) {
    setStatus($("#live-note-status"), `Noted: ${what}.`);
    showLiveState(state);
  } else {
    setStatus($("#live-note-status"), "No round is being watched yet: it starts when the spinner is down.", true);
  }
}

function noteRefused(sent, msg) {
  const who = seatName(sent.seat);
  const text = msg.error === "nothing_to_announce" ? `${who} has no last tile to call now.`
    : `Not noted (${who} ${NOTE_WORDS[sent.action]}): ${withoutCodes(msg.message).replace(/^./, (c) => c.toLowerCase())}`;
  setStatus($("#live-note-status"), text, true);
}

function setLiveButtons(running) {
  $("#live-start").disabled = running;
  $("#live-stop").disabled = !running;
}

function openLiveSocket() {
  const params = new URLSearchParams();
  if (game) params.set("game_id", game.id);
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/api/v1/live?${params}`);
  ws.onmessage = (ev) => { if (live.ws === ws) onLiveMessage(ev); };
  // Closed by the server or the network, not by Stop: the camera goes off and, unless the server
  // refused to watch at all, the page tries again by itself.
  ws.onclose = () => {
    if (live.ws !== ws) return;
    const refused = live.refused;
    stopLive();
    if (refused) {
      stopRetrying();
      setStatus($("#live-state"), refused, true);
    } else {
      connectionLost();
    }
  };
  return ws;
}

async function startLive() {
  if (live.stream || live.ws || $("#live-start").disabled) return;
  clearTimeout(live.retryTimer);
  live.retryTimer = null;
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    setStatus($("#live-state"), "this browser cannot use a camera here (it needs localhost or https)", true);
    return;
  }
  const attempt = ++live.attempt;
  setLiveButtons(true);
  setStatus($("#live-state"), "starting the camera…");
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
  } catch (e) {
    if (attempt === live.attempt) { setLiveButtons(false); stopRetrying(); setStatus($("#live-state"), "no camera: " + e.message, true); }
    return;
  }
  if (attempt !== live.attempt) { stream.getTracks().forEach((t) => t.stop()); return; } // stopped meanwhile
  live.stream = stream;
  const video = $("#live-video");
  video.srcObject = stream;
  await video.play().catch(() => {});
  if (attempt !== live.attempt) return;
  live.waiting = false;
  live.pending = [];
  live.ready = false;
  live.refused = null;
  live.names = game ? [...game.players] : null;
  $("#live-hand-list").replaceChildren();
  $("#live-hands").hidden = true;
  $("#live-penalty").hidden = true;
  showCallsOwed([]);
  live.ws = openLiveSocket();
  setStatus($("#live-state"), "connecting…");
}

function stopLive() {
  live.attempt += 1;
  live.ready = false;
  clearTimeout(live.timer);
  clearInterval(live.lagTimer);
  $("#live-lag").hidden = true;
  letSleep();
  const ws = live.ws;
  live.ws = null;
  if (ws) ws.close();
  if (live.stream) live.stream.getTracks().forEach((t) => t.stop());
  live.stream = null;
  $("#live-video").srcObject = null;
  live.pending = [];
  enableNotes();
  setLiveButtons(false);
  setStatus($("#live-state"), "stopped");
}

$("#live-start").addEventListener("click", () => { prepareSound(); stopRetrying(); startLive(); });
$("#live-stop").addEventListener("click", () => { stopRetrying(); stopLive(); });

// ---- Study: a game record replayed play by play ------------------------------------------
// The rules a flag names, as a table says them.
const RULE_WORDS = {
  ends_do_not_match: "the touching ends must show the same number",
  no_such_open_end: "a tile goes only on an open end",
  spinner_arms_unfinished: "the spinner gets all its arms before play goes elsewhere",
  chickie_unfinished: "a chickie gets all its toes before play goes elsewhere",
  chickenlittle: "call your last tile before the next player lays one",
  not_your_turn: "play in turn",
  tile_not_in_hand: "play only a tile from your own hand",
  tile_not_in_set: "only tiles of the set in use",
  only_drawn_tile: "after drawing, only the drawn tile may be played",
  must_draw_first: "draw before passing",
  must_play: "play a tile that fits when you have one",
  already_drew: "one draw a turn",
  boneyard_empty: "nothing is left to draw",
  nothing_to_announce: "only a player down to one tile calls it",
  too_many_arms: "a spinner takes only so many arms",
  wrong_spinner: "the round starts from its own double",
  spinner_not_double: "the round starts from a double",
  no_spinner: "the layout starts from a double",
  too_many_toes: "a chickie takes only so many toes",
  duplicate_tile: "a set has one of each tile",
  not_connected: "every tile is laid against the layout",
  end_used_twice: "an end takes one tile",
  extra_connection: "a tile is laid against one end only",
  bad_edge: "tiles touch only at matching ends",
};

function ruleWords(code) { return RULE_WORDS[code] || "a rule of the game"; }

const study = { replay: null, round: 0, step: 0 };

function flagItem(flag) {
  const li = document.createElement("li");
  li.className = "bad";
  const rule = cell("strong", sentence(ruleWords(flag.rule)));
  li.append(rule, `: ${flag.message}`);
  return li;
}

function currentRound() { return study.replay.rounds[study.round]; }

function roundLabel(round, index) {
  const result = round.result;
  const end = !result ? "unfinished" : result.winner != null ? `${study.replay.names[result.winner]} went out`
    : "blocked";
  return `Round ${index + 1}: double ${round.double}, ${end}`;
}

// The diagram's units: a tile is 2 long and 1 wide, laid along its line; a double lies across it.
function boardBounds(tiles) {
  const xs = tiles.map((t) => t.x);
  const ys = tiles.map((t) => t.y);
  const pad = 1.3;
  const x0 = Math.min(...xs) - pad;
  const y0 = Math.min(...ys) - pad;
  return [x0, y0, Math.max(...xs) + pad - x0, Math.max(...ys) + pad - y0];
}

function svgEl(name, attrs) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

// Numbers stay upright whichever way their tile lies.
function tileLabel(x, y, value, angle) {
  const text = svgEl("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central", "font-size": 0.62,
    transform: `rotate(${-angle} ${x} ${y})` });
  text.textContent = String(value);
  return text;
}

function diagramTile(t, cls) {
  const g = svgEl("g", { transform: `translate(${t.x} ${t.y}) rotate(${t.angle})`, class: "domino" + cls });
  g.dataset.tile = t.tile;
  const title = svgEl("title", {});
  title.textContent = t.kind === "spinner" ? `spinner ${t.tile}` : t.kind === "chickie" ? `chickie ${t.tile}` : t.tile;
  g.append(title);
  if (t.kind === "spinner") {
    g.append(svgEl("rect", { x: -0.6, y: -0.6, width: 1.2, height: 1.2, rx: 0.12 }), tileLabel(0, 0, t.facing, t.angle));
  } else if (t.double) {
    g.append(svgEl("rect", { x: -0.5, y: -1, width: 1, height: 2, rx: 0.1 }), svgEl("line", { x1: -0.4, y1: 0, x2: 0.4, y2: 0 }),
      tileLabel(0, -0.5, t.facing, t.angle), tileLabel(0, 0.5, t.outer, t.angle));
  } else {
    g.append(svgEl("rect", { x: -1, y: -0.5, width: 2, height: 1, rx: 0.1 }), svgEl("line", { x1: 0, y1: -0.4, x2: 0, y2: 0.4 }),
      tileLabel(-0.5, 0, t.facing, t.angle), tileLabel(0.5, 0, t.outer, t.angle));
  }
  return g;
}

function drawBoard(step, frame) {
  const svg = $("#replay-board");
  svg.setAttribute("viewBox", boardBounds(frame).join(" "));
  const newest = step.kind === "play" || step.kind === "deal" ? step.board[step.board.length - 1] : null;
  const flagged = new Set(step.flags.map((f) => f.tile).filter(Boolean));
  svg.replaceChildren(...step.board.map((t) => {
    const cls = (t === newest ? " new" : "") + (flagged.has(t.tile) ? " flagged" : "");
    return diagramTile(t, cls);
  }));
  svg.setAttribute("aria-label", `the board at this step: ${plural(step.board.length, "tile")}`);
}

function handsWords(step) {
  const names = study.replay.names;
  const sizes = step.hand_sizes.map((n, p) => `${names[p]} ${n}`).join(" · ");
  const turn = step.turn != null ? ` · ${names[step.turn]} to play` : "";
  return `Tiles in hand: ${sizes} · ${step.boneyard} left to draw${turn}`;
}

function resultWords(round) {
  const result = round.result;
  if (!result) return "The record ends before this round does.";
  const names = study.replay.names;
  const how = result.winner != null ? `${names[result.winner]} went out.` : "Nobody could play: the round is blocked.";
  return `${how} Scores: ${result.scores.map((s, p) => `${names[p]} ${s}`).join(", ")}.`;
}

function showStep() {
  const round = currentRound();
  const last = round.steps.length - 1;
  const step = round.steps[study.step];
  drawBoard(step, round.steps[last].board);
  $("#replay-position").textContent = `Step ${study.step + 1} of ${round.steps.length}`;
  $("#replay-text").textContent = sentence(step.text) + ".";
  $("#replay-hands").textContent = handsWords(step);
  $("#replay-flags").replaceChildren(...step.flags.map(flagItem));
  $("#replay-first").disabled = $("#replay-prev").disabled = study.step === 0;
  $("#replay-next").disabled = $("#replay-last").disabled = study.step === last;
  const atEnd = study.step === last;
  $("#replay-end").hidden = !atEnd;
  if (atEnd) {
    $("#replay-result").textContent = resultWords(round);
    $("#replay-proof").hidden = !round.blocked;
    if (round.blocked) renderProof($("#replay-proof"), round.blocked);
  }
}

function goToStep(index) {
  const steps = currentRound().steps.length;
  study.step = Math.max(0, Math.min(steps - 1, index));
  showStep();
}

function roundFlagItem(flag) {
  const li = document.createElement("li");
  const jump = cell("button", `Step ${flag.step + 1}`);
  jump.type = "button";
  jump.className = "secondary";
  jump.addEventListener("click", () => goToStep(flag.step));
  li.className = "bad";
  li.append(jump, " ", cell("strong", sentence(ruleWords(flag.rule))), `: ${flag.message}`);
  return li;
}

function showRound(index) {
  study.round = index;
  study.step = 0;
  const flags = currentRound().flags;
  $("#replay-round-flags").replaceChildren(...(flags.length ? flags.map(roundFlagItem) : [listItem("none")]));
  showStep();
}

function renderReplay(replay) {
  study.replay = replay;
  const select = $("#replay-round");
  select.replaceChildren(...replay.rounds.map((r, i) => new Option(roundLabel(r, i), String(i))));
  $("#replay-view").hidden = replay.rounds.length === 0;
  if (replay.rounds.length) showRound(0);
}

function replayStatus(replay) {
  const who = `${replay.names.join(", ")}: double-${replay.set} set, ${plural(replay.rounds.length, "round")}.`;
  if (!replay.rounds.length && !replay.error) {
    return `${who} This record keeps the scores but not the plays: there is nothing to step through.`;
  }
  if (!replay.error) return who;
  const e = replay.error;
  return `${who} The record stops making sense at round ${e.round + 1}, turn ${e.turn + 1}: ${e.message}.`;
}

async function readJsonFile(file) {
  try {
    return JSON.parse(await file.text());
  } catch (e) {
    throw new Error(`${file.name} is not a game record (it is not JSON).`);
  }
}

$("#replay-file").addEventListener("change", async (ev) => {
  const file = takeFile(ev.target);
  if (!file) return;
  const ctl = startRequest("replay");
  setStatus($("#replay-status"), "Replaying the game…");
  try {
    const record = await readJsonFile(file);
    const replay = await api("/api/v1/replay", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(record), signal: ctl.signal,
    });
    if (!isCurrent("replay", ctl)) return;
    renderReplay(replay);
    setStatus($("#replay-status"), replayStatus(replay), Boolean(replay.error));
  } catch (e) {
    if (e.name === "AbortError" || !isCurrent("replay", ctl)) return;
    $("#replay-view").hidden = true;
    setStatus($("#replay-status"), e.message, true);
  } finally {
    endRequest("replay", ctl);
  }
});

$("#replay-round").addEventListener("change", (ev) => showRound(Number(ev.target.value)));
$("#replay-first").addEventListener("click", () => goToStep(0));
$("#replay-prev").addEventListener("click", () => goToStep(study.step - 1));
$("#replay-next").addEventListener("click", () => goToStep(study.step + 1));
$("#replay-last").addEventListener("click", () => goToStep(Infinity));

// ---- Study: players' figures ----------------------------------------------------------------
function statsRow(p) {
  const tr = document.createElement("tr");
  tr.dataset.player = p.name;
  tr.append(cell("td", String(p.standing)), cell("td", p.name), cell("td", String(p.games)), cell("td", String(p.rounds)),
    cell("td", p.points_per_round.toFixed(2)), cell("td", String(p.zero_rounds)), cell("td", String(p.rounds_won)),
    cell("td", String(p.games_won)));
  return tr;
}

function renderStats(stats) {
  const table = $("#stats-table");
  const head = document.createElement("tr");
  head.append(...["Place", "Player", "Games", "Rounds", "Points per round", "Rounds at 0", "Rounds won", "Games won"]
    .map((h) => cell("th", h)));
  const thead = document.createElement("thead");
  thead.append(head);
  const body = document.createElement("tbody");
  body.append(...stats.players.map(statsRow));
  table.replaceChildren(thead, body);
  table.hidden = stats.players.length === 0;
  setStatus($("#stats-status"), stats.players.length
    ? `Over ${plural(stats.games, "game")}, best first (fewest points per round, then most rounds at 0).`
    : "No scored games yet.");
}

async function loadStats(request) {
  const ctl = startRequest("stats");
  setStatus($("#stats-status"), "Adding up…");
  try {
    const stats = await request(ctl.signal);
    if (isCurrent("stats", ctl)) renderStats(stats);
  } catch (e) {
    if (e.name !== "AbortError" && isCurrent("stats", ctl)) setStatus($("#stats-status"), e.message, true);
  } finally {
    endRequest("stats", ctl);
  }
}

$("#stats-stored").addEventListener("click", () => loadStats((signal) => api("/api/v1/players/stats", { signal })));

$("#stats-files").addEventListener("change", (ev) => {
  const files = [...ev.target.files];
  ev.target.value = "";
  if (!files.length) return;
  loadStats(async (signal) => {
    const records = await Promise.all(files.map(readJsonFile));
    return api("/api/v1/study", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ records }), signal,
    });
  });
});

loadGames();
fillPresets();
checkStorage();

// The page: plain JavaScript, no build step, no network beyond this server.
// Every number shown comes from the API; the page only draws and forwards taps.
"use strict";

const $ = (sel) => document.querySelector(sel);
const SVG_NS = "http://www.w3.org/2000/svg";
const NO_DOMINOES = "No dominoes found — retake the photo?";

// An access token given as ?token= was turned into a cookie by the server; keep it out of the address bar.
if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);

async function api(path, options = {}) {
  let res;
  try {
    res = await fetch(path, options);
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new Error("cannot reach the server: " + e.message);
  }
  let body = null;
  try { body = await res.json(); } catch (e) { /* not JSON: described below */ }
  if (!res.ok) throw new Error(body && body.message ? body.message : `the server answered ${res.status}`);
  return body;
}

function setStatus(el, text, isError = false) {
  el.textContent = text;
  el.classList.toggle("error", isError);
}

function showBanner(text) {
  const banner = $("#banner");
  banner.textContent = text;
  banner.hidden = !text;
}

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
document.querySelectorAll("nav button").forEach((btn) => btn.addEventListener("click", () => showTab(btn.dataset.tab)));
function showTab(name) {
  document.querySelectorAll("nav button").forEach((b) => b.setAttribute("aria-selected", String(b.dataset.tab === name)));
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

function drawTiles(svg, width, height, tiles, onTap) {
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.replaceChildren();
  const fontSize = Math.max(14, Math.round(Math.max(width, height) / 45));
  for (const t of tiles) {
    const poly = document.createElementNS(SVG_NS, "polygon");
    poly.setAttribute("points", t.corners.map((p) => p.join(",")).join(" "));
    poly.setAttribute("class", "tile" + tileKind(t));
    poly.dataset.tile = t.id;
    const title = document.createElementNS(SVG_NS, "title");
    title.textContent = t.pips ? `${t.pips[0]}-${t.pips[1]}` : "not a tile";
    poly.appendChild(title);
    if (onTap) poly.addEventListener("click", () => onTap(t));
    svg.appendChild(poly);
    if (!t.pips) continue;
    endCentres(t.corners).forEach((pt, i) => {
      const label = document.createElementNS(SVG_NS, "text");
      label.setAttribute("x", pt[0]);
      label.setAttribute("y", pt[1]);
      label.setAttribute("font-size", fontSize);
      label.setAttribute("text-anchor", "middle");
      label.setAttribute("dominant-baseline", "central");
      label.textContent = String(t.pips[i]);
      svg.appendChild(label);
    });
  }
}

// ---- the tile editor --------------------------------------------------------
function editTile(handId, tile) {
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
        showBanner(e.message);
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
  drawTiles($("#hand-svg"), hand.width, hand.height, hand.tiles, async (tile) => {
    const updated = await editTile(hand.hand_id, tile);
    if (updated) renderHand(updated);
  });
  const warned = (hand.warnings || []).length > 0;
  $("#hand-score").classList.toggle("success", !nothing && !warned);
  $("#hand-score").classList.toggle("warned", warned);
  $("#hand-summary").classList.toggle("has-warnings", warned);
  const warnings = $("#hand-warnings");
  warnings.replaceChildren(...(hand.warnings || []).map((w) => Object.assign(document.createElement("li"), { textContent: w })));
  warnings.hidden = !warned;
  const chips = $("#hand-chips");
  chips.replaceChildren(...hand.tiles.filter((t) => t.pips).map((t) => {
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = "chip" + tileKind(t);
    chip.textContent = `${t.pips[0]}-${t.pips[1]}`;
    chip.dataset.tile = t.id;
    chip.setAttribute("aria-label", `tile ${chip.textContent}${chip.className.includes("unsure") ? ", unsure" : ""}: fix it`);
    chip.addEventListener("click", async () => {
      const updated = await editTile(hand.hand_id, t);
      if (updated) renderHand(updated);
    });
    return chip;
  }));
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
    setStatus(status, e.message, true);
  } finally {
    if (endRequest("hand", ctl)) setBusy($("#tab-hand"), false);
  }
}

function showHandResult(file, hand) {
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

function renderAudit(audit, file) {
  $("#table-img").src = audit.annotated_image || URL.createObjectURL(file);
  const violations = audit.violations || [];
  $("#table-violations").replaceChildren(...(violations.length ? violations : ["none"]).map((v) =>
    (typeof v === "string" ? listItem(v) : listItem(v.message || "a rule was broken", "bad"))));
  const ends = audit.open_ends || [];
  $("#table-ends").textContent = ends.length
    ? ends.map((e) => (typeof e === "object" ? `${e.value ?? "?"} (tile ${e.tile ?? "?"})` : e)).join(", ")
    : "none";
  $("#table-result").hidden = false;
  const read = `${(audit.tiles || []).length} tiles read.`;
  setStatus($("#table-status"), audit.message ? `${read} ${audit.message}` : read);
  (audit.warnings || []).forEach((w) => $("#table-violations").append(listItem(w)));
}

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
    setStatus($("#table-status"), e.message, true);
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
    setStatus($("#game-status"), e.message, true);
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

async function newGameBody() {
  const players = $("#new-players").value.split("\n").map((s) => s.trim()).filter(Boolean);
  const rules = { ...(await presets())[$("#new-preset").value].rules };
  if ($("#new-blank").value !== "") rules.double_blank_value = Number($("#new-blank").value);
  if ($("#new-curved").checked) rules.curved_scoring = true;
  return { players, set: Number($("#new-set").value), house_rules: rules };
}

// One tap, one game: the button stays off until the server has answered.
$("#game-new").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const button = $("#game-start");
  if (button.disabled) return;
  button.disabled = true;
  try {
    const created = await api("/api/v1/games", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(await newGameBody()),
    });
    $("#game-new").hidden = true;
    game = created;
    localStorage.setItem("chickenfoot.game", created.id);
    await loadGames();
    setStatus($("#game-status"), "Game started.");
  } catch (e) {
    setStatus($("#game-status"), e.message, true);
  } finally {
    button.disabled = false;
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

async function openGame(id) {
  if (!id) { opening = null; localStorage.removeItem("chickenfoot.game"); closeGame(); return; }
  opening = id;
  let fetched;
  try {
    fetched = await api(`/api/v1/games/${id}`);
  } catch (e) {
    if (opening === id) { opening = null; setStatus($("#game-status"), e.message, true); }
    return;
  }
  if (opening !== id) return; // a later choice won: its answer is the one to show
  opening = null;
  game = fetched;
  localStorage.setItem("chickenfoot.game", id);
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

function renderSheet(sheet) {
  const table = $("#sheet");
  const head = document.createElement("tr");
  head.append(cell("th", "Double"), ...sheet.player_names.map((n) => cell("th", n)));
  const body = document.createElement("tbody");
  sheet.rounds.forEach((r, index) => {
    const tr = document.createElement("tr");
    tr.append(cell("td", String(r.double)), ...r.scores.map((s, seat) => scoreCell(s, index, seat)));
    body.append(tr);
  });
  const foot = document.createElement("tfoot");
  const totals = document.createElement("tr");
  totals.append(cell("td", "Total"), ...sheet.totals.map((t) => cell("td", String(t))));
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
    setStatus($("#game-status"), e.message, true);
  }
}

async function deleteRound(index) {
  if (!(await askConfirm(`Delete round ${index + 1}? Its scores leave the sheet for good.`, "Delete round", "Keep it"))) return;
  try {
    const result = await api(`/api/v1/games/${game.id}/rounds/${index}`, { method: "DELETE" });
    setSheet(result.sheet);
    setStatus($("#game-status"), `Round ${index + 1} deleted.`);
  } catch (e) {
    setStatus($("#game-status"), e.message, true);
  }
}

$("#game-delete").addEventListener("click", async () => {
  if (!game) return;
  const doomed = game;
  const question = `Delete the game of ${doomed.players.join(", ")} and its score sheet for good?`;
  if (!(await askConfirm(question, "Delete game", "Keep it"))) return;
  try {
    await api(`/api/v1/games/${doomed.id}`, { method: "DELETE" });
    localStorage.removeItem("chickenfoot.game");
    closeGame();
    await loadGames();
    setStatus($("#game-status"), "Game deleted.");
  } catch (e) {
    setStatus($("#game-status"), e.message, true);
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
  const img = document.createElement("img");
  const svg = document.createElementNS(SVG_NS, "svg");
  wrap.append(img, svg);
  const parts = { row, points, read, wrap, img, svg };
  photo.addEventListener("change", () => {
    const file = takeFile(photo);
    if (file) readSeatPhoto(parts, file, seat);
  });
  row.append(cell("span", name), points, photoLabel, read, wrap);
  row.firstChild.className = "name";
  return row;
}

function showSeatHand(parts, hand) {
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
  drawTiles(parts.svg, hand.width, hand.height, hand.tiles, async (tile) => {
    const updated = await editTile(hand.hand_id, tile);
    if (updated) showSeatHand(parts, updated);
  });
}

async function readSeatPhoto(parts, file, seat) {
  const kind = `seat-${seat}`;
  const ctl = startRequest(kind);
  setBusy(parts.row, true);
  parts.read.textContent = "reading…";
  try {
    const hand = await scorePhoto(file, { game_id: game.id }, ctl.signal);
    if (!isCurrent(kind, ctl)) return;
    showPhoto(parts.img, file, hand.annotated_image);
    parts.wrap.hidden = false;
    showSeatHand(parts, hand);
  } catch (e) {
    if (isCurrent(kind, ctl)) parts.read.textContent = e.message;
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
    const result = await api(`/api/v1/games/${game.id}/rounds`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ hands: roundHands(), index: game.sheet.rounds.length }),
    });
    setSheet(result.sheet);
    renderRoundForm();
    setStatus($("#game-status"), `Round ${result.index + 1} recorded.`);
  } catch (e) {
    setStatus($("#game-status"), e.message, true);
  } finally {
    button.disabled = false;
  }
});

// ---- Live -------------------------------------------------------------------
// One camera and one connection at a time: `attempt` counts starts, so a start still waiting
// for the camera when Stop is tapped (or a second tap) lets its camera go instead of keeping it.
const live = {
  ws: null, stream: null, waiting: false, timer: null, attempt: 0,
  canvas: document.createElement("canvas"), minInterval: 0.5,
};

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
    if (blob && live.ws && live.ws.readyState === WebSocket.OPEN) live.ws.send(blob);
    else live.waiting = false;
  }, "image/jpeg", 0.8);
}

function onLiveMessage(ev) {
  let msg;
  try { msg = JSON.parse(ev.data); } catch (e) { return; }
  if (msg.type === "ready") {
    live.minInterval = msg.min_interval || 0.5;
    setStatus($("#live-state"), "watching");
    scheduleFrame(0);
  } else if (msg.type === "overlay") {
    drawTiles($("#live-svg"), msg.width, msg.height, msg.tiles, null);
    live.waiting = false;
    scheduleFrame(live.minInterval * 1000);
  } else if (msg.type === "skipped") {
    live.waiting = false;
    scheduleFrame(live.minInterval * 1000);
  } else if (msg.type === "error") {
    live.waiting = false;
    setStatus($("#live-state"), msg.message, true);
    scheduleFrame(live.minInterval * 1000);
  } else if (msg.type === "event") {
    logEvent(msg.message || msg.event, msg.event, msg.evidence_url);
  }
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
  ws.onclose = () => {
    if (live.ws !== ws) return;
    live.ws = null;
    setStatus($("#live-state"), "stopped");
  };
  ws.onerror = () => { if (live.ws === ws) setStatus($("#live-state"), "the live connection failed", true); };
  return ws;
}

async function startLive() {
  if (live.stream || live.ws || $("#live-start").disabled) return;
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
    if (attempt === live.attempt) { setLiveButtons(false); setStatus($("#live-state"), "no camera: " + e.message, true); }
    return;
  }
  if (attempt !== live.attempt) { stream.getTracks().forEach((t) => t.stop()); return; } // stopped meanwhile
  live.stream = stream;
  const video = $("#live-video");
  video.srcObject = stream;
  await video.play().catch(() => {});
  if (attempt !== live.attempt) return;
  live.waiting = false;
  live.ws = openLiveSocket();
  setStatus($("#live-state"), "connecting…");
}

function stopLive() {
  live.attempt += 1;
  clearTimeout(live.timer);
  const ws = live.ws;
  live.ws = null;
  if (ws) ws.close();
  if (live.stream) live.stream.getTracks().forEach((t) => t.stop());
  live.stream = null;
  $("#live-video").srcObject = null;
  setLiveButtons(false);
  setStatus($("#live-state"), "stopped");
}

$("#live-start").addEventListener("click", startLive);
$("#live-stop").addEventListener("click", stopLive);

loadGames();
fillPresets();

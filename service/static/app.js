// The page: plain JavaScript, no build step, no network beyond this server.
// Every number shown comes from the API; the page only draws and forwards taps.
"use strict";

const $ = (sel) => document.querySelector(sel);
const SVG_NS = "http://www.w3.org/2000/svg";

// An access token given as ?token= was turned into a cookie by the server; keep it out of the address bar.
if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);

async function api(path, options = {}) {
  let res;
  try {
    res = await fetch(path, options);
  } catch (e) {
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

function drawTiles(svg, width, height, tiles, onTap) {
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.replaceChildren();
  const fontSize = Math.max(14, Math.round(Math.max(width, height) / 45));
  for (const t of tiles) {
    const poly = document.createElementNS(SVG_NS, "polygon");
    poly.setAttribute("points", t.corners.map((p) => p.join(",")).join(" "));
    let cls = "tile";
    if (t.status === "illegal") cls += " illegal";
    else if (t.corrected) cls += t.pips ? " fixed" : " gone";
    else if ((t.pip_confidence ?? 1) < 0.5 || (t.notes && t.notes.length)) cls += " unsure";
    poly.setAttribute("class", cls);
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
        alert(e.message);
        resolve(null);
      }
    };
    dialog.returnValue = ""; // Esc must not repeat the last choice
    dialog.showModal();
  });
}

// ---- Hand -------------------------------------------------------------------
async function scorePhoto(file, fields) {
  const form = new FormData();
  form.append("photo", file, file.name || "photo.jpg");
  for (const [k, v] of Object.entries(fields)) if (v !== "" && v != null) form.append(k, v);
  return api("/api/v1/score", { method: "POST", body: form });
}

function showPhoto(img, file, fallback) {
  img.onerror = () => { if (fallback && img.src !== fallback) img.src = fallback; };
  img.src = URL.createObjectURL(file);
}

function renderHand(hand) {
  $("#hand-score").textContent = String(hand.score);
  const n = hand.tiles.filter((t) => t.pips).length;
  $("#hand-detail").textContent = `${n} tile${n === 1 ? "" : "s"}, ${hand.total} pips` +
    (hand.face_down ? `, ${hand.face_down} face down` : "") +
    ` · double-blank counts ${hand.house_rules.double_blank_value}`;
  drawTiles($("#hand-svg"), hand.width, hand.height, hand.tiles, async (tile) => {
    const updated = await editTile(hand.hand_id, tile);
    if (updated) renderHand(updated);
  });
  const warnings = $("#hand-warnings");
  warnings.replaceChildren(...(hand.warnings || []).map((w) => Object.assign(document.createElement("li"), { textContent: w })));
}

$("#hand-photo").addEventListener("change", async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  const status = $("#hand-status");
  setStatus(status, "Reading the tiles…");
  try {
    const hand = await scorePhoto(file, {
      house_rules: JSON.stringify({ double_blank_value: Number($("#hand-blank").value) }),
      set: $("#hand-set").value,
    });
    showPhoto($("#hand-img"), file, hand.annotated_image);
    const link = $("#hand-annotated");
    link.href = hand.annotated_image || "";
    link.hidden = !hand.annotated_image;
    $("#hand-result").hidden = false;
    renderHand(hand);
    setStatus(status, `Read in ${hand.seconds} s. Tap a tile to fix it.`);
  } catch (e) {
    $("#hand-result").hidden = true;
    setStatus(status, e.message, true);
  }
});

// ---- Table ------------------------------------------------------------------
$("#table-photo").addEventListener("change", async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  const status = $("#table-status");
  setStatus(status, "Reading the layout…");
  const form = new FormData();
  form.append("photo", file, file.name || "table.jpg");
  if ($("#table-double").value !== "") form.append("round_double", $("#table-double").value);
  const game = currentGame();
  if (game) form.append("house_rules", JSON.stringify(game.house_rules));
  try {
    const audit = await api("/api/v1/audit", { method: "POST", body: form });
    $("#table-img").src = audit.annotated_image || URL.createObjectURL(file);
    const violations = audit.violations || [];
    $("#table-violations").replaceChildren(...(violations.length ? violations : ["none"]).map((v) => {
      const li = document.createElement("li");
      li.textContent = typeof v === "string" ? v : (v.message || JSON.stringify(v));
      if (typeof v !== "string") li.className = "bad";
      return li;
    }));
    const ends = audit.open_ends || [];
    $("#table-ends").textContent = ends.length
      ? ends.map((e) => (typeof e === "object" ? `${e.value ?? "?"} (tile ${e.tile ?? "?"})` : e)).join(", ")
      : "none";
    $("#table-result").hidden = false;
    const read = `${(audit.tiles || []).length} tiles read.`;
    setStatus(status, audit.message ? `${read} ${audit.message}` : read);
    (audit.warnings || []).forEach((w) => {
      const li = document.createElement("li");
      li.textContent = w;
      $("#table-violations").append(li);
    });
  } catch (e) {
    $("#table-result").hidden = true;
    setStatus(status, e.message, true);
  }
});

// ---- Games ------------------------------------------------------------------
let games = [];
let game = null; // the selected game with its sheet

function currentGame() { return game; }

const GAMES_SHOWN = 100; // the newest games offered in the list; an older one chosen before still opens

async function loadGames() {
  const chosen = game ? game.id : localStorage.getItem("chickenfoot.game");
  try {
    games = (await api(`/api/v1/games?limit=${GAMES_SHOWN}`)).games;
    if (chosen && !games.some((g) => g.id === chosen)) {
      try { games.push(await api(`/api/v1/games/${encodeURIComponent(chosen)}`)); } catch (e) { /* gone: not offered */ }
    }
  } catch (e) {
    setStatus($("#game-status"), e.message, true);
    return;
  }
  const select = $("#game-select");
  select.replaceChildren(new Option("—", ""), ...games.map((g) =>
    new Option(`${g.players.join(", ")} · ${g.created_at.slice(0, 10)}`, g.id)));
  if (chosen && games.some((g) => g.id === chosen)) {
    select.value = chosen;
    await openGame(chosen);
  }
}

$("#game-select").addEventListener("change", (ev) => openGame(ev.target.value));
$("#game-new-toggle").addEventListener("click", () => { $("#game-new").hidden = !$("#game-new").hidden; });

$("#game-new").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const players = $("#new-players").value.split("\n").map((s) => s.trim()).filter(Boolean);
  const rules = {};
  const preset = $("#new-preset").value;
  try {
    Object.assign(rules, (await presets())[preset].rules);
    if ($("#new-blank").value !== "") rules.double_blank_value = Number($("#new-blank").value);
    if ($("#new-curved").checked) rules.curved_scoring = true;
    const created = await api("/api/v1/games", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ players, set: Number($("#new-set").value), house_rules: rules }),
    });
    $("#game-new").hidden = true;
    game = created;
    localStorage.setItem("chickenfoot.game", created.id);
    await loadGames();
fillPresets();
    setStatus($("#game-status"), "Game started.");
  } catch (e) {
    setStatus($("#game-status"), e.message, true);
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
    $("#new-preset").replaceChildren(...Object.entries(all).map(([name, p]) => new Option(`${name}: ${p.summary}`, name)));
  } catch (e) { /* the form keeps its built-in choices */ }
}

async function openGame(id) {
  if (!id) { game = null; $("#game-view").hidden = true; return; }
  try {
    game = await api(`/api/v1/games/${id}`);
  } catch (e) {
    setStatus($("#game-status"), e.message, true);
    return;
  }
  localStorage.setItem("chickenfoot.game", id);
  renderSheet(game.sheet);
  renderRoundForm();
  $("#game-export").href = `/api/v1/games/${id}/record`;
  $("#game-export").download = `chickenfoot-${id}.json`;
  $("#game-view").hidden = false;
}

function cell(tag, text) { return Object.assign(document.createElement(tag), { textContent: text }); }

function renderSheet(sheet) {
  const table = $("#sheet");
  const head = document.createElement("tr");
  head.append(cell("th", "Double"), ...sheet.player_names.map((n) => cell("th", n)));
  const body = document.createElement("tbody");
  for (const r of sheet.rounds) {
    const tr = document.createElement("tr");
    tr.append(cell("td", String(r.double)), ...r.scores.map((s) => cell("td", String(s))));
    body.append(tr);
  }
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
  $("#sheet-rules").textContent = "House rules: " + sheet.rules_summary;
  $("#round-double").textContent = sheet.complete ? "(game over)" : `(double ${sheet.next_double})`;
  $("#round-form").hidden = sheet.complete;
}

function renderRoundForm() {
  const holder = $("#round-players");
  holder.replaceChildren();
  game.players.forEach((name, seat) => {
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
    wrap.className = "photo-wrap";
    wrap.hidden = true;
    const img = document.createElement("img");
    const svg = document.createElementNS(SVG_NS, "svg");
    wrap.append(img, svg);
    const show = (hand) => {
      row.dataset.hand = hand.hand_id;
      points.value = hand.score;
      points.readOnly = true;
      read.textContent = `read ${hand.tiles.filter((t) => t.pips).map((t) => t.pips.join("-")).join(", ") || "no tiles"} = ${hand.score}`;
      drawTiles(svg, hand.width, hand.height, hand.tiles, async (tile) => {
        const updated = await editTile(hand.hand_id, tile);
        if (updated) show(updated);
      });
    };
    photo.addEventListener("change", async () => {
      const file = photo.files[0];
      if (!file) return;
      read.textContent = "reading…";
      try {
        const hand = await scorePhoto(file, { game_id: game.id });
        showPhoto(img, file, hand.annotated_image);
        wrap.hidden = false;
        show(hand);
      } catch (e) {
        read.textContent = e.message;
      }
    });
    row.append(cell("span", name), points, photoLabel, read, wrap);
    row.firstChild.className = "name";
    holder.append(row);
  });
}

$("#round-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const hands = [...document.querySelectorAll("#round-players .player-row")].map((row) =>
    row.dataset.hand ? { hand_id: row.dataset.hand } : { points: Number(row.querySelector("input[type=number]").value) });
  try {
    const result = await api(`/api/v1/games/${game.id}/rounds`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ hands, index: game.sheet.rounds.length }),
    });
    game.sheet = result.sheet;
    renderSheet(result.sheet);
    renderRoundForm();
    setStatus($("#game-status"), `Round ${result.index + 1} recorded.`);
  } catch (e) {
    setStatus($("#game-status"), e.message, true);
  }
});

// ---- Live -------------------------------------------------------------------
const live = { ws: null, stream: null, waiting: false, timer: null, canvas: document.createElement("canvas"), minInterval: 0.5 };

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

$("#live-start").addEventListener("click", async () => {
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    setStatus($("#live-state"), "this browser cannot use a camera here (it needs localhost or https)", true);
    return;
  }
  try {
    live.stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
  } catch (e) {
    setStatus($("#live-state"), "no camera: " + e.message, true);
    return;
  }
  const video = $("#live-video");
  video.srcObject = live.stream;
  await video.play().catch(() => {});
  const params = new URLSearchParams();
  if (game) params.set("game_id", game.id);
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  live.ws = new WebSocket(`${scheme}://${location.host}/api/v1/live?${params}`);
  live.ws.onmessage = onLiveMessage;
  live.ws.onclose = () => { setStatus($("#live-state"), "stopped"); live.ws = null; };
  live.ws.onerror = () => setStatus($("#live-state"), "the live connection failed", true);
  live.waiting = false;
  setStatus($("#live-state"), "connecting…");
  $("#live-start").disabled = true;
  $("#live-stop").disabled = false;
});

$("#live-stop").addEventListener("click", () => {
  clearTimeout(live.timer);
  if (live.ws) live.ws.close();
  if (live.stream) live.stream.getTracks().forEach((t) => t.stop());
  live.stream = null;
  $("#live-start").disabled = false;
  $("#live-stop").disabled = true;
});

loadGames();
fillPresets();

/* musstats serve: the page's script.  Plain JavaScript, no build step, no dependencies.
 *
 * The state lives in the form controls and in the two card fields (your hand, the dead
 * cards).  Whenever it changes, every result panel asks the server for its answer through
 * the job API (POST /api/jobs with "replaces": the panel's previous job, which the server
 * cancels), polls it for progress and renders the JSON: the same JSON as the command
 * line's --format json.  The URL's #fragment keeps the state, so a link reopens the hand.
 */
"use strict";

(() => {
  const FACES = [12, 11, 10, 7, 6, 5, 4, 3, 2, 1];
  const SUITS = ["oros", "copas", "espadas", "bastos"];
  const LABEL = {12: "R", 11: "C", 10: "S", 7: "7", 6: "6", 5: "5", 4: "4", 3: "3", 2: "2", 1: "A"};
  const FACE_NAME = {12: "rey", 11: "caballo", 10: "sota", 7: "siete", 6: "seis", 5: "cinco", 4: "cuatro",
                     3: "tres", 2: "dos", 1: "as"};
  const SUIT_COLOR = {oros: "#8a6500", copas: "#b71c1c", espadas: "#0d47a1", bastos: "#1b5e20"};
  const LANCES = ["grande", "chica", "pares", "juego", "punto"];
  const LANCE_ES = {grande: "Grande", chica: "Chica", pares: "Pares", juego: "Juego", punto: "Punto"};
  const STATS = ["p_team", "p_self", "p_played", "p_contested", "ev_net"];
  const SEATS = ["mano", "second", "third", "postre"];
  const SEAT_LABEL = {mano: "Mano", second: "Second", third: "Third", postre: "Postre"};
  const DISCARD_ROWS = 6;
  const SVG_NS = "http://www.w3.org/2000/svg";

  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") e.textContent = v;
      else if (k === "class") e.className = v;
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
    return e;
  }

  function svg(tag, attrs) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    return e;
  }

  // ------------------------------------------------------------------ cards

  const cardId = (face, suit) => `${face}/${suit}`;
  const idFace = (id) => Number(id.split("/")[0]);
  const idSuit = (id) => id.split("/")[1];
  const cardName = (id) => `${FACE_NAME[idFace(id)]} de ${idSuit(id)}`;

  /** The rules that change how a card is read. */
  function rules() {
    return {variant: $("variant").value, jr: $("juego_real").value};
  }

  function isJoker(id, r) {
    return r.variant === "ten-kings" && idFace(id) === 10 && (idSuit(id) === "copas" || idSuit(id) === "oros");
  }

  /** The card's notation for the server: R, 3, A ... and S/o, S/c where the rules name the suit. */
  function cardLabel(id, r) {
    const f = idFace(id), s = idSuit(id);
    if (f === 10 && (isJoker(id, r) || (r.jr === "sota-oros" && s === "oros"))) return `S/${s[0]}`;
    return LABEL[f];
  }

  /** Effective rank, higher is better at grande (8 reyes: a 3 is a rey, a 2 an as). */
  function effRank(id, r) {
    const f = idFace(id);
    if (isJoker(id, r)) return 12.5;
    if (r.variant !== "4-reyes") { if (f === 3) return 12; if (f === 2) return 1; }
    return f;
  }

  function sortCards(ids, r) {
    return [...ids].sort((a, b) => effRank(b, r) - effRank(a, r) || idFace(b) - idFace(a)
                                   || SUITS.indexOf(idSuit(a)) - SUITS.indexOf(idSuit(b)));
  }

  const WORDS = {r: 12, rey: 12, reyes: 12, "12": 12, c: 11, caballo: 11, "11": 11, s: 10, sota: 10, "10": 10,
                 "7": 7, siete: 7, "6": 6, seis: 6, "5": 5, cinco: 5, "4": 4, cuatro: 4, "3": 3, tres: 3,
                 "2": 2, dos: 2, a: 1, as: 1, "1": 1};
  const SUIT_WORDS = {o: "oros", oros: "oros", c: "copas", copas: "copas", e: "espadas", espadas: "espadas",
                      b: "bastos", bastos: "bastos"};

  /** Cards from text in the command line's notation: [{face, suit|null}], or null when the text is not
   * understood here (the server then says what is wrong). */
  function parseCards(text) {
    let s = text.trim().toLowerCase();
    s = s.replace(/\s+de\s+(oros|copas|espadas|bastos)\b/g, "/$1").replace(/\s*([/:])\s*/g, "$1");
    const out = [];
    for (const tok of s.split(/[\s,;]+/)) {
      if (!tok) continue;
      const m = tok.match(/^(.+?)[/:](.+)$/);
      if (m) {
        if (!(m[1] in WORDS) || !(m[2] in SUIT_WORDS)) return null;
        out.push({face: WORDS[m[1]], suit: SUIT_WORDS[m[2]]});
      } else if (tok in WORDS) {
        out.push({face: WORDS[tok], suit: null});
      } else {
        if (/\d/.test(tok) && /1/.test(tok)) return null;
        for (const ch of tok) {
          if (!(ch in WORDS) || ch.length !== 1) return null;
          out.push({face: WORDS[ch], suit: null});
        }
      }
    }
    return out;
  }

  /** Physical cards for parsed cards, avoiding ``taken``: a suited card is itself; an unsuited one
   * takes a free suit that means the same (a plain S is never a joker nor, with juego real
   * sota-oros, the sota de oros).  null when the deck cannot give them. */
  function physical(parsed, taken, r) {
    const used = new Set(taken);
    const ids = [];
    for (const c of parsed.filter((x) => x.suit)) {
      const id = cardId(c.face, c.suit);
      if (used.has(id)) return null;
      used.add(id);
      ids.push(id);
    }
    for (const c of parsed.filter((x) => !x.suit)) {
      let suits = SUITS;
      if (c.face === 10 && r.variant === "ten-kings") suits = ["espadas", "bastos"];
      else if (c.face === 10 && r.jr === "sota-oros") suits = ["copas", "espadas", "bastos"];
      const s = suits.find((x) => !used.has(cardId(c.face, x)));
      if (!s) return null;
      used.add(cardId(c.face, s));
      ids.push(cardId(c.face, s));
    }
    return ids;
  }

  function points(id, r) {
    const f = idFace(id);
    if (isJoker(id, r)) return 10;
    if (f >= 10) return 10;
    if (r.variant !== "4-reyes" && f === 3) return 10;
    if (r.variant !== "4-reyes" && f === 2) return 1;
    return f;
  }

  /** "medias · 31 (juego)" from the rules of musstats rules (no summary with jokers). */
  function handSummary(ids, r) {
    if (ids.length !== 4) return "";
    if (ids.some((id) => isJoker(id, r))) return "Your jokers stand for a rey or an as (each holder chooses the best).";
    const counts = {};
    for (const id of ids) counts[effRank(id, r)] = (counts[effRank(id, r)] || 0) + 1;
    const n = Object.values(counts).sort((a, b) => b - a);
    const pares = n[0] === 4 || (n[0] === 2 && n[1] === 2) ? "duples" : n[0] === 3 ? "medias" : n[0] === 2 ? "par"
      : "no pares";
    const total = ids.reduce((s, id) => s + points(id, r), 0);
    let juego = total >= 31 ? `juego ${total}` : `punto ${total}`;
    const sevens = ids.filter((id) => idFace(id) === 7).length;
    if (total === 31 && sevens === 3 && r.jr !== "off") {
      const other = ids.find((id) => idFace(id) !== 7);
      const f = idFace(other);
      const real = r.jr === "figure" ? points(other, r) === 10 && (f >= 10 || (f === 3 && r.variant !== "4-reyes"))
        : r.jr === "sota" ? f === 10 : f === 10 && idSuit(other) === "oros";
      if (real) juego = "31 real";
    }
    return `${pares} · ${juego}`;
  }

  /** One card drawn in SVG (60 x 90 units). */
  function cardSvg(id, r) {
    const f = idFace(id), s = idSuit(id), color = SUIT_COLOR[s];
    const figure = f >= 10;
    const g = svg("svg", {viewBox: "0 0 60 90", class: "face", "aria-hidden": "true", focusable: "false"});
    g.append(svg("rect", {x: 1.5, y: 1.5, width: 57, height: 87, rx: 6, class: figure ? "bg figure" : "bg"}));
    // the suit's frame of a Spanish deck: a band in the suit's colour
    g.append(svg("rect", {x: 5, y: 5, width: 50, height: 80, rx: 3, fill: "none", stroke: color,
                          "stroke-width": 0.8, "stroke-dasharray": {oros: "0", copas: "6 2", espadas: "2 2",
                                                                     bastos: "8 2 2 2"}[s]}));
    const rank = (x, y, rot) => {
      const t = svg("text", {x, y, class: "rank", fill: color, "text-anchor": "middle"});
      if (rot) t.setAttribute("transform", `rotate(180 ${x} ${y - 5})`);
      t.textContent = LABEL[f];
      return t;
    };
    g.append(rank(12, 19), rank(48, 81, true));
    const use = (sym, x, y, w, h) => {
      const u = svg("use", {href: `#${sym}`, x, y, width: w, height: h});
      return u;
    };
    if (figure) {
      if (f === 12) g.append(use("crown", 17, 16, 26, 17));
      const big = svg("text", {x: 30, y: 57, class: "figure-letter", fill: color, "text-anchor": "middle"});
      big.textContent = LABEL[f];
      g.append(big, use(`suit-${s}`, 22, 60, 16, 16));
    } else if (f === 1) {
      g.append(use(`suit-${s}`, 12, 27, 36, 36));
    } else {
      g.append(use(`suit-${s}`, 16, 31, 28, 28));
    }
    let badge = null;
    if (isJoker(id, r)) badge = "J";
    else if (r.variant !== "4-reyes" && f === 3) badge = "=R";
    else if (r.variant !== "4-reyes" && f === 2) badge = "=A";
    if (badge) {
      g.append(svg("rect", {x: 34, y: 7, width: 21, height: 13, rx: 3, class: "badge-bg"}));
      const t = svg("text", {x: 44.5, y: 17, class: "badge", "text-anchor": "middle"});
      t.textContent = badge;
      g.append(t);
    }
    return g;
  }

  // ------------------------------------------------------------------ the two card sets

  /** A card field: its text (sent to the server as it is) and, when understood, its physical cards. */
  const sets = {
    hand: {input: null, text: "", cards: []},
    dead: {input: null, text: "", cards: []},
  };

  function otherSet(name) { return name === "hand" ? sets.dead : sets.hand; }

  function setFromCards(name, ids) {
    const r = rules();
    const st = sets[name];
    st.cards = name === "hand" ? sortCards(ids, r) : ids;
    st.text = st.cards.map((id) => cardLabel(id, r)).join(" ");
    st.input.value = st.text;
  }

  function setFromText(name, text) {
    const st = sets[name];
    st.text = text;
    const parsed = parseCards(text);
    st.cards = parsed === null ? null : physical(parsed, otherSet(name).cards || [], rules());
  }

  /** After a change of rules: the same physical cards, written for the new rules. */
  function rewriteSets() {
    for (const name of ["hand", "dead"]) if (sets[name].cards) setFromCards(name, sets[name].cards);
  }

  function pickTarget() {
    return document.querySelector('input[name="pick"]:checked').value;
  }

  function toggleCard(id) {
    const target = pickTarget();
    const st = sets[target], other = otherSet(target);
    const msg = $("pick-message");
    msg.textContent = "";
    let mine = st.cards ? [...st.cards] : [];
    if (mine.includes(id)) {
      mine = mine.filter((x) => x !== id);
    } else {
      if (target === "hand" && mine.length >= 4) {
        msg.textContent = "Your hand has four cards already: put one back first.";
        return;
      }
      if (other.cards && other.cards.includes(id)) setFromCards(target === "hand" ? "dead" : "hand",
                                                                other.cards.filter((x) => x !== id));
      mine.push(id);
    }
    setFromCards(target, mine);
    changed();
  }

  // ------------------------------------------------------------------ drawing the inputs

  function buildPicker() {
    const grid = $("picker");
    grid.textContent = "";
    SUITS.forEach((s, row) => {
      const tr = el("div", {role: "row", class: "prow"});
      tr.append(el("div", {role: "rowheader", class: `suit-name suit-${s}`, text: s}));
      FACES.forEach((f, col) => {
        const id = cardId(f, s);
        const b = el("button", {type: "button", class: "pcard", "data-card": id, "data-row": row, "data-col": col,
                                tabindex: row === 0 && col === 0 ? 0 : -1});
        b.addEventListener("click", () => toggleCard(id));
        b.addEventListener("keydown", pickerKeys);
        tr.append(el("div", {role: "gridcell"}, b));
      });
      grid.append(tr);
    });
  }

  function pickerKeys(ev) {
    const row = Number(ev.currentTarget.dataset.row), col = Number(ev.currentTarget.dataset.col);
    const moves = {ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0]};
    let r = row, c = col;
    if (ev.key in moves) { r = (row + moves[ev.key][0] + 4) % 4; c = (col + moves[ev.key][1] + 10) % 10; }
    else if (ev.key === "Home") c = 0;
    else if (ev.key === "End") c = 9;
    else return;
    ev.preventDefault();
    const next = document.querySelector(`.pcard[data-row="${r}"][data-col="${c}"]`);
    for (const b of document.querySelectorAll(".pcard")) b.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  }

  function drawCards() {
    const r = rules();
    const hand = sets.hand.cards || [], dead = sets.dead.cards || [];
    for (const b of document.querySelectorAll(".pcard")) {
      const id = b.dataset.card;
      const where = hand.includes(id) ? "hand" : dead.includes(id) ? "dead" : "";
      b.textContent = "";
      b.append(cardSvg(id, r));
      b.dataset.where = where;
      b.setAttribute("aria-label", cardName(id) + (isJoker(id, r) ? " (joker)" : "") +
                     (where === "hand" ? ", in your hand" : where === "dead" ? ", a dead card" : ""));
    }
    const view = $("hand-view");
    view.textContent = "";
    const shown = sets.hand.cards || [];
    for (let i = 0; i < 4; i++) {
      const id = shown[i];
      if (id) {
        const b = el("button", {type: "button", class: "hcard", "aria-label": `${cardName(id)}: put it back`,
                                title: "Put it back"});
        b.append(cardSvg(id, r));
        b.addEventListener("click", () => {
          setFromCards("hand", sets.hand.cards.filter((x) => x !== id));
          changed();
        });
        view.append(b);
      } else {
        view.append(el("div", {class: "hslot", "aria-hidden": "true", text: "?"}));
      }
    }
    if (sets.hand.cards === null && sets.hand.text.trim()) {
      $("hand-summary").textContent = "Typed: " + sets.hand.text;
    } else {
      $("hand-summary").textContent = handSummary(shown, r);
    }
  }

  function mySeat() { return document.querySelector('input[name="seat"]:checked').value; }

  const decl = {};  // seat -> {pares: "", juego: ""}

  function buildDeclarations() {
    const me = mySeat();
    const box = $("decl-rows");
    box.textContent = "";
    const tenKings = rules().variant === "ten-kings";
    for (const q of SEATS.filter((x) => x !== me)) {
      decl[q] = decl[q] || {pares: "", juego: ""};
      const row = el("div", {class: "decl-row", role: "group", "aria-label": SEAT_LABEL[q]});
      row.append(el("span", {class: "decl-seat", text: SEAT_LABEL[q] + (q === partnerOf(me) ? " (partner)" : "")}));
      for (const lance of ["pares", "juego"]) {
        const id = `decl-${q}-${lance}`;
        const sel = el("select", {id, disabled: tenKings});
        for (const [v, t] of [["", "?"], [lance, lance], [`no-${lance}`, `no ${lance}`]]) {
          sel.append(el("option", {value: v, text: t, selected: decl[q][lance] === v}));
        }
        sel.addEventListener("change", () => { decl[q][lance] = sel.value; changed(); });
        row.append(el("label", {for: id, class: "sr-only", text: `${SEAT_LABEL[q]}, ${lance}`}), sel);
      }
      box.append(row);
    }
    $("decl-help").textContent = tenKings ? "Declarations and señas are not available with ten kings (a joker's "
      + "pares and juego depend on its identity)." : "Truthful declarations before pares and juego narrow the "
      + "other hands (for the odds and the órdago).";
    $("signal").disabled = tenKings;
  }

  function partnerOf(q) { return SEATS[(SEATS.indexOf(q) + 2) % 4]; }

  function declaredText() {
    const me = mySeat(), items = [];
    for (const q of SEATS) {
      if (q === me || !decl[q]) continue;
      for (const lance of ["pares", "juego"]) if (decl[q][lance]) items.push(`${q}:${decl[q][lance]}`);
    }
    return items.join(",");
  }

  function describeRules() {
    const r = rules(), me = mySeat();
    const help = {"8-reyes": "With 8 reyes the 3s are reyes and the 2s ases.",
                  "4-reyes": "With 4 reyes every card keeps its own rank and points.",
                  "ten-kings": "Ten kings: 8 reyes, and the sotas de copas and oros (S/c, S/o) are jokers, each a "
                    + "rey or an as. Odds by Monte Carlo."}[r.variant];
    $("variant-help").textContent = help;
    const mine = me === "mano" || me === "third" ? "mano and third" : "second and postre";
    const theirs = mine === "mano and third" ? "second and postre" : "mano and third";
    $("team-line").textContent = `Your partner is ${partnerOf(me)}: ${mine} against ${theirs}.`;
    const jrSota = $("juego_real").querySelector('option[value="sota-oros"]');
    jrSota.disabled = r.variant === "ten-kings";
    const target = Number($("target").value);
    for (const id of ["score-us", "score-them"]) $(id).max = String(target - 1);
  }

  // ------------------------------------------------------------------ the requests

  function num(id) {
    const v = $(id).value.trim();
    return v === "" ? null : Number(v);
  }

  function commonParams() {
    const r = rules();
    const p = {hand: sets.hand.text.trim(), seat: mySeat()};
    if (r.variant !== "8-reyes") p.variant = r.variant;
    if (r.jr !== "off") p.juego_real = r.jr;
    if ($("redeal_4567").checked) p.redeal_4567 = true;
    if ($("mus_visto").checked) p.mus_visto = true;
    return p;
  }

  function conditions(p) {
    const d = declaredText();
    if (d) p.declared = d;
    if ($("signal").value && !$("signal").disabled) p.signal = $("signal").value;
    return p;
  }

  function oddsParams() {
    const p = conditions(commonParams());
    if (sets.dead.text.trim()) p.dead = sets.dead.text.trim();
    const method = $("method").value, trials = num("trials"), seed = num("seed");
    if (method) p.method = method;
    const mc = method === "mc" || rules().variant === "ten-kings";
    if (mc && trials !== null) p.trials = trials;
    if (mc && seed !== null) p.seed = seed;
    return p;
  }

  function musPhaseParams(withObjective) {
    const p = commonParams();
    if (withObjective && $("objective").value !== "total") p.objective = $("objective").value;
    if ($("policy").value !== "table") p.policy = $("policy").value;
    const trials = num("keep-trials"), seed = num("seed");
    if (trials !== null) p.trials = trials;
    if (seed !== null) p.seed = seed;
    return p;
  }

  function ordagoParams(lance) {
    const p = conditions(commonParams());
    if ($("target").value !== "40") p.target = Number($("target").value);
    p.lance = lance;
    p.score = `${num("score-us") ?? 0}-${num("score-them") ?? 0}`;
    if ($("equilibrium").checked) p.equilibrium = true;
    return p;
  }

  function chartSize() {
    return window.innerWidth < 640 ? "760x620" : "1000x560";
  }

  /** Panels and the jobs ("slots") that fill them. */
  const panels = {};
  const slots = {};

  function addSlot(name, panel, kind, params, render) {
    slots[name] = {name, panel, kind, params, render, key: null, gen: 0, jobId: null, status: null,
                   error: null, result: null};
    panels[panel] = panels[panel] || {name: panel, root: $(`${panel}-panel`), slots: []};
    panels[panel].slots.push(name);
  }

  addSlot("odds", "odds", "odds", oddsParams, renderOdds);
  for (const lance of LANCES) addSlot(`ordago-${lance}`, "ordago", "ordago", () => ordagoParams(lance), renderOrdago);
  addSlot("discard", "discard", "discard", () => musPhaseParams(true), renderDiscard);
  addSlot("mus", "mus", "mus", () => musPhaseParams(false), renderMus);
  addSlot("chart", "chart", "chart", chartParams, renderChart);

  /** The chart draws the odds of the table: the same parameters, and the seed a Monte Carlo run used. */
  function chartParams() {
    const p = {...oddsParams(), size: chartSize()};
    const odds = slots.odds && slots.odds.result && slots.odds.result.result;
    if (odds && odds.method === "mc" && p.seed === undefined) p.seed = odds.seed;
    return p;
  }

  async function api(method, url, body) {
    const opts = {method, headers: {}};
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const res = await fetch(url, opts);
    let data = {};
    try { data = await res.json(); } catch (e) { data = {error: `the server answered ${res.status}`}; }
    data.httpStatus = res.status;
    return data;
  }

  async function runSlot(name, force) {
    const slot = slots[name];
    const params = slot.params();
    const key = JSON.stringify(params);
    if (!force && key === slot.key) return;
    slot.key = key;
    const gen = ++slot.gen;
    const replaces = slot.jobId;
    slot.jobId = null;
    slot.error = null;
    slot.status = {state: "queued", done: 0, total: 0};
    paintPanel(slot.panel);
    let st;
    try {
      st = await api("POST", "/api/jobs", {kind: slot.kind, params, replaces});
    } catch (e) {
      if (gen === slot.gen) failSlot(slot, `the server does not answer (${e.message})`, 0);
      return;
    }
    if (gen !== slot.gen) {  // replaced while we were asking: the newer request cancelled nothing
      if (st.id) api("DELETE", `/api/jobs/${st.id}`).catch(() => {});
      return;
    }
    if (st.httpStatus >= 400) { failSlot(slot, st.error, st.httpStatus); return; }
    slot.jobId = st.id;
    while (st.state === "queued" || st.state === "running") {
      slot.status = st;
      paintPanel(slot.panel);
      try {
        st = await api("GET", `/api/jobs/${st.id}?wait=0.3`);
      } catch (e) {
        if (gen === slot.gen) failSlot(slot, `the server does not answer (${e.message})`, 0);
        return;
      }
      if (gen !== slot.gen) return;
    }
    slot.status = st;
    if (st.state === "done") {
      try {
        slot.result = st;
        await slot.render(slot, st);
      } catch (e) {
        failSlot(slot, `could not show the answer (${e.message})`, 0);
        return;
      }
    } else if (st.state === "cancelled") {
      slot.key = null;  // a later change or Recompute runs it again
    } else {
      failSlot(slot, st.error || `the server answered ${st.httpStatus}`, st.status || st.httpStatus);
      return;
    }
    paintPanel(slot.panel);
    paintStatus();
    if (slot.name === "odds" && st.state === "done") runSlot("chart");  // the chart draws these odds
  }

  function failSlot(slot, message, status) {
    slot.status = {state: "error"};
    slot.error = {message: message || "unknown error", status};
    slot.result = null;
    if (slot.name === "odds") {
      setTopError(message);
      const chart = slots.chart;  // no odds, no chart
      chart.gen++;
      chart.key = null;
      chart.status = null;
      clearPanel(chart);
      paintPanel("chart");
    }
    clearPanel(slot);
    paintPanel(slot.panel);
    paintStatus();
  }

  async function cancelPanel(panel) {
    for (const name of panels[panel].slots) {
      const slot = slots[name];
      const running = slot.status && (slot.status.state === "queued" || slot.status.state === "running");
      if (slot.jobId && running) {
        slot.gen++;
        slot.key = null;
        slot.status = {state: "cancelled"};
        api("DELETE", `/api/jobs/${slot.jobId}`).catch(() => {});
      }
    }
    paintPanel(panel);
    paintStatus();
  }

  function cancelAll() {
    for (const slot of Object.values(slots)) {
      if (slot.jobId && slot.status && (slot.status.state === "queued" || slot.status.state === "running")) {
        api("DELETE", `/api/jobs/${slot.jobId}`).catch(() => {});
      }
      slot.gen++;
      slot.key = null;
      slot.jobId = null;
      slot.status = null;
      slot.error = null;
      slot.result = null;
      clearPanel(slot);
    }
    for (const p of Object.keys(panels)) paintPanel(p);
  }

  let topError = "";

  function setTopError(message) {
    topError = message || "";
    const box = $("error");
    box.hidden = !topError;
    box.textContent = topError ? `Cannot compute the odds: ${topError}` : "";
    for (const p of Object.keys(panels)) paintPanel(p);
  }

  /** A panel's progress, errors and busy state from its slots. */
  function paintPanel(panel) {
    const P = panels[panel];
    const root = P.root;
    const states = P.slots.map((n) => slots[n]);
    const running = states.filter((s) => s.status && (s.status.state === "queued" || s.status.state === "running"));
    const run = root.querySelector(".run");
    const bar = run.querySelector("progress");
    const text = run.querySelector(".run-text");
    root.setAttribute("aria-busy", running.length ? "true" : "false");
    run.hidden = running.length === 0;
    if (running.length) {
      const withTotal = running.find((s) => s.status.total > 0);
      if (withTotal) {
        bar.max = withTotal.status.total;
        bar.value = withTotal.status.done;
        text.textContent = `${fmtInt(withTotal.status.done)} of ${fmtInt(withTotal.status.total)} deals`;
      } else {
        bar.removeAttribute("value");
        text.textContent = running.every((s) => s.status.state === "queued") ? "waiting…" : "computing…";
      }
    }
    const errors = states.filter((s) => s.error);
    const box = root.querySelector(".panel-error");
    // the hand's own error is shown once, above the panels; órdago rows show why a lance is not bet,
    // unless every lance says the same (a bad score)
    const shown = errors.find((s) => s.error.message !== topError
                              && !(panel === "ordago" && s.error.status === 400 && !sharedOrdagoError(s.error.message)));
    const cancelled = states.some((s) => s.status && s.status.state === "cancelled");
    if (shown) {
      box.hidden = false;
      box.textContent = shown.error.message;
    } else if (cancelled) {
      box.hidden = false;
      box.textContent = "Cancelled. Change the hand or press Recompute to run it again.";
    } else {
      box.hidden = true;
      box.textContent = "";
    }
    root.classList.toggle("stale", running.length > 0 || Boolean(shown));
  }

  function paintStatus() {
    const all = Object.values(slots);
    const busy = all.filter((s) => s.status && (s.status.state === "queued" || s.status.state === "running"));
    const status = $("status");
    if (!sets.hand.text.trim()) {
      status.textContent = "Pick four cards.";
    } else if (!handReady()) {
      const n = 4 - parseCards(sets.hand.text).length;
      status.textContent = `Pick ${n} more card${n > 1 ? "s" : ""}.`;
    } else if (busy.length) {
      status.textContent = `Computing… (${busy.length} question${busy.length > 1 ? "s" : ""} open)`;
    } else if (topError) {
      status.textContent = "That hand cannot be computed.";
    } else {
      status.textContent = "Up to date.";
    }
  }

  // ------------------------------------------------------------------ rendering the answers

  const fmtInt = (n) => Number(n).toLocaleString("en-US");

  function pct(m, se) {
    if (m === null || m === undefined || Number.isNaN(m)) return "–";
    return `${(100 * m).toFixed(2)} %` + (se > 0 ? ` ± ${(100 * se).toFixed(2)}` : "");
  }

  function ev(m, se) {
    if (m === null || m === undefined || Number.isNaN(m)) return "–";
    return `${m >= 0 ? "+" : "−"}${Math.abs(m).toFixed(3)}` + (se > 0 ? ` ± ${se.toFixed(3)}` : "");
  }

  /** The command line's title: "R R 3 A · mano · 8-reyes · dead 7 7 · declared second:pares". */
  function title(d, what) {
    const parts = [];
    if (d.hand) parts.push(d.hand.join(" "));
    if (d.seat) parts.push(d.seat);
    parts.push(d.variant);
    const r = d.rules || {};
    if (r.juego_real && r.juego_real !== "off") parts.push(`juego real ${r.juego_real}`);
    if (r.redeal_4567) parts.push("4-5-6-7 redealt");
    if (r.mus_visto) parts.push("mus visto");
    if (d.dead && d.dead.length) parts.push("dead " + d.dead.join(" "));
    for (const [k, v] of Object.entries(d.conditions || {})) parts.push(`${k} ${v}`);
    if (what) parts.push(what);
    return parts.filter(Boolean).join(" · ");
  }

  function runCaption(d) {
    if (d.method === "exact") return "exact enumeration";
    let t = `Monte Carlo, ${fmtInt(d.trials || 0)} deals`;
    if (d.seed !== null && d.seed !== undefined) t += `, seed ${d.seed}`;
    if (d.partial) t += " (partial)";
    return t;
  }

  /** A percentage cell: "99.17 %" (the unit is a span that a phone screen hides to save width). */
  function pctCell(m, se, attrs) {
    const td = el("td", attrs || {});
    if (m === null || m === undefined || Number.isNaN(m)) { td.textContent = "–"; return td; }
    td.append(`${(100 * m).toFixed(2)}`, el("span", {class: "unit", text: " %"}));
    if (se > 0) td.append(` ± ${(100 * se).toFixed(2)}`);
    return td;
  }

  /** The engine names a keep-set by card classes ("R R R" for R R 3 with 8 reyes): the player's own cards. */
  function keepCards(label) {
    const hand = sets.hand.cards;
    const r = rules();
    if (!hand || hand.length !== 4 || label === "–" || /[a-z]/.test(label)) return label;
    const classOf = (id) => (isJoker(id, r) ? "J" : r.variant === "4-reyes" ? LABEL[idFace(id)]
      : LABEL[{3: 12, 2: 1}[idFace(id)] || idFace(id)]);
    const left = [...hand];
    const out = [];
    for (const tok of label.split(/\s+/)) {
      let i = left.findIndex((id) => cardLabel(id, r) === tok);
      if (i < 0) i = left.findIndex((id) => classOf(id) === tok);
      if (i < 0) return label;
      out.push(cardLabel(left[i], r));
      left.splice(i, 1);
    }
    return out.join(" ");
  }

  function lanceCell(lance) {
    return el("th", {scope: "row"}, el("span", {lang: "es", text: LANCE_ES[lance]}));
  }

  function renderOdds(slot, st) {
    const d = st.result;
    setTopError("");
    const body = $("odds-body");
    body.textContent = "";
    for (const lance of LANCES) {
      const e = d.lances[lance];
      const tr = el("tr", {"data-lance": lance}, lanceCell(lance));
      for (const s of STATS) {
        if ((e.p_played === 0 && s !== "p_played") || !(s in e) || e[s] === null) {
          tr.append(el("td", {"data-stat": s, text: "–"}));
        } else if (s === "ev_net") {
          tr.append(el("td", {"data-stat": s, text: ev(e[s], e.se[s])}));
        } else {
          tr.append(pctCell(e[s], e.se[s], {"data-stat": s}));
        }
      }
      body.append(tr);
    }
    $("odds-caption").textContent = title(d);
    $("odds-run").textContent = runCaption(d) + ". EV net = expected stones en paso, ours minus theirs; "
      + "– = not played.";
    const box = $("odds-identities");
    box.textContent = "";
    if (d.identities && d.identities.length) {
      const t = el("table", {class: "numbers"},
        el("caption", {text: "With your jokers fixed (the other holders still choose theirs): EV net"}));
      const head = el("tr", {}, el("th", {scope: "col", text: "Identity"}));
      for (const lance of LANCES) head.append(el("th", {scope: "col"}, el("span", {lang: "es", text: LANCE_ES[lance]})));
      head.append(el("th", {scope: "col", text: "Total"}));
      t.append(el("thead", {}, head));
      const tb = el("tbody");
      for (const it of d.identities) {
        const tr = el("tr", {}, el("th", {scope: "row", text: it.identity}));
        let total = 0;
        for (const lance of LANCES) {
          const e = it.lances[lance];
          total += e.ev_net || 0;
          tr.append(el("td", {text: e.p_played === 0 ? "–" : ev(e.ev_net, 0)}));
        }
        tr.append(el("td", {text: ev(total, 0)}));
        tb.append(tr);
      }
      t.append(tb);
      box.append(el("div", {class: "scroll"}, t));
    }
    $("odds-cli").textContent = cliLine("odds", JSON.parse(slot.key));
  }

  let discardAll = false;

  function renderDiscard(slot, st) {
    const d = st.result;
    const body = $("discard-body");
    body.textContent = "";
    const rows = discardAll ? d.keep_sets : d.keep_sets.slice(0, DISCARD_ROWS);
    rows.forEach((row, i) => {
      const keep = el("th", {scope: "row"}, row.recommended ? el("span", {class: "star", "aria-label": "recommended",
                                                                           text: "★ "}) : null,
                        el("span", {title: `keep-set ${row.keep}`, text: keepCards(row.keep)}));
      const tr = el("tr", {class: row.recommended ? "best" : ""}, keep);
      tr.append(el("td", {text: ev(row.ev_total, row.se_total)}));
      tr.append(el("td", {text: i === 0 ? "best" : `${row.gap_to_best.toFixed(3)} ± ${row.se_gap.toFixed(3)}`}));
      for (const lance of LANCES) tr.append(el("td", {text: ev(row[`ev_${lance}`], 0)}));
      body.append(tr);
    });
    const best = d.keep_sets[0];
    $("discard-best").textContent = (best.keep === "–" ? "Throw all four" : `Keep ${keepCards(best.keep)}`)
      + (best.discard && best.keep !== "–" ? `, throw ${best.discard}.` : ".")
      + (d.close ? " The next keep-set is within 2 standard errors: more deals may separate them." : "");
    $("discard-caption").textContent = title(d, d.objective === "total" ? "" : `objective ${d.objective}`);
    $("discard-note").textContent = `Expected stones en paso per lance after ${d.rounds} mus round(s), given that `
      + `the mus round happens; the others discard by ${d.others_discard_by}. ${runCaption(d)} per keep-set. `
      + "Dead cards and declarations do not enter here.";
    const more = $("discard-more");
    more.hidden = d.keep_sets.length <= DISCARD_ROWS;
    more.textContent = discardAll ? `Show the best ${DISCARD_ROWS}` : `Show all ${d.keep_sets.length} keep-sets`;
    more.setAttribute("aria-expanded", discardAll ? "true" : "false");
  }

  function renderMus(slot, st) {
    const d = st.result;
    const ask = d.advice !== "cut";
    const adv = $("mus-advice");
    adv.textContent = ask ? "Ask for mus" : "Cut the mus";
    adv.className = "advice " + (ask ? "go" : "stop");
    const diff = d.difference;
    let txt = `Mus − cut: ${ev(diff.value, diff.se)} stones, keeping ${keepCards(d.keep)} (the others discard by `
      + `${d.others_discard_by}). Cut: ${ev(d.cut.ev_total, d.cut.se)}; after the mus: `
      + `${ev(d.mus.ev_total, d.mus.se)}.`;
    if (!(d.rules && d.rules.mus_visto)) {
      txt += ` The mus happens only when the other three ask for it too: ${(100 * d.p_others_ask).toFixed(1)} % of `
        + "deals; otherwise your choice changes nothing.";
    }
    $("mus-detail").textContent = txt + ` ${runCaption(d)}.`;
  }

  /** An órdago error that more than one lance gives (it is about the question, not the lance). */
  function sharedOrdagoError(message) {
    return LANCES.filter((l) => {
      const e = slots[`ordago-${l}`].error;
      return e && e.message === message;
    }).length > 1;
  }

  function renderOrdago() {
    const body = $("ordago-body");
    body.textContent = "";
    let game = null;
    const advice = [];
    for (const lance of LANCES) {
      const slot = slots[`ordago-${lance}`];
      const tr = el("tr", {"data-lance": lance}, lanceCell(lance));
      const d = slot.result && slot.result.result;
      if (slot.error && (slot.error.message === topError || slot.error.status !== 400
                         || sharedOrdagoError(slot.error.message))) {
        for (let i = 0; i < 5; i++) tr.append(el("td", {text: "–"}));
      } else if (slot.error) {
        tr.append(el("td", {text: "–"}), el("td", {colspan: 4, class: "why", text: slot.error.message}));
      } else if (d) {
        game = game || d;
        tr.append(pctCell(d.p_lance, 0),
                  el("td", {class: d.call ? "yes" : "no", text: d.call ? "Call" : "Don't call"}),
                  el("td", {class: d.accept ? "yes" : "no", text: d.accept ? "Accept" : "Refuse"}));
        const eq = d.equilibrium;
        if (eq && eq.call && eq.answer) {
          const c = eq.call, a = eq.answer;
          tr.append(el("td", {class: c.decision === "pass" ? "no" : "yes", "data-eq": "call",
                              title: `P(they accept) ${pct(c.p_they_accept, 1)}; P(win the game) `
                                + `${pct(c.p_win_game_if_call, 1)} calling, ${pct(c.p_win_game_if_pass, 1)} passing`,
                              text: c.decision === "pass" ? "Don't call" : "Call"}),
                    el("td", {class: a.decision === "refuse" ? "no" : "yes", "data-eq": "answer",
                              title: `P(win the lance | they called) ${pct(a.p_win_lance_if_called, 1)}`,
                              text: a.decision === "refuse" ? "Refuse" : "Accept"}));
        } else {
          tr.append(el("td", {colspan: 2, class: "why",
                              text: $("equilibrium").checked ? ((eq && eq.note) || "–") : "tick the box above"}));
        }
        advice.push(`${LANCE_ES[lance]}: ${d.advice}`);
      } else {
        for (let i = 0; i < 5; i++) tr.append(el("td", {text: "…"}));
      }
      body.append(tr);
    }
    if (game) {
      const sc = game.score;
      $("ordago-h").textContent = "";
      $("ordago-h").append(el("span", {lang: "es", text: "Órdago"}), ` at ${sc.us}-${sc.them}`);
      $("ordago-game").textContent = `Call when P(win the lance) ≥ ${pct(game.break_even.call, 0)}; accept theirs `
        + `when it is > ${pct(game.break_even.accept, 0)}.`;
      $("ordago-caption").textContent = title(game, `game to ${sc.target}`);
      const notes = (game.notes || []).join("; ");
      $("ordago-note").textContent = `P(win the game) from ${sc.us}-${sc.them} without an órdago: `
        + `${pct(game.p_game, 0)}, ${pct(game.p_game_if_we_refuse, 0)} if we refuse theirs (they take 1 stone); `
        + `a game to ${sc.target}, your team ${game.game_model.mano === "us" ? "is" : "is not"} mano. `
        + "P(win the lance) counts pares and juego when both teams hold them, punto when it is played."
        + (notes ? ` Note: ${notes}.` : "");
      $("ordago-note").title = advice.join("\n");
    }
  }

  async function renderChart(slot, st) {
    const res = await fetch(st.result_url);
    if (!res.ok) throw new Error(`the chart answered ${res.status}`);
    const blob = await res.blob();
    const img = $("chart");
    const old = img.dataset.url;
    img.src = URL.createObjectURL(blob);
    img.dataset.url = img.src;
    if (old) URL.revokeObjectURL(old);
    const p = JSON.parse(slot.key);
    img.alt = `Chart of P(team) and expected stones per lance for ${p.hand} at ${p.seat}; the same figures are `
      + "in the odds table.";
    img.hidden = false;
  }

  function clearPanel(slot) {
    if (slot.name === "odds") {
      $("odds-body").textContent = "";
      $("odds-caption").textContent = "–";
      $("odds-run").textContent = "";
      $("odds-identities").textContent = "";
      $("odds-cli").textContent = "";
    } else if (slot.name === "discard") {
      $("discard-body").textContent = "";
      $("discard-best").textContent = "";
      $("discard-note").textContent = "";
      $("discard-caption").textContent = "–";
      $("discard-more").hidden = true;
    } else if (slot.name === "mus") {
      $("mus-advice").textContent = "";
      $("mus-detail").textContent = "";
    } else if (slot.name === "chart") {
      const img = $("chart");
      img.hidden = true;
      if (img.dataset.url) URL.revokeObjectURL(img.dataset.url);
      img.removeAttribute("src");
      delete img.dataset.url;
    } else if (slot.kind === "ordago") {
      renderOrdago();
    }
  }

  /** The same question on the command line. */
  function cliLine(kind, p) {
    const q = (s) => (/^[\w./:,=+-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
    const args = ["musstats", kind, ...String(p.hand).split(/\s+/).filter(Boolean).map(q)];
    const flag = {seat: "--seat", variant: "--variant", juego_real: "--juego-real", target: "--target",
                  method: "--method", trials: "--trials", seed: "--seed", declared: "--declared", signal: "--signal",
                  objective: "--objective", policy: "--policy", lance: "--lance", score: "--score"};
    for (const [k, v] of Object.entries(p)) {
      if (k === "hand" || k === "size") continue;
      if (k === "redeal_4567" && v) args.push("--redeal-4567");
      else if (k === "mus_visto" && v) args.push("--mus-visto");
      else if (k === "dead") args.push("--dead", ...String(v).split(/\s+/).map(q));
      else if (flag[k]) args.push(flag[k], q(String(v)));
    }
    return args.join(" ");
  }

  // ------------------------------------------------------------------ state changes

  let timer = null;

  function changed(immediate) {
    drawCards();
    describeRules();
    saveHash();
    paintStatus();
    clearTimeout(timer);
    timer = setTimeout(update, immediate ? 0 : 150);
  }

  function handReady() {
    const text = sets.hand.text.trim();
    if (!text) return false;
    const parsed = parseCards(text);
    return !(parsed !== null && parsed.length < 4);  // fewer than four known cards: wait for more
  }

  function update(force) {
    if (!handReady()) {
      cancelAll();
      setTopError("");
      paintStatus();
      return;
    }
    for (const name of Object.keys(slots)) if (name !== "chart") runSlot(name, force === true);
    const odds = slots.odds;  // the chart follows the odds (see runSlot); here only when they are current
    if (odds.result && odds.status && odds.status.state === "done" && odds.key === JSON.stringify(oddsParams())) {
      runSlot("chart", force === true);
    }
    paintStatus();
  }

  // ------------------------------------------------------------------ the URL fragment

  const HASH_FIELDS = ["variant", "juego_real", "target", "signal", "method", "trials", "seed", "objective",
                       "policy", "keep-trials", "score-us", "score-them"];

  function saveHash() {
    const h = new URLSearchParams();
    if (sets.hand.text.trim()) h.set("hand", sets.hand.text.trim());
    if (sets.dead.text.trim()) h.set("dead", sets.dead.text.trim());
    h.set("seat", mySeat());
    for (const id of HASH_FIELDS) {
      const e = $(id);
      if (e.value !== e.defaultValue && !(e.tagName === "SELECT" && e.selectedIndex === defaultIndex(e))) {
        h.set(id, e.value);
      }
    }
    for (const id of ["redeal_4567", "mus_visto"]) if ($(id).checked) h.set(id, "1");
    const d = declaredText();
    if (d) h.set("declared", d);
    history.replaceState(null, "", "#" + h.toString());
  }

  function defaultIndex(sel) {
    const i = [...sel.options].findIndex((o) => o.defaultSelected);
    return i < 0 ? 0 : i;
  }

  function loadHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    for (const id of HASH_FIELDS) if (h.has(id)) $(id).value = h.get(id);
    for (const id of ["redeal_4567", "mus_visto"]) $(id).checked = h.get(id) === "1";
    const seat = h.get("seat");
    if (SEATS.includes(seat)) document.querySelector(`input[name="seat"][value="${seat}"]`).checked = true;
    for (const item of (h.get("declared") || "").split(",")) {
      const [q, what] = item.split(":");
      if (!SEATS.includes(q) || !what) continue;
      decl[q] = decl[q] || {pares: "", juego: ""};
      decl[q][what.includes("pares") ? "pares" : "juego"] = what;
    }
    if (h.get("hand")) { sets.hand.input.value = h.get("hand"); setFromText("hand", h.get("hand")); }
    if (h.get("dead")) { sets.dead.input.value = h.get("dead"); setFromText("dead", h.get("dead")); }
  }

  // ------------------------------------------------------------------ wiring

  function init() {
    sets.hand.input = $("hand-text");
    sets.dead.input = $("dead-text");
    buildPicker();
    loadHash();
    buildDeclarations();
    for (const name of ["hand", "dead"]) {
      sets[name].input.addEventListener("input", () => { setFromText(name, sets[name].input.value); changed(); });
      $(`${name}-clear`).addEventListener("click", () => { setFromCards(name, []); changed(true); });
    }
    for (const r of document.querySelectorAll('input[name="seat"]')) {
      r.addEventListener("change", () => { buildDeclarations(); changed(true); });
    }
    for (const id of ["variant", "juego_real"]) {
      $(id).addEventListener("change", () => {
        if ($("variant").value === "ten-kings" && $("juego_real").value === "sota-oros") $("juego_real").value = "off";
        rewriteSets();
        buildDeclarations();
        changed(true);
      });
    }
    for (const id of ["target", "signal", "method", "objective", "policy", "redeal_4567", "mus_visto", "equilibrium"]) {
      $(id).addEventListener("change", () => changed(true));
    }
    for (const id of ["trials", "seed", "keep-trials", "score-us", "score-them"]) {
      $(id).addEventListener("input", () => changed());
    }
    for (const p of Object.keys(panels)) {
      panels[p].root.querySelector(".cancel").addEventListener("click", () => cancelPanel(p));
    }
    $("recompute").addEventListener("click", () => update(true));
    $("discard-more").addEventListener("click", () => {
      discardAll = !discardAll;
      const s = slots.discard;
      if (s.result) renderDiscard(s, s.result);
    });
    window.addEventListener("resize", () => { clearTimeout(timer); timer = setTimeout(update, 400); });
    changed(true);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

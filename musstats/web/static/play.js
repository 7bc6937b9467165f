/* musstats serve: the practice table's script.  Plain JavaScript, no build step, no dependencies.
 *
 * The game lives on the server (POST /api/play, then /api/play/{id}/...); this page keeps only
 * the game's id (in sessionStorage: one per tab, so two tabs never share a game) and shows
 * what the server says: the bots' actions one by one at the chosen pace, the player's legal
 * actions as buttons, his cards (tap them to throw), hints, the count, every seat's cards and
 * the review of each hand and of the game.  The page computes no figure itself.
 *
 * Two languages like the rest of the page (the choice is shared with it); the names of the
 * lances and of the actions are the Spanish ones in both.
 */
"use strict";

(() => {
  const {FACE_NAME, el, svg} = window.MusCards;
  const LANCE_ES = {grande: "Grande", chica: "Chica", pares: "Pares", juego: "Juego", punto: "Punto",
                    mus: "Mus", discard: "Descarte"};
  const $ = (id) => document.getElementById(id);

  // ------------------------------------------------------------------ language

  const STR = {
    en: {
      "subtitle": "Practice table", "skip": "Skip to your actions", "nav.analyse": "Analyse a hand",
      "board.h": "The table", "my.cards": "Your cards", "actions.aria": "Your actions",
      "hint.btn": "Hint", "save.btn": "Save the history", "pace": "Bots' pace", "pace.slow": "slow",
      "pace.normal": "normal", "pace.fast": "fast", "pace.instant": "at once",
      "hint.h": "Hint: the equilibrium's figures", "review.h": "Review of the hand", "log.h": "What has been said",
      "settings.h": "New game", "target": "Game to", "target.40": "40 stones", "target.30": "30 stones",
      "match": "Play", "match.single": "one game", "match.best-of-3": "best of three games",
      "match.first-to-3": "first to three games", "seed": "Seed", "seed.ph": "random", "new.btn": "Start a new game",
      "about": "Your partner and both rivals are bots: they bet by the shipped equilibrium strategies of each lance, "
        + "cut or ask for mus by the mus decision's equilibrium and throw by the shipped discard table. After each hand: every "
        + "seat's cards, the count and the review of your decisions.",
      "foot": "Rules of “musstats rules”: 8 reyes, no juego real. Stones lost: the expected stones of the "
        + "equilibrium's best action minus those of yours (0 for an action the equilibrium plays); the history "
        + "file is reviewed the same way by “musstats review”.",
      "place.0": "You", "place.1": "Right rival", "place.2": "Partner", "place.3": "Left rival",
      "seat.mano": "mano", "seat.second": "second", "seat.third": "third", "seat.postre": "postre",
      "us": "Us", "them": "Them", "amarracos": "{a} amarracos + {p} stones", "score.of": "{n} of {t}",
      "games": "Games {us}-{them}", "hand.n": "Game {g} · hand {h}", "mano.is": "{who} is mano",
      "dealer": "deals",
      "your.turn": "Your turn ({seat}).", "wait": "The others are playing…",
      "p.mus": "Mus: ask for mus, or cut (corto)?", "p.discard": "Tap the cards to throw (1 to 4), then throw them.",
      "p.bet": "{lance}: your turn.", "p.bet.after": "{lance}, after {h}: your turn.",
      "throw": "Throw {n}", "throw.none": "Tap cards to throw",
      "next": "Next hand", "next.game": "Next game", "over.game.us": "The game is over: we win.", "over.game.them": "The game is over: they win.",
      "over.match.us": "The match is over: we win.", "over.match.them": "The match is over: they win.",
      "ev.deal": "— new hand: {who} is mano —", "ev.deal.you": "— new hand: you are mano —", "ev.mus": "{who}: {a}", "ev.throw": "{who} throws {n}",
      "ev.reshuffle": "the stock ran out: the discards make a new stock",
      "ev.declare": "{lance}: {who}", "ev.declare.none": "{lance}: nobody", "holds": "holds", "hold": "hold",
      "ev.lance": "{lance}", "ev.nobet": "{lance}: no betting",
      "res.paso": "en paso", "res.accepted": "{n} accepted", "res.ordago": "órdago accepted",
      "res.refused.us": "refused: we take {n}", "res.refused.them": "refused: they take {n}",
      "count": "Count: us {us}, them {them} → {su}-{st}.", "count.ev": "{lance} {why} {n} {team}",
      "team.us": "us", "team.them": "them",
      "shown.dealt": "dealt", "shown.final": "after the mus",
      "col.lance": "Lance", "col.said": "Said before", "col.you": "You", "col.best": "Best",
      "col.evyou": "EV you", "col.evbest": "EV best", "col.lost": "Lost", "col.action": "Action",
      "col.p": "P(eq.)", "col.ev": "EV stones", "col.keep": "Keep", "col.gap": "Gap",
      "col.decisions": "Decisions", "col.perdec": "Per decision",
      "review.none": "No decision of yours in this hand.", "review.wait": "Reviewing the hand…",
      "review.total": "This hand: {n} decision(s) valued, {l} stones lost.",
      "game.review": "The game so far: stones lost against the best action", "total": "Total",
      "hint.wait": "Computing the figures…", "hint.best": "★ the equilibrium's best",
      "hint.mus": "Cut or mus, with betting, on the deals in which the other three ask for mus ({p} of deals): "
        + "mus − cut = {d} ± {se} stones (mus keeping {keep}).",
      "hint.discard": "Every keep-set, ranked by the {by}, given that the mus round happens.",
      "hint.rare": "Rarely reached: these figures rest on few deals.",
      "err": "Cannot do that: {m}", "err.server": "the server does not answer ({m})",
      "lost.game": "The game was lost by the server (it restarted or dropped it): a new game starts.",
      "saved": "Saved as {f}.", "start": "start",
    },
    es: {
      "subtitle": "Mesa de práctica", "skip": "Ir a tus acciones", "nav.analyse": "Analizar una mano",
      "board.h": "La mesa", "my.cards": "Tus cartas", "actions.aria": "Tus acciones",
      "hint.btn": "Pista", "save.btn": "Guardar el historial", "pace": "Ritmo de los bots", "pace.slow": "lento",
      "pace.normal": "normal", "pace.fast": "rápido", "pace.instant": "al instante",
      "hint.h": "Pista: las cifras del equilibrio", "review.h": "Repaso de la mano", "log.h": "Lo que se ha dicho",
      "settings.h": "Partida nueva", "target": "Partida a", "target.40": "40 piedras", "target.30": "30 piedras",
      "match": "Jugar", "match.single": "una partida", "match.best-of-3": "al mejor de tres",
      "match.first-to-3": "a tres partidas", "seed": "Semilla", "seed.ph": "al azar",
      "new.btn": "Empezar una partida nueva",
      "about": "Tu compañero y los dos rivales son bots: envidan con las estrategias de equilibrio de cada lance, "
        + "cortan o piden mus según el equilibrio del mus y descartan con la tabla de descarte que trae musstats. Tras cada "
        + "mano: las cartas de todos, el recuento y el repaso de tus decisiones.",
      "foot": "Reglas de “musstats rules”: 8 reyes, sin juego real. Piedras perdidas: las piedras esperadas de la "
        + "mejor acción del equilibrio menos las de la tuya (0 si el equilibrio la juega); “musstats review” "
        + "repasa igual el historial guardado.",
      "place.0": "Tú", "place.1": "Rival derecha", "place.2": "Compañero", "place.3": "Rival izquierda",
      "seat.mano": "mano", "seat.second": "segundo", "seat.third": "tercero", "seat.postre": "postre",
      "us": "Nosotros", "them": "Ellos", "amarracos": "{a} amarracos + {p} piedras", "score.of": "{n} de {t}",
      "games": "Partidas {us}-{them}", "hand.n": "Partida {g} · mano {h}", "mano.is": "{who} es mano",
      "dealer": "reparte",
      "your.turn": "Te toca ({seat}).", "wait": "Juegan los demás…",
      "p.mus": "Mus: ¿pides mus o cortas?", "p.discard": "Toca las cartas que tiras (de 1 a 4) y descarta.",
      "p.bet": "{lance}: te toca.", "p.bet.after": "{lance}, tras {h}: te toca.",
      "throw": "Tirar {n}", "throw.none": "Toca las cartas que tiras",
      "next": "Siguiente mano", "next.game": "Siguiente partida", "over.game.us": "Se acabó la partida: ¡ganamos!", "over.game.them": "Se acabó la partida: ganan ellos.",
      "over.match.us": "Se acabó el desafío: ¡ganamos!", "over.match.them": "Se acabó el desafío: ganan ellos.",
      "ev.deal": "— mano nueva: {who} es mano —", "ev.deal.you": "— mano nueva: tú eres mano —", "ev.mus": "{who}: {a}", "ev.throw": "{who} tira {n}",
      "ev.reshuffle": "se acabó el mazo: los descartes forman un mazo nuevo",
      "ev.declare": "{lance}: {who}", "ev.declare.none": "{lance}: nadie", "holds": "tiene", "hold": "tienen",
      "ev.lance": "{lance}", "ev.nobet": "{lance}: sin envite",
      "res.paso": "en paso", "res.accepted": "{n} queridas", "res.ordago": "órdago querido",
      "res.refused.us": "no quiero: nos llevamos {n}", "res.refused.them": "no quiero: se llevan {n}",
      "count": "Recuento: nosotros {us}, ellos {them} → {su}-{st}.", "count.ev": "{lance} {why} {n} {team}",
      "team.us": "nosotros", "team.them": "ellos",
      "shown.dealt": "repartidas", "shown.final": "tras el mus",
      "col.lance": "Lance", "col.said": "Dicho antes", "col.you": "Tú", "col.best": "Mejor",
      "col.evyou": "EV tuya", "col.evbest": "EV mejor", "col.lost": "Perdido", "col.action": "Acción",
      "col.p": "P(eq.)", "col.ev": "EV piedras", "col.keep": "Guardar", "col.gap": "Diferencia",
      "col.decisions": "Decisiones", "col.perdec": "Por decisión",
      "review.none": "No tomaste ninguna decisión en esta mano.", "review.wait": "Repasando la mano…",
      "review.total": "Esta mano: {n} decisión(es) valoradas, {l} piedras perdidas.",
      "game.review": "La partida hasta ahora: piedras perdidas frente a la mejor acción", "total": "Total",
      "hint.wait": "Calculando las cifras…", "hint.best": "★ la mejor del equilibrio",
      "hint.mus": "Cortar o mus, con envites, en los repartos en que los otros tres piden mus ({p} de los repartos): "
        + "mus − corto = {d} ± {se} piedras (mus guardando {keep}).",
      "hint.discard": "Cada descarte, ordenado por el {by}, dado que hay mus.",
      "hint.rare": "Punto poco frecuente: estas cifras se basan en pocos repartos.",
      "err": "No se puede: {m}", "err.server": "el servidor no responde ({m})",
      "lost.game": "El servidor ya no tiene la partida (se reinició o la descartó): empieza una nueva.",
      "saved": "Guardado como {f}.", "start": "inicio",
    },
  };
  let LANG = "en";

  const t = window.MusLang.translator(STR, () => LANG);

  const dec = (s) => (LANG === "es" ? s.replace(".", ",") : s);
  const missing = (m) => m === null || m === undefined || Number.isNaN(m);
  function ev(m, se) {
    if (missing(m)) return "–";
    return `${m >= 0 ? "+" : "−"}${dec(Math.abs(m).toFixed(3))}` + (se > 0 ? ` ± ${dec(se.toFixed(3))}` : "");
  }
  const num = (m, d) => (missing(m) ? "–" : dec(Number(m).toFixed(d)));
  const pct = (m) => (missing(m) ? "–" : `${dec((100 * m).toFixed(1))} %`);

  // ------------------------------------------------------------------ cards

  const cardName = (c) => `${FACE_NAME[c.face]} de ${c.suit}`;

  /** One card drawn in SVG, as in the picker of the analysis page (8 reyes: treses are reyes, doses ases). */
  function cardSvg(c) {
    return window.MusCards.cardSvg(c.face, c.suit, c.face === 3 ? "=R" : c.face === 2 ? "=A" : null);
  }

  function cardBack() {
    const g = svg("svg", {viewBox: "0 0 60 90", class: "face back", "aria-hidden": "true", focusable: "false"});
    g.append(svg("rect", {x: 1.5, y: 1.5, width: 57, height: 87, rx: 6, class: "back-bg"}));
    g.append(svg("rect", {x: 7, y: 7, width: 46, height: 76, rx: 4, class: "back-frame"}));
    return g;
  }

  // ------------------------------------------------------------------ the game

  const S = {id: null, st: null, seen: 0, queue: [], pumping: false, selected: new Set(), said: {}, reviewKey: null,
             review: null, hint: null, busy: false};
  const pace = () => Number($("pace").value);
  const seatOf = (place) => (S.st ? S.st.seats[String(place)] : "");
  const who = (place) => `${t(`place.${place}`)} (${t(`seat.${seatOf(place)}`)})`;

  function showError(message) {
    const box = $("play-error");
    if (!message) { box.hidden = true; box.textContent = ""; return; }
    box.hidden = false;
    box.textContent = message;
  }

  async function api(method, path, body) {
    let r;
    try {
      r = await fetch(path, {method, headers: body ? {"Content-Type": "application/json"} : {},
                             body: body ? JSON.stringify(body) : undefined});
    } catch (e) {
      throw new Error(t("err.server", {m: e.message}));
    }
    let d = null;
    try { d = await r.json(); } catch (e) { d = null; }
    if (!r.ok) {
      const err = new Error(d && d.error ? d.error : `HTTP ${r.status}`);
      err.status = r.status;
      throw err;
    }
    return d;
  }

  function storeId(id) {
    S.id = id;
    try { if (id) sessionStorage.setItem("musstats-play-id", id); else sessionStorage.removeItem("musstats-play-id"); }
    catch (e) { /* private mode: this tab only */ }
  }

  async function newGame() {
    if (S.busy) return;
    S.busy = true;
    showError("");
    drawActions(true);
    const body = {target: Number($("new-target").value), match: $("new-match").value};
    const seed = $("new-seed").value.trim();
    if (seed !== "") body.seed = Number(seed);
    try {
      const d = await api("POST", "/api/play", body);
      storeId(d.id);
      resetHand();
      take(d.state);
    } catch (e) {
      showError(t("err", {m: e.message}));
    } finally {
      S.busy = false;
    }
  }

  async function resume(id) {
    try {
      const st = await api("GET", `/api/play/${encodeURIComponent(id)}`);
      S.id = id;
      resetHand();
      take(st);
    } catch (e) {
      if (e.status === 404) { storeId(null); await newGame(); showError(t("lost.game")); }
      else showError(t("err", {m: e.message}));
    }
  }

  function resetHand() {
    S.seen = 0;
    S.queue = [];
    S.said = {};
    S.selected.clear();
    S.review = null;
    S.reviewKey = null;
    S.hint = null;
    $("log").replaceChildren();
    allEvents = [];
    $("hint").hidden = true;
    $("review-panel").hidden = true;
  }

  /** A state from the server: its new events join the queue, shown one by one. */
  function take(st) {
    S.st = st;
    for (const e of st.events) S.queue.push(e);
    S.seen = st.events_total;
    drawStatic();
    pump();
  }

  async function pump() {
    if (S.pumping) return;
    S.pumping = true;
    drawActions(true);
    while (S.queue.length) {
      const e = S.queue.shift();
      showEvent(e);
      const bot = e.place !== undefined && e.place !== null && e.place !== 0
        && (e.kind === "mus" || e.kind === "bet" || e.kind === "throw");
      if (bot && pace() > 0) await new Promise((res) => setTimeout(res, pace()));
    }
    S.pumping = false;
    drawTurn();
  }

  function resultText(r) {
    if (!r) return "";
    if (r.kind === "paso") return t("res.paso");
    if (r.kind === "accepted") return t("res.accepted", {n: r.stake});
    if (r.kind === "ordago") return t("res.ordago");
    return t(r.by === "us" ? "res.refused.us" : "res.refused.them", {n: r.deje});
  }

  function eventText(e) {
    switch (e.kind) {
      case "deal": return e.mano === 0 ? t("ev.deal.you") : t("ev.deal", {who: t(`place.${e.mano}`)});
      case "mus": return t("ev.mus", {who: who(e.place), a: e.action});
      case "throw": return t("ev.throw", {who: who(e.place), n: e.n});
      case "reshuffle": return t("ev.reshuffle");
      case "declare": {
        const names = e.holders.map((p) => t(`place.${p}`)).join(", ");
        return e.holders.length ? t("ev.declare", {lance: LANCE_ES[e.lance],
                                                   who: `${names} ${t(e.holders.length === 1 ? "holds" : "hold")}`})
          : t("ev.declare.none", {lance: LANCE_ES[e.lance]});
      }
      case "lance": return e.bet ? t("ev.lance", {lance: LANCE_ES[e.lance]}) : t("ev.nobet", {lance: LANCE_ES[e.lance]});
      case "bet": return `${who(e.place)}: ${e.action}`;
      case "lance_end": return `${LANCE_ES[e.lance]}: ${resultText(e.result)}`;
      case "count": return countText(e);
      case "game_over": return t(`over.game.${e.winner}`);
      case "match_over": return t(`over.match.${e.winner}`);
      default: return null;
    }
  }

  function countText(c) {
    if (!c || !c.stones) return "";
    return t("count", {us: c.stones[0], them: c.stones[1], su: c.score[0], st: c.score[1]});
  }

  // every event of the hand shown so far (to draw the log again in the other language)
  let allEvents = [];

  function showEvent(e) {
    allEvents.push(e);
    const text = eventText(e);
    if (e.kind === "mus" || e.kind === "bet" || e.kind === "throw") {
      S.said[e.place] = e.kind === "throw" ? t("ev.throw", {who: "", n: e.n}).trim() : e.action;
      drawPlace(e.place);
    }
    if (e.kind === "lance" || e.kind === "deal") { S.said = {}; for (let p = 0; p < 4; p++) drawPlace(p); }
    if (e.kind === "lance") $("center").textContent = LANCE_ES[e.lance];
    if (text) {
      const li = el("li", {class: `ev ev-${e.kind}` + (e.place === 0 ? " mine" : ""), text});
      $("log").append(li);
      li.scrollIntoView({block: "nearest"});
    }
  }

  // ------------------------------------------------------------------ drawing

  function drawStatic() {
    const st = S.st;
    if (!st) return;
    const sb = $("scoreboard");
    const side = (key, stones) => {
      const a = Math.floor(stones / 5), p = stones % 5;
      const tokens = el("span", {class: "tokens", "aria-hidden": "true"});
      for (let i = 0; i < a; i++) tokens.append(el("span", {class: "amarraco"}));
      for (let i = 0; i < p; i++) tokens.append(el("span", {class: "piedra"}));
      return el("div", {class: `side-score ${key}`},
                el("strong", {text: `${t(key)} ${stones}`}),
                el("span", {class: "of", text: ` / ${st.target}`}), tokens,
                el("span", {class: "sr-only", text: t("amarracos", {a, p})}));
    };
    const head = el("div", {class: "sb-head", text: t("hand.n", {g: st.game, h: st.hand})
      + (st.match !== "single" ? ` · ${t("games", st.games_won)}` : "")});
    const shown = S.queue.length || S.pumping ? st.score_before : st.score;
    sb.replaceChildren(head, side("us", shown.us), side("them", shown.them));
    for (let p = 0; p < 4; p++) drawPlace(p);
  }

  function drawPlace(p) {
    const st = S.st;
    const box = $(`place-${p}`);
    if (!st || !box) return;
    const seat = seatOf(p);
    const name = el("div", {class: "pname"}, el("strong", {text: t(`place.${p}`)}), " ",
                    el("span", {class: `seat-tag seat-${seat}`, text: t(`seat.${seat}`)}));
    if (seat === "postre") name.append(" ", el("span", {class: "dealer", text: `· ${t("dealer")}`}));
    const kids = [name];
    if (p !== 0) {
      const row = el("div", {class: "mini-cards"});
      const show = st.hand_over && !S.queue.length && !S.pumping && st.shown;
      if (show) for (const c of st.shown[String(p)].final) row.append(el("span", {class: "mini", title: cardName(c)}, cardSvg(c)));
      else for (let i = 0; i < 4; i++) row.append(el("span", {class: "mini"}, cardBack()));
      kids.push(row);
    }
    const said = S.said[p];
    kids.push(el("div", {class: "bubble" + (said ? "" : " empty"), text: said || "·"}));
    box.replaceChildren(...kids);
  }

  function drawCards(selectable) {
    const st = S.st;
    const box = $("my-cards");
    const cards = st ? st.cards : [];
    box.replaceChildren();
    cards.forEach((c, i) => {
      const id = `${c.face}/${c.suit}`;
      const on = S.selected.has(id);
      const b = el("button", {type: "button", class: "mycard" + (on ? " selected" : ""), "data-card": c.label,
                              "aria-label": cardName(c), "aria-pressed": selectable ? String(on) : null,
                              disabled: selectable ? null : true}, cardSvg(c));
      if (selectable) b.addEventListener("click", () => {
        if (S.selected.has(id)) S.selected.delete(id); else S.selected.add(id);
        drawTurn();
      });
      box.append(b);
      void i;
    });
  }

  function drawActions(waiting) {
    const box = $("actions");
    box.replaceChildren();
    if (waiting) {
      $("prompt").textContent = t("wait");
      drawCards(false);
    }
  }

  function drawTurn() {
    const st = S.st;
    if (!st) return;
    drawStatic();
    const box = $("actions");
    box.replaceChildren();
    $("hint-btn").disabled = !st.your_turn;
    if (st.hand_over) {
      drawCards(false);
      const over = st.match_over || (st.game_over && st.match === "single");
      $("prompt").textContent = st.match_over ? t(`over.match.${st.match_winner}`)
        : st.game_over ? t(`over.game.${st.winner}`) : countText(st.count);
      if (!over) {
        const b = el("button", {type: "button", class: "act primary", id: "next-btn",
                                text: t(st.game_over ? "next.game" : "next")});
        b.addEventListener("click", nextHand);
        box.append(b);
      } else {
        const b = el("button", {type: "button", class: "act primary", id: "again-btn", text: t("new.btn")});
        b.addEventListener("click", newGame);
        box.append(b);
      }
      showReview();
      return;
    }
    if (!st.your_turn) { drawActions(true); return; }
    const turn = st.turn;
    const seat = t(`seat.${turn.seat}`);
    if (turn.phase === "discard") {
      drawCards(true);
      $("prompt").textContent = `${t("your.turn", {seat})} ${t("p.discard")}`;
      const n = S.selected.size;
      const b = el("button", {type: "button", class: "act primary", id: "throw-btn",
                              text: n ? t("throw", {n}) : t("throw.none"), disabled: n ? null : true});
      b.addEventListener("click", () => {
        const cards = st.cards.filter((c) => S.selected.has(`${c.face}/${c.suit}`)).map((c) => c.label);
        act("throw", cards.join(" "));
      });
      box.append(b);
      return;
    }
    drawCards(false);
    if (turn.phase === "mus") $("prompt").textContent = `${t("your.turn", {seat})} ${t("p.mus")}`;
    else {
      const lance = LANCE_ES[turn.lance];
      $("prompt").textContent = `${t("your.turn", {seat})} ` + (turn.history.length
        ? t("p.bet.after", {lance, h: turn.history.join(", ")}) : t("p.bet", {lance}));
    }
    for (const a of turn.actions) {
      const b = el("button", {type: "button", class: "act", "data-action": a, lang: "es", text: a});
      b.addEventListener("click", () => act(a));
      box.append(b);
    }
    box.focus({preventScroll: true});
  }

  async function act(action, cards) {
    if (S.busy) return;
    S.busy = true;
    showError("");
    $("hint").hidden = true;
    drawActions(true);
    try {
      const body = {action, since: S.seen};
      if (cards !== undefined) body.cards = cards;
      const st = await api("POST", `/api/play/${encodeURIComponent(S.id)}/act`, body);
      S.selected.clear();
      take(st);
    } catch (e) {
      if (e.status === 404) { S.busy = false; await resume(S.id); return; }
      showError(t("err", {m: e.message}));
      drawTurn();
    } finally {
      S.busy = false;
    }
  }

  async function nextHand() {
    if (S.busy) return;
    S.busy = true;
    showError("");
    drawActions(true);  // no second click while the next hand is dealt
    try {
      const st = await api("POST", `/api/play/${encodeURIComponent(S.id)}/next`);
      resetHand();
      take(st);
    } catch (e) {
      if (e.status === 404) { S.busy = false; await resume(S.id); return; }
      showError(t("err", {m: e.message}));
    } finally {
      S.busy = false;
    }
  }

  // ------------------------------------------------------------------ hints

  async function hint() {
    if (!S.st || !S.st.your_turn) return;
    const box = $("hint-body");
    $("hint").hidden = false;
    box.replaceChildren(el("p", {class: "help", text: t("hint.wait")}));
    try {
      S.hint = await api("GET", `/api/play/${encodeURIComponent(S.id)}/hint`);
      drawHint();
    } catch (e) {
      box.replaceChildren(el("p", {class: "panel-error", text: t("err", {m: e.message})}));
    }
  }

  function drawHint() {
    const h = S.hint;
    const box = $("hint-body");
    if (!h) return;
    if (h.phase === "betting") {
      const rows = Object.entries(h.options).map(([a, x]) => el("tr", {class: a === h.best ? "best" : null},
        el("th", {scope: "row", lang: "es", text: a + (a === h.best ? " ★" : "")}), el("td", {text: pct(x.p)}),
        el("td", {text: ev(x.ev, x.se)})));
      box.replaceChildren(table([t("col.action"), t("col.p"), t("col.ev")], rows, "hint-table"),
                          el("p", {class: "help", text: t("hint.best") + (h.rare ? ` · ${t("hint.rare")}` : "")}));
    } else if (h.phase === "mus") {
      const rows = Object.entries(h.options).map(([a, x]) => el("tr", {class: a === h.best ? "best" : null},
        el("th", {scope: "row", lang: "es", text: a + (a === h.best ? " ★" : "")}), el("td", {text: ev(x.ev)})));
      box.replaceChildren(table([t("col.action"), t("col.ev")], rows, "hint-table"),
                          el("p", {class: "help", text: t("hint.mus", {p: pct(h.p_others_ask), d: ev(h.difference),
                                                                       se: num(h.se, 3), keep: h.keep})}));
    } else {
      const rows = Object.entries(h.options).slice(0, 8).map(([k, x]) => el("tr", {class: k === h.best ? "best" : null},
        el("th", {scope: "row", text: k + (k === h.best ? " ★" : "")}), el("td", {text: ev(x.ev, x.se)}),
        el("td", {text: num(x.gap, 3)})));
      box.replaceChildren(table([t("col.keep"), t("col.ev"), t("col.gap")], rows, "hint-table"),
                          el("p", {class: "help", text: t("hint.discard", {by: h.by})}));
    }
  }

  function table(heads, rows, id) {
    const tb = el("table", {class: "numbers fit", id});
    tb.append(el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", {scope: "col", text: h})))),
              el("tbody", {}, ...rows));
    return tb;
  }

  // ------------------------------------------------------------------ the review

  async function showReview() {
    const st = S.st;
    $("review-panel").hidden = false;
    drawShown();
    $("count").textContent = countText(st.count) + " " + (st.count ? st.count.events.map((e) => t("count.ev", {
      lance: LANCE_ES[e.lance] || e.lance, why: e.reason.replace("count: ", ""), n: e.stones,
      team: t(`team.${e.team}`)})).join(" · ") : "");
    const key = `${S.id} ${st.game} ${st.hand}`;
    if (S.reviewKey === key) { drawReview(); return; }
    S.reviewKey = key;
    S.review = null;
    $("review-body").replaceChildren(el("p", {class: "help", text: t("review.wait")}));
    $("game-review-body").replaceChildren();
    try {
      const d = await api("GET", `/api/play/${encodeURIComponent(S.id)}/review?game=${st.game}&hand=${st.hand}`);
      if (S.reviewKey !== key) return;
      S.review = d;
      drawReview();
    } catch (e) {
      $("review-body").replaceChildren(el("p", {class: "panel-error", text: t("err", {m: e.message})}));
    }
  }

  function drawShown() {
    const st = S.st;
    const box = $("shown");
    box.replaceChildren();
    if (!st.shown) return;
    for (let p = 0; p < 4; p++) {
      const s = st.shown[String(p)];
      const row = el("div", {class: "shown-row", "data-place": p},
                     el("span", {class: "shown-who", text: who(p)}));
      const cards = el("span", {class: "shown-cards"});
      for (const c of s.final) cards.append(el("span", {class: "mini", title: cardName(c)}, cardSvg(c)));
      row.append(cards);
      const same = s.dealt.map((c) => c.label).join(" ") === s.final.map((c) => c.label).join(" ");
      if (!same) row.append(el("span", {class: "shown-dealt", text: `${t("shown.dealt")}: ${s.dealt.map((c) => c.label).join(" ")}`}));
      box.append(row);
    }
  }

  function drawReview() {
    const d = S.review;
    if (!d) return;
    const h = d.hand;
    const box = $("review-body");
    if (!h.rows.length) {
      box.replaceChildren(el("p", {class: "help", text: t("review.none")}));
    } else {
      const rows = h.rows.map((r) => el("tr", {class: r.loss > 0 ? "lost" : null},
        el("th", {scope: "row", lang: "es", text: LANCE_ES[r.lance] || r.lance}),
        el("td", {class: "txt", lang: "es", text: r.history || "·"}),
        el("td", {class: "txt", lang: "es", text: r.action}),
        el("td", {class: "txt", lang: "es", text: r.best || "–"}),
        el("td", {text: ev(r.ev)}), el("td", {text: ev(r.ev_best)}),
        el("td", {class: "loss", text: missing(r.loss) ? "–" : num(r.loss, 3)})));
      const notes = h.rows.filter((r) => r.note && r.note !== "played by the equilibrium")
        .map((r) => el("li", {lang: "en", text: `${LANCE_ES[r.lance] || r.lance} ${r.action}: ${r.note}`}));
      box.replaceChildren(el("div", {class: "scroll"}, table([t("col.lance"), t("col.said"), t("col.you"),
                                                              t("col.best"), t("col.evyou"), t("col.evbest"),
                                                              t("col.lost")], rows, "review-table")));
      if (notes.length) box.append(el("ul", {class: "notes"}, ...notes));
    }
    box.append(el("p", {class: "review-total", id: "review-total",
                        text: t("review.total", {n: h.decisions, l: num(h.loss, 3)})}));
    const g = d.game_review;
    const rows = Object.entries(g.by_lance).map(([lance, x]) => el("tr", {},
      el("th", {scope: "row", lang: "es", text: LANCE_ES[lance] || lance}), el("td", {text: String(x.decisions)}),
      el("td", {text: num(x.loss, 3)}), el("td", {text: num(x.mean_loss, 4)})));
    rows.push(el("tr", {class: "total"}, el("th", {scope: "row", text: t("total")}),
                 el("td", {id: "game-decisions", text: String(g.decisions)}),
                 el("td", {id: "game-loss", text: num(g.loss, 3)}),
                 el("td", {text: num(g.mean_loss, 4)})));
    $("game-review-body").replaceChildren(el("h3", {text: t("game.review")}),
      table([t("col.lance"), t("col.decisions"), t("col.lost"), t("col.perdec")], rows, "game-review-table"));
  }

  // ------------------------------------------------------------------ saving

  async function save() {
    if (!S.id) return;
    try {
      const r = await fetch(`/api/play/${encodeURIComponent(S.id)}/history`);
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      const blob = await r.blob();
      const cd = r.headers.get("Content-Disposition") || "";
      const m = cd.match(/filename="([^"]+)"/);
      const name = m ? m[1] : "musstats-game.json";
      const a = el("a", {href: URL.createObjectURL(blob), download: name});
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 5000);
    } catch (e) {
      showError(t("err", {m: e.message}));
    }
  }

  // ------------------------------------------------------------------ language and wiring

  function applyLang() {
    document.documentElement.lang = LANG;
    document.title = `musstats · ${t("subtitle")}`;
    for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
    for (const e of document.querySelectorAll("[data-i18n-placeholder]")) e.placeholder = t(e.dataset.i18nPlaceholder);
    for (const e of document.querySelectorAll("[data-i18n-aria]")) e.setAttribute("aria-label", t(e.dataset.i18nAria));
    for (const b of document.querySelectorAll(".lang button")) b.setAttribute("aria-pressed", String(b.dataset.lang === LANG));
    if (!S.st) return;
    // the log again, in the new language
    const log = $("log");
    log.replaceChildren();
    for (const e of allEvents) {
      const text = eventText(e);
      if (text) log.append(el("li", {class: `ev ev-${e.kind}` + (e.place === 0 ? " mine" : ""), text}));
    }
    drawTurn();
    if (S.hint && !$("hint").hidden) drawHint();
  }

  function init() {
    LANG = window.MusLang.initial();
    for (const b of document.querySelectorAll(".lang button")) b.addEventListener("click", () => {
      LANG = b.dataset.lang;
      window.MusLang.store(LANG);
      applyLang();
    });
    try {
      const p = localStorage.getItem("musstats-pace");
      if (p !== null && [...$("pace").options].some((o) => o.value === p)) $("pace").value = p;
    } catch (e) { /* private mode */ }
    $("pace").addEventListener("change", () => {
      try { localStorage.setItem("musstats-pace", $("pace").value); } catch (e) { /* private mode */ }
    });
    $("new-btn").addEventListener("click", newGame);
    $("hint-btn").addEventListener("click", hint);
    $("save-btn").addEventListener("click", save);
    applyLang();
    let id = null;
    try { id = sessionStorage.getItem("musstats-play-id"); } catch (e) { id = null; }
    if (id) resume(id); else newGame();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

/* musstats serve: the page's script.  Plain JavaScript, no build step, no dependencies.
 *
 * The state lives in the form controls and in the two card fields (your hand, the dead
 * cards).  Whenever it changes, every result panel asks the server for its answer through
 * the job API (POST /api/jobs with "replaces": the panel's previous job, which the server
 * cancels), polls it for progress and renders the JSON: the same JSON as the command
 * line's --format json.  The page computes no figure itself: it parses, asks and shows.
 * The URL's #fragment keeps the state, so a link reopens the hand.
 *
 * Two languages (Spanish when the browser prefers it, English otherwise, and a switch);
 * the names of the lances and of the actions are the Spanish ones in both.
 */
"use strict";

(() => {
  const FACES = [12, 11, 10, 7, 6, 5, 4, 3, 2, 1];
  const SUITS = ["oros", "copas", "espadas", "bastos"];
  const {LABEL, FACE_NAME, el, svg} = window.MusCards;
  const LANCES = ["grande", "chica", "pares", "juego", "punto"];
  const LANCE_ES = {grande: "Grande", chica: "Chica", pares: "Pares", juego: "Juego", punto: "Punto"};
  const STATS = ["p_team", "p_self", "p_played", "p_contested", "ev_net"];
  const SEATS = ["mano", "second", "third", "postre"];
  const DISCARD_ROWS = 6;
  /** px: from this width the inputs sit beside the answers (as in style.css) */
  const WIDE = 1000;

  const $ = (id) => document.getElementById(id);

  // ------------------------------------------------------------------ language

  const STR = {
    en: {
      "subtitle": "Mus odds at the table",
      "nav.play": "Play against the bots",
      "skip": "Skip to the results",
      "hand.h": "Your hand",
      "hand.view": "Your four cards",
      "cards": "Cards",
      "cards.ph": "e.g. R R 3 A",
      "clear": "Clear",
      "cards.help": "Pick four cards below or type them: R C S 7 6 5 4 3 2 A (S/o = sota de oros).",
      "seat.legend": "Your seat",
      "seat.mano": "Mano", "seat.second": "Second", "seat.third": "Third", "seat.postre": "Postre",
      "score.legend": "Score before this hand",
      "score.us": "Us", "score.them": "Them",
      "target": "Game to", "target.40": "40 stones", "target.30": "30 stones",
      "picker.summary": "Pick the cards",
      "pick.legend": "Cards you pick go to", "pick.hand": "your hand", "pick.dead": "the dead cards",
      "picker.aria": "The 40 cards of the Spanish deck",
      "picker.help": "Arrow keys move between the cards; Enter or Space picks one, again to put it back.",
      "dead": "Dead cards", "dead.ph": "seen on the table, e.g. 7 7",
      "dead.help": "Cards you have seen (the odds take them out of the deck).",
      "recompute": "Recompute", "cancel": "Cancel", "cli": "Command line:",
      "ordago.lead": "Against equilibrium opponents: the best play at this score, with P(win the game) of each "
        + "choice.",
      "col.lance": "Lance", "ordago.yours": "Your turn: órdago?", "ordago.theirs": "Their órdago",
      "ordago.random.summary": "Comparison: random hands (no betting read)",
      "ordago.random.what": "What a player would decide if the others' hands were random given the declarations, "
        + "ignoring what their betting says. Not the advice.",
      "col.plance": "P(win lance)", "ordago.yours.short": "Yours", "ordago.theirs.short": "Theirs",
      "bet.cut": "Who cut the mus", "bet.cut.none": "not told",
      "bet.plan": "Plan agreed with your partner (number)",
      "bet.plans": "Against the pair's plans: the pair's best plan gains ≥ {pg}, {opp}'s best response ≥ {og} stones per lance.",
      "bet.plans2": "Both pairs play plans: against the other pair's plans, mano+third's best plan gains ≥ {g0}, second+postre's ≥ {g1} stones per lance.",
      "bet.h": "Betting", "bet.undo": "Undo", "bet.restart": "Start again", "bet.history": "What has been said",
      "col.action": "Action", "col.peq": "P(eq.)",
      "col.peq.t": "how often the equilibrium strategy takes it with this hand here",
      "col.evstones": "EV stones", "col.evstones.t": "expected stones of your team in this lance after it, "
        + "± standard error",
      "mus.h": "Cut or mus", "discard.h": "What to throw",
      "read.h": "Reading the table", "read.history": "The hand so far",
      "read.ph": "mus,corto; grande: paso,envido 2",
      "read.help": "Parts separated by \";\": the mus from mano (mus,mus,corto), after four mus the cards each seat "
        + "threw (1,3,2,4), then each lance with its actions (grande: paso,envido 2; pares mano+third: paso).",
      "read.col.p": "P(shipped)", "read.col.ev": "EV stones", "read.col.seat": "Seat",
      "read.col.reyes": "P(2+ reyes)", "read.col.points": "Points",
      "read.caption": "What the table has shown (the prior, your cards alone, in brackets)",
      "read.decision": "Your decision: {what}", "read.turn": "{seat} to speak",
      "read.over": "The hand is over.", "read.declare": "The {lance} declarations come next: add them to the hand.",
      "read.keep": "The discard table keeps {keep}.",
      "read.best": "best reading the table",
      "read.note": "{src}. Reads: Bayes over {n} deals (effective {ess}), seed {seed}; the mus decision's "
        + "equilibrium, the shipped discard table and betting strategies.",
      "col.keep": "Keep", "col.rank.t": "the value the keep-sets are ranked by, ± standard error",
      "col.gap": "Gap", "col.gap.t": "stones given up against the best keep-set, in the ranked column",
      "col.enpaso": "En paso", "col.enpaso.t": "expected stones en paso (no betting), ± standard error",
      "discard.lances": "Per lance, en paso",
      "odds.h": "Odds of each lance",
      "col.pteam.t": "our team holds the best hand of the lance",
      "col.pself": "P(self)", "col.pself.t": "we hold it ourselves",
      "col.pplay": "P(play)", "col.pplay.t": "the lance is played",
      "col.pcont": "P(cont.)", "col.pcont.t": "both teams hold it, so it is bet",
      "col.evnet": "EV net", "col.evnet.t": "expected stones en paso, ours minus theirs",
      "chart.h": "Chart",
      "chart.caption": "P(team) and expected stones of each lance (the odds table in a picture).",
      "rules.h": "Rules, declarations and seña",
      "variant": "Deck", "variant.8": "8 reyes", "variant.4": "4 reyes", "variant.10": "Ten kings (jokers)",
      "jr.off": "off", "jr.figure": "7 7 7 + figure",
      "redeal": "4-5-6-7 is redealt",
      "decl.legend": "What the others declared",
      "signal": "Your partner's seña", "signal.none": "none",
      "signal.duples": "duples (two pairs, or four of a kind)", "signal.medias": "medias (three of a rank)",
      "signal.31": "juego of 31", "signal.two-reyes": "exactly two reyes", "signal.three-reyes": "exactly three reyes",
      "signal.four-reyes": "four reyes", "signal.two-ases": "exactly two ases",
      "signal.three-ases": "exactly three ases", "signal.four-ases": "four ases", "signal.punto-30": "punto 30",
      "signal.bad": "bad cards (no pares, no juego)",
      "advanced": "Advanced", "method": "Odds by", "method.exact": "exact where possible", "trials": "Odds: deals",
      "seed": "Seed", "objective": "Throw for", "objective.total": "the whole hand",
      "objective.juego": "juego or punto", "policy": "The others discard by", "policy.table": "the strategy table",
      "policy.reyes-pairs": "keep reyes and pairs", "policy.grande": "keep reyes", "policy.chica": "keep ases",
      "policy.31": "go for 31", "keeptrials": "Mus: deals per keep-set",
      "advanced.help": "Monte Carlo answers with a seed are repeatable; empty the seed for a fresh draw. This server "
        + "computes up to 20,000,000 deals for the odds and 2,000,000 per keep-set.",
      "foot": "Rules of “musstats rules”. Advice against equilibrium opponents where the betting is solved; odds "
        + "en paso by exact enumeration where possible, Monte Carlo with standard errors (±) elsewhere. Lances that "
        + "are not played show “–”.",
      // generated text
      "jokers": "Your jokers stand for a rey or an as (each holder chooses the best).",
      "typed": "Typed: {text}",
      "hand.full": "Your hand has four cards already: put one back first.",
      "card.inhand": "{card}, in your hand", "card.dead": "{card}, a dead card", "card.joker": "{card} (joker)",
      "card.back": "{card}: put it back", "card.back.t": "Put it back",
      "partner": "{seat} (partner)",
      "team.line": "Your partner is {partner}: {mine} against {theirs}.",
      "team.0": "mano and third", "team.1": "second and postre",
      "decl.help": "Truthful declarations before pares and juego narrow the other hands (odds, órdago, betting).",
      "decl.help.10": "Declarations and señas are not available with ten kings (a joker's pares and juego depend "
        + "on its identity).",
      "decl.unknown": "?",
      "variant.help.8": "With 8 reyes the 3s are reyes and the 2s ases.",
      "variant.help.4": "With 4 reyes every card keeps its own rank and points.",
      "variant.help.10": "Ten kings: 8 reyes, and the sotas de copas and oros (S/c, S/o) are jokers, each a rey or "
        + "an as. Odds by Monte Carlo.",
      "status.pick": "Pick four cards.", "status.more1": "Pick 1 more card.", "status.more": "Pick {n} more cards.",
      "status.busy1": "Computing… (1 question open)", "status.busy": "Computing… ({n} questions open)",
      "status.bad": "That hand cannot be computed.", "status.ok": "Up to date.",
      "err.top": "Cannot compute: {m}",
      "err.noserver": "the server does not answer ({m})",
      "err.show": "could not show the answer ({m})",
      "err.status": "the server answered {n}",
      "cancelled": "Cancelled. Change the hand or press Recompute to run it again.",
      "run.deals": "{done} of {total} deals", "run.steps": "{done} of {total}",
      "run.wait": "waiting…", "run.busy": "computing…",
      // órdago
      "ordago.at": "Órdago at {us}-{them}",
      "ordago.pass": "paso", "ordago.call": "órdago", "ordago.refuse": "no quiero", "ordago.accept": "quiero",
      "ordago.gloss.pass": "don't call", "ordago.gloss.call": "call it", "ordago.gloss.refuse": "refuse",
      "ordago.gloss.accept": "accept",
      "ordago.pwin": "P(win the game): {a} {pa} · {b} {pb}",
      "ordago.mixed": "mixed: {p} of the time",
      "ordago.nosay": "no equilibrium figures: {why}",
      "ordago.offpath": "off the equilibrium path: they (almost) never call here",
      "ordago.all": "Every action at your turn and against their órdago",
      "ordago.allcol.p": "P(eq.)", "ordago.allcol.win": "P(win game)",
      "ordago.where.call": "your turn after {h}", "ordago.where.first": "your turn, first to speak",
      "ordago.where.answer": "their órdago after {h}",
      "ordago.note": "Equilibrium of the lance solved at {us}-{them} with P(win the game) as the payoff "
        + "({deal}; {it} iterations, {src}; NashConv {nc}); figures by Monte Carlo over {deals} deals, seed {seed}. "
        + "Your team {mano} mano.",
      "ordago.is": "is", "ordago.isnot": "is not",
      "ordago.random.be": "Random hands: call when P(win the lance) ≥ {call}; accept theirs when it is > {accept}. "
        + "P(win the game) from {us}-{them} without an órdago: {pg}.",
      "ordago.random.yes": "órdago", "ordago.random.no": "paso",
      "ordago.waiting": "…",
      // betting
      "bet.turn.you": "Your turn ({seat}): the equilibrium's actions with your hand",
      "bet.turn.other": "{seat} to speak",
      "bet.over": "The betting is over: {how}",
      "bet.say": "{seat} says:", "bet.say.you": "You say:",
      "bet.start": "start of the lance",
      "bet.rare": "Rarely reached: {p} of the deals that reach your first turn come here; these figures rest on few "
        + "deals.",
      "bet.rare.mark": "Rarely reached (under 0.5 % of deals): these figures rest on few deals.",
      "bet.best": "most played",
      "bet.reach": "This point is reached in {p} of the deals that reach your first turn.",
      "bet.note": "Equilibrium betting ({strat}; CFR, {it} iterations, {src}; NashConv {nc} stones per lance). EV: {ev}, "
        + "{deals} deals, seed {seed}; {units}; an accepted órdago counts ±{ord} stones.",
      "bet.declared": "declared: {d}",
      "bet.cold": "The betting equilibrium ships with musstats for 8 reyes without juego real. For these rules it "
        + "has to be solved first: many minutes for each lance, which cannot be interrupted.",
      "bet.solve": "Solve it here (many minutes)",
      // discard and mus
      "discard.keep": "Keep {keep}, throw {n}.", "discard.all": "Throw all four.",
      "discard.close": " The next keep-set is within 2 standard errors: more deals may separate them.",
      "discard.rankedby": "ranked by {what}",
      "discard.showbest": "Show the best {n}", "discard.showall": "Show all {n} keep-sets",
      "discard.note": "Expected stones per lance after {rounds} mus round(s), given that the mus round happens; "
        + "the others discard by {by}. {run} per keep-set. Dead cards and declarations do not enter here.",
      "rank.total with betting": "Total with betting", "rank.total": "Total en paso", "rank.en paso": "Total en paso",
      "best": "best",
      "mus.say.cut": "corto", "mus.say.mus": "mus",
      "mus.gloss.cut": "cut the mus: play these four cards", "mus.gloss.mus": "ask for mus, then keep {keep}",
      "mus.eq": "Equilibrium of the mus decision: cut with probability {p}; cut − ask = {d} stones for your team "
        + "when you speak (cut {cut}, ask {ask}; you speak in {speaks} of your deals, the mus is played in {share} of "
        + "hands; every hand then bet by the strategies that read who cut).",
      "mus.withbet": "With betting: mus − cut = {d} stones (cut {cut}, mus keeping {keep} {mus}).",
      "mus.withbetflags": "Comparison, against the shipped cut flags, with betting: mus − cut = {d} stones (cut {cut}, "
        + "mus keeping {keep} {mus}).",
      "mus.paso": "En paso: {adv}, mus − cut = {d} stones keeping {keep} (cut {cut}; after the mus {mus}).",
      "mus.happens": "The mus happens only when the other three ask for it too: {p} of deals; otherwise your "
        + "choice changes nothing.",
      "mus.differs": "Note: the throw panel ranks {a} first, this comparison keeps {b}.",
      "mus.others": "The others discard by {by}.",
      // odds
      "odds.run": "{run}. EV net = expected stones en paso, ours minus theirs; – = not played.",
      "odds.identities": "With your jokers fixed (the other holders still choose theirs): EV net",
      "odds.identity": "Identity", "total": "Total",
      "run.exact": "exact enumeration", "run.mc": "Monte Carlo, {n} deals", "run.seed": ", seed {s}",
      "run.partial": " (partial)",
      "chart.alt": "Chart of P(team) and expected stones per lance for {hand} at {seat}; the same figures are in "
        + "the odds table.",
    },
    es: {
      "subtitle": "Probabilidades del mus en la mesa",
      "nav.play": "Jugar contra los bots",
      "skip": "Ir a los resultados",
      "hand.h": "Tus cartas",
      "hand.view": "Tus cuatro cartas",
      "cards": "Cartas",
      "cards.ph": "p. ej. R R 3 A",
      "clear": "Borrar",
      "cards.help": "Elige cuatro cartas abajo o escríbelas: R C S 7 6 5 4 3 2 A (S/o = sota de oros).",
      "seat.legend": "Tu asiento",
      "seat.mano": "Mano", "seat.second": "Segundo", "seat.third": "Tercero", "seat.postre": "Postre",
      "score.legend": "Tanteo antes de esta mano",
      "score.us": "Nosotros", "score.them": "Ellos",
      "target": "Partida a", "target.40": "40 piedras", "target.30": "30 piedras",
      "picker.summary": "Elegir las cartas",
      "pick.legend": "Las cartas que elijas van a", "pick.hand": "tu mano", "pick.dead": "las cartas vistas",
      "picker.aria": "Las 40 cartas de la baraja española",
      "picker.help": "Las flechas mueven entre las cartas; Intro o Espacio elige una, y otra vez la devuelve.",
      "dead": "Cartas vistas", "dead.ph": "vistas en la mesa, p. ej. 7 7",
      "dead.help": "Cartas que has visto (las probabilidades las quitan de la baraja).",
      "recompute": "Recalcular", "cancel": "Cancelar", "cli": "Línea de órdenes:",
      "ordago.lead": "Contra rivales de equilibrio: la mejor jugada con este tanteo, con P(ganar la partida) de "
        + "cada opción.",
      "col.lance": "Lance", "ordago.yours": "Tu turno: ¿órdago?", "ordago.theirs": "Su órdago",
      "ordago.random.summary": "Comparación: manos al azar (sin leer los envites)",
      "ordago.random.what": "Lo que se decidiría si las manos de los demás fueran al azar según las "
        + "declaraciones, sin leer lo que dicen sus envites. No es el consejo.",
      "col.plance": "P(ganar lance)", "ordago.yours.short": "Tuyo", "ordago.theirs.short": "Suyo",
      "bet.cut": "Quién cortó el mus", "bet.cut.none": "sin decir",
      "bet.plan": "Plan acordado con tu compañero (número)",
      "bet.plans": "Frente a los planes de la pareja: el mejor plan de la pareja gana ≥ {pg}, la mejor respuesta de {opp} ≥ {og} piedras por lance.",
      "bet.plans2": "Las dos parejas juegan planes: frente a los planes de la otra, el mejor plan de mano y tercero gana ≥ {g0}, el de segundo y postre ≥ {g1} piedras por lance.",
      "bet.h": "Envites", "bet.undo": "Deshacer", "bet.restart": "Empezar de nuevo", "bet.history": "Lo dicho",
      "col.action": "Acción", "col.peq": "P(eq.)",
      "col.peq.t": "con qué frecuencia la estrategia de equilibrio la elige aquí con esta mano",
      "col.evstones": "EV piedras", "col.evstones.t": "piedras esperadas de tu pareja en este lance después de "
        + "ella, ± error estándar",
      "mus.h": "¿Mus o corto?", "discard.h": "Qué descartar",
      "read.h": "Lo que dice la mesa", "read.history": "La mano hasta ahora",
      "read.ph": "mus,corto; grande: paso,envido 2",
      "read.help": "Partes separadas por \";\": el mus desde mano (mus,mus,corto), tras cuatro mus las cartas que "
        + "echó cada uno (1,3,2,4), y cada lance con lo dicho (grande: paso,envido 2; pares mano+third: paso).",
      "read.col.p": "P(incluida)", "read.col.ev": "EV piedras", "read.col.seat": "Asiento",
      "read.col.reyes": "P(2+ reyes)", "read.col.points": "Puntos",
      "read.caption": "Lo que ha mostrado la mesa (entre corchetes, lo que dicen solo tus cartas)",
      "read.decision": "Tu decisión: {what}", "read.turn": "Habla {seat}",
      "read.over": "La mano ha terminado.", "read.declare": "Ahora se declaran los {lance}: añádelos a la mano.",
      "read.keep": "La tabla de descartes se queda con {keep}.",
      "read.best": "lo mejor leyendo la mesa",
      "read.note": "{src}. Lectura: Bayes sobre {n} repartos (efectivos {ess}), semilla {seed}; el equilibrio del "
        + "mus, la tabla de descartes y las estrategias de apuesta incluidas.",
      "col.keep": "Guardar", "col.rank.t": "el valor por el que se ordenan los descartes, ± error estándar",
      "col.gap": "Dif.", "col.gap.t": "piedras que se pierden frente al mejor descarte, en la columna ordenada",
      "col.enpaso": "En paso", "col.enpaso.t": "piedras esperadas en paso (sin envites), ± error estándar",
      "discard.lances": "Por lance, en paso",
      "odds.h": "Probabilidades de cada lance",
      "col.pteam.t": "nuestra pareja tiene la mejor mano del lance",
      "col.pself": "P(yo)", "col.pself.t": "la tenemos nosotros mismos",
      "col.pplay": "P(juega)", "col.pplay.t": "el lance se juega",
      "col.pcont": "P(disp.)", "col.pcont.t": "las dos parejas lo tienen: se envida",
      "col.evnet": "EV neto", "col.evnet.t": "piedras esperadas en paso, nuestras menos las suyas",
      "chart.h": "Gráfico",
      "chart.caption": "P(pareja) y piedras esperadas de cada lance (la tabla de probabilidades en un dibujo).",
      "rules.h": "Reglas, declaraciones y seña",
      "variant": "Baraja", "variant.8": "8 reyes", "variant.4": "4 reyes", "variant.10": "Diez reyes (comodines)",
      "jr.off": "no", "jr.figure": "7 7 7 + figura",
      "redeal": "4-5-6-7 se vuelve a repartir",
      "decl.legend": "Lo que declararon los demás",
      "signal": "La seña de tu compañero", "signal.none": "ninguna",
      "signal.duples": "duples (dos parejas, o cuatro iguales)", "signal.medias": "medias (tres iguales)",
      "signal.31": "juego de 31", "signal.two-reyes": "dos reyes justos", "signal.three-reyes": "tres reyes justos",
      "signal.four-reyes": "cuatro reyes", "signal.two-ases": "dos ases justos",
      "signal.three-ases": "tres ases justos", "signal.four-ases": "cuatro ases", "signal.punto-30": "punto 30",
      "signal.bad": "malas cartas (ni pares ni juego)",
      "advanced": "Avanzado", "method": "Probabilidades", "method.exact": "exactas donde se puede",
      "trials": "Probabilidades: repartos", "seed": "Semilla", "objective": "Descartar para",
      "objective.total": "toda la mano", "objective.juego": "juego o punto", "policy": "Los demás descartan según",
      "policy.table": "la tabla de estrategia", "policy.reyes-pairs": "guardan reyes y parejas",
      "policy.grande": "guardan reyes", "policy.chica": "guardan ases", "policy.31": "van a 31",
      "keeptrials": "Mus: repartos por descarte",
      "advanced.help": "Con semilla, el Monte Carlo se repite igual; vacía la semilla para otro sorteo. Este "
        + "servidor calcula hasta 20.000.000 de repartos para las probabilidades y 2.000.000 por descarte.",
      "foot": "Reglas de «musstats rules». Consejo contra rivales de equilibrio donde los envites están resueltos; "
        + "probabilidades en paso por enumeración exacta donde se puede y Monte Carlo con errores estándar (±) en "
        + "lo demás. Los lances que no se juegan muestran «–».",
      "jokers": "Tus comodines valen rey o as (cada uno elige el mejor).",
      "typed": "Escrito: {text}",
      "hand.full": "Ya tienes cuatro cartas: devuelve una primero.",
      "card.inhand": "{card}, en tu mano", "card.dead": "{card}, carta vista", "card.joker": "{card} (comodín)",
      "card.back": "{card}: devolverla", "card.back.t": "Devolverla",
      "partner": "{seat} (compañero)",
      "team.line": "Tu compañero es {partner}: {mine} contra {theirs}.",
      "team.0": "mano y tercero", "team.1": "segundo y postre",
      "decl.help": "Las declaraciones de pares y juego (siempre verdaderas) acotan las otras manos "
        + "(probabilidades, órdago, envites).",
      "decl.help.10": "Con diez reyes no hay declaraciones ni señas (los pares y el juego de un comodín dependen "
        + "de lo que valga).",
      "decl.unknown": "?",
      "variant.help.8": "Con 8 reyes los treses son reyes y los doses ases.",
      "variant.help.4": "Con 4 reyes cada carta vale su propio rango y sus puntos.",
      "variant.help.10": "Diez reyes: 8 reyes, y las sotas de copas y de oros (S/c, S/o) son comodines, cada una "
        + "rey o as. Probabilidades por Monte Carlo.",
      "status.pick": "Elige cuatro cartas.", "status.more1": "Falta 1 carta.", "status.more": "Faltan {n} cartas.",
      "status.busy1": "Calculando… (1 pregunta abierta)", "status.busy": "Calculando… ({n} preguntas abiertas)",
      "status.bad": "Esa mano no se puede calcular.", "status.ok": "Al día.",
      "err.top": "No se puede calcular: {m}",
      "err.noserver": "el servidor no responde ({m})",
      "err.show": "no se pudo mostrar la respuesta ({m})",
      "err.status": "el servidor respondió {n}",
      "cancelled": "Cancelado. Cambia la mano o pulsa Recalcular para volver a calcularlo.",
      "run.deals": "{done} de {total} repartos", "run.steps": "{done} de {total}",
      "run.wait": "en espera…", "run.busy": "calculando…",
      "ordago.at": "Órdago con {us}-{them}",
      "ordago.pass": "paso", "ordago.call": "órdago", "ordago.refuse": "no quiero", "ordago.accept": "quiero",
      "ordago.gloss.pass": "no lo eches", "ordago.gloss.call": "échalo", "ordago.gloss.refuse": "no lo quieras",
      "ordago.gloss.accept": "quiérelo",
      "ordago.pwin": "P(ganar la partida): {a} {pa} · {b} {pb}",
      "ordago.mixed": "mixta: {p} de las veces",
      "ordago.nosay": "sin cifras de equilibrio: {why}",
      "ordago.offpath": "fuera del camino del equilibrio: (casi) nunca lo echan aquí",
      "ordago.all": "Cada acción en tu turno y contra su órdago",
      "ordago.allcol.p": "P(eq.)", "ordago.allcol.win": "P(ganar partida)",
      "ordago.where.call": "tu turno tras {h}", "ordago.where.first": "tu turno, hablas primero",
      "ordago.where.answer": "su órdago tras {h}",
      "ordago.note": "Equilibrio del lance resuelto con {us}-{them} y P(ganar la partida) como pago ({deal}; {it} "
        + "iteraciones, {src}; NashConv {nc}); cifras por Monte Carlo sobre {deals} repartos, semilla {seed}. "
        + "Tu pareja {mano} mano.",
      "ordago.is": "es", "ordago.isnot": "no es",
      "ordago.random.be": "Manos al azar: echar si P(ganar el lance) ≥ {call}; querer el suyo si es > {accept}. "
        + "P(ganar la partida) desde {us}-{them} sin órdago: {pg}.",
      "ordago.random.yes": "órdago", "ordago.random.no": "paso",
      "ordago.waiting": "…",
      "bet.turn.you": "Tu turno ({seat}): las acciones del equilibrio con tu mano",
      "bet.turn.other": "Habla {seat}",
      "bet.over": "Los envites han terminado: {how}",
      "bet.say": "{seat} dice:", "bet.say.you": "Tú dices:",
      "bet.start": "inicio del lance",
      "bet.rare": "Se llega pocas veces: {p} de los repartos que llegan a tu primer turno llegan aquí; estas cifras "
        + "descansan en pocos repartos.",
      "bet.rare.mark": "Se llega pocas veces (menos del 0,5 % de los repartos): estas cifras descansan en pocos "
        + "repartos.",
      "bet.best": "la más jugada",
      "bet.reach": "Se llega a este punto en el {p} de los repartos que llegan a tu primer turno.",
      "bet.note": "Envites de equilibrio ({strat}; CFR, {it} iteraciones, {src}; NashConv {nc} piedras por lance). EV: {ev}, "
        + "{deals} repartos, semilla {seed}; {units}; un órdago querido cuenta ±{ord} piedras.",
      "bet.declared": "declarado: {d}",
      "bet.cold": "El equilibrio de los envites viene con musstats para 8 reyes sin juego real. Con estas reglas "
        + "hay que resolverlo antes: muchos minutos por lance, sin poder interrumpirlo.",
      "bet.solve": "Resolverlo aquí (muchos minutos)",
      "discard.keep": "Guarda {keep}, descarta {n}.", "discard.all": "Descarta las cuatro.",
      "discard.close": " El siguiente descarte está a menos de 2 errores estándar: más repartos pueden separarlos.",
      "discard.rankedby": "ordenado por {what}",
      "discard.showbest": "Ver los {n} mejores", "discard.showall": "Ver los {n} descartes",
      "discard.note": "Piedras esperadas por lance tras {rounds} ronda(s) de mus, si hay mus; los demás descartan "
        + "según {by}. {run} por descarte. Aquí no entran las cartas vistas ni las declaraciones.",
      "rank.total with betting": "Total con envites", "rank.total": "Total en paso", "rank.en paso": "Total en paso",
      "best": "mejor",
      "mus.say.cut": "corto", "mus.say.mus": "mus",
      "mus.gloss.cut": "corta el mus: juega estas cuatro cartas", "mus.gloss.mus": "pide mus y guarda {keep}",
      "mus.eq": "Equilibrio del mus: cortar con probabilidad {p}; corto − mus = {d} piedras para tu pareja cuando "
        + "hablas (corto {cut}, mus {ask}; hablas en {speaks} de tus repartos, hay mus en {share} de las manos; cada "
        + "mano se envida luego con las estrategias que saben quién cortó).",
      "mus.withbet": "Con envites: mus − corto = {d} piedras (corto {cut}, mus guardando {keep} {mus}).",
      "mus.withbetflags": "Comparación, frente a las señales de corte incluidas, con envites: mus − corto = {d} piedras (corto "
        + "{cut}, mus guardando {keep} {mus}).",
      "mus.paso": "En paso: {adv}, mus − corto = {d} piedras guardando {keep} (corto {cut}; tras el mus {mus}).",
      "mus.happens": "Solo hay mus si los otros tres también lo piden: {p} de los repartos; si no, tu elección no "
        + "cambia nada.",
      "mus.differs": "Nota: el panel de descarte pone primero {a}; esta comparación guarda {b}.",
      "mus.others": "Los demás descartan según {by}.",
      "odds.run": "{run}. EV neto = piedras esperadas en paso, nuestras menos las suyas; – = no se juega.",
      "odds.identities": "Con tus comodines fijados (los demás eligen los suyos): EV neto",
      "odds.identity": "Valor", "total": "Total",
      "run.exact": "enumeración exacta", "run.mc": "Monte Carlo, {n} repartos", "run.seed": ", semilla {s}",
      "run.partial": " (parcial)",
      "chart.alt": "Gráfico de P(pareja) y piedras esperadas por lance de {hand} en {seat}; las mismas cifras están "
        + "en la tabla de probabilidades.",
    },
  };

  let LANG = "en";

  /** The text of ``key`` in the page's language, with {name} replaced from ``vars``. */
  const t = window.MusLang.translator(STR, () => LANG);

  function seatName(q) { return t(`seat.${q}`); }

  // ------------------------------------------------------------------ numbers

  const dec = (s) => (LANG === "es" ? s.replace(".", ",") : s);
  const fx = (x, d) => dec(Math.abs(x).toFixed(d));
  const fmtInt = (n) => Number(n).toLocaleString(LANG === "es" ? "es-ES" : "en-US");
  const missing = (m) => m === null || m === undefined || Number.isNaN(m);

  function pct(m, d) {
    if (missing(m)) return "–";
    return `${fx(100 * m, d === undefined ? 2 : d)} %`;
  }

  function pctSe(m, se) {
    if (missing(m)) return "–";
    return pct(m) + (se > 0 ? ` ± ${fx(100 * se, 2)}` : "");
  }

  function ev(m, se) {
    if (missing(m)) return "–";
    return `${m >= 0 ? "+" : "−"}${fx(m, 3)}` + (se > 0 ? ` ± ${fx(se, 3)}` : "");
  }


  /** A number with its standard error on a line of its own (narrow screens) or after it. */
  function evCell(m, se, attrs) {
    const td = el("td", attrs || {});
    if (missing(m)) { td.textContent = "–"; return td; }
    td.append(ev(m, 0));
    if (se > 0) td.append(el("span", {class: "se", text: ` ± ${fx(se, 3)}`}));
    return td;
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
    if (ids.some((id) => isJoker(id, r))) return t("jokers");
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

  /** One card drawn in SVG (60 x 90 units), with its badge: J for a joker, and with 8 reyes =R
      on a tres, =A on a dos. */
  function cardSvg(id, r) {
    const f = idFace(id);
    let badge = null;
    if (isJoker(id, r)) badge = "J";
    else if (r.variant !== "4-reyes" && f === 3) badge = "=R";
    else if (r.variant !== "4-reyes" && f === 2) badge = "=A";
    return window.MusCards.cardSvg(f, idSuit(id), badge);
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
        msg.textContent = t("hand.full");
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
      tr.append(el("div", {role: "rowheader", class: `suit-name suit-${s}`, text: s, lang: "es"}));
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

  function pickerKeys(ev_) {
    const row = Number(ev_.currentTarget.dataset.row), col = Number(ev_.currentTarget.dataset.col);
    const moves = {ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0]};
    let r = row, c = col;
    if (ev_.key in moves) { r = (row + moves[ev_.key][0] + 4) % 4; c = (col + moves[ev_.key][1] + 10) % 10; }
    else if (ev_.key === "Home") c = 0;
    else if (ev_.key === "End") c = 9;
    else return;
    ev_.preventDefault();
    const next = document.querySelector(`.pcard[data-row="${r}"][data-col="${c}"]`);
    for (const b of document.querySelectorAll(".pcard")) b.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  }

  let handWasComplete = null;

  function drawCards() {
    const r = rules();
    const hand = sets.hand.cards || [], dead = sets.dead.cards || [];
    for (const b of document.querySelectorAll(".pcard")) {
      const id = b.dataset.card;
      const where = hand.includes(id) ? "hand" : dead.includes(id) ? "dead" : "";
      b.textContent = "";
      b.append(cardSvg(id, r));
      b.dataset.where = where;
      let name = isJoker(id, r) ? t("card.joker", {card: cardName(id)}) : cardName(id);
      if (where === "hand") name = t("card.inhand", {card: name});
      else if (where === "dead") name = t("card.dead", {card: name});
      b.setAttribute("aria-label", name);
    }
    const view = $("hand-view");
    view.textContent = "";
    const shown = sets.hand.cards || [];
    for (let i = 0; i < 4; i++) {
      const id = shown[i];
      if (id) {
        const b = el("button", {type: "button", class: "hcard", "aria-label": t("card.back", {card: cardName(id)}),
                                title: t("card.back.t")});
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
      $("hand-summary").textContent = t("typed", {text: sets.hand.text});
    } else {
      $("hand-summary").textContent = handSummary(shown, r);
    }
    // on a narrow screen the deck folds away once the hand is complete, so that the answers come next
    const complete = handReady();
    if (complete !== handWasComplete) {
      if (window.innerWidth < WIDE) $("picker-box").open = !complete;
      handWasComplete = complete;
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
      const row = el("div", {class: "decl-row", role: "group", "aria-label": seatName(q)});
      row.append(el("span", {class: "decl-seat", text: q === partnerOf(me) ? t("partner", {seat: seatName(q)})
        : seatName(q)}));
      for (const lance of ["pares", "juego"]) {
        const id = `decl-${q}-${lance}`;
        const sel = el("select", {id, disabled: tenKings, lang: "es"});
        for (const [v, txt] of [["", t("decl.unknown")], [lance, lance], [`no-${lance}`, `no ${lance}`]]) {
          sel.append(el("option", {value: v, text: txt, selected: decl[q][lance] === v}));
        }
        sel.addEventListener("change", () => { decl[q][lance] = sel.value; changed(); });
        row.append(el("label", {for: id, class: "sr-only", text: `${seatName(q)}, ${lance}`}), sel);
      }
      box.append(row);
    }
    $("decl-help").textContent = tenKings ? t("decl.help.10") : t("decl.help");
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
    $("variant-help").textContent = t({"8-reyes": "variant.help.8", "4-reyes": "variant.help.4",
                                       "ten-kings": "variant.help.10"}[r.variant]);
    const mine = me === "mano" || me === "third" ? 0 : 1;
    $("team-line").textContent = t("team.line", {partner: seatName(partnerOf(me)), mine: t(`team.${mine}`),
                                                 theirs: t(`team.${1 - mine}`)});
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
    p.equilibrium = true;  // the advice is the equilibrium's (random hands are the comparison)
    return p;
  }

  /** The chart's size in pixels at 100 dpi: as wide as its box, so that its text keeps its size. */
  function chartSize() {
    const box = $("chart-panel").clientWidth || window.innerWidth;
    const w = Math.max(300, Math.min(1400, Math.round((box - 24) / 20) * 20));
    const h = w < 640 ? Math.round(w * 1.35) : Math.round(Math.max(420, w * 0.55));
    return `${w}x${h}`;
  }

  /** Panels and the jobs ("slots") that fill them. */
  const panels = {};
  const slots = {};

  function addSlot(name, panel, kind, params, render, auto) {
    slots[name] = {name, panel, kind, params, render, auto: auto !== false, key: null, gen: 0, jobId: null,
                   status: null, error: null, result: null};
    panels[panel] = panels[panel] || {name: panel, root: $(`${panel}-panel`), slots: []};
    panels[panel].slots.push(name);
  }

  addSlot("odds", "odds", "odds", oddsParams, renderOdds);
  for (const lance of LANCES) addSlot(`ordago-${lance}`, "ordago", "ordago", () => ordagoParams(lance), renderOrdago);
  addSlot("discard", "discard", "discard", () => musPhaseParams(true), renderDiscard);
  addSlot("mus", "mus", "mus", () => musPhaseParams(false), renderMus);
  addSlot("chart", "chart", "chart", chartParams, renderChart, false);
  addSlot("bet", "bet", "bet", betBaseParams, null, false);
  addSlot("read", "read", "hand", readParams, renderRead);

  /** The reading of the table: /api/hand (musstats hand --format json) for the hand so far. */
  function readParams() {
    const p = {hand: sets.hand.text.trim(), seat: mySeat()};
    const h = $("read-history").value.trim();
    if (h) p.history = h;
    const r = rules();
    if (r.variant !== "8-reyes") p.variant = r.variant;
    return p;
  }

  function renderRead(slot, st) {
    const d = st.result;
    const dec = d.decision;
    const now = $("read-now");
    const body = $("read-decision-body");
    body.textContent = "";
    const acts = dec && dec.actions ? Object.entries(dec.actions) : [];
    $("read-decision").hidden = acts.length === 0;
    if (!dec) now.textContent = t("read.over");
    else if (dec.kind === "declare") now.textContent = t("read.declare", {lance: dec.lance});
    else if (!acts.length) now.textContent = t("read.turn", {seat: t(`seat.${dec.seat}`)});
    else now.textContent = t("read.decision", {what: dec.lance ? LANCE_ES[dec.lance]
                                                              : dec.kind === "mus" ? "mus" : t("discard.h")});
    for (const [a, x] of acts) {
      const best = a === dec.best_reading;
      const name = el("th", {scope: "row", lang: "es"}, a,
                      best ? el("span", {class: "star", text: " ★", title: t("read.best")}) : null);
      body.append(el("tr", {class: best ? "best" : "", "data-action": a}, name, el("td", {text: pct(x.p, 1)}),
                     evCell(x.ev, x.se)));
    }
    $("read-decision-caption").textContent = dec && dec.lance
      ? [LANCE_ES[dec.lance], ...(dec.history && dec.history.length ? [dec.history.join(", ")] : [])].join(" · ") : "";
    const rb = $("read-body");
    rb.textContent = "";
    for (const [seat, x] of Object.entries(d.reads)) {
      const tr = el("tr", {"data-seat": seat}, el("th", {scope: "row", text: t(`seat.${seat}`)}));
      for (const k of ["pares", "juego", "31", "reyes2"]) {
        tr.append(el("td", {"data-read": k}, pct(x[k].posterior, 1),
                     el("span", {class: "se", text: ` [${pct(x[k].prior, 0)}]`})));
      }
      tr.append(el("td", {"data-read": "points"}, fx(x.points.posterior, 1),
                   el("span", {class: "se", text: ` [${fx(x.points.prior, 1)}]`})));
      rb.append(tr);
    }
    $("read-table").hidden = false;
    $("read-note").textContent = t("read.note", {src: dec && dec.source ? dec.source : d.strategies,
                                                  n: fmtInt(d.samples), ess: fmtInt(Math.round(d.effective_samples)),
                                                  seed: d.seed});
  }

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
    try { data = await res.json(); } catch (e) { data = {error: t("err.status", {n: res.status})}; }
    data.httpStatus = res.status;
    return data;
  }

  /** Run one job for ``slot`` (its generation must be bumped by the caller): the final job status,
   * {state: "error", ...} when the server refused it, or null once a newer request replaced it. */
  async function runJob(slot, kind, params) {
    const gen = slot.gen;
    const replaces = slot.jobId;
    slot.jobId = null;
    slot.status = {state: "queued", done: 0, total: 0};
    paintPanel(slot.panel);
    let st;
    try {
      st = await api("POST", "/api/jobs", {kind, params, replaces});
    } catch (e) {
      return gen === slot.gen ? {state: "error", error: t("err.noserver", {m: e.message}), status: 0} : null;
    }
    if (gen !== slot.gen) {  // replaced while we were asking: the newer request cancelled nothing
      if (st.id) api("DELETE", `/api/jobs/${st.id}`).catch(() => {});
      return null;
    }
    if (st.httpStatus >= 400) return {state: "error", error: st.error, status: st.httpStatus};
    slot.jobId = st.id;
    while (st.state === "queued" || st.state === "running") {
      slot.status = st;
      paintPanel(slot.panel);
      paintStatus();
      try {
        st = await api("GET", `/api/jobs/${st.id}?wait=0.3`);
      } catch (e) {
        return gen === slot.gen ? {state: "error", error: t("err.noserver", {m: e.message}), status: 0} : null;
      }
      if (gen !== slot.gen) return null;
    }
    slot.status = st;
    return st;
  }

  async function runSlot(name, force) {
    const slot = slots[name];
    const params = slot.params();
    const key = JSON.stringify(params);
    if (!force && key === slot.key) return;
    slot.key = key;
    slot.gen++;
    slot.error = null;
    const gen = slot.gen;
    const st = await runJob(slot, slot.kind, params);
    if (!st || gen !== slot.gen) return;
    if (st.state === "done") {
      try {
        slot.result = st;
        await slot.render(slot, st);
      } catch (e) {
        failSlot(slot, t("err.show", {m: e.message}), 0);
        return;
      }
    } else if (st.state === "cancelled") {
      slot.key = null;  // a later change or Recompute runs it again
    } else {
      failSlot(slot, st.error || t("err.status", {n: st.httpStatus}), st.status || st.httpStatus);
      return;
    }
    paintPanel(slot.panel);
    paintStatus();
    if (slot.name === "odds" && st.state === "done") runSlot("chart");  // the chart draws these odds
  }

  function failSlot(slot, message, status) {
    slot.status = {state: "error"};
    slot.error = {message: message || "?", status};
    slot.result = null;
    if (slot.name === "odds" && status === 400) {
      clearAll();  // the hand itself cannot be computed: nothing of the previous hand stays
      setTopError(message);
      return;
    }
    if (slot.name === "odds") {
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

  /** Stop every question and clear every panel (a new hand, an incomplete or a bad one). */
  function clearAll() {
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
    bet.base = null;
    bet.baseKey = null;
    bet.askedKey = null;
    bet.coldNote = null;
    bet.point = null;
    bet.result = null;
    bet.error = null;
    renderBet();
    for (const p of Object.keys(panels)) paintPanel(p);
  }

  let topError = "";

  function setTopError(message) {
    topError = message || "";
    const box = $("error");
    box.hidden = !topError;
    box.textContent = topError ? t("err.top", {m: topError}) : "";
    for (const p of Object.keys(panels)) paintPanel(p);
    paintStatus();
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
        const big = withTotal.status.total >= 10000;
        text.textContent = t(big ? "run.deals" : "run.steps", {done: fmtInt(withTotal.status.done),
                                                                total: fmtInt(withTotal.status.total)});
      } else {
        bar.removeAttribute("value");
        text.textContent = running.every((s) => s.status.state === "queued") ? t("run.wait") : t("run.busy");
      }
    }
    const errors = states.filter((s) => s.error);
    const box = root.querySelector(".panel-error");
    // the hand's own error is shown once, above the panels; órdago rows show why a lance is not bet,
    // unless every lance says the same (a bad score)
    const shown = errors.find((s) => s.error.message !== topError
                              && !(panel === "ordago" && s.error.status === 400 && !sharedOrdagoError(s.error.message)));
    const cancelled = states.some((s) => s.status && s.status.state === "cancelled");
    const own = panel === "bet" && bet.error && bet.error !== topError ? bet.error : null;
    if (shown || own) {
      box.hidden = false;
      box.textContent = shown ? shown.error.message : own;
    } else if (cancelled) {
      box.hidden = false;
      box.textContent = t("cancelled");
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
      status.textContent = t("status.pick");
    } else if (!handReady()) {
      const n = 4 - parseCards(sets.hand.text).length;
      status.textContent = n === 1 ? t("status.more1") : t("status.more", {n});
    } else if (busy.length) {
      status.textContent = busy.length === 1 ? t("status.busy1") : t("status.busy", {n: busy.length});
    } else if (topError) {
      status.textContent = t("status.bad");
    } else {
      status.textContent = t("status.ok");
    }
  }

  // ------------------------------------------------------------------ rendering the answers

  /** The command line's title: "R R 3 A · mano · 8-reyes · dead 7 7 · declared second:pares". */
  function title(d, what) {
    const parts = [];
    if (d.hand) parts.push(Array.isArray(d.hand) ? d.hand.join(" ") : d.hand);
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
    if (d.method === "exact") return t("run.exact");
    let s = t("run.mc", {n: fmtInt(d.trials || 0)});
    if (d.seed !== null && d.seed !== undefined) s += t("run.seed", {s: d.seed});
    if (d.partial) s += t("run.partial");
    return s;
  }

  /** A percentage cell: "99.17 %" (the unit is a span that a phone screen hides to save width). */
  function pctCell(m, se, attrs) {
    const td = el("td", attrs || {});
    if (missing(m)) { td.textContent = "–"; return td; }
    td.append(fx(100 * m, 2), el("span", {class: "unit", text: " %"}));
    if (se > 0) td.append(el("span", {class: "se", text: ` ± ${fx(100 * se, 2)}`}));
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
          tr.append(evCell(e[s], e.se[s], {"data-stat": s}));
        } else {
          tr.append(pctCell(e[s], e.se[s], {"data-stat": s}));
        }
      }
      body.append(tr);
    }
    $("odds-caption").textContent = title(d);
    $("odds-run").textContent = t("odds.run", {run: runCaption(d)});
    const box = $("odds-identities");
    box.textContent = "";
    if (d.identities && d.identities.length) {
      const tb = el("tbody");
      const head = el("tr", {}, el("th", {scope: "col", text: t("odds.identity")}));
      for (const lance of LANCES) head.append(el("th", {scope: "col"}, el("span", {lang: "es", text: LANCE_ES[lance]})));
      head.append(el("th", {scope: "col", text: t("total")}));
      for (const it of d.identities) {
        const tr = el("tr", {}, el("th", {scope: "row", text: it.identity}));
        for (const lance of LANCES) {
          const e = it.lances[lance];
          tr.append(el("td", {text: e.p_played === 0 ? "–" : ev(e.ev_net, 0)}));
        }
        tr.append(el("td", {text: missing(it.ev_total) ? "–" : ev(it.ev_total, 0)}));
        tb.append(tr);
      }
      const tbl = el("table", {class: "numbers"}, el("caption", {text: t("odds.identities")}), el("thead", {}, head), tb);
      box.append(el("div", {class: "scroll"}, tbl));
    }
    $("odds-cli").textContent = cliLine("odds", JSON.parse(slot.key));
  }

  let discardAll = false;

  /** What the keep-sets are ranked by, as a column head. */
  function rankName(d) {
    const what = d.ranked_by || (d.objective && d.objective !== "total" ? d.objective : "total");
    const key = `rank.${what}`;
    const s = t(key);
    return s === key ? (LANCES.includes(what) ? LANCE_ES[what] : what) : s;
  }

  function rankValue(row) {
    if ("objective" in row && !missing(row.objective)) return [row.objective, row.se_objective];
    return [row.ev_total, row.se_total];
  }

  function recommendedRow(d) {
    return d.keep_sets.find((r) => r.recommended) || d.keep_sets[0];
  }

  function renderDiscard(slot, st) {
    const d = st.result;
    const body = $("discard-body");
    body.textContent = "";
    const rowsAll = d.keep_sets;
    const rows = discardAll ? rowsAll : rowsAll.slice(0, DISCARD_ROWS);
    // the en-paso column is shown beside the ranked one when the ranking is another figure
    const pasoCol = rowsAll.some((r) => rankValue(r)[0] !== r.ev_total);
    $("discard-paso-h").hidden = !pasoCol;
    const rankAbbr = $("discard-rank-h").querySelector("abbr");
    rankAbbr.textContent = rankName(d);
    rows.forEach((row, i) => {
      const keep = el("th", {scope: "row"}, row.recommended ? el("span", {class: "star", "aria-label": "★",
                                                                           text: "★ "}) : null,
                        el("span", {title: `keep-set ${row.keep}`, text: keepCards(row.keep)}));
      const tr = el("tr", {class: row.recommended ? "best" : "", "data-keep": row.keep}, keep);
      const [m, se] = rankValue(row);
      tr.append(evCell(m, se, {"data-col": "rank"}));
      tr.append(i === 0 && !row.gap_to_best ? el("td", {"data-col": "gap", text: t("best")})
        : evCell(-row.gap_to_best, row.se_gap, {"data-col": "gap"}));
      if (pasoCol) tr.append(evCell(row.ev_total, row.se_total, {"data-col": "paso"}));
      body.append(tr);
    });
    const lb = $("discard-lances-body");
    lb.textContent = "";
    for (const row of rows) {
      const tr = el("tr", {}, el("th", {scope: "row", text: keepCards(row.keep)}));
      for (const lance of LANCES) tr.append(el("td", {text: ev(row[`ev_${lance}`], 0)}));
      lb.append(tr);
    }
    const best = recommendedRow(d);
    $("discard-best").textContent = (best.keep === "–" ? t("discard.all")
      : t("discard.keep", {keep: keepCards(best.keep), n: best.discard}))
      + (d.close ? t("discard.close") : "");
    $("discard-caption").textContent = title(d, [d.objective === "total" || !d.objective ? "" : `objective ${d.objective}`,
                                                 t("discard.rankedby", {what: rankName(d).toLowerCase()})]
                                               .filter(Boolean).join(" · "));
    $("discard-note").textContent = t("discard.note", {rounds: d.rounds, by: d.others_discard_by, run: runCaption(d)})
      + (d.with_betting ? ` (${d.with_betting})` : "");
    const more = $("discard-more");
    more.hidden = rowsAll.length <= DISCARD_ROWS;
    more.textContent = discardAll ? t("discard.showbest", {n: DISCARD_ROWS}) : t("discard.showall", {n: rowsAll.length});
    more.setAttribute("aria-expanded", discardAll ? "true" : "false");
    if (slots.mus.result) renderMus(slots.mus, slots.mus.result);  // the mus panel checks its keep-set against this
  }

  function renderMus(slot, st) {
    const d = st.result;
    const b = d.with_betting || null;
    const eq = d.equilibrium || null;
    const advice = d.advice;  // the equilibrium's where it ships, else with betting, else en paso
    const keep = b ? b.keep : d.keep;
    const ask = advice !== "cut";
    const adv = $("mus-advice");
    adv.textContent = "";
    adv.append(el("span", {class: "say", lang: "es", "data-advice": ask ? "mus" : "cut",
                           text: t(ask ? "mus.say.mus" : "mus.say.cut")}),
               ` — ${ask ? t("mus.gloss.mus", {keep: keepCards(keep)}) : t("mus.gloss.cut")}`);
    adv.className = "advice " + (ask ? "go" : "stop");
    const lines = [];
    if (eq) {
      lines.push(t("mus.eq", {p: eq.p_cut.toFixed(2), d: ev(eq.cut_minus_ask, eq.se), cut: ev(eq.ev_cut, 0),
                              ask: ev(eq.ev_ask, 0), speaks: pct(eq.speaks, 1), share: pct(eq.mus_share, 1)}));
    }
    if (b) {
      lines.push(t(eq ? "mus.withbetflags" : "mus.withbet", {d: ev(b.difference.value, b.difference.se), cut: ev(b.cut.ev_total, 0),
                                    keep: keepCards(b.keep), mus: ev(b.mus.ev_total, 0)}));
    }
    lines.push(t("mus.paso", {adv: t(d.advice === "cut" ? "mus.say.cut" : "mus.say.mus"),
                              d: ev(d.difference.value, d.difference.se), keep: keepCards(d.keep),
                              cut: ev(d.cut.ev_total, d.cut.se), mus: ev(d.mus.ev_total, d.mus.se)}));
    lines.push(t("mus.others", {by: d.others_discard_by}));
    if (!(d.rules && d.rules.mus_visto)) lines.push(t("mus.happens", {p: pct(d.p_others_ask, 1)}));
    const dd = slots.discard.result && slots.discard.result.result;
    if (dd && dd.keep_sets && dd.keep_sets.length) {
      const top = recommendedRow(dd).keep;
      if (top !== keep) lines.push(t("mus.differs", {a: keepCards(top), b: keepCards(keep)}));
    }
    $("mus-detail").textContent = lines.join(" ") + ` ${runCaption(d)}.`;
  }

  /** An órdago error that more than one lance gives (it is about the question, not the lance). */
  function sharedOrdagoError(message) {
    return LANCES.filter((l) => {
      const e = slots[`ordago-${l}`].error;
      return e && e.message === message;
    }).length > 1;
  }

  const yes = (x, word) => x === true || x === word;

  /** The equilibrium answer of an órdago result, whichever layout the JSON has: the equilibrium's in
   * ``call``/``accept`` (``method`` "equilibrium") with the random-hands figures under ``random_hands``,
   * or the random-hands figures at the top with the equilibrium's under ``equilibrium``.  No answer
   * (null) where the result has no equilibrium figures: the random hands are only the comparison. */
  function ordagoAnswer(d) {
    const eq = d.equilibrium || null;
    const rh = d.random_hands || null;
    const out = {eq, random: rh || d, call: null, accept: null, callNode: eq && eq.call, answerNode: eq && eq.answer,
                 advice: null};
    if (rh) {
      if (d.method === "random hands") return out;
      if (d.call !== null && d.call !== undefined) out.call = yes(d.call, "call");
      if (d.accept !== null && d.accept !== undefined) out.accept = yes(d.accept, "accept");
      out.advice = d.advice || null;
    } else {
      if (out.callNode && out.callNode.decision) out.call = out.callNode.decision === "call";
      if (out.answerNode && out.answerNode.decision) out.accept = out.answerNode.decision === "accept";
    }
    return out;
  }

  function decisionCell(kind, decided, node) {
    // kind "call": paso / órdago; kind "answer": no quiero / quiero
    const td = el("td", {"data-eq": kind, class: "decision"});
    if (decided === null) { td.textContent = "–"; return td; }
    const go = decided;
    const word = kind === "call" ? (go ? "ordago.call" : "ordago.pass") : (go ? "ordago.accept" : "ordago.refuse");
    const gloss = kind === "call" ? (go ? "ordago.gloss.call" : "ordago.gloss.pass")
      : (go ? "ordago.gloss.accept" : "ordago.gloss.refuse");
    td.dataset.decision = kind === "call" ? (go ? "call" : "pass") : (go ? "accept" : "refuse");
    td.classList.add(go ? "yes" : "no");
    td.append(el("span", {class: "say", lang: "es", text: t(word)}), el("span", {class: "gloss", text: ` (${t(gloss)})`}));
    if (node) {
      const [a, b, pa, pb] = kind === "call"
        ? ["paso", "órdago", node.p_win_game_if_pass, node.p_win_game_if_call]
        : ["no quiero", "quiero", node.p_win_game_if_refuse, node.p_win_game_if_accept];
      td.append(el("span", {class: "pwin", text: t("ordago.pwin", {a, b, pa: pct(pa, 1), pb: pct(pb, 1)})}));
      const pMix = kind === "call" ? node.p_call : node.p_accept;
      if (node.mixed && !missing(pMix)) td.append(el("span", {class: "pwin", text: t("ordago.mixed", {p: pct(pMix, 0)})}));
      if (node.off_path) td.append(el("span", {class: "pwin", text: t("ordago.offpath")}));
    }
    return td;
  }

  function renderOrdago() {
    const body = $("ordago-body");
    const rbody = $("ordago-random-body");
    body.textContent = "";
    rbody.textContent = "";
    let game = null;
    let eqInfo = null;
    const allBox = $("ordago-all") || null;
    const allRows = [];
    for (const lance of LANCES) {
      const slot = slots[`ordago-${lance}`];
      const tr = el("tr", {"data-lance": lance}, lanceCell(lance));
      const rtr = el("tr", {"data-lance": lance}, lanceCell(lance));
      const d = slot.result && slot.result.result;
      if (slot.error && (slot.error.message === topError || slot.error.status !== 400
                         || sharedOrdagoError(slot.error.message))) {
        tr.append(el("td", {text: "–"}), el("td", {text: "–"}));
        rtr.append(el("td", {text: "–"}), el("td", {text: "–"}), el("td", {text: "–"}));
      } else if (slot.error) {
        tr.append(el("td", {colspan: 2, class: "why", text: slot.error.message}));
        rtr.append(el("td", {colspan: 3, class: "why", text: "–"}));
      } else if (d) {
        game = game || d;
        const a = ordagoAnswer(d);
        if (a.call === null && a.accept === null) {
          const why = (a.eq && a.eq.note) || (d.notes || []).filter((n) => /equilibri/.test(n)).join("; ")
            || (d.notes || []).join("; ") || d.method || "–";
          tr.append(el("td", {colspan: 2, class: "why", text: t("ordago.nosay", {why})}));
        } else {
          tr.append(decisionCell("call", a.call, a.callNode), decisionCell("answer", a.accept, a.answerNode));
        }
        if (a.eq && !eqInfo && a.eq.iterations !== undefined) eqInfo = a.eq;
        if (a.advice) allRows.push({lance, advice: a.advice});
        for (const [node, where] of [[a.callNode, "call"], [a.answerNode, "answer"]]) {
          if (!node || !node.actions) continue;
          const h = (node.history || []).join(", ");
          const label = where === "call" ? (h ? t("ordago.where.call", {h}) : t("ordago.where.first"))
            : t("ordago.where.answer", {h: (node.history || []).slice(0, -1).join(", ") || "–"});
          allRows.push({lance, label, actions: node.actions});
        }
        const r = a.random;
        rtr.append(pctCell(r.p_lance, 0),
                   el("td", {lang: "es", "data-random": "call", text: r.call ? t("ordago.random.yes") : t("ordago.random.no")}),
                   el("td", {lang: "es", "data-random": "accept", text: r.accept ? t("ordago.accept") : t("ordago.refuse")}));
      } else {
        tr.append(el("td", {text: t("ordago.waiting")}), el("td", {text: t("ordago.waiting")}));
        rtr.append(el("td", {text: "…"}), el("td", {text: "…"}), el("td", {text: "…"}));
      }
      body.append(tr);
      rbody.append(rtr);
    }
    renderOrdagoAll(allRows);
    const head = $("ordago-h");
    head.textContent = "";
    if (game) {
      const sc = game.score;
      head.append(el("span", {lang: "es", text: t("ordago.at", {us: sc.us, them: sc.them})}));
      $("ordago-caption").textContent = title(game, `${t("target")} ${sc.target}`);
      const model = game.game_model || (game.random_hands || {}).game_model || {};
      const mano = model.mano === "us";
      let note = "";
      if (eqInfo) {
        const nc = eqInfo.nashconv && eqInfo.nashconv.nashconv;
        note = t("ordago.note", {us: sc.us, them: sc.them, deal: eqInfo.deal || "as-dealt", it: eqInfo.iterations,
                                 src: eqInfo.strategy_source || "–", nc: missing(nc) ? "–" : dec(nc.toFixed(4)),
                                 deals: fmtInt(eqInfo.deals || 0), seed: eqInfo.trials_seed ?? "–",
                                 mano: mano ? t("ordago.is") : t("ordago.isnot")});
      }
      const notes = (game.notes || []).join("; ");
      $("ordago-note").textContent = note + (notes ? ` ${notes}.` : "");
      const r = game.random_hands || game;
      const be = r.break_even || game.break_even || {};
      $("ordago-random-note").textContent = t("ordago.random.be", {call: pct(be.call), accept: pct(be.accept),
                                                                   us: sc.us, them: sc.them,
                                                                   pg: pct(r.p_game ?? game.p_game, 1)});
    } else {
      head.append(el("span", {lang: "es", text: "Órdago"}));
      $("ordago-caption").textContent = "–";
      $("ordago-note").textContent = "";
      $("ordago-random-note").textContent = "";
    }
  }

  /** Every action of the equilibrium at the two points of each lance, with P(win the game). */
  function renderOrdagoAll(rows) {
    let box = $("ordago-all");
    if (!box) {
      box = el("details", {id: "ordago-all", class: "comparison"}, el("summary", {}));
      $("ordago-note").after(box);
    }
    box.querySelector("summary").textContent = t("ordago.all");
    for (const old of box.querySelectorAll("table")) old.remove();
    box.hidden = !rows.some((r) => r.actions);
    if (!rows.length) return;
    const tb = el("tbody");
    for (const row of rows) {
      if (row.advice) {
        tb.append(el("tr", {class: "group"}, el("th", {scope: "rowgroup", colspan: 3},
                                                el("span", {lang: "es", text: LANCE_ES[row.lance]}))),
                  el("tr", {}, el("td", {colspan: 3, class: "why", text: row.advice})));
        continue;
      }
      tb.append(el("tr", {class: "group"}, el("th", {scope: "rowgroup", colspan: 3},
                                              el("span", {lang: "es", text: LANCE_ES[row.lance]}), ` · ${row.label}`)));
      let bestP = -1;
      for (const x of Object.values(row.actions)) bestP = Math.max(bestP, x.p_win_game ?? -1);
      for (const [act, x] of Object.entries(row.actions)) {
        tb.append(el("tr", {class: x.p_win_game === bestP ? "best" : ""},
                     el("th", {scope: "row", lang: "es", text: act}), pctCell(x.p, 0),
                     el("td", {text: pct(x.p_win_game, 1)})));
      }
    }
    box.append(el("table", {class: "numbers fit"},
                  el("thead", {}, el("tr", {}, el("th", {scope: "col", text: t("col.action")}),
                                     el("th", {scope: "col", text: t("ordago.allcol.p")}),
                                     el("th", {scope: "col", text: t("ordago.allcol.win")}))), tb));
  }

  async function renderChart(slot, st) {
    const res = await fetch(st.result_url);
    if (!res.ok) throw new Error(t("err.status", {n: res.status}));
    const blob = await res.blob();
    const img = $("chart");
    const old = img.dataset.url;
    img.src = URL.createObjectURL(blob);
    img.dataset.url = img.src;
    if (old) URL.revokeObjectURL(old);
    const p = JSON.parse(slot.key);
    img.alt = t("chart.alt", {hand: p.hand, seat: p.seat});
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
      $("discard-lances-body").textContent = "";
      $("discard-best").textContent = "";
      $("discard-note").textContent = "";
      $("discard-caption").textContent = "–";
      $("discard-more").hidden = true;
    } else if (slot.name === "mus") {
      $("mus-advice").textContent = "";
      $("mus-detail").textContent = "";
    } else if (slot.name === "read") {
      for (const id of ["read-now", "read-decision-body", "read-body", "read-note"]) $(id).textContent = "";
      $("read-decision").hidden = true;
      $("read-table").hidden = true;
    } else if (slot.name === "chart") {
      const img = $("chart");
      img.hidden = true;
      if (img.dataset.url) URL.revokeObjectURL(img.dataset.url);
      img.removeAttribute("src");
      delete img.dataset.url;
    } else if (slot.kind === "ordago") {
      renderOrdago();
    } else if (slot.name === "bet") {
      renderBet();
    }
  }

  /** The same question on the command line. */
  function cliLine(kind, p) {
    const q = (s) => (/^[\w./:,=+-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
    const args = ["musstats", kind, ...String(p.hand).split(/\s+/).filter(Boolean).map(q)];
    const flag = {seat: "--seat", variant: "--variant", juego_real: "--juego-real", target: "--target",
                  method: "--method", trials: "--trials", seed: "--seed", declared: "--declared", signal: "--signal",
                  objective: "--objective", policy: "--policy", lance: "--lance", score: "--score",
                  history: "--history", cut: "--cut"};
    for (const [k, v] of Object.entries(p)) {
      if (k === "hand" || k === "size" || k === "equilibrium") continue;
      if (k === "redeal_4567" && v) args.push("--redeal-4567");
      else if (k === "mus_visto" && v) args.push("--mus-visto");
      else if (k === "dead") args.push("--dead", ...String(v).split(/\s+/).map(q));
      else if (flag[k]) args.push(flag[k], q(String(v)));
    }
    return args.join(" ");
  }

  // ------------------------------------------------------------------ the betting panel

  /** The betting panel: the lance, the public history built by buttons, and at the player's turns
   * the equilibrium of /api/bet (musstats bet --format json); whose turn it is and the legal actions
   * come from the public tree (/api/tree). */
  const bet = {lance: "grande", history: [], base: null, baseKey: null, askedKey: null, point: null, result: null,
               error: null, pendingHistory: null, coldNote: null};

  function betBaseParams() {
    const r = rules();
    const p = {hand: sets.hand.text.trim(), seat: mySeat(), lance: bet.lance};
    const d = declaredText();
    if (d) p.declared = d;
    if ($("bet-cut").value) p.cut = $("bet-cut").value;  // the strategies given who cut
    const plan = $("bet-plan").value.trim();  // the pair's agreed plan (a bad one gets the API's one line)
    if (plan) p.plan_seed = /^\d{1,15}$/.test(plan) ? Number(plan) : plan;
    if (r.variant !== "8-reyes") p.variant = r.variant;
    if (r.jr !== "off") p.juego_real = r.jr;
    return p;
  }

  /** The node of an answer of /api/bet at ``history`` (its first node is the point asked about). */
  function nodeAt(res, history) {
    if (!res || !res.nodes) return null;
    const key = history.join(",");
    return res.nodes.find((n) => n.history.join(",") === key) || null;
  }

  /** A mark of a rarely reached point, when the answer carries one. */
  function rareMark(node) {
    if (!node) return null;
    for (const k of ["rare", "rarely_reached", "low_reach", "reached_rarely"]) {
      if (node[k] === true) return t("bet.rare.mark");
      if (typeof node[k] === "string" && node[k]) return node[k];
    }
    if (node.reach && typeof node.reach === "object" && node.reach.rare) {
      return node.reach.note || t("bet.rare.mark");
    }
    return null;
  }

  /** The rules whose betting strategies ship with musstats (answered at once); any other rules
   * need a solve of many minutes that cannot be interrupted, run only when asked for. */
  function betShipped(p) {
    return (p.variant || "8-reyes") === "8-reyes" && (p.juego_real || "off") === "off";
  }

  const betCold = new Set();  // the questions whose solve was asked for

  async function betRefresh() {
    const slot = slots.bet;
    if (!handReady()) { renderBet(); return; }
    const params = betBaseParams();
    const key = JSON.stringify(params);
    if (!betShipped(params) && !betCold.has(key)) {
      slot.gen++;
      bet.askedKey = key;
      bet.base = null;
      bet.baseKey = null;
      bet.point = null;
      bet.result = null;
      bet.error = null;
      bet.coldNote = key;
      renderBet();
      paintPanel("bet");
      return;
    }
    bet.coldNote = null;
    bet.askedKey = key;
    slot.gen++;
    const gen = slot.gen;
    bet.error = null;
    slot.error = null;
    if (bet.baseKey !== key) {  // a new question: its first turn first (it says who holds the lance)
      bet.base = null;
      bet.result = null;
      bet.point = null;
      bet.history = bet.pendingHistory || [];
      bet.pendingHistory = null;
      renderBet();
      const st = await runJob(slot, "bet", params);
      if (!st || gen !== slot.gen) return;
      if (st.state !== "done") { betFail(st); return; }
      bet.base = st.result;
      bet.baseKey = key;
      slot.key = key;
    }
    let point;
    try {
      const q = new URLSearchParams({lance: bet.lance});
      if (bet.base.declared) q.set("speakers", bet.base.declared);
      if (bet.history.length) q.set("history", bet.history.join(","));
      point = await api("GET", `/api/tree?${q}`);
    } catch (e) {
      if (gen === slot.gen) betFail({error: t("err.noserver", {m: e.message}), status: 0});
      return;
    }
    if (gen !== slot.gen) return;
    if (point.httpStatus >= 400) {
      if (bet.history.length) { bet.history = []; betRefresh(); return; }  // a history of another question
      betFail({error: point.error, status: point.httpStatus});
      return;
    }
    bet.point = point;
    bet.history = point.history;
    bet.result = null;
    if (point.turn === mySeat()) {
      const here = nodeAt(bet.base, point.history);
      if (here && bet.base.nodes[0] === here) {
        bet.result = bet.base;
      } else {
        renderBet();
        const st = await runJob(slot, "bet", {...params, history: point.history.join(",")});
        if (!st || gen !== slot.gen) return;
        if (st.state !== "done") { betFail(st); return; }
        bet.result = st.result;
      }
    }
    slot.status = null;
    renderBet();
    paintPanel("bet");
    paintStatus();
    saveHash();
  }

  function betFail(st) {
    const slot = slots.bet;
    slot.status = st.state === "cancelled" ? {state: "cancelled"} : null;
    bet.error = st.state === "cancelled" ? null : (st.error || t("err.status", {n: st.status || st.httpStatus}));
    bet.base = st.state === "cancelled" ? null : bet.base;
    if (st.state === "cancelled") bet.baseKey = null;
    renderBet();
    paintPanel("bet");
    paintStatus();
  }

  function betSay(action) {
    bet.history = [...bet.history, action];
    betRefresh();
  }

  function renderBet() {
    const coldKey = bet.coldNote;
    const hist = $("bet-history");
    const now = $("bet-now");
    const table = $("bet-table");
    const tbody = $("bet-body");
    const say = $("bet-say");
    const rare = $("bet-rare");
    hist.textContent = "";
    now.textContent = "";
    tbody.textContent = "";
    say.textContent = "";
    rare.hidden = true;
    table.hidden = true;
    $("bet-note").textContent = "";
    $("bet-caption").textContent = "–";
    $("bet-undo").disabled = !bet.history.length;
    $("bet-restart").disabled = !bet.history.length;
    if (coldKey) {
      now.textContent = "";
      say.append(el("p", {class: "help", text: t("bet.cold")}),
                 el("button", {type: "button", class: "small", id: "bet-solve", text: t("bet.solve")}));
      $("bet-solve").addEventListener("click", () => { betCold.add(coldKey); betRefresh(); });
      return;
    }
    const p = bet.point;
    if (!p || !bet.base) return;
    const me = mySeat();
    if (!p.steps.length) hist.append(el("li", {class: "start", text: t("bet.start")}));
    for (const s of p.steps) {
      hist.append(el("li", {class: s.seat === me ? "mine" : ""}, `${seatName(s.seat)}: `,
                     el("span", {lang: "es", text: s.action})));
    }
    const d = bet.base;
    if (p.over) {
      now.textContent = t("bet.over", {how: p.ending});
    } else if (p.turn === me && bet.result) {
      now.textContent = t("bet.turn.you", {seat: seatName(me)});
      const node = bet.result.nodes[0];
      let best = null;
      for (const [a, x] of Object.entries(node.actions)) if (!best || x.p > node.actions[best].p) best = a;
      for (const [a, x] of Object.entries(node.actions)) {
        const tr = el("tr", {"data-action": a, class: a === best ? "best" : ""},
                      el("th", {scope: "row"}, el("span", {lang: "es", text: a}),
                         a === best ? el("span", {class: "tag", text: ` ${t("bet.best")}`}) : null),
                      pctCell(x.p, 0, {"data-col": "p"}), evCell(x.ev, x.se, {"data-col": "ev"}));
        tbody.append(tr);
      }
      table.hidden = false;
      // how often the point is reached: the first-turn answer's weight of it, as the command line shows it
      const first = nodeAt(bet.base, node.history);
      const mark = rareMark(node) || rareMark(first);
      if (mark) {
        rare.hidden = false;
        rare.textContent = mark;
      }
      const r = bet.result;
      $("bet-caption").textContent = [r.hand, r.seat, r.variant, LANCE_ES[r.lance],
        r.declared ? t("bet.declared", {d: r.declared}) : "", r.deal, r.info, r.cut ? `${r.cut} corto` : "",
        node.history.length ? node.history.join(", ") : t("bet.start")].filter(Boolean).join(" · ");
      const ex = r.exploitability || {};
      $("bet-note").textContent = t("bet.note", {strat: r.strategies || "–", it: r.iterations, src: r.strategy_source,
        nc: missing(ex.nashconv) ? "–" : `≥ ${dec(ex.nashconv.toFixed(3))}`, ev: r.ev_method,
        deals: fmtInt(r.ev_deals || 0), seed: r.ev_seed, units: r.units, ord: r.ordago_stones ?? "–"})
        + (r.plans && Array.isArray(r.plans.gain)  // both pairs play plans
          ? ` ${t("bet.plans2", {g0: dec(r.plans.gain[0].toFixed(3)), g1: dec(r.plans.gain[1].toFixed(3))})}`
          : r.plans ? ` ${t("bet.plans", {pg: dec(r.plans.pair_gain.toFixed(3)), og: dec(r.plans.opponent_gain.toFixed(3)),
          opp: seatName(r.plans.opponent)})}` : "")
        + ((r.notes || []).length ? ` ${r.notes.join("; ")}.` : "")
        + (first && first !== bet.base.nodes[0] && !missing(first.weight)
          ? ` ${t("bet.reach", {p: pct(first.weight, 1)})}` : "");
    } else if (p.turn === me) {
      now.textContent = t("bet.turn.you", {seat: seatName(me)});
    } else {
      now.textContent = t("bet.turn.other", {seat: seatName(p.turn)});
      $("bet-caption").textContent = [d.hand, d.seat, d.variant, LANCE_ES[d.lance],
        d.declared ? t("bet.declared", {d: d.declared}) : ""].filter(Boolean).join(" · ");
    }
    if (!p.over) {
      const row = el("div", {class: "say-row", role: "group", "aria-label": p.turn === me ? t("bet.say.you")
        : t("bet.say", {seat: seatName(p.turn)})});
      row.append(el("span", {class: "say-who", text: p.turn === me ? t("bet.say.you") : t("bet.say", {seat: seatName(p.turn)})}));
      for (const a of p.actions) {
        const b = el("button", {type: "button", class: "small act", lang: "es", "data-say": a, text: a});
        b.addEventListener("click", () => betSay(a));
        row.append(b);
      }
      say.append(row);
    }
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
      clearAll();
      setTopError("");
      paintStatus();
      return;
    }
    if (force === true && topError) setTopError("");
    for (const name of Object.keys(slots)) if (slots[name].auto) runSlot(name, force === true);
    const odds = slots.odds;  // the chart follows the odds (see runSlot); here only when they are current
    if (odds.result && odds.status && odds.status.state === "done" && odds.key === JSON.stringify(oddsParams())) {
      runSlot("chart", force === true);
    }
    const k = JSON.stringify(betBaseParams());
    if (force === true || (k !== bet.baseKey && k !== bet.askedKey)) {
      if (force === true) bet.baseKey = null;
      betRefresh();
    }
    paintStatus();
  }

  // ------------------------------------------------------------------ the URL fragment

  const HASH_FIELDS = ["variant", "juego_real", "target", "signal", "method", "trials", "seed", "objective",
                       "policy", "keep-trials", "score-us", "score-them", "read-history"];

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
    if (bet.lance !== "grande") h.set("bet", bet.lance);
    if ($("bet-cut").value) h.set("cut", $("bet-cut").value);
    if ($("bet-plan").value.trim()) h.set("plan", $("bet-plan").value.trim());
    if (bet.history.length) h.set("said", bet.history.join(","));
    if (langChosen) h.set("lang", LANG);
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
    if (LANCES.includes(h.get("bet"))) bet.lance = h.get("bet");
    $("bet-lance").value = bet.lance;
    $("bet-cut").value = SEATS.includes(h.get("cut")) ? h.get("cut") : "";
    $("bet-plan").value = /^\d+$/.test(h.get("plan") || "") ? h.get("plan") : "";
    if (h.get("said")) bet.pendingHistory = h.get("said").split(",").map((x) => x.trim()).filter(Boolean);
    if (h.get("lang") === "es" || h.get("lang") === "en") { LANG = h.get("lang"); langChosen = true; }
    if (h.get("hand")) { sets.hand.input.value = h.get("hand"); setFromText("hand", h.get("hand")); }
    if (h.get("dead")) { sets.dead.input.value = h.get("dead"); setFromText("dead", h.get("dead")); }
  }

  // ------------------------------------------------------------------ language switch

  let langChosen = false;

  /** Every static text in the page's language, then every answer drawn again. */
  function applyLang() {
    document.documentElement.lang = LANG;
    document.title = `musstats · ${t("subtitle")}`;
    for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
    for (const e of document.querySelectorAll("[data-i18n-title]")) e.title = t(e.dataset.i18nTitle);
    for (const e of document.querySelectorAll("[data-i18n-placeholder]")) e.placeholder = t(e.dataset.i18nPlaceholder);
    for (const e of document.querySelectorAll("[data-i18n-aria]")) e.setAttribute("aria-label", t(e.dataset.i18nAria));
    for (const b of document.querySelectorAll(".lang button")) b.setAttribute("aria-pressed", String(b.dataset.lang === LANG));
    buildDeclarations();
    drawCards();
    describeRules();
    paintStatus();
    if (topError) setTopError(topError);
    for (const slot of Object.values(slots)) {
      if (slot.result && slot.render && slot.name !== "chart") slot.render(slot, slot.result);
    }
    if (slots.chart.result) $("chart").alt = t("chart.alt", JSON.parse(slots.chart.key));
    renderOrdago();
    renderBet();
    for (const p of Object.keys(panels)) paintPanel(p);
  }

  function setLang(lang) {
    LANG = lang;
    langChosen = true;
    window.MusLang.store(lang);  // private mode: not kept, the URL keeps it
    applyLang();
    saveHash();
  }

  // ------------------------------------------------------------------ wiring

  function init() {
    sets.hand.input = $("hand-text");
    sets.dead.input = $("dead-text");
    LANG = window.MusLang.initial();
    langChosen = window.MusLang.stored() !== null;
    buildPicker();
    loadHash();
    for (const b of document.querySelectorAll(".lang button")) b.addEventListener("click", () => setLang(b.dataset.lang));
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
    for (const id of ["target", "signal", "method", "objective", "policy", "redeal_4567", "mus_visto"]) {
      $(id).addEventListener("change", () => changed(true));
    }
    for (const id of ["trials", "seed", "keep-trials", "score-us", "score-them", "read-history"]) {
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
    $("bet-lance").addEventListener("change", () => {
      bet.lance = $("bet-lance").value;
      bet.history = [];
      changed(true);
    });
    $("bet-cut").addEventListener("change", () => {
      bet.history = [];
      changed(true);
    });
    $("bet-plan").addEventListener("change", () => changed(true));
    $("bet-undo").addEventListener("click", () => {
      bet.history = bet.history.slice(0, -1);
      betRefresh();
    });
    $("bet-restart").addEventListener("click", () => {
      bet.history = [];
      betRefresh();
    });
    let lastWidth = window.innerWidth;
    window.addEventListener("resize", () => {
      if (Math.abs(window.innerWidth - lastWidth) < 40) return;  // the chart follows real changes of width only
      lastWidth = window.innerWidth;
      clearTimeout(timer);
      timer = setTimeout(update, 400);
    });
    // a closed page stops its computations at once (the server would wait for a while first)
    const stopAll = () => {
      for (const slot of Object.values(slots)) {
        const live = slot.status && (slot.status.state === "queued" || slot.status.state === "running");
        if (slot.jobId && live) {
          try { fetch(`/api/jobs/${slot.jobId}`, {method: "DELETE", keepalive: true}); } catch (e) { /* closing */ }
          slot.jobId = null;
        }
      }
    };
    window.addEventListener("pagehide", stopAll);
    window.addEventListener("beforeunload", stopAll);
    applyLang();
    changed(true);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

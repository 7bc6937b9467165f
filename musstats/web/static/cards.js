/* The cards and the DOM helpers shared by the analysis page (app.js) and the practice table
   (play.js): one card drawn in SVG, the faces' labels and names, the suits' colours. */
"use strict";
window.MusCards = (function () {
  const LABEL = {12: "R", 11: "C", 10: "S", 7: "7", 6: "6", 5: "5", 4: "4", 3: "3", 2: "2", 1: "A"};
  const FACE_NAME = {12: "rey", 11: "caballo", 10: "sota", 7: "siete", 6: "seis", 5: "cinco", 4: "cuatro",
                     3: "tres", 2: "dos", 1: "as"};
  const SUIT_COLOR = {oros: "#8a6500", copas: "#b71c1c", espadas: "#0d47a1", bastos: "#1b5e20"};
  const SVG_NS = "http://www.w3.org/2000/svg";

  /** An element with attributes (``text``: its text, ``class``; null, undefined and false left out)
      and children. */
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

  /** One card drawn in SVG (60 x 90 units): face ``f`` (1-12), suit ``s``, and a corner ``badge``
      ("=R", "=A", "J") or null. */
  function cardSvg(f, s, badge) {
    const color = SUIT_COLOR[s];
    const figure = f >= 10;
    const g = svg("svg", {viewBox: "0 0 60 90", class: "face", "aria-hidden": "true", focusable: "false"});
    g.append(svg("rect", {x: 1.5, y: 1.5, width: 57, height: 87, rx: 6, class: figure ? "bg figure" : "bg"}));
    // the suit's frame of a Spanish deck: a band in the suit's colour
    g.append(svg("rect", {x: 5, y: 5, width: 50, height: 80, rx: 3, fill: "none", stroke: color,
                          "stroke-width": 0.8, "stroke-dasharray": {oros: "0", copas: "6 2", espadas: "2 2",
                                                                     bastos: "8 2 2 2"}[s]}));
    const rank = (x, y, rot) => {
      const e = svg("text", {x, y, class: "rank", fill: color, "text-anchor": "middle"});
      if (rot) e.setAttribute("transform", `rotate(180 ${x} ${y - 5})`);
      e.textContent = LABEL[f];
      return e;
    };
    g.append(rank(12, 19), rank(48, 81, true));
    const use = (sym, x, y, w, h) => svg("use", {href: `#${sym}`, x, y, width: w, height: h});
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
    if (badge) {
      g.append(svg("rect", {x: 34, y: 7, width: 21, height: 13, rx: 3, class: "badge-bg"}));
      const e = svg("text", {x: 44.5, y: 17, class: "badge", "text-anchor": "middle"});
      e.textContent = badge;
      g.append(e);
    }
    return g;
  }

  return {LABEL, FACE_NAME, SUIT_COLOR, el, svg, cardSvg};
})();

/* The page's language, shared by the analysis page (app.js) and the practice table (play.js):
   Spanish or English, the choice kept in localStorage, else the browser's preference. */
"use strict";
window.MusLang = (function () {
  const KEY = "musstats-lang";
  const ok = (l) => l === "es" || l === "en";

  /** Spanish when the browser lists it before English, English otherwise. */
  function browserLang() {
    const list = (navigator.languages && navigator.languages.length) ? navigator.languages : [navigator.language || ""];
    for (const l of list) {
      const p = String(l).toLowerCase().slice(0, 2);
      if (ok(p)) return p;
    }
    return "en";
  }

  /** The language chosen before on this browser, or null. */
  function stored() {
    try {
      const l = localStorage.getItem(KEY);
      return ok(l) ? l : null;
    } catch (e) { return null; }
  }

  /** Keep the chosen language (private mode: not kept). */
  function store(lang) {
    try { localStorage.setItem(KEY, lang); } catch (e) { /* private mode */ }
  }

  /** The language a page opens in: the one chosen before, else the browser's. */
  function initial() { return stored() || browserLang(); }

  /** ``t(key, vars)``: the text of ``key`` in the language ``lang()`` gives (English, then the key
      itself, where missing), with {name} replaced from ``vars``. */
  function translator(STR, lang) {
    return function t(key, vars) {
      let s = STR[lang()][key];
      if (s === undefined) s = STR.en[key];
      if (s === undefined) s = key;
      if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
      return s;
    };
  }

  return {browserLang, stored, store, initial, translator};
})();

// skillreel locate/resolve.js — replay-side resolution of a locator bundle, in one evaluation.
//
// Evaluated after fingerprint.js in an isolated world (CDP Page.createIsolatedWorld): the page
// shares the DOM with this script but not its JavaScript objects, so a page that patches
// prototypes (Element.prototype.getAttribute, querySelectorAll...) cannot change what we see.
// Defines one binding, `SkillreelResolve`. Every input arrives as the argument of a call, never as
// script text; Python calls `SkillreelResolve.call(method, arg)`. It measures; the decision is
// made in Python (locate/heal.py, which documents the comparison this file twins).
//
//   SkillreelResolve.probe({token, bundle, salt, weights, floor, topK, speculate: {attr, nonce}})
//       -> {token, hits: [{rank, total, visible, element}], observed: [{element, visible, comparison}],
//           pool: [element ids, best first], scored, speculative: {element, fingerprint} | null}
//   SkillreelResolve.pick({token, element, salt, attr, nonce, describe})
//       -> {ok, reason, fingerprint, candidates}   marks the element with attr=nonce for the action
//   SkillreelResolve.release({attr}) -> {held}       removes the mark (held: still on our element)
//   SkillreelResolve.pageState({salt, text, verify, attr}) -> {elements, structure, text, verified}
//       content-free summary; verify checks the marked field's value first, attr removes the mark
//   SkillreelResolve.check({check, expected}) -> boolean   on the picked element
//   SkillreelResolve.hasOption({value}) -> boolean          on the picked <select>
//   SkillreelResolve.count({candidate}) -> number
var SkillreelResolve = (() => {
  "use strict";
  const L = SkillreelLocate;

  // The attributes fingerprint.js hashes, its type and role rules: one source, loaded before this.
  const HASHED = L.HASHED_ATTRIBUTES;
  const HASHED_SET = new Set(HASHED);
  const typeOf = L.typeOf;
  const roleOf = L.roleOf;

  // The last probe's elements: pick() acts on exactly the element that was scored.
  let state = {token: null, table: [], picked: null};

  function isVisible(el) {
    if (!el.isConnected) return false;
    const rect = el.getBoundingClientRect();
    if (!(rect.width > 0 && rect.height > 0)) return false;
    if (typeof el.checkVisibility === "function" && !el.checkVisibility({visibilityProperty: true})) {
      return false;
    }
    return getComputedStyle(el).visibility === "visible";
  }

  // One measurement's caches: text hashes by value, same-tag sibling positions by parent.
  // Salted text hashes outlive one probe (the salt is fixed for a replay and most of a page stays
  // the same between steps); bounded, then simply cleared.
  const HASHES = new Map();  // salt -> (text -> hash)
  const MAX_HASHES = 100000;

  function context(salt) {
    const classes = new Map();
    const groups = new Map();
    let hashes = HASHES.get(salt);
    if (!hashes) HASHES.set(salt, (hashes = new Map()));
    return {
      index: 0,
      count: 1,
      hash(text) {
        let h = hashes.get(text);
        if (h === undefined) {
          if (hashes.size >= MAX_HASHES) hashes.clear();
          h = L.textHash(salt, text);
          hashes.set(text, h);
        }
        return h;
      },
      // A class attribute as fingerprint.js hashes it: its tokens sorted (memoised by raw value).
      classes(raw) {
        let v = classes.get(raw);
        if (v === undefined) {
          v = raw.split(/\s+/).filter(Boolean).sort().join(" ");
          classes.set(raw, v);
        }
        return v;
      },
      // Sets this.index (among same-tag siblings) and this.count; large parents are indexed once.
      siblings(el, tag) {
        const parent = el.parentElement;
        this.index = 0;
        this.count = 1;
        if (!parent) return;
        if (parent.childElementCount <= 32) {
          let count = 0;
          for (let c = parent.firstElementChild; c; c = c.nextElementSibling) {
            if (c.localName !== tag) continue;
            if (c === el) this.index = count;
            count++;
          }
          this.count = count;
          return;
        }
        let byTag = groups.get(parent);
        if (!byTag) {
          byTag = new Map();
          for (let c = parent.firstElementChild; c; c = c.nextElementSibling) {
            let g = byTag.get(c.localName);
            if (!g) byTag.set(c.localName, (g = {count: 0, index: new Map()}));
            g.index.set(c, g.count++);
          }
          groups.set(parent, byTag);
        }
        const g = byTag.get(tag);
        if (g) {
          this.index = g.index.get(el);
          this.count = g.count;
        }
      },
    };
  }

  // The hashed attributes an element carries (non-blank), in one pass over its attributes, into
  // reused buffers (no allocation per element): returns how many.
  const NAMES = new Array(HASHED.length);
  const VALUES = new Array(HASHED.length);
  function presentAttributes(el, ctx) {
    let n = 0;
    const names = el.getAttributeNames();
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      if (!HASHED_SET.has(name)) continue;
      const v = el.getAttribute(name);
      if (!/\S/.test(v)) continue;
      NAMES[n] = name;
      VALUES[n++] = name === "class" ? ctx.classes(v) : v;
    }
    return n;
  }

  // The recorded fingerprint in lookup-friendly form, prepared once per fingerprint and weights.
  const PREPARED = new WeakMap();
  function prepare(rec, weights) {
    const cached = PREPARED.get(rec);
    if (cached && cached.weights === weights) return cached;
    const attrs = rec.attributes || {};
    const weight = new Map(HASHED.map((n) => [n, weights.attributes[n] ?? weights.defaultAttribute]));
    const names = Object.keys(attrs);
    const prepared = {
      weights, weight, names, hashes: new Map(names.map((n) => [n, attrs[n]])),
      type: rec.type || null, role: rec.role || null, path: rec.parentPath || [],
      structure: weights.path + weights.siblingIndex + weights.siblingCount,
    };
    PREPARED.set(rec, prepared);
    return prepared;
  }

  // Longest common subsequence of two tag paths (at most 8 each), on a reused row.
  const ROW = new Int32Array(9);
  function lcs(a, b, n) {
    ROW.fill(0, 0, n + 1);
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      let prev = 0;
      for (let j = 1; j <= n; j++) {
        const cur = ROW[j];
        ROW[j] = x === b[j - 1] ? prev + 1 : Math.max(ROW[j], ROW[j - 1]);
        prev = cur;
      }
    }
    return ROW[n];
  }

  const PATH = new Array(8);

  function match(recorded, observed) {
    if (recorded == null && observed == null) return null;
    if (recorded == null) return "extra";
    if (observed == null) return "absent";
    return recorded === observed ? "same" : "changed";
  }

  // Compare one element with the recorded fingerprint (twin of heal.compare + heal.similarity).
  // With a floor, gives up (returns null) as soon as the best score still possible is below it:
  // `pending` is the weight of features not measured yet, counted as agreeing until they are.
  // Cheapest first: gates, attribute presence, structure, attribute hashes, then own text and label.
  function compare(rec, el, ctx, weights, floor) {
    const r = prepare(rec, weights);
    const tag = el.localName;
    const tagOk = tag === rec.tag;
    const typeOk = typeOf(el, tag) === r.type;
    const roleOk = roleOf(el) === r.role;
    const passes = tagOk && typeOk && roleOk;
    if (floor !== null && !passes) return null;
    const n = presentAttributes(el, ctx);
    let num = 0;
    let den = r.structure;
    let pending = r.structure;
    let found = 0;
    for (let i = 0; i < n; i++) {
      const w = r.weight.get(NAMES[i]);
      den += w;
      if (r.hashes.has(NAMES[i])) {
        pending += w;
        found++;
      }
    }
    if (found < r.names.length) {  // recorded attributes the element lacks
      for (const name of r.names) {
        if (!hasName(name, n)) den += r.weight.get(name);
      }
    }
    if (rec.textHash) { den += weights.text; pending += weights.text; }
    if (rec.labelHash) { den += weights.label; pending += weights.label; }
    if (floor !== null && (num + pending) / den < floor) return null;
    let depth = 0;
    for (let p = el.parentElement; p && depth < 8; p = p.parentElement) PATH[depth++] = p.localName;
    const common = lcs(r.path, PATH, depth);
    const longest = Math.max(r.path.length, depth);
    pending -= weights.path;  // sibling position stays pending until the end: it rarely decides
    num += weights.path * (longest ? common / longest : 1);
    if (floor !== null && (num + pending) / den < floor) return null;
    const attributes = {};
    for (let i = 0; i < n; i++) {
      const name = NAMES[i];
      const recorded = r.hashes.get(name);
      if (recorded === undefined) {
        attributes[name] = "extra";
        continue;
      }
      const m = match(recorded, ctx.hash(VALUES[i]));
      attributes[name] = m;
      pending -= r.weight.get(name);
      if (m === "same") num += r.weight.get(name);
    }
    for (const name of r.names) {
      if (attributes[name] === undefined) attributes[name] = "absent";
    }
    if (floor !== null && (num + pending) / den < floor) return null;
    const text = match(rec.textHash || null, ctx.hash(L.ownText(el)));
    if (text === "extra") den += weights.text;
    else if (text !== null) pending -= weights.text;
    if (text === "same") num += weights.text;
    if (floor !== null && (num + pending) / den < floor) return null;
    const label = match(rec.labelHash || null, ctx.hash(L.labelText(el)));
    if (label === "extra") den += weights.label;
    else if (label !== null) pending -= weights.label;
    if (label === "same") num += weights.label;
    ctx.siblings(el, tag);
    const index = ctx.index;
    const count = ctx.count;
    if (index === rec.siblingIndex) num += weights.siblingIndex;
    if (count === rec.siblingCount) num += weights.siblingCount;
    const score = passes ? num / den : 0;
    if (floor !== null && score < floor) return null;
    return {
      score,
      comparison: {
        tag: tagOk, type: typeOk, role: roleOk, attributes, label, text, pathCommon: common,
        pathLength: depth, siblingIndex: index === rec.siblingIndex, siblingCount: count === rec.siblingCount,
      },
    };
  }

  function hasName(name, n) {
    for (let i = 0; i < n; i++) if (NAMES[i] === name) return true;
    return false;
  }

  function probe(arg) {
    const rec = arg.bundle.fingerprint;
    const ctx = context(arg.salt);
    const table = [];
    const ids = new Map();
    const idOf = (el) => {
      let id = ids.get(el);
      if (id === undefined) {
        id = table.length;
        table.push(el);
        ids.set(el, id);
      }
      return id;
    };
    const observed = new Map();
    const hits = arg.bundle.candidates.map((candidate, rank) => {
      const nodes = L.resolveCandidate(candidate);
      const visible = nodes.filter(isVisible);
      const hit = {rank, total: nodes.length, visible: visible.length, element: null};
      if (visible.length === 1) {
        hit.element = idOf(visible[0]);
        if (!observed.has(hit.element)) {
          const c = compare(rec, visible[0], ctx, arg.weights, null);
          observed.set(hit.element, {element: hit.element, visible: true, comparison: c.comparison});
        }
      }
      return hit;
    });
    const scored = [];
    const all = document.getElementsByTagName(rec.tag);
    for (let i = 0; i < all.length; i++) {
      const c = compare(rec, all[i], ctx, arg.weights, arg.floor);
      if (c) scored.push([all[i], c]);
    }
    scored.sort((a, b) => b[1].score - a[1].score);
    const pool = [];
    for (const [el, c] of scored) {
      if (pool.length >= arg.topK) break;
      if (!isVisible(el)) continue;
      const id = idOf(el);
      pool.push(id);
      observed.set(id, {element: id, visible: true, comparison: c.comparison});
    }
    unmark(arg.speculate);
    state = {token: arg.token, table, picked: null};
    // Mark the first unique visible hit at once, so that when the decision in Python agrees (the
    // usual case) no second round trip is needed. A mark alone does nothing: only an action does.
    let speculative = null;
    const first = arg.speculate ? hits.find((h) => h.element !== null) : undefined;
    if (first) {
      const el = table[first.element];
      speculative = {element: first.element, fingerprint: L.features(el, arg.salt)};
      el.setAttribute(arg.speculate.attr, arg.speculate.nonce);
      state.picked = el;
    }
    const measured = Array.from(observed.values());
    return {token: arg.token, hits, observed: measured, pool, scored: all.length, speculative};
  }

  function unmark(arg) {
    if (!arg || !arg.attr) return;
    for (const el of document.querySelectorAll("[" + arg.attr + "]")) el.removeAttribute(arg.attr);
  }

  function pick(arg) {
    if (state.token !== arg.token) return {ok: false, reason: "stale"};
    const el = state.table[arg.element];
    if (!el || !el.isConnected) return {ok: false, reason: "detached"};
    if (!isVisible(el)) return {ok: false, reason: "hidden"};
    unmark(arg);
    const candidates = arg.describe ? L.describe(el, arg.salt).candidates : null;
    const fingerprint = L.features(el, arg.salt);
    el.setAttribute(arg.attr, arg.nonce);
    state.picked = el;
    return {ok: true, reason: null, fingerprint, candidates};
  }

  function release(arg) {
    const held = state.picked !== null && state.picked.hasAttribute(arg.attr);
    unmark(arg);
    state.picked = null;
    return {held};
  }

  // Two 32-bit FNV-1a lanes over the tag sequence: a fast, content-free structure summary (Python
  // puts it under a tagged SHA-256 digest). The visible text, when asked for, is SHA-256 hashed.
  function structureHash(all) {
    let a = 0x811c9dc5;
    let b = 0x01000193;
    for (let i = 0; i < all.length; i++) {
      const tag = all[i].localName;
      for (let j = 0; j < tag.length; j++) {
        const c = tag.charCodeAt(j);
        a = Math.imul(a ^ c, 0x01000193);
        b = Math.imul(b ^ c, 0x5bd1e995);
      }
      a = Math.imul(a ^ 32, 0x01000193);
      b = Math.imul(b ^ 32, 0x5bd1e995);
    }
    return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
  }

  // Also checks the marked field (arg.verify: its expected value) and removes the step's mark
  // (arg.attr), saving round trips after each action.
  function pageState(arg) {
    const verified = arg.verify == null ? null : check({check: "value_equals", expected: arg.verify});
    if (arg.attr) release(arg);
    const all = document.getElementsByTagName("*");
    const out = {elements: all.length, structure: structureHash(all), text: null, verified};
    if (arg.text) {
      const body = document.body ? document.body.innerText || "" : "";
      const norm = body.replace(/\s+/g, " ").trim().slice(0, 1000000);
      out.text = L.sha256Hex(arg.salt + "\u0000" + norm);
    }
    return out;
  }

  function picked() {
    const el = state.picked;
    return el && el.isConnected ? el : null;
  }

  function check(arg) {
    const el = picked();
    if (!el) return false;
    const squash = (t) => String(t || "").replace(/\s+/g, " ").trim();
    if (arg.check === "visible") return isVisible(el);
    if (arg.check === "text_equals") return squash(el.textContent) === squash(arg.expected);
    if (arg.check === "text_contains") return squash(el.textContent).includes(squash(arg.expected));
    if (arg.check === "value_equals") return "value" in el && el.value === String(arg.expected);
    return false;
  }

  function hasOption(arg) {
    const el = picked();
    if (!el || el.localName !== "select") return false;
    return Array.prototype.some.call(el.options, (o) => o.value === arg.value && !o.disabled);
  }

  function count(arg) {
    return L.resolveCandidate(arg.candidate).length;
  }

  const API = {probe, pick, release, pageState, check, hasOption, count};

  // The one entry point Python calls (Runtime.callFunctionOn "SkillreelResolve.call").
  function call(method, arg) {
    if (!Object.prototype.hasOwnProperty.call(API, method)) throw new Error("unknown method");
    return API[method](arg);
  }

  return Object.freeze({...API, call, compare, context, isVisible});
})();

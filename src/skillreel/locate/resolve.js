// skillreel locate/resolve.js — replay-side resolution of a locator bundle, in one evaluation.
//
// Evaluated after fingerprint.js in an isolated world (CDP Page.createIsolatedWorld): the page
// shares the DOM with this script but not its JavaScript objects, so a page that patches
// prototypes (Element.prototype.getAttribute, querySelectorAll...) cannot change what we see.
// Defines one binding, `SkillreelResolve`. Every input arrives as the argument of a call, never as
// script text; Python calls `SkillreelResolve.call(method, arg)`. It measures; the decision is
// made in Python (locate/heal.py, which documents the comparison this file twins).
//
//   SkillreelResolve.probe({token, bundle, salt, weights, floor, topK})
//       -> {token, hits: [{rank, total, visible, element}], observed: [{element, visible, comparison}],
//           pool: [element ids, best first], scored}
//   SkillreelResolve.pick({token, element, salt, attr, nonce, describe})
//       -> {ok, reason, fingerprint, candidates}   marks the element with attr=nonce for the action
//   SkillreelResolve.release({attr}) -> {held}       removes the mark (held: still on our element)
//   SkillreelResolve.pageState({salt, text}) -> {elements, structure, text}  content-free summary
//   SkillreelResolve.check({check, expected}) -> boolean   on the picked element
//   SkillreelResolve.hasOption({value}) -> boolean          on the picked <select>
//   SkillreelResolve.count({candidate}) -> number
var SkillreelResolve = (() => {
  "use strict";
  const L = SkillreelLocate;

  // The attributes fingerprint.js hashes (its HASHED_ATTRIBUTES); a parity test keeps them equal.
  const HASHED = [
    "id", "name", "class", "placeholder", "aria-label", "title", "alt", "for", "href", "role",
    "autocomplete", "data-testid", "data-test", "data-skillreel", "type",
  ];
  const TOKEN = /^[a-z0-9-]{1,32}$/;

  // The last probe's elements: pick() acts on exactly the element that was scored.
  let state = {token: null, table: [], picked: null};

  function token(value) {
    const v = String(value || "").toLowerCase();
    return TOKEN.test(v) ? v : null;
  }

  function typeOf(el, tag) {
    if (tag !== "input" && tag !== "button") return null;
    return token(el.getAttribute("type") || (tag === "input" ? "text" : "submit"));
  }

  function roleOf(el) {
    return token(el.getAttribute("role")) || L.implicitRole(el);
  }

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
  function context(salt) {
    const hashes = new Map();
    const siblings = new Map();
    return {
      hash(text) {
        let h = hashes.get(text);
        if (h === undefined) {
          h = L.textHash(salt, text);
          hashes.set(text, h);
        }
        return h;
      },
      siblings(el, tag) {
        const parent = el.parentElement;
        if (!parent) return [0, 1];
        let groups = siblings.get(parent);
        if (!groups) {
          groups = new Map();
          for (const child of parent.children) {
            let g = groups.get(child.localName);
            if (!g) groups.set(child.localName, (g = {count: 0, index: new Map()}));
            g.index.set(child, g.count++);
          }
          siblings.set(parent, groups);
        }
        const g = groups.get(tag);
        return g ? [g.index.get(el), g.count] : [0, 1];
      },
    };
  }

  function attrValue(el, name) {
    let v = el.getAttribute(name);
    if (v === null || !/\S/.test(v)) return null;
    if (name === "class") v = v.split(/\s+/).filter(Boolean).sort().join(" ");
    return v;
  }

  function lcs(a, b) {
    const row = new Array(b.length + 1).fill(0);
    for (const x of a) {
      let prev = 0;
      for (let j = 1; j <= b.length; j++) {
        const cur = row[j];
        row[j] = x === b[j - 1] ? prev + 1 : Math.max(row[j], row[j - 1]);
        prev = cur;
      }
    }
    return row[b.length];
  }

  function match(recorded, observed) {
    if (recorded == null && observed == null) return null;
    if (recorded == null) return "extra";
    if (observed == null) return "absent";
    return recorded === observed ? "same" : "changed";
  }

  // Compare one element with the recorded fingerprint (twin of heal.compare + heal.similarity).
  // With a floor, gives up (returns null) as soon as the best score still possible is below it:
  // `pending` is the weight of features not yet hashed, counted as agreeing until they are.
  function compare(rec, el, ctx, weights, floor) {
    const tag = el.localName;
    const gates = {tag: tag === rec.tag, type: typeOf(el, tag) === (rec.type || null),
      role: roleOf(el) === (rec.role || null)};
    const passes = gates.tag && gates.type && gates.role;
    if (floor !== null && !passes) return null;
    const path = [];
    for (let p = el.parentElement; p && path.length < 8; p = p.parentElement) path.push(p.localName);
    const recPath = rec.parentPath || [];
    const common = lcs(recPath, path);
    const [index, count] = ctx.siblings(el, tag);
    const longest = Math.max(recPath.length, path.length);
    let num = weights.path * (longest ? common / longest : 1);
    let den = weights.path + weights.siblingIndex + weights.siblingCount;
    if (index === rec.siblingIndex) num += weights.siblingIndex;
    if (count === rec.siblingCount) num += weights.siblingCount;
    const recAttrs = rec.attributes || {};
    const attributes = {};
    const both = [];
    let pending = 0;
    for (const name of HASHED) {
      const v = attrValue(el, name);
      const r = recAttrs[name];
      if (v === null && r === undefined) continue;
      const w = weights.attributes[name] ?? weights.defaultAttribute;
      den += w;
      if (v === null) attributes[name] = "absent";
      else if (r === undefined) attributes[name] = "extra";
      else {
        both.push([name, v, r, w]);
        pending += w;
      }
    }
    if (rec.labelHash) { den += weights.label; pending += weights.label; }
    if (rec.textHash) { den += weights.text; pending += weights.text; }
    if (floor !== null && (num + pending) / den < floor) return null;
    for (const [name, v, r, w] of both) {
      const m = match(r, ctx.hash(v));
      attributes[name] = m;
      pending -= w;
      if (m === "same") num += w;
    }
    if (floor !== null && (num + pending) / den < floor) return null;
    const label = match(rec.labelHash || null, ctx.hash(L.labelText(el)));
    const text = match(rec.textHash || null, ctx.hash(L.ownText(el)));
    for (const [m, w] of [[label, weights.label], [text, weights.text]]) {
      if (m === "extra") den += w;
      if (m === "same") num += w;
    }
    const score = passes ? num / den : 0;
    if (floor !== null && score < floor) return null;
    return {
      score,
      comparison: {
        ...gates, attributes, label, text, pathCommon: common, pathLength: path.length,
        siblingIndex: index === rec.siblingIndex, siblingCount: count === rec.siblingCount,
      },
    };
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
    state = {token: arg.token, table, picked: null};
    return {token: arg.token, hits, observed: Array.from(observed.values()), pool, scored: all.length};
  }

  function pick(arg) {
    if (state.token !== arg.token) return {ok: false, reason: "stale"};
    const el = state.table[arg.element];
    if (!el || !el.isConnected) return {ok: false, reason: "detached"};
    if (!isVisible(el)) return {ok: false, reason: "hidden"};
    const candidates = arg.describe ? L.describe(el, arg.salt).candidates : null;
    const fingerprint = L.features(el, arg.salt);
    el.setAttribute(arg.attr, arg.nonce);
    state.picked = el;
    return {ok: true, reason: null, fingerprint, candidates};
  }

  function release(arg) {
    const held = state.picked !== null && state.picked.hasAttribute(arg.attr);
    for (const el of document.querySelectorAll("[" + arg.attr + "]")) el.removeAttribute(arg.attr);
    state.picked = null;
    return {held};
  }

  function pageState(arg) {
    const all = document.getElementsByTagName("*");
    const tags = new Array(all.length);
    for (let i = 0; i < all.length; i++) tags[i] = all[i].localName;
    const out = {elements: all.length, structure: L.sha256Hex(tags.join(" ")), text: null};
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

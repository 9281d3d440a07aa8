// skillreel locate/resolve.js — replay-side resolution of a locator bundle, in one evaluation.
//
// Evaluated after fingerprint.js in an isolated world (CDP Page.createIsolatedWorld): the page
// shares the DOM with this script but not its JavaScript objects, so a page that patches
// prototypes (Element.prototype.getAttribute, querySelectorAll...) cannot change what we see.
// Defines one binding, `SkillreelResolve`. Every input arrives as the argument of a call, never as
// script text; Python calls `SkillreelResolve.call(method, arg)`. It measures; the decision is
// made in Python (locate/heal.py, which documents the comparison this file twins).
//
//   SkillreelResolve.probe({token, bundle, salt, weights, exactMin, margin, floor, topK,
//                           speculate: {attr, nonce}, within})   within (schema v2): {loop, index},
//                           measure inside that loop item only (collect.js holds the items)
//       -> {token, hits: [{rank, total, visible, element}], observed: [{element, visible, comparison}],
//           pool: [element ids, best first], scored, speculative: {element, fingerprint} | null}
//   SkillreelResolve.pick({token, element, salt, attr, nonce, describe, hide})
//       -> {ok, reason, fingerprint, candidates, echoes, framed}   marks the element with attr=nonce for the
//          action (framed: it lives in a same-origin frame's document)
//   SkillreelResolve.release({attr}) -> {held}       removes the mark (held: still on our element)
//   SkillreelResolve.held() -> {el, attr, nonce} | null   the element marked for the next action
//       and its mark, connected or not (replay/settle.js watches it until the action reaches it)
//   SkillreelResolve.pageState({salt, text, verify, attr}) -> {elements, structure, text, verified}
//       content-free summary; verify checks the marked field's value first (verified: null when the
//       field has left the page: the page swapped it), attr removes the mark
//   SkillreelResolve.check({check, expected}) -> boolean   on the picked element
//   SkillreelResolve.hasOption({value}) -> boolean          on the picked <select>
//   SkillreelResolve.count({candidate, salt}) -> number
//   SkillreelResolve.caret({hide}) -> boolean   hide (true) or show again (false) every text caret,
//       so a screenshot does not depend on where a focused field's caret is in its blink
var SkillreelResolve = (() => {
  "use strict";
  const L = SkillreelLocate;

  // The attributes fingerprint.js hashes, its type and role rules: one source, loaded before this.
  const HASHED = L.HASHED_ATTRIBUTES;
  const HASHED_SET = new Set(HASHED);
  const typeOf = L.typeOf;
  const roleOf = L.roleOf;

  // The last probe's elements: pick() acts on exactly the element that was scored.
  let state = {token: null, table: [], picked: null, marked: new Set()};

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
  const NAME_WORDS = 12;

  function context(salt) {
    const classes = new Map();
    const groups = new Map();
    const names = new Map();
    const others = new Map();
    let hashes = HASHES.get(salt);
    if (!hashes) HASHES.set(salt, (hashes = new Map()));
    const hash = (text) => {
      let h = hashes.get(text);
      if (h === undefined) {
        if (hashes.size >= MAX_HASHES) hashes.clear();
        h = L.textHash(salt, text);
        hashes.set(text, h);
      }
      return h;
    };
    return {
      index: 0,
      count: 1,
      hash,
      // The salted hash of an element's accessible name, computed once per probe.
      nameHash: (el) => {
        let h = names.get(el);
        if (h === undefined) {
          h = hash(L.accessibleName(el));
          names.set(el, h);
        }
        return h;
      },
      // The element's name with other words in it, as the salted hashes of the names it may have
      // been recorded with, each with how it compares (one rule of the name comparison):
      //   "contains"  every run of whole words of its name (at most NAME_WORDS words): the name
      //               holds the recorded one's words (an icon's word, a badge beside them);
      //   "same"      for a picker, its name with each run of words masked as the option it shows
      //               (SkillreelListbox.unshownNames): a picker is recorded by that form of its name.
      otherNames: (el) => {
        let found = others.get(el);
        if (found === undefined) {
          found = new Map();
          const name = L.accessibleName(el);
          if (SkillreelListbox.isPicker(el)) for (const n of SkillreelListbox.unshownNames(name)) found.set(hash(n), "same");
          const all = L.normText(name).split(" ");
          if (all.length > 1 && all.length <= NAME_WORDS) {
            for (let i = 0; i < all.length; i++) {
              for (let j = i + 1; j <= all.length; j++) {
                if (j - i < all.length) found.set(hash(all.slice(i, j).join(" ")), "contains");
              }
            }
          }
          others.set(el, found);
        }
        return found;
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

  // The recorded fingerprint in lookup-friendly form, prepared once per fingerprint and weights.
  // Only what was recorded weighs: `den` is fixed by the fingerprint (see heal.similarity).
  const PREPARED = new WeakMap();
  function prepare(rec, weights) {
    const cached = PREPARED.get(rec);
    if (cached && cached.weights === weights) return cached;
    const weightOf = (n) => weights.attributes[n] ?? weights.defaultAttribute;
    const attrs = Object.keys(rec.attributes || {})
      .filter((n) => HASHED_SET.has(n))
      .map((n) => [n, rec.attributes[n], weightOf(n)]);
    const named = Boolean(rec.nameHash);
    const given = rec.attributes || {};
    // A name taken from a placeholder or a title is a hint, not a label: it weighs like one.
    const hinted = named && (rec.nameHash === given.placeholder || rec.nameHash === given.title);
    const w = {
      label: rec.labelHash ? (named ? weights.support : weights.label) : 0,
      text: rec.textHash ? (named ? weights.support : weights.text) : 0,
      name: named ? (hinted ? weights.support : weights.name) : 0,
      value: rec.valueHash ? weights.support : 0,
      link: rec.linkHash || rec.routeHash ? weights.link : 0,
      row: rec.rowHash ? weights.row : 0,
      caption: rec.captionHash ? (named ? weights.support : weights.caption) : 0,
      // a unique id weighs only with the id it was recorded with (a content-free target of an older
      // version kept the flag without the id's hash)
      stableId: rec.stableId && given.id ? weights.stableId : 0,
      stableName: rec.stableName ? weights.stableName : 0,
    };
    let den = weights.path + weights.siblingIndex + weights.siblingCount;
    for (const [, , weight] of attrs) den += weight;
    for (const key of Object.keys(w)) den += w[key];
    const prepared = {
      weights, attrs, w, den, typeKind: L.kindOfType(rec.type || null), roleKind: L.kindOfRole(rec.role || null),
      tagKind: L.kindOfTag(rec.tag, rec.type || null), tags: L.tagsOfKind(rec.tag, rec.type || null),
      path: rec.parentPath || [],
      aliases: [rec.labelHash, rec.textHash, rec.valueHash].filter(Boolean),
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
    if (recorded == null) return null;
    if (observed == null) return "absent";
    return recorded === observed ? "same" : "changed";
  }

  // Compare one element with the recorded fingerprint (twin of heal.compare + heal.similarity).
  // With a floor, gives up (returns null) as soon as the best score still possible is below it:
  // `pending` is the weight of features not measured yet, counted as agreeing until they are.
  // Cheapest first: gates, attributes and stable keys, the parent path, own text, label, button
  // value and link destination, then the accessible name (and its aliases), the row and position.
  // No closure or object is made per element until it survives (this runs for every element of
  // the target's tag on the page).
  const STATES = [];
  function compare(rec, el, ctx, weights, floor) {
    const r = prepare(rec, weights);
    const tag = el.localName;
    const type = typeOf(el, tag);
    const tagOk = L.kindOfTag(tag, type) === r.tagKind;
    const typeOk = L.kindOfType(type) === r.typeKind;
    const roleOk = L.kindOfRole(roleOf(el)) === r.roleKind;
    const passes = tagOk && typeOk && roleOk;
    if (floor !== null && !passes) return null;
    const den = r.den;
    const bar = floor === null ? -1 : floor * den;  // prune when num + pending < bar
    let num = 0;
    let pending = den;
    let idSame = false;
    let nameSame = false;
    for (let i = 0; i < r.attrs.length; i++) {
      const [attr, recorded, weight] = r.attrs[i];
      const raw = el.getAttribute(attr);
      const m = match(recorded, raw === null ? null : ctx.hash(attr === "class" ? ctx.classes(raw) : raw));
      STATES[i] = m;
      pending -= weight;
      if (m === "same") {
        num += weight;
        if (attr === "id") idSame = true;
        else if (attr === "name") nameSame = true;
      }
    }
    let stableId = null;
    if (r.w.stableId) {
      pending -= r.w.stableId;
      stableId = idSame && L.hasStableId(el);
      if (stableId) num += r.w.stableId;
    }
    let stableName = null;
    if (rec.stableName) {
      pending -= r.w.stableName;
      stableName = nameSame && L.hasStableName(el);
      if (stableName) num += r.w.stableName;
    }
    if (num + pending < bar) return null;
    let depth = 0;
    for (let p = L.parentOf(el); p && depth < 8; p = L.parentOf(p)) PATH[depth++] = p.localName;
    const common = lcs(r.path, PATH, depth);
    const longest = Math.max(r.path.length, depth);
    pending -= weights.path;
    // the unique id it was recorded with places it: wrappers around it do not move it
    num += weights.path * (stableId || !longest ? 1 : common / longest);
    if (num + pending < bar) return null;
    let textH;
    let labelH;
    let valueH;
    let text = null;
    if (rec.textHash) {
      textH = ctx.hash(L.ownText(el));
      text = match(rec.textHash, textH);
      pending -= r.w.text;
      if (text === "same") num += r.w.text;
    }
    let label = null;
    if (rec.labelHash) {
      labelH = ctx.hash(L.labelText(el));
      label = match(rec.labelHash, labelH);
      pending -= r.w.label;
      if (label === "same") num += r.w.label;
    }
    let value = null;
    if (rec.valueHash) {
      valueH = ctx.hash(L.buttonValue(el));
      value = match(rec.valueHash, valueH);
      pending -= r.w.value;
      if (value === "same") num += r.w.value;
    }
    let link = null;
    if (r.w.link) {
      link = linkMatch(rec, el, ctx);
      pending -= r.w.link;
      if (link === "same") num += r.w.link;
      else if (link === "changed" && floor !== null) return null;  // another destination: not this link
    }
    if (num + pending < bar) return null;
    let name = null;
    if (rec.nameHash) {
      const nameH = ctx.nameHash(el);
      name = match(rec.nameHash, nameH);
      pending -= r.w.name;
      if (name === "same") {
        num += r.w.name;
      } else if (num + pending + r.w.name * weights.alias >= bar) {
        // an alias: one name is another source of the other (an aria-label added or removed); or
        // the name with other words in it (ctx.otherNames: words beside, or a picker's shown option)
        const other = name === "changed" ? ctx.otherNames(el).get(rec.nameHash) : undefined;
        if (isAlias(rec, r, el, ctx, nameH, textH, labelH, valueH)) {
          name = "alias";
          num += r.w.name * weights.alias;
        } else if (other !== undefined) {
          name = other;
          num += r.w.name * (other === "same" ? 1 : weights.alias);
        }
      } else {
        return null;  // even an alias could not reach the floor
      }
    }
    if (num + pending < bar) return null;
    let row = null;
    if (rec.rowHash) {
      row = match(rec.rowHash, ctx.hash(L.rowHeader(el)));
      pending -= r.w.row;
      if (row === "same") num += r.w.row;
    }
    let caption = null;
    if (r.w.caption) {
      if (num + pending < bar) return null;
      caption = match(rec.captionHash, ctx.hash(L.captionText(el)));
      pending -= r.w.caption;
      if (caption === "same") num += r.w.caption;
    }
    ctx.siblings(el, tag);  // position rarely decides: measured last
    const index = ctx.index;
    const count = ctx.count;
    if (stableId || index === rec.siblingIndex) num += weights.siblingIndex;
    if (stableId || count === rec.siblingCount) num += weights.siblingCount;
    const score = passes && link !== "changed" ? num / den : 0;
    if (floor !== null && score < floor) return null;
    const attributes = {};
    for (let i = 0; i < r.attrs.length; i++) attributes[r.attrs[i][0]] = STATES[i];
    return {
      score,
      comparison: {
        tag: tagOk, type: typeOk, role: roleOk, attributes, label, text, name, value, link, row, caption, stableId,
        stableName, pathCommon: stableId ? Math.max(r.path.length, depth) : common,
        pathLength: depth, siblingIndex: Boolean(stableId) || index === rec.siblingIndex,
        siblingCount: Boolean(stableId) || count === rec.siblingCount,
      },
    };
  }

  // Where a link leads against the recorded destination: its path, and its route fragment when
  // one was recorded; another path or another route is another link (a bare "#" is no route).
  function linkMatch(rec, el, ctx) {
    const path = rec.linkHash ? match(rec.linkHash, ctx.hash(L.linkTarget(el))) : null;
    if (!rec.routeHash || path === "changed") return path;
    const route = match(rec.routeHash, ctx.hash(L.linkRoute(el)));
    if (route === "changed") return "changed";
    return path === null ? route : path;
  }

  // Whether two differing accessible names are aliases: one is another source of the other (the
  // own text, the label or the button value), cheapest sources first.
  function isAlias(rec, r, el, ctx, nameH, textH, labelH, valueH) {
    if (nameH !== null && r.aliases.includes(nameH)) return true;
    if (rec.nameHash === (textH === undefined ? ctx.hash(L.ownText(el)) : textH)) return true;
    if (rec.nameHash === (valueH === undefined ? ctx.hash(L.buttonValue(el)) : valueH)) return true;
    return rec.nameHash === (labelH === undefined ? ctx.hash(L.labelText(el)) : labelH);
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
    const hits = [];
    const designate = {hash: ctx.hash, nameHash: ctx.nameHash, tags: L.tagsOfKind(rec.tag, rec.type || null)};
    let floor = arg.floor;
    // Candidates in rank order, until the first one the rule takes as the hit (one visible element
    // passing the gates with a score of at least exactMin): later ones cannot change the decision.
    // Inside a loop's current item (schema v2, `within`: {loop, index}): only its descendants.
    const scope = arg.within ? SkillreelCollect.scopeOf(arg.within) : null;
    const keep = scope === null ? null : (el) => scope !== undefined && SkillreelCollect.inside(scope, el);
    for (let rank = 0; rank < arg.bundle.candidates.length; rank++) {
      // inside an item, a plain selector is relative to it (`:scope > td.total`)
      const nodes = keep
        ? (scope === undefined ? [] : SkillreelCollect.designated(arg.bundle.candidates[rank], arg.salt, scope))
        : L.resolveCandidate(arg.bundle.candidates[rank], arg.salt, designate);
      const visible = nodes.filter(isVisible);
      const hit = {rank, total: nodes.length, visible: visible.length, element: null};
      hits.push(hit);
      if (visible.length !== 1) continue;
      hit.element = idOf(visible[0]);
      let seen = observed.get(hit.element);
      if (!seen) {
        const c = compare(rec, visible[0], ctx, arg.weights, null);
        seen = {element: hit.element, visible: true, comparison: c.comparison, score: c.score};
        observed.set(hit.element, seen);
      }
      if (seen.comparison.tag && seen.comparison.type && seen.comparison.role && seen.score >= arg.exactMin) {
        // The hit the rule takes: only elements within the margin of it (or above) can change the
        // decision, so nothing below that needs scoring (a hair lower, for rounding).
        floor = Math.max(floor, seen.score - arg.margin - 1e-6);
        break;
      }
    }
    const scored = [];
    const kind = L.elementsOfKind(rec.tag, rec.type || null, rec.boundaries);
    const all = keep ? Array.prototype.filter.call(kind, keep) : kind;
    for (let i = 0; i < all.length; i++) {
      const c = compare(rec, all[i], ctx, arg.weights, floor);
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
    state = {token: arg.token, table, picked: null, marked: state.marked};
    // Mark the first unique visible hit at once, so that when the decision in Python agrees (the
    // usual case) no second round trip is needed. A mark alone does nothing: only an action does.
    let speculative = null;
    const first = arg.speculate ? hits.find((h) => h.element !== null) : undefined;
    if (first) {
      const el = table[first.element];
      speculative = {element: first.element, fingerprint: L.features(el, arg.salt),
                     framed: el.ownerDocument !== document};
      mark(el, arg.speculate);
    }
    const measured = Array.from(observed.values(), (o) => ({element: o.element, visible: o.visible,
                                                            comparison: o.comparison}));
    return {token: arg.token, hits, observed: measured, pool, scored: all.length, speculative};
  }

  // The mark of the element the next action is for (state.picked): its attribute and value.
  let markedAs = null;

  function mark(el, arg) {
    el.setAttribute(arg.attr, arg.nonce);
    state.picked = el;
    state.marked.add(el);
    markedAs = {attr: arg.attr, nonce: arg.nonce};
  }

  function held() {
    const el = state.picked;
    if (el === null || markedAs === null || el.getAttribute(markedAs.attr) !== markedAs.nonce) return null;
    return {el, attr: markedAs.attr, nonce: markedAs.nonce};
  }

  // Removes our mark from every element that carries it (marked elements inside shadow roots and
  // frames are remembered: a document query does not reach them).
  function unmark(arg) {
    if (!arg || !arg.attr) return;
    for (const el of document.querySelectorAll("[" + arg.attr + "]")) el.removeAttribute(arg.attr);
    for (const el of state.marked) el.removeAttribute(arg.attr);
    state.marked.clear();
    markedAs = null;
  }

  function pick(arg) {
    if (state.token !== arg.token) return {ok: false, reason: "stale"};
    const el = state.table[arg.element];
    if (!el || !el.isConnected) return {ok: false, reason: "detached"};
    if (!isVisible(el)) return {ok: false, reason: "hidden"};
    unmark(arg);
    const candidates = arg.describe ? L.describe(el, arg.salt).candidates : null;
    const fingerprint = L.features(el, arg.salt);
    const echoes = Array.isArray(arg.hide) && arg.hide.length > 0 && holdsHidden(el, arg.hide);
    mark(el, arg);
    return {ok: true, reason: null, fingerprint, candidates, echoes, framed: el.ownerDocument !== document};
  }

  // Whether a text the element's description may hash (its accessible name, its text, an attribute,
  // a label, its row, its caption) holds one of the lower-cased values of ``hide`` (a healed step's
  // sensitive inputs): only the answer leaves the page, and the step then proposes its structure only.
  function holdsHidden(el, hide) {
    const texts = [L.accessibleName(el), el.textContent || "", L.captionText(el)];
    for (const attribute of Array.from(el.attributes)) texts.push(attribute.value);
    for (const label of Array.from(el.labels || [])) texts.push(label.textContent || "");
    const row = el.closest("tr");
    if (row !== null) texts.push(row.textContent || "");
    const all = texts.join("\u0000").toLowerCase();
    return hide.some((value) => typeof value === "string" && value.length > 0 && all.includes(value));
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
    const gone = state.picked !== null && !state.picked.isConnected;
    const verified = arg.verify == null || gone ? null : check({check: "value_equals", expected: arg.verify});
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
    if (arg.check === "not_empty") {
      // a field's value (a select's text lists every option), else the element's text
      const field = ["input", "textarea", "select"].includes(el.localName);
      return squash(field ? el.value : el.textContent) !== "";
    }
    return false;
  }

  function hasOption(arg) {
    const el = picked();
    if (!el || el.localName !== "select") return false;
    return Array.prototype.some.call(el.options, (o) => o.value === arg.value && !o.disabled);
  }

  function count(arg) {
    return L.resolveCandidate(arg.candidate, arg.salt).length;
  }

  // A constructed style sheet (no element in the DOM, so no mutation the page observes, and no
  // inline style a Content-Security-Policy would refuse), adopted only around a screenshot; the
  // way Playwright's screenshots hide the caret.
  let caretSheet = null;
  function caret(arg) {
    const sheets = document.adoptedStyleSheets;
    if (caretSheet !== null) document.adoptedStyleSheets = sheets.filter((s) => s !== caretSheet);
    caretSheet = null;
    if (!arg.hide) return true;
    const sheet = new CSSStyleSheet();
    sheet.replaceSync("*, *::before, *::after { caret-color: transparent !important; }");
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    caretSheet = sheet;
    return true;
  }

  const API = {probe, pick, release, pageState, check, hasOption, count, caret};

  // The one entry point Python calls (Runtime.callFunctionOn "SkillreelResolve.call").
  function call(method, arg) {
    if (!Object.prototype.hasOwnProperty.call(API, method)) throw new Error("unknown method");
    return API[method](arg);
  }

  return Object.freeze({...API, call, compare, context, held, isVisible, mark, picked});
})();

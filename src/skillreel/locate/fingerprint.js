// skillreel locate/fingerprint.js — element description shared by the recorder and replay.
//
// Defines one binding, `SkillreelLocate`, when evaluated as a script right after element.js
// (`skillreel.locate.locate_script()` is the two, in order); it re-exports all of SkillreelElement.
// It must run in an isolated world (recorder) or a fresh evaluation (replay); it keeps no state.
//
//   SkillreelLocate.describe(el, salt)  -> {candidates: [{strategy, selector, matchCount}], fingerprint}
//   SkillreelLocate.features(el, salt)  -> fingerprint (model.locators.Fingerprint JSON shape)
//   SkillreelLocate.textHash(salt, txt) -> 16 hex chars of SHA-256(salt + "\0" + normalised text), or null
//   SkillreelLocate.count(selector)     -> number of elements matching a CSS selector (0 when invalid)
//   SkillreelLocate.resolveCandidate(c, salt, options?) -> elements a candidate designates
//   SkillreelLocate.accessibleName(el)  -> the element's accessible name (never typed text)
//   SkillreelLocate.elementsOfKind(tag, type, boundaries) -> the elements a recorded one may be now
//
// Rules (ARCHITECTURE section 5): candidates in priority order testid > id > name > aria-label >
// role-name > href > label > placeholder > css; text content is never used in a selector in clear
// (role-name and href hold a role and salted hashes only); generated-looking ids are skipped; only
// candidates matching exactly one element are kept, except the structural CSS path (at most 8
// levels), which is always kept with its count. Features taken from page text (labels, names, own
// text, attribute values, link destinations, row headers) are stored only as salted hashes, and
// never from editable content (typed text must not reach even a hash). The caption (the words that
// label an element from outside: its <dt>, column header, <label>) and the route fragment of a
// hash-route link are hashed too.
//
// Scopes: an element inside open shadow roots or same-origin frames is described by a chain, the
// CSS selector of each enclosing host (or frame element) within its own scope followed by " >>> ",
// then the element's own selector within its scope; its fingerprint counts the `boundaries`.
// Closed shadow roots and cross-origin frames are out of reach (the recorder makes their steps
// human steps).
var SkillreelLocate = (() => {
  "use strict";

  // ---- SHA-256 (synchronous; crypto.subtle is async and absent outside secure contexts) ----
  const K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);
  const encoder = new TextEncoder();

  function sha256Hex(text) {
    const data = encoder.encode(text);
    const bitLen = data.length * 8;
    const padded = new Uint8Array(((data.length + 9 + 63) >> 6) << 6);
    padded.set(data);
    padded[data.length] = 0x80;
    const view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(bitLen / 0x100000000));
    view.setUint32(padded.length - 4, bitLen >>> 0);
    const h = new Uint32Array([
      0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]);
    const w = new Uint32Array(64);
    for (let off = 0; off < padded.length; off += 64) {
      for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
      for (let i = 16; i < 64; i++) {
        const a = w[i - 15], b = w[i - 2];
        const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
        const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
      }
      let [a, b, c, d, e, f, g, hh] = h;
      for (let i = 0; i < 64; i++) {
        const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
        const ch = (e & f) ^ (~e & g);
        const t1 = (hh + S1 + ch + K[i] + w[i]) >>> 0;
        const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
        const maj = (a & b) ^ (a & c) ^ (b & c);
        const t2 = (S0 + maj) >>> 0;
        hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
      }
      h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
    }
    let out = "";
    for (const word of h) out += word.toString(16).padStart(8, "0");
    return out;
  }

  const E = SkillreelElement;
  const {
    normText, token, typeOf, roleOf, rootOf, parentOf, innerRoot, hostsOf, topDocument, labelText, ownText,
    buttonValue, accessibleName, linkTarget, linkRoute, rowHeader, captionText, attrSelector, byTag,
  } = E;

  // ---- text hashes ----
  function textHash(salt, text) {
    const norm = normText(text);
    if (!norm) return null;
    return sha256Hex(salt + "\u0000" + norm).slice(0, 16);
  }

  // ---- selectors ----
  function cssEscape(value) {
    return CSS.escape(value);
  }

  function count(selector, root) {
    try {
      return (root || document).querySelectorAll(selector).length;
    } catch (_) {
      return 0;
    }
  }

  // Ids that look machine-made (framework counters, hashes, uuids) are not stable across loads.
  function isGeneratedId(id) {
    if (!id || id.length > 64) return true;
    if (/^[0-9]/.test(id)) return true;
    if (/^:|:$/.test(id)) return true;                                // React useId (":r1:")
    if (/^(ember|ext-gen|yui_|gwt-|mui-|radix-|headlessui-|react-|rc_|__)/i.test(id)) return true;
    if (/[0-9a-f]{8}-[0-9a-f]{4}-/i.test(id)) return true;           // uuid
    if (/[0-9a-f]{10,}/i.test(id) && /[0-9]/.test(id)) return true;   // hash-like
    if (/\d{4,}/.test(id)) return true;                               // long counters / timestamps
    if (/(^|[-_])\d+$/.test(id) && /[-_]\d+[-_]\d+/.test(id)) return true;
    return false;
  }

  // The id is one a developer chose and no other element of its scope carries.
  function hasStableId(el) {
    const id = el.id;
    return Boolean(id) && !isGeneratedId(id) && count("#" + cssEscape(id), rootOf(el)) === 1;
  }

  // A form field whose name (its key in the form's submission) no other element of its scope has.
  function hasStableName(el) {
    const name = el.getAttribute("name");
    if (!name || !el.matches("input, select, textarea")) return false;
    return count(attrSelector("", "name", name), rootOf(el)) === 1;
  }

  function cssPath(el) {
    const root = rootOf(el);
    const steps = [];
    let node = el;
    while (node && node.nodeType === 1 && steps.length < 8) {
      const tag = node.localName;
      if (tag === "html") break;
      if (node.id && !isGeneratedId(node.id) && node !== el && count("#" + cssEscape(node.id), root) === 1) {
        steps.unshift("#" + cssEscape(node.id));
        break;
      }
      const parent = node.parentElement;
      let step = tag;
      if (parent) {
        const same = Array.prototype.filter.call(parent.children, (c) => c.localName === tag);
        if (same.length > 1) step += `:nth-of-type(${same.indexOf(node) + 1})`;
      }
      steps.unshift(step);
      const selector = steps.join(" > ");
      if (count(selector, root) === 1 && steps.length >= 2) return selector;
      node = parent;
    }
    return steps.join(" > ");
  }

  // The selector of a host (or frame element) within its own scope: a stable id, a test id, or
  // its structural path.
  function hostSelector(host) {
    const root = rootOf(host);
    if (host.id && !isGeneratedId(host.id) && count("#" + cssEscape(host.id), root) === 1) {
      return "#" + cssEscape(host.id);
    }
    for (const attr of ["data-testid", "data-test", "data-skillreel"]) {
      const v = host.getAttribute(attr);
      if (v && count(attrSelector("", attr, v), root) === 1) return attrSelector("", attr, v);
    }
    return cssPath(host);
  }

  // The <input>s a button may have become (the other tag of its kind: element.js tagsOfKind).
  const BUTTON_INPUTS = 'input[type="submit" i], input[type="button" i], input[type="reset" i]';

  const ROLE_SCAN = {
    link: "a[href], area[href], [role=link]",
    button: "button, input, [role=button]",
    checkbox: "input, [role=checkbox]",
    radio: "input, [role=radio]",
    textbox: "input, textarea, [role=textbox]",
    searchbox: "input, [role=searchbox]",
    slider: "input, [role=slider]",
    combobox: "select, [role=combobox]",
    listbox: "select, [role=listbox]",
  };

  // Elements a candidate designates in the scopes it reaches: a label candidate designates the
  // label's control; role-name and href candidates the elements whose salted hashes match.
  // `options` (replay): `hash(text)` and `nameHash(el)`, memoised by the caller, and `tags`: a
  // role-name or href candidate then designates elements of those tags only (no other tag can pass
  // the gates of the fingerprint it belongs to).
  function resolveCandidate(candidate, salt, options) {
    const parts = candidate.selector.split(" >>> ");
    const own = parts.pop();
    const roots = chainRoots(parts);
    const opts = options || {};
    const digest = opts.hash || ((text) => textHash(salt, text));
    const nameHash = opts.nameHash || ((el) => digest(accessibleName(el)));
    const out = [];
    for (const root of roots) {
      for (const el of resolveOwn(candidate.strategy, own, root, digest, nameHash, opts.tags)) out.push(el);
    }
    return out;
  }

  // The scopes a chain of host selectors leads to, from the top document.
  function chainRoots(parts) {
    let roots = [topDocument()];
    try {
      for (const part of parts) {
        const next = [];
        for (const root of roots) {
          for (const host of root.querySelectorAll(part)) {
            const inner = innerRoot(host);
            if (inner) next.push(inner);
          }
        }
        roots = next;
      }
    } catch (_) {
      return [];
    }
    return roots;
  }

  // How many elements a role-name or href candidate of `el` would designate: those of its tag (and
  // role, for role-name) in the scopes its chain reaches whose text (`textOf`: the accessible name or the link
  // destination) equals el's. Texts are compared normalised, which is what equal salted hashes
  // mean, without a SHA-256 per element of the page; counting stops at two.
  // A page with more elements of the tag than SAME_SCAN_LIMIT gets no such candidate (-1): the
  // recorder describes an element while the person waits on the click, and the fingerprint still
  // holds the name and destination for healing.
  const SAME_SCAN_LIMIT = 1000;
  function countSame(el, prefix, role, textOf) {
    const want = normText(textOf(el));
    const tag = el.localName;
    const roots = chainRoots(prefix ? prefix.split(" >>> ").slice(0, -1) : []);
    const lists = roots.map((root) => byTag(root, tag));
    if (lists.reduce((total, list) => total + list.length, 0) > SAME_SCAN_LIMIT) return -1;
    let n = 0;
    for (const all of lists) {
      for (let i = 0; i < all.length && n < 2; i++) {
        const other = all[i];
        if ((role === null || roleOf(other) === role) && normText(textOf(other)) === want) n++;
      }
    }
    return n;
  }

  // The elements a recorded element of this tag and type may be now: its tag, in the scopes within
  // `boundaries` of the top document; a button's kind is every <button> and every button-like
  // <input> (found by a native selector, so the page's other inputs cost nothing).
  function elementsOfKind(tag, type, boundaries) {
    const buttons = E.tagsOfKind(tag, type).length > 1;
    if (!boundaries && !buttons) return document.getElementsByTagName(tag);
    const out = [];
    for (const root of boundaries ? E.scopes(boundaries) : [document]) {
      const found = byTag(root, buttons ? "button" : tag);
      for (let i = 0; i < found.length; i++) out.push(found[i]);
      if (buttons) for (const el of root.querySelectorAll(BUTTON_INPUTS)) out.push(el);
    }
    return out;
  }

  function resolveOwn(strategy, selector, root, digest, nameHash, tags) {
    const tagged = tags ? tags.map((t) => (t === "input" && tags.length > 1 ? BUTTON_INPUTS : CSS.escape(t))) : null;
    if (strategy === "role-name") {
      const m = /^role=([a-z0-9-]{1,32}) name=([0-9a-f]{16})$/.exec(selector);
      if (!m) return [];
      const scan = tagged ? tagged.join(", ") : ROLE_SCAN[m[1]] || `[role=${m[1]}]`;
      return Array.prototype.filter.call(root.querySelectorAll(scan),
        (el) => roleOf(el) === m[1] && nameHash(el) === m[2]);
    }
    if (strategy === "href") {
      const m = /^link=([0-9a-f]{16})$/.exec(selector);
      if (!m) return [];
      const scan = tags ? tags.map((t) => CSS.escape(t) + "[href]").join(", ") : "a[href], area[href]";
      return Array.prototype.filter.call(root.querySelectorAll(scan), (el) => digest(linkTarget(el)) === m[1]);
    }
    let nodes;
    try {
      nodes = Array.from(root.querySelectorAll(selector));
    } catch (_) {
      return [];
    }
    if (strategy !== "label") return nodes;
    return nodes.map((label) => label.control).filter((c) => c);
  }

  // A name that is only a record id or a number ("2", "#1007", "INV-1007", a uuid) is no identity:
  // the next record has another. Its element is known by its link destination, row and position.
  function bareId(name) {
    const n = String(name || "").trim();
    if (!n || n.length > 40 || /\s/.test(n) || !/\p{N}/u.test(n)) return false;
    return /^#?\p{L}{0,4}[-_#.:]?\p{N}[\p{L}\p{N}_.:/-]*$/u.test(n) || /^[0-9a-f-]{8,}$/i.test(n);
  }

  function candidates(el, salt) {
    const tag = el.localName;
    const root = rootOf(el);
    const hosts = hostsOf(el);
    const prefix = hosts.map((h) => hostSelector(h) + " >>> ").join("");
    const found = [];
    const add = (strategy, own, counted) => {
      const selector = prefix + own;
      if (selector.length > 1024) return;
      const scoped = prefix || strategy === "label";
      const n = counted !== undefined ? counted
        : scoped ? resolveCandidate({strategy, selector}, salt).length : count(selector, root);
      if (n === 1 && !found.some((c) => c.selector === selector && c.strategy === strategy)) {
        found.push({strategy, selector, matchCount: n});
      }
    };
    for (const attr of ["data-testid", "data-test", "data-skillreel"]) {
      const v = el.getAttribute(attr);
      if (v) add("testid", attrSelector("", attr, v));
    }
    if (el.id && !isGeneratedId(el.id)) add("id", "#" + cssEscape(el.id));
    const name = el.getAttribute("name");
    if (name) add("name", attrSelector(tag, "name", name));
    const aria = el.getAttribute("aria-label");
    if (aria) add("aria-label", attrSelector(tag, "aria-label", aria));
    const role = roleOf(el);
    const accessible = role ? accessibleName(el) : "";
    const nameHash = role && !bareId(accessible) ? textHash(salt, accessible) : null;
    if (nameHash) add("role-name", `role=${role} name=${nameHash}`, countSame(el, prefix, role, accessibleName));
    const linkHash = textHash(salt, linkTarget(el));
    if (linkHash) add("href", `link=${linkHash}`, countSame(el, prefix, null, linkTarget));
    if (el.labels && el.labels.length === 1) {
      const label = el.labels[0];
      if (label.htmlFor) add("label", attrSelector("label", "for", label.htmlFor));
    }
    const placeholder = el.getAttribute("placeholder");
    if (placeholder) add("placeholder", attrSelector(tag, "placeholder", placeholder));
    const path = prefix + cssPath(el);
    const n = prefix ? resolveCandidate({strategy: "css", selector: path}, salt).length : count(path, root);
    found.push({strategy: "css", selector: path, matchCount: n});
    return found.slice(0, 12);
  }

  // ---- fingerprint ----
  const HASHED_ATTRIBUTES = [
    "id", "name", "class", "placeholder", "aria-label", "title", "alt", "for", "href", "role",
    "autocomplete", "data-testid", "data-test", "data-skillreel", "type",
  ];

  function features(el, salt) {
    const tag = el.localName.toLowerCase();
    const attributes = {};
    for (const attr of HASHED_ATTRIBUTES) {
      let v = el.getAttribute(attr);
      if (v === null || v === "") continue;
      if (attr === "class") v = v.split(/\s+/).filter(Boolean).sort().join(" ");
      const hashed = textHash(salt, v);
      if (hashed) attributes[attr] = hashed;
    }
    const parentPath = [];
    for (let p = parentOf(el); p && parentPath.length < 8; p = parentOf(p)) parentPath.push(p.localName.toLowerCase());
    let siblingIndex = 0;
    let siblingCount = 1;
    if (el.parentElement) {
      const same = Array.prototype.filter.call(el.parentElement.children, (c) => c.localName === tag);
      siblingIndex = same.indexOf(el);
      siblingCount = same.length;
    }
    const fp = {
      tag,
      type: typeOf(el, tag),
      role: roleOf(el),
      attributes,
      parentPath,
      siblingIndex,
      siblingCount,
      labelHash: textHash(salt, labelText(el)),
      textHash: textHash(salt, ownText(el)),
    };
    const extensions = {
      nameHash: textHash(salt, accessibleName(el)),
      valueHash: textHash(salt, buttonValue(el)),
      linkHash: textHash(salt, linkTarget(el)),
      rowHash: textHash(salt, rowHeader(el)),
      captionHash: textHash(salt, captionText(el)),
      routeHash: textHash(salt, linkRoute(el)),
    };
    for (const [key, value] of Object.entries(extensions)) if (value) fp[key] = value;
    if (hasStableId(el)) fp.stableId = true;
    if (hasStableName(el)) fp.stableName = true;
    const boundaries = hostsOf(el).length;
    if (boundaries) fp.boundaries = Math.min(boundaries, 8);
    return fp;
  }

  function describe(el, salt) {
    return {candidates: candidates(el, salt), fingerprint: features(el, salt)};
  }

  return Object.freeze({
    ...E,
    describe, features, textHash, count, resolveCandidate, isGeneratedId, sha256Hex, hasStableId, bareId,
    hasStableName, elementsOfKind, HASHED_ATTRIBUTES: Object.freeze(HASHED_ATTRIBUTES.slice()),
  });
})();

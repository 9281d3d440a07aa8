// skillreel locate/fingerprint.js — element description shared by the recorder and replay.
//
// Defines one binding, `SkillreelLocate`, when this file is evaluated as a script (concatenate it
// before a script that uses it, or evaluate `(() => { <this file>; return SkillreelLocate; })()`).
// It must run in an isolated world (recorder) or a fresh evaluation (replay); it keeps no state.
//
//   SkillreelLocate.describe(el, salt)  -> {candidates: [{strategy, selector, matchCount}], fingerprint}
//   SkillreelLocate.features(el, salt)  -> fingerprint (model.locators.Fingerprint JSON shape)
//   SkillreelLocate.textHash(salt, txt) -> 16 hex chars of SHA-256(salt + "\0" + normalised text), or null
//   SkillreelLocate.count(selector)     -> number of elements matching a CSS selector (0 when invalid)
//   SkillreelLocate.resolveCandidate(c, salt, options?) -> elements a candidate designates
//   SkillreelLocate.accessibleName(el)  -> the element's accessible name (never typed text)
//
// Rules (ARCHITECTURE section 5): candidates in priority order testid > id > name > aria-label >
// role-name > href > label > placeholder > css; text content is never used in a selector in clear
// (role-name and href hold a role and salted hashes only); generated-looking ids are skipped; only
// candidates matching exactly one element are kept, except the structural CSS path (at most 8
// levels), which is always kept with its count. Features taken from page text (labels, names, own
// text, attribute values, link destinations, row headers) are stored only as salted hashes, and
// never from editable content (typed text must not reach even a hash).
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

  // ---- text ----
  function normText(text) {
    return String(text || "").replace(/\s+/g, " ").trim().toLowerCase().slice(0, 256);
  }

  // Whether a text holds anything but white space (what normText would keep), without building it.
  function hasText(text) {
    return text !== null && text !== undefined && /\S/.test(text);
  }

  function textHash(salt, text) {
    const norm = normText(text);
    if (!norm) return null;
    return sha256Hex(salt + "\u0000" + norm).slice(0, 16);
  }

  const EDITABLE = "input, textarea, select, [contenteditable=''], [contenteditable='true'], [contenteditable='plaintext-only']";

  function isEditable(el) {
    return el.matches(EDITABLE) || el.isContentEditable === true;
  }

  function holdsEditable(el) {
    return isEditable(el) || el.querySelector(EDITABLE) !== null;
  }

  // ---- scopes: documents, open shadow roots, same-origin frames ----
  // The element a scope hangs from: a shadow root's host, a same-origin frame's <iframe>, or null.
  const FRAME_OF = new WeakMap();   // document -> its frame element (fixed for a document's life)
  function hostOf(root) {
    if (!root) return null;
    if (root.nodeType === 11) return root.host || null;
    if (root.nodeType !== 9) return null;
    let host = FRAME_OF.get(root);
    if (host === undefined) {
      try {
        host = (root.defaultView && root.defaultView.frameElement) || null;
      } catch (_) {
        host = null;
      }
      FRAME_OF.set(root, host);
    }
    return host;
  }

  function rootOf(el) {
    return el.getRootNode();
  }

  // The parent element, crossing into the host of a shadow root or the frame of a document.
  function parentOf(el) {
    return el.parentElement || hostOf(el.parentNode);
  }

  // The scope inside a host: its open shadow root, or the document of a same-origin frame.
  function innerRoot(el) {
    if (el.shadowRoot) return el.shadowRoot;
    if (el.localName === "iframe" || el.localName === "frame") {
      try {
        return el.contentDocument || null;
      } catch (_) {
        return null;
      }
    }
    return null;
  }

  // Hosts enclosing `el`, outermost first.
  function hostsOf(el) {
    const hosts = [];
    for (let host = hostOf(rootOf(el)); host && hosts.length < 9; host = hostOf(rootOf(host))) hosts.unshift(host);
    return hosts;
  }

  function topDocument() {
    let doc = document;
    for (let host = hostOf(doc); host; host = hostOf(doc)) doc = host.ownerDocument;
    return doc;
  }

  // Every scope within `depth` boundaries of the top document (the top document first).
  function scopes(depth) {
    const out = [topDocument()];
    for (let level = 0, from = 0; level < depth; level++) {
      const end = out.length;
      for (let i = from; i < end; i++) {
        for (const el of out[i].querySelectorAll("*")) {
          const inner = innerRoot(el);
          if (inner) out.push(inner);
        }
      }
      from = end;
    }
    return out;
  }

  function byTag(root, tag) {
    return root.nodeType === 9 ? root.getElementsByTagName(tag) : root.querySelectorAll(tag);
  }

  // ---- names ----
  // The element's accessible label text (never a field's value), or "" when it could carry typed text.
  // Sources in accessible-name order, the first that gives text wins (aria-labelledby, aria-label,
  // <label>s, then title / placeholder / alt), so rewording a placeholder does not change the label
  // of a field that has a <label>. (The first version's label: kept as it was, `labelHash`.)
  function labelText(el) {
    const parts = [];
    const labelledby = el.getAttribute("aria-labelledby");
    if (labelledby) {
      const root = rootOf(el);
      for (const id of labelledby.split(/\s+/)) {
        const ref = id && root.getElementById && root.getElementById(id);
        if (ref && !holdsEditableOtherThan(ref, el)) parts.push(ref.textContent);
      }
    }
    if (hasText(parts.join(" "))) return parts.join(" ");
    const aria = el.getAttribute("aria-label");
    if (hasText(aria)) return aria;
    for (const label of labelsOf(el)) {
      if (!holdsEditableOtherThan(label, el)) parts.push(label.textContent);
    }
    if (hasText(parts.join(" "))) return parts.join(" ");
    for (const attr of ["title", "placeholder", "alt"]) {
      const v = el.getAttribute(attr);
      if (v) parts.push(v);
    }
    return parts.join(" ");
  }

  function holdsEditableOtherThan(container, el) {
    if (container.isContentEditable) return true;
    for (const found of container.querySelectorAll(EDITABLE)) {
      if (found !== el) return true;
    }
    return false;
  }

  function ownText(el) {
    if (holdsEditable(el)) return "";
    return el.textContent || "";
  }

  const BUTTON_INPUTS = new Set(["submit", "button", "reset"]);
  const TEXT_INPUTS = new Set(["text", "password", "number", "search", "tel", "email", "url"]);
  const SKIPPED = new Set(["script", "style", "template", "noscript", "input", "textarea", "select", "option"]);
  const INLINE = new Set([
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "i", "kbd", "label", "mark", "q",
    "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "font",
  ]);
  // Roles whose name comes from their content (WAI-ARIA "name from content").
  const NAME_FROM_CONTENT = new Set([
    "button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab",
    "tooltip", "treeitem",
  ]);

  function inputType(el) {
    return (el.getAttribute("type") || "text").toLowerCase();
  }

  // The value of a button-like <input> (its visible caption), else null.
  function buttonValue(el) {
    if (el.localName !== "input" || !BUTTON_INPUTS.has(inputType(el))) return null;
    return el.getAttribute("value");
  }

  // The text a subtree presents, as an accessible name computation collects it: text nodes,
  // aria-label and alt of inner elements, captions of button-like inputs. Never the content of a
  // field, a <select> or an editable region, nor hidden, script or style elements.
  function contentText(node, depth) {
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1 || (depth || 0) > 32) return "";
    const tag = node.localName;
    if (node.isContentEditable || node.hidden || node.getAttribute("aria-hidden") === "true") return "";
    if (SKIPPED.has(tag)) {
      const caption = tag === "input" ? buttonValue(node) : null;
      return caption ? " " + caption + " " : "";
    }
    const aria = node.getAttribute("aria-label");
    if (depth && hasText(aria)) return " " + aria + " ";
    if (tag === "img" || tag === "area") return " " + (node.getAttribute("alt") || "") + " ";
    const first = node.firstChild;
    let out = first && !first.nextSibling && first.nodeType === 3 ? first.data : "";
    if (!out) {
      for (let child = first; child; child = child.nextSibling) out += contentText(child, (depth || 0) + 1);
    }
    return INLINE.has(tag) ? out : " " + out + " ";
  }

  function refsText(el, attr) {
    const value = el.getAttribute(attr);
    if (!value) return "";
    const root = rootOf(el);
    const parts = [];
    for (const id of value.split(/\s+/)) {
      const ref = id && root.getElementById && root.getElementById(id);
      if (ref) parts.push(ref === el ? ariaOrContent(ref) : contentText(ref, 1));
    }
    return parts.join(" ");
  }

  function ariaOrContent(el) {
    const aria = el.getAttribute("aria-label");
    return hasText(aria) ? aria : contentText(el, 1);
  }

  // The <label>s of a labelable element (what `el.labels` gives, without building that list for
  // the many elements no label can point at: none encloses them and none names their id).
  function labelsOf(el) {
    if (!el.labels) return [];
    if (el.closest("label") === null) {
      if (!el.id) return [];
      const root = rootOf(el);
      if (root.querySelector && root.querySelector(attrSelector("label", "for", el.id)) === null) return [];
    }
    return el.labels;
  }

  function labelsText(el) {
    const parts = [];
    for (const label of labelsOf(el)) parts.push(contentText(label, 1));
    return parts.join(" ");
  }

  function firstChildText(el, tag) {
    for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
      if (child.localName === tag) return contentText(child, 1);
    }
    return "";
  }

  // The accessible name, computed like the browser's accessibility tree (accname 1.2, as
  // Playwright's roleUtils computes it, simplified: no CSS-generated content or computed
  // visibility): aria-labelledby, aria-label, the native source of the element (a button-like
  // input's value, <label>s, alt, legend, caption...), its content for roles named from content,
  // then title. Typed text never enters it: fields, selects and editable regions are skipped.
  function accessibleName(el) {
    const byRefs = refsText(el, "aria-labelledby");
    if (hasText(byRefs)) return byRefs;
    const aria = el.getAttribute("aria-label");
    if (hasText(aria)) return aria;
    const tag = el.localName;
    const title = el.getAttribute("title") || "";
    if (tag === "input") {
      const type = inputType(el);
      if (BUTTON_INPUTS.has(type)) {
        const value = buttonValue(el) || "";
        if (hasText(value)) return value;
        return type === "submit" ? "Submit" : type === "reset" ? "Reset" : title;
      }
      const labels = labelsText(el);
      if (hasText(labels)) return labels;
      if (type === "image") return el.getAttribute("alt") || title || "Submit";
      if (TEXT_INPUTS.has(type) && !title) return el.getAttribute("placeholder") || "";
      return title;
    }
    if (tag === "textarea" || tag === "select") {
      const labels = labelsText(el);
      if (hasText(labels)) return labels;
      if (tag === "textarea" && !title) return el.getAttribute("placeholder") || "";
      return title;
    }
    if (tag === "button") {
      const labels = labelsText(el);
      if (hasText(labels)) return labels;
    }
    if (tag === "img" || tag === "area") return el.getAttribute("alt") || title;
    if (tag === "fieldset" || tag === "figure" || tag === "table") {
      const inner = firstChildText(el, tag === "fieldset" ? "legend" : tag === "figure" ? "figcaption" : "caption");
      if (hasText(inner)) return inner;
      return title;
    }
    const role = roleOf(el);
    if ((role && NAME_FROM_CONTENT.has(role)) || tag === "summary") {
      const content = contentText(el, 0);  // never a field's value or editable content
      if (hasText(content)) return content;
    }
    return title;
  }

  // ---- link destination and row context ----
  // A path segment that names one record (a number, a uuid, a hash...) rather than a kind of page.
  function isIdSegment(segment) {
    if (!/\d/.test(segment)) return false;
    return /^\d+$/.test(segment) || /^[0-9a-f-]{8,}$/i.test(segment) || segment.length >= 16;
  }

  // Where a link leads, normalised: its path, record-naming segments as "*", behind its origin
  // when that is not the page's. The query is left out: versions add and drop query keys
  // (preserved filters, sort orders) on links that lead to the same place, and query links to one
  // path differ by name. "" for no http(s) link.
  function linkTarget(el) {
    const tag = el.localName;
    if ((tag !== "a" && tag !== "area") || !el.hasAttribute("href")) return "";
    let url;
    try {
      url = new URL(el.getAttribute("href"), el.baseURI);
    } catch (_) {
      return "";
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return "";
    let here = null;
    try {
      here = new URL(el.ownerDocument.URL).origin;
    } catch (_) {
      here = null;
    }
    const path = url.pathname.split("/").map((s) => (isIdSegment(s) ? "*" : s)).join("/");
    return (url.origin === here ? "" : url.origin) + path;
  }

  const CELL_ROLES = new Set(["cell", "gridcell", "rowheader", "columnheader"]);

  // The row an element sits in (a table row or an ARIA row) and that row's header: its first
  // header cell with text, else its first other cell with text. "" outside rows.
  function rowHeader(el) {
    const row = el.closest("tr, [role=row]");
    if (!row || row === el) return "";
    const cells = Array.prototype.filter.call(row.children, (c) =>
      c.localName === "th" || c.localName === "td" || CELL_ROLES.has(c.getAttribute("role")));
    for (const cell of cells) {
      if (cell.localName !== "th" && cell.getAttribute("role") !== "rowheader") continue;
      const text = contentText(cell, 1);
      if (hasText(text)) return text;
    }
    for (const cell of cells) {
      if (cell.contains(el)) continue;
      const text = contentText(cell, 1);
      if (hasText(text)) return text;
    }
    return "";
  }

  // ---- selectors ----
  function cssEscape(value) {
    return CSS.escape(value);
  }

  function attrSelector(tag, attr, value) {
    const quoted = '"' + value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\a ") + '"';
    return `${tag}[${attr}=${quoted}]`;
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
  // `options` (replay): `hash(text)` and `nameHash(el)`, memoised by the caller, and `tag`: a
  // role-name or href candidate then designates elements of that tag only (no other tag can pass
  // the gates of the fingerprint it belongs to).
  function resolveCandidate(candidate, salt, options) {
    const parts = candidate.selector.split(" >>> ");
    const own = parts.pop();
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
    const opts = options || {};
    const digest = opts.hash || ((text) => textHash(salt, text));
    const nameHash = opts.nameHash || ((el) => digest(accessibleName(el)));
    const out = [];
    for (const root of roots) {
      for (const el of resolveOwn(candidate.strategy, own, root, digest, nameHash, opts.tag)) out.push(el);
    }
    return out;
  }

  function resolveOwn(strategy, selector, root, digest, nameHash, tag) {
    if (strategy === "role-name") {
      const m = /^role=([a-z0-9-]{1,32}) name=([0-9a-f]{16})$/.exec(selector);
      if (!m) return [];
      const scan = tag ? CSS.escape(tag) : ROLE_SCAN[m[1]] || `[role=${m[1]}]`;
      return Array.prototype.filter.call(root.querySelectorAll(scan),
        (el) => roleOf(el) === m[1] && nameHash(el) === m[2]);
    }
    if (strategy === "href") {
      const m = /^link=([0-9a-f]{16})$/.exec(selector);
      if (!m) return [];
      const scan = tag ? CSS.escape(tag) + "[href]" : "a[href], area[href]";
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

  function candidates(el, salt) {
    const tag = el.localName;
    const root = rootOf(el);
    const hosts = hostsOf(el);
    const prefix = hosts.map((h) => hostSelector(h) + " >>> ").join("");
    const found = [];
    const add = (strategy, own) => {
      const selector = prefix + own;
      if (selector.length > 1024) return;
      const scoped = prefix || strategy === "label" || strategy === "role-name" || strategy === "href";
      const n = scoped ? resolveCandidate({strategy, selector}, salt).length : count(selector, root);
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
    const nameHash = role ? textHash(salt, accessibleName(el)) : null;
    if (nameHash) add("role-name", `role=${role} name=${nameHash}`);
    const linkHash = textHash(salt, linkTarget(el));
    if (linkHash) add("href", `link=${linkHash}`);
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
  const TOKEN = /^[a-z0-9-]{1,32}$/;
  const HASHED_ATTRIBUTES = [
    "id", "name", "class", "placeholder", "aria-label", "title", "alt", "for", "href", "role",
    "autocomplete", "data-testid", "data-test", "data-skillreel", "type",
  ];

  function implicitRole(el) {
    const tag = el.localName;
    if (tag === "a") return el.hasAttribute("href") ? "link" : null;
    if (tag === "button") return "button";
    if (tag === "select") return el.multiple ? "listbox" : "combobox";
    if (tag === "textarea") return "textbox";
    if (tag === "input") {
      const t = (el.getAttribute("type") || "text").toLowerCase();
      if (["button", "submit", "reset", "image"].includes(t)) return "button";
      if (t === "checkbox" || t === "radio") return t;
      if (t === "range") return "slider";
      if (t === "search") return "searchbox";
      return "textbox";
    }
    return null;
  }

  function token(value) {
    const v = String(value || "").toLowerCase();
    return TOKEN.test(v) ? v : null;
  }

  // The type token of an <input> or <button> (their default when the attribute is missing).
  function typeOf(el, tag) {
    if (tag !== "input" && tag !== "button") return null;
    return token(el.getAttribute("type") || (tag === "input" ? "text" : "submit"));
  }

  function roleOf(el) {
    return token(el.getAttribute("role")) || implicitRole(el);
  }

  // Kinds the gates treat as one (twin of heal.kind_of_type/kind_of_role): typing into a text
  // field whose type went from "search" to "text" (role searchbox to textbox) is the same action; a
  // link, a button and a menu item are all pressed (an <a> that gained role=button is the same
  // <a>); a role that makes no control (alert, region, group...) is no kind at all. A password
  // field is never of the text kind.
  const TEXT_ENTRY = new Set(["text", "search", "email", "url", "tel"]);
  function kindOfType(type) {
    return TEXT_ENTRY.has(type) ? "text" : type;
  }

  const PRESSED = new Set(["button", "link", "menuitem"]);
  const CONTROLS = new Set([
    "checkbox", "radio", "switch", "textbox", "combobox", "listbox", "option", "slider", "spinbutton",
    "tab", "treeitem", "gridcell", "menuitemcheckbox", "menuitemradio", "scrollbar",
  ]);
  function kindOfRole(role) {
    if (role === "searchbox") return "textbox";
    if (PRESSED.has(role)) return "press";
    return CONTROLS.has(role) ? role : null;
  }

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
    describe, features, textHash, count, resolveCandidate, isGeneratedId, sha256Hex, normText, hasText,
    labelText, ownText, holdsEditable, implicitRole, typeOf, roleOf, token, accessibleName,
    buttonValue, linkTarget, rowHeader, hasStableId, hasStableName, parentOf, rootOf, hostsOf, innerRoot, scopes,
    byTag, topDocument, kindOfType, kindOfRole,
    HASHED_ATTRIBUTES: Object.freeze(HASHED_ATTRIBUTES.slice()),
  });
})();

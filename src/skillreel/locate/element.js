// skillreel locate/element.js — what an element is and what it says, for the recorder and replay.
//
// Defines one binding, `SkillreelElement`, when evaluated as a script; fingerprint.js (evaluated
// right after it, see skillreel.locate.locate_script) builds on it and re-exports all of it as part
// of `SkillreelLocate`. It keeps no state but a per-document cache of frame elements.
//
//   kind:   token, implicitRole, roleOf, typeOf, kindOfType, kindOfRole
//   scopes: rootOf, parentOf, hostOf, innerRoot, hostsOf, topDocument, scopes(depth), byTag
//   texts:  normText, hasText, labelText, ownText, accessibleName, buttonValue, linkTarget,
//           linkRoute, rowHeader, captionText (never a field's value, a <select>'s options or
//           editable content; never the ligature text of an icon font)
var SkillreelElement = (() => {
  "use strict";

  // ---- text ----
  function normText(text) {
    return String(text || "").replace(/\s+/g, " ").trim().toLowerCase().slice(0, 256);
  }

  // Whether a text holds anything but white space (what normText would keep), without building it.
  function hasText(text) {
    return text !== null && text !== undefined && /\S/.test(text);
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

  const TOKEN = /^[a-z0-9-]{1,32}$/;
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
  // A <button> and an <input type=submit|button|reset> are one kind of element (the same role and
  // name is the same button, whichever markup a version uses); a submit and a plain button are one
  // kind of type (pages submit through script as often as through the form); a reset is another.
  const TEXT_ENTRY = new Set(["text", "search", "email", "url", "tel"]);
  function kindOfType(type) {
    return TEXT_ENTRY.has(type) ? "text" : type === "submit" ? "button" : type;
  }

  function kindOfTag(tag, type) {
    return tag === "input" && BUTTON_INPUTS.has(type) ? "button" : tag;
  }

  // The tags an element of this tag and type may have become (twin of heal.tags_of_kind).
  function tagsOfKind(tag, type) {
    return kindOfTag(tag, type) === "button" ? ["button", "input"] : [tag];
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
        if (ref && !holdsEditableOtherThan(ref, el)) parts.push(textOutside(ref, el));
      }
    }
    if (hasText(parts.join(" "))) return parts.join(" ");
    const aria = el.getAttribute("aria-label");
    if (hasText(aria)) return aria;
    for (const label of labelsOf(el)) {
      if (!holdsEditableOtherThan(label, el)) parts.push(textOutside(label, el));
    }
    if (hasText(parts.join(" "))) return parts.join(" ");
    for (const attr of ["title", "placeholder", "alt"]) {
      const v = el.getAttribute(attr);
      if (v) parts.push(v);
    }
    return parts.join(" ");
  }

  // The text of `container` without that of `el` inside it: a <label> wrapped around its <select>
  // labels it with its own words, never with the options' text.
  function textOutside(container, el) {
    if (container === el || !container.contains(el)) return container.textContent;
    let out = "";
    const walker = container.ownerDocument.createTreeWalker(container, 4);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!el.contains(node)) out += node.data;
    }
    return out;
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

  // ---- icon fonts ----
  // An icon font draws a glyph for a word (a ligature: "arrow_forward", "delete"): the word is no
  // text a person reads. Such an element holds one lower-case word (letters, digits, "_") and is
  // set in an icon font, by its computed font family or by the class names icon fonts ship with.
  const LIGATURE = /^\s*[a-z][a-z0-9_]*\s*$/;
  const ICON_FONT = /material[\s_-]*(icons|symbols)|font\s*awesome|glyphicons|ionicons|icomoon|fontello|codicon|remixicon|bootstrap-icons|tabler-icons|boxicons|phosphor|line\s*awesome|feather|(^|[\s,"'])icons?([\s,"']|$)/i;
  const ICON_CLASS = /(^|\s)(material-(icons|symbols)[\w-]*|[\w-]*-icons?|icons?)(\s|$)/i;
  function isIconGlyph(el) {
    const first = el.firstChild;
    if (!first || first.nextSibling || first.nodeType !== 3 || !LIGATURE.test(first.data)) return false;
    if (ICON_CLASS.test(el.getAttribute("class") || "")) return true;
    const view = el.ownerDocument.defaultView;
    return Boolean(view) && ICON_FONT.test(view.getComputedStyle(el).fontFamily || "");
  }

  // Whether contentText leaves icon glyphs out (accessibleName puts them back when nothing else is
  // left: an icon-only button is named by its glyph's word).
  let skipIcons = true;

  // The text a subtree presents, as an accessible name computation collects it: text nodes,
  // aria-label and alt of inner elements, captions of button-like inputs. Never the content of a
  // field, a <select> or an editable region, nor hidden (`aria-hidden`), script or style elements,
  // nor the word an icon font draws as a glyph.
  function contentText(node, depth) {
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1 || (depth || 0) > 32) return "";
    const tag = node.localName;
    if (node.isContentEditable || node.hidden || node.getAttribute("aria-hidden") === "true") return "";
    if (depth && skipIcons && isIconGlyph(node)) return "";
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
  // the many elements no label can point at: no id for a `for` to name, and no enclosing label).
  function labelsOf(el) {
    if (!el.labels || (!el.id && el.closest("label") === null)) return [];
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
      if (!hasText(title)) return withIcons(() => contentText(el, 0));
    }
    return title;
  }

  function withIcons(read) {
    skipIcons = false;
    try {
      return read();
    } finally {
      skipIcons = true;
    }
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

  // Where a hash-route link leads inside a single-page application: its route fragment ("#/…" or
  // "#!/…") with record-naming segments as "*", like linkTarget's path, and without a trailing
  // slash (versions add or drop it on the same route: "#/ticket" is "#/ticket/"); "#" for a bare
  // "#" (a link that leads nowhere is no route); "" otherwise (no fragment, or an in-page anchor).
  function linkRoute(el) {
    const tag = el.localName;
    if ((tag !== "a" && tag !== "area") || !el.hasAttribute("href")) return "";
    const href = el.getAttribute("href").trim();
    const at = href.indexOf("#");
    if (at < 0) return "";
    const fragment = href.slice(at);
    if (fragment === "#") return "#";
    const m = /^#(!?)\/([^?]*)/.exec(fragment);
    if (!m) return "";
    const route = m[2].replace(/\/+$/, "");
    return "#" + m[1] + "/" + route.split("/").map((s) => (isIdSegment(s) ? "*" : s)).join("/");
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

  // ---- caption: the words that label an element from outside ----
  // What a person reads as an element's label when its own text is data (an amount, a status): the
  // elements of aria-labelledby, its <label>s, the <dt> of a <dd>, the column header of the table
  // cell it is in, else a short label-like element just before it (or before the wrapper it is
  // the only child of, two levels up at most). "" when none. Never a field's value (contentText).
  const CAPTION_MAX = 64;
  const LABEL_LIKE = new Set([
    "label", "dt", "th", "span", "strong", "b", "em", "small", "div", "p", "h1", "h2", "h3", "h4", "h5", "h6",
  ]);
  const INTERACTIVE = "a[href], button, input, select, textarea, [role=button], [role=link]";

  function captionText(el) {
    return captionSource(el).replace(/[:\uff1a]\s*$/, "");  // "Total:" and "Total" are one caption
  }

  function captionSource(el) {
    const byRefs = refsText(el, "aria-labelledby");
    if (hasText(byRefs)) return byRefs;
    const labels = labelsText(el);
    if (hasText(labels)) return labels;
    if (el.localName === "dd") return termOf(el);
    const cell = el.closest("td, th, [role=cell], [role=gridcell]");
    if (cell !== null) return columnHeader(cell);
    return precedingLabel(el);
  }

  function termOf(dd) {
    for (let s = dd.previousElementSibling; s; s = s.previousElementSibling) {
      if (s.localName === "dt") return contentText(s, 1);
      if (s.localName !== "dd") break;
    }
    return "";
  }

  // The header cell above `cell`: the cell at its column in the table's header row (the last row
  // of <thead>, else the first row made of header cells).
  function columnHeader(cell) {
    const row = cell.parentElement;
    const table = cell.closest("table, [role=table], [role=grid], [role=treegrid]");
    if (row === null || table === null) return "";
    let column = 0;
    for (let c = row.firstElementChild; c && c !== cell; c = c.nextElementSibling) column += c.colSpan || 1;
    const head = headerRow(table);
    if (head === null || head === row) return "";
    let at = 0;
    for (let c = head.firstElementChild; c; c = c.nextElementSibling) {
      if (at === column) return contentText(c, 1);
      at += c.colSpan || 1;
      if (at > column) return "";
    }
    return "";
  }

  function headerRow(table) {
    if (table.tHead && table.tHead.rows.length) return table.tHead.rows[table.tHead.rows.length - 1];
    const rows = table.querySelectorAll("tr, [role=row]");
    for (let i = 0; i < rows.length && i < 3; i++) {
      if (rows[i].querySelector(":scope > th, :scope > [role=columnheader]") !== null) return rows[i];
    }
    return null;
  }

  // The text just before the element ("Total: <span>…"), or the label-like element just before
  // it; when nothing precedes it, the same before the wrapper that holds nothing else.
  function precedingLabel(el) {
    let node = el;
    for (let level = 0; level < 3 && node; level++) {
      let prev = node.previousSibling;
      while (prev !== null && (prev.nodeType === 8 || (prev.nodeType === 3 && !hasText(prev.data)))) {
        prev = prev.previousSibling;
      }
      if (prev !== null && prev.nodeType === 3) return shortText(prev.data) ? prev.data : "";
      if (prev !== null) return prev.nodeType === 1 && labelLike(prev) ? contentText(prev, 1) : "";
      const parent = node.parentElement;
      if (parent === null || parent.localName === "body" || !onlyContent(parent, node)) return "";
      node = parent;
    }
    return "";
  }

  function onlyContent(parent, node) {
    if (parent.childElementCount !== 1) return false;
    for (let child = parent.firstChild; child; child = child.nextSibling) {
      if (child !== node && child.nodeType === 3 && hasText(child.data)) return false;
    }
    return true;
  }

  function shortText(text) {
    const norm = normText(text);
    return norm.length > 0 && norm.length <= CAPTION_MAX;
  }

  function labelLike(el) {
    if (!LABEL_LIKE.has(el.localName) || el.matches(INTERACTIVE) || el.querySelector(INTERACTIVE) !== null) {
      return false;
    }
    if (el.isContentEditable || el.querySelector(EDITABLE) !== null) return false;
    return shortText(el.textContent);
  }

  function attrSelector(tag, attr, value) {
    const quoted = '"' + value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\a ") + '"';
    return `${tag}[${attr}=${quoted}]`;
  }

  return Object.freeze({
    normText, hasText, isEditable, holdsEditable, holdsEditableOtherThan, token, implicitRole, typeOf,
    roleOf, kindOfType, kindOfTag, tagsOfKind, kindOfRole, hostOf, rootOf, parentOf, innerRoot, hostsOf, topDocument, scopes,
    byTag, labelText, ownText, buttonValue, contentText, accessibleName, labelsOf, linkTarget, linkRoute,
    rowHeader, captionText, isIconGlyph, attrSelector,
  });
})();

// skillreel record/recorder.js — the browser side of recording (ARCHITECTURE section 6).
//
// Evaluated after locate/fingerprint.js, in an isolated world (CDP `worldName`) of every document
// of every page the recording context opens. The page's own scripts share the DOM with this world
// but not its JavaScript: they can see neither `SkillreelRecorder` nor the binding it reports
// through (`Runtime.addBinding` with `executionContextName`), and they cannot forge its input,
// because only events with `isTrusted` count.
//
//   SkillreelRecorder.configure({salt, values, publicValues, publicTexts, sensitiveTyped, indicator})
//                                               -> starts reporting (Python calls it once per world);
//                                               `indicator`: draw record/indicator.js's badge
//                                               (a headed recording's top document)
//   SkillreelRecorder.flush()                   -> reports every field edit still in progress
//   SkillreelRecorder.resolve(css, all)         -> {count, target} for an assertion's selector
//   SkillreelRecorder.quiet({quietMs, timeoutMs}) -> Promise<boolean>: the DOM went quiet
//   SkillreelRecorder.arm({all})                -> the next trusted click is a mark (swallowed;
//                                               the element under the pointer is outlined)
//   SkillreelRecorder.disarm()                  -> no mark pending
//   SkillreelRecorder.extractable(css, all, fields) -> {count, target | items, fields} (automation)
//   SkillreelRecorder.waitable(css)              -> {count, target} (automation `wait`)
//
// Schema v2 (issue 12): a click on an element whose text shows a value typed earlier as a whole
// token (search "1003", click "Order 1003") reports `chosenBy` (salted hashes of those values) and
// a target describing the set of like elements by structure only (no text, no hash of it), when
// exactly one element of that set shows the value; a select reports its option values; an armed
// mark swallows the next trusted click (the page never receives its pointer, mouse or click
// events) and reports the element, or the set of elements like it, described by structure only.
// Only Python arms a mark (this world is out of the page's reach), and only a trusted click
// completes one, so the page cannot forge a mark.
//
// What it reports (model.events.PageEvent, `v: 1`): a click (retargeted to its interactive
// ancestor, a label's control (click_target.js), and to the element the pointer went down on when
// the click lands elsewhere: a backdrop opened on mousedown; a click into a field no edit follows is
// reported after all), one `input`/`select` per field edit (not per keystroke) with the edit's final value,
// Enter/Tab/Escape presses, and `human` steps for what cannot be replayed safely (cross-origin
// frames, closed shadow roots, drag, file upload, rich-text editors, one-time-code fields).
// Elements inside open shadow roots and same-origin frames are captured like any other (events
// are taken at their composed origin; fingerprint.js describes them through their hosts).
// Typing the recorder cannot see (into a closed shadow root) is a `human` step, never dropped.
//
// Leak channels closed here (seed 004):
// * a password field never reports its value: `type=password`, `autocomplete=current-password |
//   new-password`, and any field once seen as a password in this document (a WeakSet, plus the
//   field's name/id, so "show password" flipping the type or swapping the node keeps it secret);
// * one-time-code fields become a `human` step, without value;
// * page echo: the values typed in this document (and the non-sensitive ones typed earlier in the
//   recording, handed in by `configure`), as typed and hex- or base64-encoded, are compared with every
//   text a report would carry — every page-controlled part of a selector (values, ids, class names,
//   attribute names, tag names), every string of the fingerprint (tag, parent tags, role, type,
//   attribute names), the sources of parameter names, and what fingerprint hashes are taken from —
//   and any that contains one is left out (a tag that does leaves the element undescribed);
// * element names: accessible names, row headers and link destinations reach the log only as
//   salted hashes, never when they echo a typed value; fingerprint.js never reads a field's value,
//   a <select>'s options or editable content into a name or text hash.
var SkillreelRecorder = (() => {
  "use strict";

  const BINDING = "__skillreelRecorderEmit";
  const encoder = new TextEncoder();
  const L = SkillreelLocate;
  const send = globalThis[BINDING];
  const isTop = (() => {
    try {
      return window.top === window;
    } catch (_) {
      return false;
    }
  })();
  // A frame whose every ancestor document is same-origin: its elements are described from the
  // top document down (frame selectors " >>> " element selector) and replayed there. Any other
  // frame (cross-origin on the way up) is out of reach: what happens in it is a human step.
  const reachable = isTop || (() => {
    try {
      for (let w = window; w !== w.top; w = w.parent) if (!w.frameElement) return false;
      return true;
    } catch (_) {
      return false;
    }
  })();

  let salt = null;
  const waiting = [];
  const typed = [];
  const publicTyped = new Set();
  let publicTexts = [];
  const passwordFields = new WeakSet();
  const passwordKeys = new Set();
  const dirty = new Map();
  const opaque = new WeakSet();   // hosts already reported as a human step for hidden typing
  let enterTarget = null;
  let labelControl = null;
  // popup pickers (record/picker.js): the opening click and the option chosen are one choose step
  const picker = SkillreelPickerRecorder({
    report, describe: (el) => describeSafe(el), whenReady, sanitize, echoes, hash: (text) => L.textHash(salt, text),
    dropped, flushEdits: () => flushAll(null), recordSelect: (select) => markDirty(select, "select") || flush(select),
  });
  let pointerDown = null;   // {el, target}: what the pointer went down on, described then
  let focusClick = null;    // {el: the field, at: what was clicked, target}: a step unless an edit follows

  // ---- reporting ----------------------------------------------------------------------------
  function whenReady(work) {
    if (salt === null) waiting.push(work);
    else work();
  }

  function report(event) {
    event.v = 1;
    try {
      send(JSON.stringify(event));
    } catch (_) {
      // The binding is gone (the page is closing); nothing else can be done from here.
    }
  }

  // An event the recorder does not keep, counted by reason in the recording's summary (Python's
  // record.capture.DROP_REASONS says what each means); content-free.
  function dropped(reason) {
    whenReady(() => report({type: "dropped", drop: reason}));
  }

  function human(reason, el) {
    whenReady(() => report({type: "human", reason, target: el ? describeSafe(el) : null}));
  }

  // ---- echo: typed text must not reach anything reported ---------------------------------------
  // Each typed value is kept in the forms a page could copy it in (as typed, hex and base64 of its
  // UTF-8 bytes), with whether containment counts (a value of 4+ characters). Python's
  // record.redact.encoded_forms is the twin.
  // A value is public when it already appeared, before it was typed, in a text the user gave
  // (start URL, description: `publicTexts`) or in this page's URL (record.redact.TypedValues).
  // Public values still stay out of names, texts and selectors; they do not blot out URLs.
  const typedValues = [];

  function hexOf(text) {
    return Array.from(encoder.encode(text), (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function formsOf(value) {
    const forms = [value.toLowerCase(), hexOf(value), hexOf(value.toLowerCase())];
    try {
      const b64 = btoa(String.fromCharCode(...encoder.encode(value))).toLowerCase();
      forms.push(b64, b64.replace(/=+$/, ""));
    } catch (_) {
      // a value too long to spread into arguments: its plain and hex forms still count
    }
    return Array.from(new Set(forms.filter(Boolean)));
  }

  function remember(value) {
    const v = String(value || "");
    const base = v.toLowerCase();
    if (base.length < 2 || typedValues.includes(v)) return;
    typedValues.push(v);
    for (const form of formsOf(v)) typed.push({form, base, contained: base.length >= 4});
    if ([...publicTexts, location.href].some((t) => appearsIn(base, t))) publicTyped.add(base);
    typedHashes = null;
  }

  function echoOf(forms, text) {
    if (text === null || text === undefined || !forms.length) return false;
    const hay = String(text).toLowerCase();
    const whole = hay.trim();
    for (const t of forms) {
      if (whole === t.form || (t.contained && hay.includes(t.form))) return true;
    }
    return false;
  }

  // A text echoes a typed value when it equals one (2+ characters) or contains one (4+), as typed
  // or in one of its encoded forms.
  function echoes(text) {
    return echoOf(typed, text);
  }

  // The same, over the values that were not public when typed (for URLs and link destinations).
  function echoesPrivate(text) {
    return echoOf(typed.filter((t) => !publicTyped.has(t.base)), text);
  }

  // Twin of record.redact.appears_in: a URL's path segments, query keys and values; another
  // text as a whole and word by word.
  function appearsIn(value, text) {
    let parts = [text, ...String(text).split(/[^\p{L}\p{N}_@.+-]+/u)];
    if (String(text).includes("://")) {
      try {
        const url = new URL(text);
        parts = url.pathname.split("/").filter(Boolean).map((s) => {
          try {
            return decodeURIComponent(s);
          } catch (_) {
            return s;
          }
        });
        for (const [k, v] of url.searchParams) parts.push(k, v);
      } catch (_) {
        parts = [text];
      }
    }
    return parts.some((p) => p && echoOf([{form: value, contained: value.length >= 4}], p));
  }

  let typedHashes = null;
  function isTypedHash(value) {
    if (typedHashes === null) typedHashes = new Set(typed.map((t) => L.textHash(salt, t.form)));
    return typedHashes.has(value);
  }

  // A standard element name is the page's choice among a fixed set, not free text.
  function isStandardTag(name) {
    if (!/^[a-z][a-z0-9]*$/.test(name)) return false;
    try {
      return !(document.createElement(name) instanceof HTMLUnknownElement);
    } catch (_) {
      return false;
    }
  }

  const OWN_ATTRIBUTES = new Set(["data-testid", "data-test", "data-skillreel", "id", "name", "aria-label", "placeholder", "for"]);

  function unescapeCss(text) {
    return text.replace(/\\([0-9a-fA-F]{1,6}) ?|\\(.)/g, (_, hex, ch) => {
      if (!hex) return ch;
      const code = parseInt(hex, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "\ufffd";
    });
  }

  // Every page-controlled text inside a selector (record.redact.selector_parts is the twin): quoted
  // values, ids, class names, attribute names and tag names; not pseudo-classes, numbers, standard
  // tag names or the attribute names the recorder writes itself. A scope chain (" >>> ") is split;
  // a hashed part ("role=ROLE name=HASH", "link=HASH") gives its role word only (hashes are
  // compared as hashes).
  const HASHED_PART = /^(?:role=([a-z0-9-]{1,32}) name=[0-9a-f]{16}|link=[0-9a-f]{16})$/;
  function selectorParts(selector) {
    const out = [];
    for (const part of selector.split(" >>> ")) {
      const hashed = HASHED_PART.exec(part);
      if (hashed) {
        if (hashed[1] && !isStandardTag(hashed[1])) out.push(hashed[1]);
        continue;
      }
      for (const m of part.matchAll(/"((?:[^"\\]|\\.)*)"/g)) out.push(m[1].replace(/\\(.)/g, "$1"));
      const rest = part.replace(/"((?:[^"\\]|\\.)*)"/g, '""');
      for (const m of rest.matchAll(/([#.:[]?)((?:[A-Za-z0-9_\-\u0080-\uffff]|\\[0-9a-fA-F]{1,6} ?|\\.)+)/g)) {
        const sigil = m[1];
        const text = unescapeCss(m[2]);
        if (sigil === ":" || /^\d+$/.test(text)) continue;
        if (!sigil && isStandardTag(text.toLowerCase())) continue;
        if (sigil === "[" && OWN_ATTRIBUTES.has(text.toLowerCase())) continue;
        out.push(text);
      }
    }
    return out;
  }

  function echoingWord(value) {
    return typeof value === "string" && (isTypedHash(value) || (!isStandardTag(value.toLowerCase()) && echoes(value)));
  }

  // Every string of the fingerprint, walked generically (a feature added later is checked too):
  // hashes whose source echoes (public values only spare link destinations), hashes of a typed
  // form, and page words (tag, parent tags, role, type, attribute names) that echo are cleared;
  // null when the tag itself echoes.
  function scrubFingerprint(fp, el, name, link) {
    if (fp.textHash && echoes(L.ownText(el))) fp.textHash = null;
    if (fp.labelHash && echoes(L.labelText(el))) fp.labelHash = null;
    if (fp.nameHash && echoes(name)) delete fp.nameHash;
    if (fp.valueHash && echoes(L.buttonValue(el))) delete fp.valueHash;
    if (fp.linkHash && echoesPrivate(link)) delete fp.linkHash;
    if (fp.rowHash && echoes(L.rowHeader(el))) delete fp.rowHash;
    if (fp.captionHash && echoes(L.captionText(el))) delete fp.captionHash;
    if (fp.routeHash && echoesPrivate(L.linkRoute(el))) delete fp.routeHash;
    for (const attr of Object.keys(fp.attributes || {})) {
      const value = el.getAttribute(attr);
      const echoed = attr === "href" ? echoesPrivate(value) : echoes(value);
      if (echoed || echoingWord(attr) || isTypedHash(fp.attributes[attr])) delete fp.attributes[attr];
    }
    for (const key of Object.keys(fp)) {
      const value = fp[key];
      if (key === "tag") {
        if (echoingWord(value)) return null;
      } else if (Array.isArray(value)) {
        if (value.some(echoingWord)) fp[key] = [];
      } else if (echoingWord(value)) {
        fp[key] = null;
      }
    }
    return fp;
  }

  // A role-name candidate designates its element by the hash of its accessible name, an href one
  // by the hash of its link destination (fingerprint.js): neither may be the hash of typed text.
  function candidateEchoes(c, name, link) {
    if (selectorParts(c.selector).some(echoes)) return true;
    const own = c.selector.split(" >>> ").pop();
    if (c.strategy === "role-name" || c.strategy === "href") {
      const hash = own.slice(own.lastIndexOf("=") + 1);
      if (isTypedHash(hash)) return true;
      return c.strategy === "role-name" ? echoes(name) : echoesPrivate(link);
    }
    return false;
  }

  // The element's description without anything taken from a text that echoes a typed value: no
  // selector part quoting one, no role-name or href candidate whose hashed name or destination
  // holds one, no hash of such a text (a hash of typed text would let a guess be confirmed).
  function describeSafe(el) {
    const d = L.describe(el, salt);
    const shown = displayName(el, d.fingerprint.role);
    if (shown) d.displayName = shown;
    if (!typed.length) return d;
    const name = L.accessibleName(el);
    const link = L.linkTarget(el);
    const candidates = d.candidates.filter((c) => !candidateEchoes(c, name, link));
    if (!candidates.length) return null;
    const fingerprint = scrubFingerprint(d.fingerprint, el, name, link);
    if (!fingerprint) return null;
    return d.displayName ? {candidates, fingerprint, displayName: d.displayName} : {candidates, fingerprint};
  }

  // Roles whose accessible name is page chrome a person reads on screen (issue 31): a button, a
  // link, a field (its label), a heading, a column header, a tab, a menu item, outside repeated
  // rows and items. Their name is sent in
  // clear as the target's `displayName`, for people only, unless it echoes a value typed here (the
  // sensitive ones included: they never leave this world) or a sensitive value was typed in another
  // document of the recording (this world cannot compare with it: Python says so in `configure`).
  // Python screens it again (record.redact.screen_display_name) and drops it from targets chosen
  // in rows, by a filter or in a loop's item.
  const NAMED_CHROME = new Set([
    "button", "link", "textbox", "searchbox", "combobox", "listbox", "spinbutton", "slider",
    "checkbox", "radio", "switch", "heading", "columnheader", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio",
  ]);
  let sensitiveElsewhere = false;
  // Repeated rows and items hold the page's data ("Acme Corp", "Order 1003"): an element inside a
  // table's body row, a grid row, a card of a feed, or a list item outside navigation and menus
  // keeps no display name (column headers and navigation lists do).
  const DATA_ROWS = "tr, [role=row], [role=article], [role=feed] > *";
  const CHROME_LISTS = "nav, header, footer, [role=navigation], [role=menu], [role=menubar], [role=tablist], " +
    "[role=toolbar], [role=banner]";

  function inDataRow(el, role) {
    if (role === "columnheader") return false;
    const row = el.closest(DATA_ROWS);
    if (row && !row.closest("thead")) return true;
    const item = el.closest("li, [role=listitem]");
    return Boolean(item && !item.closest(CHROME_LISTS));
  }

  function displayName(el, role) {
    if (sensitiveElsewhere || !NAMED_CHROME.has(role) || inDataRow(el, role)) return null;
    const name = String(L.accessibleName(el) || "").replace(/\s+/g, " ").trim();
    if (!name || name.length > 80 || echoes(name)) return null;
    return name;
  }

  // ---- fields -------------------------------------------------------------------------------
  function keysOf(el) {
    const keys = [];
    const name = el.getAttribute("name");
    if (name) keys.push("n:" + name);
    if (el.id) keys.push("i:" + el.id);
    return keys;
  }

  function notePassword(el) {
    passwordFields.add(el);
    for (const k of keysOf(el)) passwordKeys.add(k);
  }

  function scanPasswords() {
    for (const el of document.querySelectorAll('input[type="password" i]')) notePassword(el);
  }

  function autocomplete(el) {
    return (el.getAttribute("autocomplete") || "").toLowerCase().split(/\s+/);
  }

  function isPassword(el) {
    if (el.localName !== "input") return false;
    if (el.type === "password") {
      notePassword(el);
      return true;
    }
    if (passwordFields.has(el)) return true;
    const ac = autocomplete(el);
    if (ac.includes("current-password") || ac.includes("new-password")) return true;
    return keysOf(el).some((k) => passwordKeys.has(k));
  }

  const OTP_WORDS = /(^|[^a-z])(otp|totp|hotp|2fa|mfa|one[-_ ]?time|passcode|verification[-_ ]?code|verify[-_ ]?code|auth(entication)?[-_ ]?code|security[-_ ]?code|sms[-_ ]?code)([^a-z]|$)/i;

  function isOtp(el) {
    if (autocomplete(el).includes("one-time-code")) return true;
    for (const attr of ["name", "id", "aria-label", "placeholder", "data-testid"]) {
      const v = el.getAttribute(attr);
      if (v && OTP_WORDS.test(v)) return true;
    }
    if (el.labels) {
      for (const label of el.labels) if (OTP_WORDS.test(label.textContent || "")) return true;
    }
    return el.getAttribute("maxlength") === "1" && /numeric|decimal/.test(el.getAttribute("inputmode") || "");
  }

  const NOT_TEXT = new Set(["checkbox", "radio", "button", "submit", "reset", "image", "color", "range", "hidden"]);

  // "text" (a field that takes typing), "select", "file", "rich" (contenteditable), or null.
  function fieldKind(el) {
    if (!el || el.nodeType !== 1) return null;
    if (el.isContentEditable) return "rich";
    if (el.localName === "textarea") return "text";
    if (el.localName === "select") return "select";
    if (el.localName === "input") {
      if (el.type === "file") return "file";
      return NOT_TEXT.has(el.type) ? null : "text";
    }
    return null;
  }

  const PLAIN_CONTROLS = new Set(["text", "email", "search", "tel", "url", "number"]);

  function controlOf(el) {
    if (el.localName === "select") return "select";
    if (isPassword(el)) return "password";
    if (isOtp(el)) return "otp";
    if (el.localName === "textarea") return "textarea";
    return PLAIN_CONTROLS.has(el.type) ? el.type : "other";
  }

  function sanitize(text) {
    let hint = String(text || "").normalize("NFKD").toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
    if (!hint) return null;
    if (!/^[a-z]/.test(hint)) hint = "f_" + hint;
    return hint.slice(0, 48).replace(/_+$/, "");
  }

  const FALLBACK_HINTS = ["text", "field", "input", "value", "entry"];

  function paramHint(el, control) {
    const sources = [el.getAttribute("name"), el.id && !L.isGeneratedId(el.id) ? el.id : null];
    if (el.labels) for (const label of el.labels) if (!L.holdsEditable(label) || label.contains(el)) sources.push(labelOwnText(label, el));
    sources.push(el.getAttribute("aria-label"), el.getAttribute("placeholder"));
    for (const source of sources) {
      const hint = source && !echoes(source) ? sanitize(source) : null;
      if (hint && !echoes(hint)) return hint;
    }
    const first = control === "select" ? "choice" : control === "password" ? "password" : null;
    for (const hint of first ? [first, ...FALLBACK_HINTS] : FALLBACK_HINTS) if (!echoes(hint)) return hint;
    return "param";
  }

  // A label's text without the text of the control it wraps (a <select>'s options, for one).
  function labelOwnText(label, el) {
    if (!label.contains(el)) return label.textContent;
    const clone = label.cloneNode(true);
    for (const inner of clone.querySelectorAll("input, select, textarea, [contenteditable]")) inner.remove();
    return clone.textContent;
  }

  function editableRoot(el) {
    let root = el;
    while (root.parentElement && root.parentElement.isContentEditable) root = root.parentElement;
    return root;
  }

  function markDirty(el, kind) {
    dirty.set(el, kind);
    if (focusClick && focusClick.el.contains(el)) focusClick = null;   // the edit follows the click
  }

  // One field edit is over: report it once, with its final value (never a sensitive one).
  function flush(el) {
    const kind = dirty.get(el);
    if (!kind) return;
    dirty.delete(el);
    if (!reachable) return human("iframe", null);
    if (kind === "rich") return human("rich-text", el);
    const control = controlOf(el);
    const value = String(el.value);
    if (control === "otp") {
      remember(value);
      return human("otp", el);
    }
    const sensitive = control === "password";
    if (kind !== "select") remember(value);
    if (kind !== "select" && !sensitive) rememberChoosable(value);
    whenReady(() => {
      const target = describeSafe(el);
      const field = {control, paramHint: paramHint(el, control), sensitive};
      if (!target) return report({type: "human", reason: "other", target: null});
      const event = {type: kind === "select" ? "select" : "input", target, field};
      if (!sensitive) event.value = value;
      if (kind === "select" && !sensitive) {
        const options = optionValues(el);
        if (options) event.options = options;
        const labels = options && optionLabelHashes(el);
        if (labels && labels.length) event.optionLabels = labels;
      }
      report(event);
    });
  }

  // Every edit in progress, and a click that focused a field no edit followed (except `except`,
  // the element being pressed again), is reported now.
  function flushAll(except) {
    if (focusClick && focusClick.el !== except) releaseFocusClick();
    for (const el of Array.from(dirty.keys())) if (el !== except) flush(el);
  }

  // ---- interactions -------------------------------------------------------------------------
  const INTERACTIVE = [
    "button", "a[href]", "input", "select", "textarea", "label", "summary", "[role=button]", "[role=link]",
    "[role=checkbox]", "[role=radio]", "[role=switch]", "[role=tab]", "[role=menuitem]",
    "[role=menuitemcheckbox]", "[role=menuitemradio]", "[role=option]", "[role=treeitem]", "[onclick]",
    "[tabindex]:not([tabindex='-1'])",
  ].join(", ");

  function elementOf(node) {
    if (!node || SkillreelIndicator.owns(node)) return null;   // the recording badge is never a target
    if (node.nodeType === 1) return node;
    return node.parentElement || null;
  }

  // The element an event started at, inside open shadow roots too (a window listener sees the
  // host as its target; composedPath() names the real origin, except inside closed roots).
  function origin(event) {
    const path = typeof event.composedPath === "function" ? event.composedPath() : [];
    return elementOf(path.length ? path[0] : event.target);
  }

  // The nearest interactive ancestor, crossing out of open shadow roots to their hosts.
  function retarget(node) {
    const el = elementOf(node);
    if (!el) return null;
    for (let at = el; at; ) {
      const found = at.closest(INTERACTIVE);
      if (found) return found;
      const root = at.getRootNode();
      at = root && root.host ? root.host : null;
    }
    return el;
  }

  // A custom element whose content comes from a shadow root this world cannot see (a closed
  // one): no open root, and either the focus sits inside it or it shows nothing of its own.
  function isOpaqueHost(el) {
    if (!el || el.shadowRoot || !el.localName.includes("-")) return false;
    const root = el.getRootNode();
    if (root && root.activeElement === el && !el.hasAttribute("tabindex")) return true;
    return el.childElementCount === 0 && !L.hasText(el.textContent);
  }

  const CONTROLS = "input, select, textarea";

  function isPageRoot(el) {
    return !el || el === document.body || el === document.documentElement;
  }

  function describeOrHuman(type, el, extra) {
    whenReady(() => {
      const target = isPageRoot(el) && type === "press" ? null : describeSafe(el);
      if (!target && type !== "press") return report({type: "human", reason: "other", target: null});
      report(Object.assign({type, target}, extra));
    });
  }

  // The element the pointer goes down on is remembered, and described now, before the page's own
  // handlers run: a menu opened on mousedown may cover it (the click then lands on a backdrop or
  // on <body>) or a re-render may move it before the click.
  function onPointerDown(event) {
    if (!event.isTrusted) return;
    enterTarget = null;
    pointerDown = null;
    scanPasswords();
    const raw = origin(event);
    const rich = raw && fieldKind(raw) === "rich";
    const el = rich ? editableRoot(raw) : reachable && raw ? clickTarget(raw) : raw;
    flushAll(el);
    if (picker.down(rich ? raw : el, null)) return;         // a popup picker's opening or choice (on what the click acts on)
    if (!el || rich || !reachable) return;
    pointerDown = {el, target: salt === null ? undefined : describeSafe(el)};
  }

  // The pressed element left the page before the button came up (a menu item that acts on
  // mousedown and closes its menu): the browser fires no click, yet the person clicked it. Reported
  // once the click would have come, from the description taken at pointer-down. A re-render that put
  // a twin of it under the pointer (a live list redrawn) acted on nothing: the person (or the
  // scripted driver) presses again, and that press is the step.
  function twinUnder(el, x, y) {
    for (let at = document.elementFromPoint(x, y), n = 0; at && n < 4; at = at.parentElement, n += 1) {
      if (at.localName === el.localName && at.className === el.className && at.textContent === el.textContent) return true;
    }
    return false;
  }

  function onPointerUp(event) {
    const held = pointerDown;
    if (!event.isTrusted || !held || event.button !== 0 || held.el.isConnected) return;
    if (twinUnder(held.el, event.clientX, event.clientY)) {
      pointerDown = null;
      return dropped("twin-pressed");
    }
    setTimeout(() => {
      if (pointerDown !== held) return;
      pointerDown = null;
      clickEvent(held.el, held.target);   // undescribed (no salt yet): a human step, never dropped
    }, 0);
  }

  function onKeyDown(event) {
    if (!event.isTrusted) return;
    scanPasswords();
    const key = event.key;
    const el = origin(event);
    if (el && el.localName === "input" && el.type === "password") notePassword(el);
    if (event.isComposing || (key !== "Enter" && key !== "Tab" && key !== "Escape")) return;
    if (picker.down(el, key)) {   // Enter opened a picker or chose its active option: the choice is the step
      if (key === "Enter") enterTarget = el;
      return flushAll(null);
    }
    const typing = el && (el.localName === "textarea" || el.isContentEditable);
    if (key === "Enter" && typing && !event.ctrlKey && !event.metaKey) return;   // a newline is typing
    if (!reachable) {
      flushAll(null);
      return human("iframe", null);
    }
    if (isOpaqueHost(el)) {
      flushAll(null);
      return human("closed-shadow", el);
    }
    if (key === "Enter") enterTarget = el;
    flushAll(null);
    // Shift+Tab, Ctrl+Enter...: the vocabulary has no modified presses, so a person does it.
    if (event.shiftKey || event.ctrlKey || event.altKey || event.metaKey) {
      return human("other", isPageRoot(el) ? null : el);
    }
    describeOrHuman("press", el, {key});
  }

  function onKeyUp(event) {
    if (event.isTrusted && event.key === "Enter") enterTarget = null;
  }

  // The element a click on `node` acts on: its interactive ancestor; a label's control.
  function clickTarget(node) {
    return SkillreelClickTarget.of(retarget(node));
  }

  function onClick(event) {
    if (!event.isTrusted) return;
    const raw = origin(event);
    if (armed) return completeMark(raw);
    const down = event.detail > 0 ? pointerDown : null;   // a keyboard activation has no pointer
    pointerDown = null;
    if (picker.click(raw)) return;                            // a popup picker's opening click or choice
    if (enterTarget && event.detail === 0) return;            // Enter's own activation: the press is recorded
    if (labelControl && raw === labelControl) {                 // the click a label forwards to its control
      labelControl = null;
      return;
    }
    const inner = elementOf(raw);
    const landed = retarget(raw);
    // The click landed elsewhere than the pointer went down (an overlay opened on mousedown, a
    // re-render): the person clicked the pointer-down element, never the <body> or a backdrop.
    const moved = down && down.el !== SkillreelClickTarget.of(landed);
    const el = moved ? down.el : SkillreelClickTarget.of(landed);
    if (focusClick && focusClick.el === el) focusClick = null;   // pressed again: this click replaces it
    flushAll(null);
    if (!reachable) return human("iframe", null);
    if (!moved && inner && inner.isContentEditable) return human("rich-text", editableRoot(inner));
    if (!el) return dropped("no-target");
    if (isOpaqueHost(el)) return human("closed-shadow", el);
    if (landed && landed.localName === "label" && landed.control) {
      const control = landed.control;
      labelControl = control;
      setTimeout(() => {
        if (labelControl === control) labelControl = null;
      }, 0);
    }
    const label = !moved && landed !== el && landed.localName === "label" ? landed : null;
    clickEvent(el, down && down.el === el ? down.target : undefined, label);
  }

  // The one place a trusted click becomes an event. `el` is what it acts on (the pointer-down
  // element, a label's control), `target` its description taken at pointer-down (undefined: none),
  // `label` the label clicked for it (a label showing a typed value may choose by it, as before).
  // A click into a field that takes an edit is held: the edit is the step, and if no edit follows
  // the click is reported on the next event, focus-out, navigation or the end of the recording.
  // A readonly field, a combobox or a popup opener is a click step at once.
  function clickEvent(el, target, label) {
    const field = el.localName === "label" && el.control ? el.control : el;   // a label kept (its control hidden)
    const kind = fieldKind(field);
    if (kind === "file") return human("upload", el);
    if (kind === "rich") return human("rich-text", editableRoot(field));
    if ((kind === "text" || kind === "select") && !SkillreelClickTarget.opensPopup(field)) {
      focusClick = {el: field, at: el, target};
      return;
    }
    if (chooseOrNull(el) || (label && chooseOrNull(label))) return;
    reportClick(el, target);
  }

  function reportClick(el, target) {
    const shownBy = SkillreelHoverWatch.revealer(el);   // a menu a hover opened: its hover is a step first
    whenReady(() => {
      const hover = shownBy && shownBy.isConnected ? describeSafe(shownBy) : null;
      // a hover is inferred, never demonstrated: one its element cannot be described by is left out
      if (hover && hover.candidates.some((c) => c.selector)) report({type: "hover", target: hover});
      const described = target !== undefined ? target : el.isConnected ? describeSafe(el) : null;
      if (!described) return report({type: "human", reason: "other", target: null});
      report({type: "click", target: described});
    });
  }

  // A click that focused a field and no edit followed: it is a click step after all.
  function releaseFocusClick() {
    const held = focusClick;
    focusClick = null;
    if (held) reportClick(held.at, held.target);
  }

  function onInput(event) {
    if (!event.isTrusted) return;
    const el = origin(event);
    if (!el) return;
    if (el.localName === "input" && el.type === "password") notePassword(el);
    const kind = fieldKind(el);
    if (kind === "rich") markDirty(editableRoot(el), "rich");
    else if (kind === "text") markDirty(el, "field");
    else if (kind === "select") markDirty(el, "select");
    else if (!el.matches(CONTROLS) && !opaque.has(el)) {
      // Typing went into something this world cannot see (a closed shadow root): the value cannot
      // be captured, so a person does this step; it is never silently dropped.
      opaque.add(el);
      human("closed-shadow", el);
    }
  }

  function onChange(event) {
    if (!event.isTrusted) return;
    const el = origin(event);
    const kind = fieldKind(el);
    if (kind === "file") return fileChosen(el);
    if (kind === "select") markDirty(el, "select");   // a choice is complete when it changes (arrow keys
    if (dirty.has(el)) flush(el);                      // report each step; the projection keeps the last)
  }

  // One file chosen for a file input (issue 32): an `upload` step whose file is given at replay;
  // nothing of the file (its name, size, type) is read. Several files, or none: a person's step.
  function fileChosen(el) {
    if (!el.files || el.files.length !== 1) return human("upload", el);
    whenReady(() => {
      const target = describeSafe(el);
      if (!target) return report({type: "human", reason: "upload", target: null});
      report({type: "upload", target, field: {control: "file", paramHint: paramHint(el, "file"), sensitive: false}});
    });
  }

  function onFocusOut(event) {
    const el = origin(event);
    if (!el) return;
    if (focusClick && focusClick.el === el) releaseFocusClick();
    flush(el.isContentEditable ? editableRoot(el) : el);
  }

  function onWindowBlur(event) {
    if (!event.isTrusted || event.target !== window) return;
    const active = document.activeElement;
    if (active && (active.localName === "iframe" || active.localName === "frame") && !sameOrigin(active)) {
      flushAll(null);
      human("iframe", active);
    }
  }

  // A frame whose document this world can reach (its own recorder reports what happens in it).
  function sameOrigin(frame) {
    try {
      return Boolean(frame.contentDocument);
    } catch (_) {
      return false;
    }
  }

  function onDragStart(event) {
    if (!event.isTrusted) return;
    pointerDown = null;
    flushAll(null);
    human(reachable ? "drag" : "iframe", reachable ? retarget(origin(event)) : null);
  }

  function onDrop(event) {
    if (!event.isTrusted || !event.dataTransfer) return;
    const where = reachable ? retarget(origin(event)) : null;
    if (Array.from(event.dataTransfer.types || []).includes("Files")) human("upload", where);
  }

  function watchTypeFlips() {
    const observer = new MutationObserver((records) => {
      for (const r of records) {
        if (r.oldValue && r.oldValue.toLowerCase() === "password" && r.target.localName === "input") notePassword(r.target);
      }
    });
    observer.observe(document, {attributes: true, attributeFilter: ["type"], attributeOldValue: true, subtree: true});
  }

  // Marks swallow the pointer, mouse and click events of the marking click: registered first (at
  // document start, before any page script), so no listener of the page sees them.
  for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup", "auxclick", "dblclick"]) {
    window.addEventListener(type, swallow, {capture: true, passive: false});
  }
  window.addEventListener("click", (event) => {
    if (!armed || !event.isTrusted) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    onClick(event);
  }, {capture: true, passive: false});
  const listen = (target, type, handler) => target.addEventListener(type, handler, {capture: true, passive: true});
  listen(window, "pointerdown", onPointerDown);
  listen(window, "pointerup", onPointerUp);
  listen(window, "keydown", onKeyDown);
  listen(window, "keyup", onKeyUp);
  listen(window, "click", onClick);
  listen(window, "input", onInput);
  listen(window, "change", onChange);
  listen(window, "focusout", onFocusOut);
  listen(window, "blur", onWindowBlur);
  listen(window, "dragstart", onDragStart);
  listen(window, "drop", onDrop);
  listen(window, "submit", (event) => event.isTrusted && flushAll(null));
  listen(window, "pagehide", () => flushAll(null) || picker.flush());
  // A navigation the browser starts (the address bar, back): reported while the page still can.
  listen(window, "beforeunload", (event) => event.isTrusted && flushAll(null));
  listen(document, "DOMContentLoaded", scanPasswords);
  watchTypeFlips();
  scanPasswords();


  // ---- schema v2: like elements, input-chosen targets, marks, extraction ----------------------
  const choosable = [];   // non-sensitive values typed (2+ characters), lower-cased

  function rememberChoosable(value) {
    const v = String(value || "").replace(/\s+/g, " ").trim().toLowerCase();
    if (v.length >= 2 && !choosable.includes(v)) choosable.push(v);
  }

  // The element's visible text (what replay compares a text filter with).
  function visibleText(el) {
    const text = typeof el.innerText === "string" ? el.innerText : el.textContent;
    return String(text || "").replace(/\s+/g, " ").trim().toLowerCase();
  }

  const WORD = /[\p{L}\p{N}]/u;

  // `value` occurs in `text` with no letter or digit right before or after it (both normalised).
  function hasToken(text, value) {
    if (!value) return false;
    for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
      const before = at > 0 ? text[at - 1] : "";
      const after = text[at + value.length] || "";
      if (!(before && WORD.test(before)) && !(after && WORD.test(after))) return true;
    }
    return false;
  }

  const CLASS_OK = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;

  // Classes a developer chose (no hash-like or state-looking ones, none that echoes typed text).
  function stableClasses(el) {
    const out = [];
    for (const c of Array.from(el.classList || []).sort()) {
      if (!CLASS_OK.test(c) || /[0-9a-f]{5,}/i.test(c) || /\d{3,}/.test(c) || echoes(c)) continue;
      if (/^(is-|has-)?(active|selected|current|hover|focus|open|disabled|checked|odd|even|first|last)$/i.test(c)) continue;
      out.push("." + CSS.escape(c));
      if (out.length === 2) break;
    }
    return out.join("");
  }

  function sameSet(nodes, list) {
    if (nodes.length !== list.length) return false;
    for (let i = 0; i < nodes.length; i++) if (nodes[i] !== list[i]) return false;
    return true;
  }

  function all(selector) {
    try {
      return Array.from(document.querySelectorAll(selector));
    } catch (_) {
      return null;
    }
  }

  // Selectors of the elements "like" el: its path of tags and stable classes up to an ancestor with
  // a stable id (or the body), without positions; the shortest tail of that path that designates the
  // same elements first. Top document only (null elsewhere).
  function likeSelectors(el) {
    if (L.rootOf(el) !== document || !el.parentElement) return null;
    const steps = [];
    for (let node = el; node && node !== document.body && node !== document.documentElement; node = node.parentElement) {
      if (node !== el && node.id && !L.isGeneratedId(node.id) && !echoes(node.id) && L.count("#" + CSS.escape(node.id)) === 1) {
        steps.unshift("#" + CSS.escape(node.id));
        break;
      }
      let step = node.localName + stableClasses(node);
      if ((node.localName === "td" || node.localName === "th") && node.parentElement) {
        // a table cell is like the cells of its column, not of its row
        const same = Array.prototype.filter.call(node.parentElement.children, (c) => c.localName === node.localName);
        step += `:nth-of-type(${same.indexOf(node) + 1})`;
      }
      steps.unshift(step);
      if (steps.length >= 8) break;
    }
    if (steps[0] && !steps[0].startsWith("#") && steps.length < 8) steps.unshift("body");
    const full = steps.join(" > ");
    const nodes = all(full);
    if (!nodes || !nodes.includes(el)) return null;
    const out = [];
    for (let n = 1; n < steps.length; n++) {
      const tail = steps.slice(steps.length - n).join(" > ");
      const found = all(tail);
      if (found && sameSet(found, nodes)) {
        out.push(tail);
        break;
      }
    }
    if (!out.includes(full)) out.push(full);
    return {selectors: out, nodes};
  }

  // A fingerprint with nothing taken from text: no text-derived hash, no label, no attribute hash
  // but a unique id's (Python's structure_only decides what a target keeps of it).
  function structural(fp) {
    const out = Object.assign({}, fp);
    for (const k of ["textHash", "nameHash", "valueHash", "linkHash", "routeHash", "rowHash", "labelHash"]) delete out[k];
    out.attributes = fp.stableId && fp.attributes && fp.attributes.id ? {id: fp.attributes.id} : {};
    return out;
  }

  function setOf(el, nodes) {
    const like = nodes ? null : likeSelectors(el);
    const members = nodes || (like && like.nodes);
    if (!members || !members.length) return null;
    const selectors = like ? like.selectors : [];
    return {
      candidates: selectors.map((selector) => ({strategy: "css", selector, matchCount: members.length})),
      fingerprint: structural(L.features(el, salt)),
      members,
    };
  }

  // A click on an element showing a typed value as a whole token, exactly one element of its like
  // set showing it: report the set and which values chose it (salted hashes; Python maps them back
  // to the field edit). Returns whether it reported.
  function chooseOrNull(el) {
    if (!choosable.length || salt === null) return false;
    const text = visibleText(el);
    const values = choosable.filter((v) => hasToken(text, v));
    if (!values.length) return chooseRow(el);
    const set = setOf(el, null);
    // A set larger than a loop may read is not a structure to choose from (and reading every
    // member's text would keep the person waiting on the click).
    if (!set || !set.candidates.length || set.members.length > 1000) return false;
    const chosenBy = [];
    for (const v of values) {
      const showing = set.members.filter((m) => hasToken(visibleText(m), v));
      if (showing.length === 1 && showing[0] === el) chosenBy.push(L.textHash(salt, v));
    }
    if (!chosenBy.length) return false;
    report({type: "click", target: {candidates: set.candidates, fingerprint: set.fingerprint}, chosenBy});
    return true;
  }

  // ---- rows chosen by input (record/rows.js) --------------------------------------------------
  const rows = SkillreelRowsRecorder({
    choosable: () => choosable, visibleText, hasToken, setOf: (node) => setOf(node, null), stableClasses,
    textHash: (text) => L.textHash(salt, text), report, describe: (el) => describeSafe(el), echoes, relativeSelectors,
  });

  function chooseRow(el) {
    return rows.choose(el);
  }

  // The option values of a single <select> (at most 256 of at most 1,024 characters), or null.
  function optionValues(el) {
    if (el.localName !== "select" || el.multiple || el.options.length > 256) return null;
    const values = Array.from(el.options, (o) => String(o.value));
    if (values.some((v) => v.length > 1024) || new Set(values).size !== values.length || !values.length) return null;
    return values;
  }

  // The salted text hashes of a <select>'s option labels, unique (never the labels: page text).
  function optionLabelHashes(el) {
    const hashes = Array.from(el.options, (o) => L.textHash(salt, o.label || o.textContent || ""));
    return Array.from(new Set(hashes.filter((h) => h)));
  }

  // ---- marks --------------------------------------------------------------------------------
  let armed = null;   // {all} while the next trusted click is a mark

  function swallow(event) {
    if (!armed || !event.isTrusted) return;
    event.preventDefault();
    event.stopImmediatePropagation();
  }

  function completeMark(raw) {
    const mode = armed;
    armed = null;
    SkillreelIndicator.armed(false);
    const el = elementOf(raw);
    if (!el || isPageRoot(el) || !reachable) return report({type: "mark", target: null, items: null});
    if (mode.all) {
      const set = setOf(el, null);
      if (!set || !set.candidates.length) return report({type: "mark", target: null, items: null});
      return report({type: "mark", items: {candidates: set.candidates, fingerprint: set.fingerprint}});
    }
    const d = describeSafe(el);
    if (!d) return report({type: "mark", target: null, items: null});
    report({type: "mark", target: {candidates: d.candidates, fingerprint: structural(d.fingerprint)}});
  }

  function arm(mode) {
    if (!isTop || salt === null) return false;
    armed = {all: Boolean(mode && mode.all)};
    SkillreelIndicator.armed(true);
    return true;
  }

  // ---- automation: extraction and wait targets ---------------------------------------------
  // A selector path from `item` down to `el` (`:scope > tag:nth-of-type(n) > ...`), and a shorter
  // `:scope tag.class` form when it designates only `el` inside the item.
  function relativeSelectors(item, el) {
    const steps = [];
    for (let node = el; node && node !== item; node = node.parentElement) {
      const parent = node.parentElement;
      let step = node.localName;
      if (parent) {
        const same = Array.prototype.filter.call(parent.children, (c) => c.localName === node.localName);
        if (same.length > 1) step += `:nth-of-type(${same.indexOf(node) + 1})`;
      }
      steps.unshift(step);
      if (steps.length > 8) return [];
    }
    const out = [];
    const classes = stableClasses(el);
    if (classes) {
      const short = ":scope " + el.localName + classes;
      try {
        if (item.querySelectorAll(short).length === 1) out.push(short);
      } catch (_) {}
    }
    out.push(":scope > " + steps.join(" > "));
    return out;
  }

  function extractable(selector, allItems, fields) {
    const nodes = all(selector);
    if (nodes === null) return {count: -1};
    if (!nodes.length || (nodes.length > 1 && !allItems)) return {count: nodes.length};
    if (!allItems) {
      const d = describeSafe(nodes[0]);
      return {count: 1, target: d && {candidates: d.candidates, fingerprint: structural(d.fingerprint)}};
    }
    const like = likeSelectors(nodes[0]);
    const candidates = [];
    if (like && sameSet(like.nodes, nodes)) for (const s of like.selectors) candidates.push(s);
    if (!selectorParts(selector).some(echoes) && !candidates.includes(selector)) candidates.push(selector);
    const items = {
      candidates: candidates.slice(0, 12).map((s) => ({strategy: "css", selector: s, matchCount: nodes.length})),
      fingerprint: structural(L.features(nodes[0], salt)),
    };
    const described = {};
    for (const [name, rel] of Object.entries(fields || {})) {
      if (!rel) {
        described[name] = {count: 1, target: null};
        continue;
      }
      let inner;
      try {
        inner = nodes[0].querySelectorAll(rel);
      } catch (_) {
        described[name] = {count: -1};
        continue;
      }
      if (inner.length !== 1) {
        described[name] = {count: inner.length};
        continue;
      }
      const sels = relativeSelectors(nodes[0], inner[0]);
      described[name] = {
        count: 1,
        target: sels.length ? {
          candidates: sels.map((s) => ({strategy: "css", selector: s, matchCount: 1})),
          fingerprint: structural(L.features(inner[0], salt)),
        } : null,
      };
    }
    return {count: nodes.length, items: candidates.length ? items : null, fields: described};
  }

  function waitable(selector) {
    const nodes = all(selector);
    if (nodes === null) return {count: -1, target: null};
    if (nodes.length !== 1) return {count: nodes.length, target: null};
    return {count: 1, target: describeSafe(nodes[0])};
  }

  // ---- Python's side ------------------------------------------------------------------------
  function configure(config) {
    if (salt !== null) return false;
    publicTexts = (config.publicTexts || []).map(String);
    sensitiveElsewhere = config.sensitiveTyped === true;
    for (const v of config.publicValues || []) publicTyped.add(String(v).toLowerCase());
    for (const v of config.values || []) remember(v);
    for (const v of config.choosable || []) rememberChoosable(v);
    salt = String(config.salt);
    while (waiting.length) waiting.shift()();
    if (config.indicator && isTop) SkillreelIndicator.show();
    return true;
  }

  function resolve(selector, all) {
    let nodes;
    try {
      nodes = document.querySelectorAll(selector);
    } catch (_) {
      return {count: -1, target: null};
    }
    if (nodes.length === 0 || (nodes.length > 1 && !all)) return {count: nodes.length, target: null};
    return {count: nodes.length, target: describeSafe(nodes[0])};
  }

  // Resolves true once the document has gone `quietMs` without a DOM mutation, false when
  // `timeoutMs` passes first (a page that never stops changing).
  function quiet(arg) {
    const quietMs = Math.max(0, Number(arg.quietMs) || 0);
    const timeoutMs = Math.max(quietMs, Number(arg.timeoutMs) || 0);
    return new Promise((resolve) => {
      let timer = null;
      const done = (value) => {
        observer.disconnect();
        clearTimeout(timer);
        clearTimeout(limit);
        resolve(value);
      };
      const observer = new MutationObserver(() => {
        clearTimeout(timer);
        timer = setTimeout(() => done(true), quietMs);
      });
      observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
      timer = setTimeout(() => done(true), quietMs);
      const limit = setTimeout(() => done(false), timeoutMs);
    });
  }

  return Object.freeze({
    configure,
    quiet,
    flush: () => {
      flushAll(null);
      return true;
    },
    resolve,
    arm,
    disarm: () => {
      armed = null;
      SkillreelIndicator.armed(false);
      return true;
    },
    extractable,
    waitable,
    ready: () => salt !== null,
  });
})();

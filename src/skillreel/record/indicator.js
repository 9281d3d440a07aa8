// skillreel record/indicator.js — the sign, in the page, that a person's recording is under way
// (issue 31.2; seed 004 asks for a recording indicator the page cannot forge).
//
// Evaluated before recorder.js in the recorder's isolated world; drawn only in the top document of
// an interactive (headed) recording: `SkillreelRecorder.configure({indicator: true})` calls show().
// What the page can and cannot do about it:
// * the badge lives in a *closed* shadow root on a host element this world made: the page's scripts
//   cannot reach into it (`host.shadowRoot` is null for them) nor restyle what is inside;
// * the host is put back whenever the page takes it out (`remove()`, `body.innerHTML = ''`, the
//   whole documentElement replaced), its attributes are put back when the page edits them (a
//   MutationObserver of this world; at most FAST_REPAIRS a second straight away, then on a timer, so a
//   page fighting it cannot hang itself), and a new document draws it again (the script runs on
//   every document);
// * it sits in the top layer (a manual popover, raised again when the page opens a dialog or a
//   popover of its own) with the highest z-index; its rules are `!important` on :host from inside
//   the closed root (they beat any page rule, inline ones included) in a constructed style sheet
//   (a page's Content-Security-Policy cannot block it), so page CSS cannot hide, move or cover it;
// * `pointer-events: none` on the host and everything inside: it never takes a click, the browser's
//   hit test passes through it, and the recorder (elementOf in recorder.js) ignores it as a target;
// * the document's title is prefixed "● recording — " and prefixed again when the page changes it.
//   This is the best we have for the window title: CDP has no command that sets a window's title
//   (Browser.setWindowBounds sets bounds only; Chromium's `--window-name` names only the startup
//   window, never the ones Playwright opens over CDP), so the prefix is written from this world and
//   a page that keeps rewriting its title can race it for a moment.
// A page can still draw a look-alike of the badge elsewhere: the terminal, which lists each step as
// it is captured, stays the authority on what is being recorded.
//
//   SkillreelIndicator.show()        draw the badge and the title prefix (idempotent)
//   SkillreelIndicator.armed(on)     while on, outline the element under the pointer (a mark is armed)
//   SkillreelIndicator.owns(node)    true for the host element (never a recorded target)
var SkillreelIndicator = (() => {
  "use strict";

  const PREFIX = "\u25cf recording \u2014 ";
  const BADGE = "\u25cf recording";
  const MARKING = "\u25cf recording \u2014 marking: click the element";
  const FAST_REPAIRS = 30;   // repairs a second done at once; more wait for SLOW_REPAIR_MS
  const SLOW_REPAIR_MS = 250;
  const HOST_STYLE = [
    "all: initial", "display: block", "position: fixed", "inset: 0", "width: 100vw", "height: 100vh",
    "margin: 0", "padding: 0", "border: 0", "background: transparent", "overflow: visible",
    "pointer-events: none", "z-index: 2147483647", "visibility: visible", "opacity: 1",
    "transform: none", "filter: none", "clip-path: none", "contain: none",
  ].map((rule) => rule + " !important").join("; ");
  // The same rules on :host from inside the closed root: for `!important` declarations the inner
  // tree wins over the page's, inline ones included, so no page CSS can undo them.
  const SHADOW_CSS = `
    :host { ${HOST_STYLE.replace("all: initial !important; ", "")}; }
    * { pointer-events: none !important; box-sizing: border-box; }
    .badge {
      position: fixed; top: 8px; right: 8px; padding: 4px 10px; border-radius: 12px;
      font: 600 13px/18px system-ui, sans-serif; color: #fff; background: #c62828;
      box-shadow: 0 1px 4px rgba(0, 0, 0, .4); white-space: nowrap;
    }
    .outline {
      position: fixed; display: none; border: 2px solid #c62828; border-radius: 2px;
      background: rgba(198, 40, 40, .12);
    }
    .outline.on { display: block; }
  `;

  let host = null;
  let badge = null;
  let outline = null;
  let shown = false;
  let marking = false;
  let pointer = null;         // {x, y}: where the pointer was last seen
  let repairs = [];           // times of the repairs in the last second
  let repairTimer = null;

  function build() {
    host = document.createElement("skillreel-recording");
    const root = host.attachShadow({mode: "closed"});
    badge = document.createElement("div");
    badge.className = "badge";
    badge.textContent = BADGE;
    outline = document.createElement("div");
    outline.className = "outline";
    root.append(badge, outline);
    styleRoot(root);
  }

  // A constructed style sheet: a page's Content-Security-Policy (style-src without 'unsafe-inline')
  // blocks <style> elements and style attributes, never a constructed sheet.
  function styleRoot(root) {
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(SHADOW_CSS);
      root.adoptedStyleSheets = [sheet];
    } catch (_) {
      const style = document.createElement("style");
      style.textContent = SHADOW_CSS;
      root.prepend(style);
    }
  }

  function pinAttributes() {
    if (host.getAttribute("style") !== HOST_STYLE) host.setAttribute("style", HOST_STYLE);
    if (host.getAttribute("popover") !== "manual") host.setAttribute("popover", "manual");
    for (const name of host.getAttributeNames()) {
      if (name !== "style" && name !== "popover") host.removeAttribute(name);
    }
  }

  function isOpen() {
    try {
      return host.matches(":popover-open");
    } catch (_) {
      return true;   // a browser without popovers: the z-index is all there is
    }
  }

  // Into the top layer, last: above the page's own dialogs and popovers opened before.
  function raise() {
    if (!host.isConnected || typeof host.showPopover !== "function") return;
    try {
      if (isOpen()) host.hidePopover();
      host.showPopover();
    } catch (_) {
      // not connected, or a browser without popovers: the z-index still holds
    }
  }

  function attach() {
    const parent = document.documentElement;
    if (!parent) return false;
    if (host.parentNode !== parent) parent.appendChild(host);
    pinAttributes();
    raise();
    return true;
  }

  function prefixTitle() {
    if (!document.documentElement) return;
    const title = document.title;
    if (!title.startsWith(PREFIX)) document.title = PREFIX + title;
  }

  function intact() {
    return host.isConnected && host.parentNode === document.documentElement
      && host.getAttribute("style") === HOST_STYLE && host.getAttribute("popover") === "manual"
      && host.getAttributeNames().length === 2 && isOpen()
      && document.title.startsWith(PREFIX);
  }

  function repair() {
    if (intact()) return;
    const now = Date.now();
    repairs = repairs.filter((at) => now - at < 1000);
    if (repairs.length >= FAST_REPAIRS) {
      if (repairTimer === null) {
        repairTimer = setTimeout(() => {
          repairTimer = null;
          repair();
        }, SLOW_REPAIR_MS);
      }
      return;
    }
    repairs.push(now);
    attach();
    prefixTitle();
  }

  // A dialog or popover of the page just opened: it went into the top layer above the badge.
  function onOpened(records) {
    for (const r of records) {
      if (r.target !== host && (r.attributeName === "open" || r.type === "toggle")) return raise();
    }
  }

  function show() {
    if (shown) return true;
    shown = true;
    build();
    new MutationObserver(repair).observe(document, {childList: true, subtree: true, characterData: true});
    new MutationObserver(repair).observe(host, {attributes: true});
    new MutationObserver(onOpened).observe(document, {attributes: true, attributeFilter: ["open"], subtree: true});
    window.addEventListener("toggle", (event) => {
      if (event.target !== host && event.newState === "open") raise();
    }, {capture: true, passive: true});
    host.addEventListener("toggle", (event) => event.newState === "closed" && repair());   // hidePopover()
    const listen = (type, handler) => window.addEventListener(type, handler, {capture: true, passive: true});
    listen("pointermove", onPointerMove);
    listen("scroll", redraw);
    listen("resize", redraw);
    if (!attach()) document.addEventListener("readystatechange", repair, {once: true});
    prefixTitle();
    return true;
  }

  // ---- the armed mark's outline -------------------------------------------------------------
  function under() {
    if (!pointer) return null;
    const at = document.elementFromPoint(pointer.x, pointer.y);   // the host takes no hits
    return at && at !== host && at !== document.documentElement && at !== document.body ? at : null;
  }

  function redraw() {
    if (!marking || !outline) return;
    const el = under();
    if (!el) return outline.classList.remove("on");
    const box = el.getBoundingClientRect();
    Object.assign(outline.style, {
      left: `${box.left - 2}px`, top: `${box.top - 2}px`, width: `${box.width + 4}px`, height: `${box.height + 4}px`,
    });
    outline.classList.add("on");
  }

  function onPointerMove(event) {
    if (!event.isTrusted) return;
    pointer = {x: event.clientX, y: event.clientY};
    redraw();
  }

  function armed(on) {
    marking = Boolean(on) && shown;
    if (!shown) return false;
    badge.textContent = marking ? MARKING : BADGE;
    if (marking) redraw();
    else outline.classList.remove("on");
    return true;
  }

  return Object.freeze({
    show,
    armed,
    owns: (node) => host !== null && node === host,
  });
})();

// skillreel replay/aim.js — direct action in the replay's isolated world: where to click the element
// marked for the next action, and the guard that refuses a click landing on anything else.
//
// Evaluated after fingerprint.js, resolve.js and collect.js and before settle.js, in the same
// isolated world (world.py), once per document. settle.js calls it:
//
//   SkillreelAim.arm(held) -> {nonce, ok, x, y, why}
//       after a call that marked an element for an action (a probe, a pick, a choice): the click
//       point of `held` ({el, nonce}: SkillreelResolve.held()) — the centre of its first client
//       rect that shows in the viewport, in CSS pixels of the top frame's viewport — and the hit
//       test there (elementFromPoint, through open shadow roots, is the element or inside it).
//       ok false (why: "framed", "kind", "disabled", "outside", "hidden", "covered", "gone", "late")
//       sends the driver to Playwright's own action. The guard is armed on the element either way.
//   SkillreelAim.disarm()        every other call: no guard.
//   SkillreelAim.taken() -> null | {why: "covered" | "replaced" | "torn"}
//       what the guard refused since the last call (read once).
//   SkillreelAim.scroll({nonce}) -> bool   the held element scrolled into view (the call that asks
//       it aims again: settle.js)
//   SkillreelAim.focus({nonce, fill}) -> {ok, why}
//       the held element focused for a key press, or (fill) for typing: its text selected as
//       Playwright's fill does (why: "replaced", "kind", "disabled"; the driver falls back then).
//
// The guard listens on window in the capture phase (this world's listeners come first: they are
// added as the document starts). A trusted pointerdown or mousedown whose target (composedPath()[0])
// is not the armed element or inside it is refused: preventDefault and stopImmediatePropagation, and
// the rest of that gesture (pointerup, mouseup, click, ...) too, until the next call; the page's
// listeners never see it, and nothing is activated. A press that reached the element spends the guard
// (the gesture goes on as the page handles it). Untrusted events (the page's own) are not judged.
//
// A torn press: the press reached the element and the page handled it with the element still in
// the document (our bubbling listeners on window see it connected after the page's own listeners
// below it ran), then the element left the document before the release (a debounce timer or a
// response redrew the list between the two input events). The release would land on whatever
// replaced it and the click on an ancestor of both: nothing is activated, yet the action would look
// done. The release and the rest of that gesture are refused (why "torn"): the driver locates the
// target again and clicks what it finds, as a person whose button vanished under the pointer does.
// A press whose own handling took the element away (a menu item acting on mousedown, a framework
// re-rendering within the press's task) is not torn: the gesture goes on as the page handles it.
var SkillreelAim = (() => {
  "use strict";

  const PRESS = ["pointerdown", "mousedown"];
  const REST = ["pointerup", "mouseup", "click", "auxclick", "dblclick", "contextmenu"];
  const RELEASE = new Set(["pointerup", "mouseup"]);
  // Elements whose click Playwright's own action handles (a native popup, a file chooser).
  const NOT_DIRECT = new Set(["select", "option", "optgroup"]);
  // Text fields typed into directly (Playwright's fill types into these and number).
  const TYPED = new Set(["", "email", "password", "search", "tel", "text", "url"]);

  let guard = null; // {el, state: "armed" | "spent" | "refused", pressed: undefined | boolean}
  let refusal = null;
  // Installed as the document started: our capture listeners on window come before any of the
  // page's. In a document this world reached late (installed on first use), a page's own capture
  // listener on window could see a press first: no direct action there ("late").
  const early = document.readyState === "loading";

  // Whether `node` is `el` or inside it, across shadow roots (a shadow root's host holds it).
  function within(node, el) {
    for (let n = node; n; n = n.parentNode || (n instanceof ShadowRoot ? n.host : null)) {
      if (n === el) return true;
    }
    return false;
  }

  function hitAt(x, y) {
    let hit = document.elementFromPoint(x, y);
    while (hit !== null && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (inner === null || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  function disabled(el) {
    return el.matches(":disabled") || el.closest("[aria-disabled='true']") !== null;
  }

  function pointOf(el) {
    // the viewport without its scroll bars (in quirks mode the body reports it)
    const root = document.compatMode === "BackCompat" && document.body ? document.body : document.documentElement;
    const width = Math.min(root.clientWidth, window.innerWidth);
    const height = Math.min(root.clientHeight, window.innerHeight);
    let outside = false;
    for (const r of el.getClientRects()) {
      if (r.width <= 0 || r.height <= 0) continue;
      const left = Math.max(r.left, 0);
      const top = Math.max(r.top, 0);
      const right = Math.min(r.right, width);
      const bottom = Math.min(r.bottom, height);
      if (right - left < 1 || bottom - top < 1) {
        outside = true;
        continue;
      }
      return {x: (left + right) / 2, y: (top + bottom) / 2};
    }
    return outside ? "outside" : "hidden";
  }

  function measure(el, nonce) {
    if (!el.isConnected) return {nonce, ok: false, why: "gone"};
    if (!early) return {nonce, ok: false, why: "late"};
    if (el.ownerDocument !== document) return {nonce, ok: false, why: "framed"};
    const tag = el.localName;
    if (NOT_DIRECT.has(tag) || (tag === "input" && el.type === "file")) return {nonce, ok: false, why: "kind"};
    if (disabled(el)) return {nonce, ok: false, why: "disabled"};
    const point = pointOf(el);
    if (typeof point === "string") return {nonce, ok: false, why: point};
    if (!within(hitAt(point.x, point.y), el)) return {nonce, ok: false, why: "covered"};
    return {nonce, ok: true, x: point.x, y: point.y, why: null};
  }

  function arm(held) {
    refusal = null;
    if (held === null) {
      guard = null;
      return null;
    }
    guard = {el: held.el, state: "armed"};
    return measure(held.el, held.nonce);
  }

  function disarm() {
    guard = null;
  }

  function taken() {
    const seen = refusal;
    refusal = null;
    return seen;
  }

  function refuse(event) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }

  function onPress(event) {
    const g = guard;
    if (g === null || !event.isTrusted || g.state === "spent") return;
    if (g.state === "armed" && g.el.isConnected && within(event.composedPath()[0], g.el)) {
      g.state = "spent";
      return;
    }
    if (g.state === "armed") {
      g.state = "refused";
      refusal = {why: g.el.isConnected ? "covered" : "replaced"};
    }
    refuse(event);
  }

  // After the page's listeners below window handled the press: was the element still there?
  // (false sticks: a pointerdown that took it away is not undone by the mousedown after it)
  function onPressed(event) {
    const g = guard;
    if (g === null || !event.isTrusted || g.state !== "spent" || g.pressed === false) return;
    if (!g.el.isConnected) g.pressed = false;
    else if (event.type === "mousedown") g.pressed = true;
  }

  function onRest(event) {
    const g = guard;
    if (g === null || !event.isTrusted) return;
    if (g.state === "spent" && g.pressed === true && !g.el.isConnected && RELEASE.has(event.type)) {
      g.state = "refused";
      refusal = {why: "torn"};
    }
    if (g.state === "refused") refuse(event);
  }

  for (const type of PRESS) window.addEventListener(type, onPress, {capture: true});
  for (const type of PRESS) window.addEventListener(type, onPressed);
  for (const type of REST) window.addEventListener(type, onRest, {capture: true});

  function heldAs(nonce) {
    const held = SkillreelResolve.held();
    return held !== null && held.nonce === nonce && held.el.isConnected ? held : null;
  }

  function scroll(arg) {
    const held = heldAs(arg.nonce);
    if (held === null) return false;
    held.el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
    return true;
  }

  // Playwright's fill selects the field's text (retargeted from a label to its control; here the
  // element itself must be the field), then inserts the value; its press focuses the element and,
  // when it was not focused, puts an input's caret at the start.
  function focus(arg) {
    const held = heldAs(arg.nonce);
    if (held === null) return {ok: false, why: "replaced"};
    const el = held.el;
    const tag = el.localName;
    if (disabled(el) || ((tag === "input" || tag === "textarea") && el.readOnly)) return {ok: false, why: "disabled"};
    if (!arg.fill) {
      const was = el.getRootNode().activeElement === el && document.hasFocus();
      el.focus();
      if (!was && tag === "input") {
        try {
          el.setSelectionRange(0, 0);
        } catch (e) {
          // a type without a selection (a checkbox, a button)
        }
      }
      return {ok: true, why: null};
    }
    if (tag === "input" && TYPED.has(el.type.toLowerCase())) {
      el.select();
      el.focus();
    } else if (tag === "textarea") {
      el.selectionStart = 0;
      el.selectionEnd = el.value.length;
      el.focus();
    } else {
      return {ok: false, why: "kind"};
    }
    return el.getRootNode().activeElement === el ? {ok: true, why: null} : {ok: false, why: "focus"};
  }

  return Object.freeze({arm, disarm, taken, scroll, focus});
})();

// skillreel replay/settle.js — event-driven settling in the replay's isolated world.
//
// Evaluated right after fingerprint.js, resolve.js, collect.js and aim.js in the same isolated world
// (world.py), once per document: as the document starts (a script registered for every new
// document of the main frame), or on first use in a document that script did not reach. A
// MutationObserver there notes when the page last changed its DOM; the page shares the DOM with
// this world but none of its JavaScript objects, so it cannot silence or fake it.
// Every call from Python goes through this file (call.js hands it over):
//
//   SkillreelSettle.call(method, arg, aim) -> {value, aim, refused}
//       value: SkillreelResolve.call(method, arg), or, for a method "collect.NAME",
//       SkillreelCollect.call(NAME, arg) (schema v2 sets, loop items, reads), "listbox.NAME"
//       SkillreelListbox's, "aim.NAME" SkillreelAim's (aim.js: a field focused for typing, the
//       element scrolled into view); "settle.idle" answers how long ago (ms) the page last changed
//       its DOM (a failed wait's diagnosis: was the page still changing?);
//       our own DOM changes (the step's mark, a loop's item marks) are taken out of the
//       observer's queue, so they never count as the page's; method "batch" takes
//       [[method, arg], ...] and returns the list of results (a step's page summary and the next
//       step's probe, in one round trip);
//       aim: true after a call that marks an element for an action: its click point and hit test,
//       the guard armed on it (SkillreelAim.arm); false: the guard disarmed;
//       refused: what the guard refused since the last call ({why}); then nothing else is done
//       (value null): the driver locates the target again
//       leaves: true when a form was submitted since the last call, its default not prevented,
//       into this frame (no other target, not method=dialog): the document is about to navigate
//       (the browser starts that navigation a task later, so it may not be known yet), and the
//       value was measured on a page that is going away
//   SkillreelSettle.after({windowMs, frameMs, capMs}, method, arg, aim)
//       -> Promise<{value, aim, refused, waitedMs, quiet}>
//       after an action: one task turn (the page's immediate follow-up work runs); with frameMs,
//       one animation frame of the page and a task turn after it (the page's frame callbacks
//       and what they queue run first; at most frameMs, for a page that renders no frames); then
//       wait until the DOM has not changed for windowMs (at most capMs), then SkillreelSettle.call.
//       The task turn and the frame count from the action's last input event when one reached the
//       page since the previous call (a trusted input event, stamped by our capture listeners on
//       window, each asking for its own frame and turn): they have often passed by the time the
//       call arrives. Without such an input (a navigation, a selection's synthetic events) they
//       count from the call, as before.
//
// The first window after a navigation counts from the document's `load` event when this world saw
// it (installed as the document started), else from the first call in the document.
//
// The element marked for the next action (SkillreelResolve.held) is watched from the call that
// marked it until the next call: if it leaves the document (the page re-rendered it) before any
// input event reached the page, its mark is taken off (Playwright's action, which waits for the
// mark, can then never reach that node) and the driver is told through this world's binding
// skillreelReplaced(nonce) (Runtime.addBinding with this world's name: the page cannot call or see
// it). Nothing had been done there, so the driver cancels the action and the step locates its target
// again. Once any input event of an action (a pointer press, a key, an input, a change) has been
// dispatched anywhere in the page, nothing is reported: the action may have begun, and it goes on
// (or times out) as Playwright sees it. Elements in a child frame are not watched. A press the
// guard of aim.js refused never reaches these listeners (it stops the event first).
//
// The first call in a document counts as a change, however early the scripts were installed
// (as the document started, or on first use), unless this world saw the document's `load`: nothing
// was measured there before, and the page's own work right after it loaded gets one whole window.
// Data arrives as call arguments, never as script text.
var SkillreelSettle = (() => {
  "use strict";
  const R = SkillreelResolve;
  const A = SkillreelAim;
  const now = () => performance.now();
  let last = now();
  let first = true; // no call yet in this document
  let loadedAt = null; // when the document's load event came (seen by this world)
  if (document.readyState !== "complete") {
    window.addEventListener("load", () => {
      loadedAt = now();
      last = Math.max(last, loadedAt);
    }, {once: true});
  }

  function firstCall() {
    if (first) {
      first = false;
      if (loadedAt === null) last = Math.max(last, now());
    }
  }

  const observer = new MutationObserver(() => {
    last = now();
  });
  observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});

  function notePending() {
    if (observer.takeRecords().length) last = now();
  }

  // ---- the action's target replaced before the action reached it --------------------------------
  const BINDING = "skillreelReplaced"; // driver.py REPLACED_BINDING
  // Input that may mean an action has begun: a press, a key, a change of a field's value.
  const ACTING = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "auxclick", "dblclick",
                  "contextmenu", "keydown", "keypress", "keyup", "beforeinput", "input", "change",
                  "paste", "drop", "submit", "reset"];
  let watched = null; // {el, attr, nonce, reached}
  const watcher = new MutationObserver(() => {
    const w = watched;
    if (w === null || w.el.isConnected) return;
    unwatch();
    if (w.reached) return;
    if (w.el.getAttribute(w.attr) === w.nonce) w.el.removeAttribute(w.attr);
    const tell = globalThis[BINDING];
    if (typeof tell === "function") tell(w.nonce);
  });
  for (const type of ACTING) {
    window.addEventListener(type, (event) => {
      if (watched !== null) watched.reached = true;
      if (event.isTrusted) stamp();
    }, {capture: true});
  }

  // ---- a form submission: the document is about to navigate -----------------------------------
  // The submit event is dispatched as the key or click submits (implicit submission included); the
  // navigation it plans starts a task later. Read when the next call comes: by then the page's own
  // listeners have run and may have prevented it (a single-page app handles its forms itself).
  let submitted = null; // {event, form, submitter}
  window.addEventListener("submit", (event) => {
    submitted = {event, form: event.target, submitter: event.submitter || null};
  }, {capture: true});

  function leaving() {
    const s = submitted;
    submitted = null;
    if (s === null || s.event.defaultPrevented || !(s.form instanceof HTMLFormElement)) return false;
    if (s.form.ownerDocument !== document) return false;
    const by = s.submitter;
    const target = (by && by.hasAttribute("formtarget") ? by.getAttribute("formtarget") : s.form.getAttribute("target")) || "";
    const method = (by && by.hasAttribute("formmethod") ? by.getAttribute("formmethod") : s.form.getAttribute("method")) || "";
    return (target === "" || target.toLowerCase() === "_self") && method.toLowerCase() !== "dialog";
  }

  // ---- the action's input as the page saw it ----------------------------------------------------
  // Each trusted input event asks for a task turn and for the page's next animation frame and a task
  // turn after it; after() waits for those of the last input since the previous call.
  let inputSeq = 0; // trusted input events seen in this document
  let callSeq = 0; // inputSeq when the last call ended
  let inputAt = 0;
  let turnedSeq = 0; // the last input a task turn has passed after
  let framedSeq = 0; // the last input a frame and a task turn have passed after
  const pokes = new Set();

  function poke() {
    for (const wake of Array.from(pokes)) wake();
  }

  function stamp() {
    const seq = ++inputSeq;
    inputAt = now();
    setTimeout(() => {
      turnedSeq = Math.max(turnedSeq, seq);
      poke();
    }, 0);
    requestAnimationFrame(() => setTimeout(() => {
      framedSeq = Math.max(framedSeq, seq);
      poke();
    }, 0));
  }

  // Until ready() holds (checked as each stamped turn or frame passes), at most ms.
  function until(ready, ms) {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => {
      let timer = null;
      const done = (force) => {
        if (!force && !ready()) return;
        clearTimeout(timer);
        pokes.delete(done);
        resolve();
      };
      timer = setTimeout(() => done(true), Math.max(0, ms));
      pokes.add(done);
    });
  }

  function unwatch() {
    watched = null;
    watcher.disconnect();
  }

  // After every call: watch the element marked for the next action, if it is a new one.
  function watch() {
    const held = R.held();
    if (held !== null && watched !== null && held.el === watched.el && held.nonce === watched.nonce) return;
    unwatch();
    if (held === null || !held.el.isConnected || held.el.ownerDocument !== document) return;
    watched = {el: held.el, attr: held.attr, nonce: held.nonce, reached: false};
    const options = {childList: true, subtree: true};
    watcher.observe(document, options);
    for (let root = held.el.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) {
      watcher.observe(root, options);
    }
  }

  const COLLECT = "collect.";
  const LISTBOX = "listbox."; // popup pickers (locate/listbox.js)
  const AIM = {"aim.scroll": (arg) => A.scroll(arg), "aim.focus": (arg) => A.focus(arg)}; // aim.js
  // This file's own questions: "settle.idle" -> how long ago (ms) the page last changed its DOM.
  const OWN = {"settle.idle": () => now() - last};

  function route(method, arg) {
    if (Object.prototype.hasOwnProperty.call(OWN, method)) return OWN[method](arg);
    if (Object.prototype.hasOwnProperty.call(AIM, method)) return AIM[method](arg);
    if (method.startsWith(COLLECT)) return SkillreelCollect.call(method.slice(COLLECT.length), arg);
    if (method.startsWith(LISTBOX)) return SkillreelListbox.call(method.slice(LISTBOX.length), arg);
    return R.call(method, arg);
  }

  function call(method, arg, aim) {
    firstCall();
    notePending();
    const refused = A.taken();
    callSeq = inputSeq;
    const leaves = leaving();
    if (refused !== null) {
      A.disarm();
      return {value: null, aim: null, refused, leaves};
    }
    let value;
    try {
      value = method === "batch" ? arg.map((item) => route(item[0], item[1])) : route(method, arg);
    } finally {
      observer.takeRecords(); // what our call changed (a mark set or removed) is not the page's
      watch();
    }
    let aimed = null;
    if (aim) aimed = A.arm(R.held());
    else A.disarm();
    return {value, aim: aimed, refused: null, leaves};
  }

  function turn(ms) {
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
  }

  // The page's next animation frame (our callback runs after those it asked for earlier), then a
  // task turn; at most ms. requestAnimationFrame is this world's own: the page cannot replace it.
  function frame(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, ms));
      requestAnimationFrame(() => {
        clearTimeout(timer);
        setTimeout(resolve, 0);
      });
    });
  }

  async function after(quiet, method, arg, aim) {
    firstCall();
    const start = now();
    const early = A.taken(); // a refused press: nothing to wait for
    if (early !== null) {
      callSeq = inputSeq;
      A.disarm();
      return {value: null, aim: null, refused: early, leaves: leaving(), waitedMs: 0, quiet: false};
    }
    const seq = inputSeq;
    if (seq > callSeq) { // the action's input reached the page: the turn and the frame count from it
      if (quiet.frameMs > 0) {
        await until(() => framedSeq >= seq, Math.min(quiet.frameMs, quiet.capMs) - (now() - inputAt));
      } else {
        await until(() => turnedSeq >= seq, quiet.capMs);
      }
    } else {
      await turn(0);
      if (quiet.frameMs > 0) await frame(Math.min(quiet.frameMs, quiet.capMs));
    }
    for (;;) {
      notePending();
      const idle = now() - last;
      const spent = now() - start;
      if (idle >= quiet.windowMs || spent >= quiet.capMs) break;
      await turn(Math.min(quiet.windowMs - idle, quiet.capMs - spent));
    }
    const quietNow = now() - last >= quiet.windowMs;
    const waitedMs = now() - start;
    return {...call(method, arg, aim), waitedMs, quiet: quietNow};
  }

  return Object.freeze({call, after});
})();

// skillreel record/actionable.js — used by a scripted demonstration (record/automation.py) before
// it acts with trusted input: Playwright's actionability checks, in one evaluation. Evaluated in
// the page with one argument {element, selector}: the element (a handle), or a CSS selector that
// designates it (resolved here, so the element is found again when the page replaced it with an
// identical one while this waited). Checks, in order: attached, visible, stable (its box unchanged
// across two animation frames) and receiving events (the element or a descendant is what is hit at
// the centre of its visible part). Returns {state: "ok", x, y} (viewport coordinates to click),
// or {state} naming what is not yet true: "missing", "several", "not-css" (resolve it otherwise),
// "detached", "hidden", "moving", "covered".
async (arg) => {
  const find = () => {
    if (arg.element) return {element: arg.element};
    let found;
    try {
      found = document.querySelectorAll(arg.selector);
    } catch (e) {
      return {state: "not-css"};
    }
    if (found.length === 0) return {state: "missing"};
    if (found.length > 1) return {state: "several"};
    return {element: found[0]};
  };
  const visibleBox = (el) => {
    const style = getComputedStyle(el);
    if (style.visibility !== "visible") return null;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return null;
    return {x: r.x, y: r.y, width: r.width, height: r.height};
  };
  const same = (a, b) =>
    a && b && a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
  // An animation frame (or 100 ms, when the page does not render frames: never a hang).
  const frame = () => new Promise((resolve) => {
    requestAnimationFrame(() => resolve());
    setTimeout(resolve, 100);
  });
  const deepHit = (x, y) => {
    let hit = document.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };
  // The element, or one inside it, is hit; or a label of it is (a click there reaches it, as a
  // styled checkbox whose input lies under its skin).
  const holds = (el, hit) => {
    for (let node = hit; node; node = node.parentNode || node.host) {
      if (node === el) return true;
      if (node.localName === "label" && node.control === el) return true;
    }
    return false;
  };

  let first = find();
  if (!first.element) return first;
  let el = first.element;
  if (!el.isConnected) return {state: "detached"};
  if (!visibleBox(el)) return {state: "hidden"};
  if (typeof el.scrollIntoViewIfNeeded === "function") el.scrollIntoViewIfNeeded(true);
  else el.scrollIntoView({block: "center", inline: "center"});
  const before = visibleBox(el);
  await frame();
  await frame();
  if (!el.isConnected) {
    // Replaced while this waited: the selector finds its successor, which must stand where it stood.
    if (arg.element) return {state: "detached"};
    const again = find();
    if (!again.element) return again.state === "missing" ? {state: "detached"} : again;
    el = again.element;
  }
  const box = visibleBox(el);
  if (!box) return {state: "hidden"};
  if (!same(before, box)) return {state: "moving"};
  const left = Math.max(box.x, 0);
  const top = Math.max(box.y, 0);
  const right = Math.min(box.x + box.width, window.innerWidth);
  const bottom = Math.min(box.y + box.height, window.innerHeight);
  if (right <= left || bottom <= top) return {state: "hidden"};
  const x = (left + right) / 2;
  const y = (top + bottom) / 2;
  if (!holds(el, deepHit(x, y))) return {state: "covered"};
  return {state: "ok", x, y};
}

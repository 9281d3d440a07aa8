// skillreel record/scroll_extent.js — used by a scripted demonstration (record/automation.py) for a
// `scroll` step to its end: how far the element (the page when it is the document's scrolling
// element, or the body) is scrolled and how tall its content is, so a lazy list is scrolled with
// trusted wheel input until it stops growing. Evaluated with the element: [scrolled to, height].
(el) => {
  const page = el === document.body || el === document.documentElement;
  const box = page ? document.scrollingElement : el;
  return [Math.ceil(box.scrollTop + box.clientHeight), box.scrollHeight];
}

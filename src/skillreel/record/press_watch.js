// skillreel record/press_watch.js — used by a scripted demonstration (record/actionability.py)
// around one trusted mouse press: evaluated with no argument, it returns a watcher (kept by a
// handle, never a global) that notes the element the button went down on and whether a click
// followed. Its stop() removes the listeners and reports {clicked, replaced}: replaced is true
// when the element the button went down on left the document (the page re-rendered it between
// the button going down and up, so the browser sent no click at all).
() => {
  const watch = {down: null, clicked: false};
  const onDown = (event) => {
    if (event.isTrusted && !watch.down) watch.down = event.composedPath()[0] || event.target;
  };
  const onClick = (event) => {
    if (event.isTrusted) watch.clicked = true;
  };
  window.addEventListener("mousedown", onDown, true);
  window.addEventListener("click", onClick, true);
  watch.stop = () => {
    window.removeEventListener("mousedown", onDown, true);
    window.removeEventListener("click", onClick, true);
    return {clicked: watch.clicked, replaced: !!watch.down && !watch.down.isConnected};
  };
  return watch;
}

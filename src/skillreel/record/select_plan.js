// skillreel record/select_plan.js — used by a scripted demonstration (record/automation.py) to plan
// the arrow-key presses that choose an option of a single <select> with trusted keyboard input.
// Evaluated with the <select> element and the wanted option value as arguments; returns the
// positions of the selected and the wanted option among the enabled options (or null).
(el, wanted) => {
  if (el.localName !== "select" || el.multiple) return null;
  const enabled = Array.from(el.options).filter((o) => !o.disabled);
  return {at: enabled.findIndex((o) => o.selected), to: enabled.findIndex((o) => o.value === wanted)};
}

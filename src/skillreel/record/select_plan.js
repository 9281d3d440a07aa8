// skillreel record/select_plan.js — used by a scripted demonstration (record/automation.py) to plan
// a `select` step. Evaluated with the element and {value, label} (one of them) as arguments:
// - a single <select>: the positions of the selected and the wanted option among the enabled
//   options (the wanted one by value, or by visible label: -2 when two options show that label),
//   and the wanted option's value, for the arrow-key presses that choose it with trusted input;
// - a popup picker (role=combobox, aria-haspopup=listbox): {picker: true}, chosen by clicks;
// - anything else: null.
(el, wanted) => {
  const squash = (text) => String(text || "").replace(/\s+/g, " ").trim();
  if (el.localName !== "select") {
    const picker = el.getAttribute("role") === "combobox" || el.getAttribute("aria-haspopup") === "listbox";
    return picker ? {picker: true} : null;
  }
  if (el.multiple) return null;
  const enabled = Array.from(el.options).filter((o) => !o.disabled);
  const matches = enabled.filter((o) => (wanted.label === null ? o.value === wanted.value : squash(o.label) === squash(wanted.label)));
  const to = matches.length === 1 ? enabled.indexOf(matches[0]) : matches.length ? -2 : -1;
  return {picker: false, at: enabled.findIndex((o) => o.selected), to, value: to >= 0 ? enabled[to].value : null};
}

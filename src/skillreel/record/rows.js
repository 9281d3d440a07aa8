// skillreel record/rows.js — rows chosen by input (issue 28, point 3): the recorder's block for a
// click inside a row (a table row, a list item, an option, a card: an element repeated among like
// siblings) whose text shows a typed value as a whole token, the clicked element itself not showing
// it: "the <role> of the row that shows input P". The row set is described by structure only; the
// element by its role, its name (salted hash) and its place in the row, never by its own text or
// its row's (a record id differs next time).
//
// Evaluated after fingerprint.js and before recorder.js, which makes one with what it needs:
//   SkillreelRowsRecorder({choosable, visibleText, hasToken, setOf, stableClasses, textHash, report,
//                          describe, echoes, relativeSelectors})
//     .choose(el)   a trusted click at el: true when it reported it as chosen in a row
var SkillreelRowsRecorder = (api) => {
  "use strict";
  const L = SkillreelLocate;

  const ROW_LIKE = "tr, [role=row], li, [role=listitem], [role=option], [role=article]";
  const CELLS = "td, th, [role=cell], [role=gridcell], [role=columnheader], [role=rowheader]";
  const LISTS = "ul, ol, tbody, [role=list], [role=listbox], [role=grid], [role=rowgroup], [role=feed]";

  // One of like siblings, or a child of a list (a filter may leave a single item). An empty
  // sibling is none (Streamlit's app root beside an empty <div> of the same classes is no row).
  function repeated(node) {
    if (node.parentElement.matches(LISTS)) return true;
    const key = node.localName + api.stableClasses(node);
    let n = 0;
    for (const c of node.parentElement.children) if (c.firstChild && c.localName + api.stableClasses(c) === key) n++;
    return n > 1;
  }

  // A row never holds the page's title or navigation: an app shell repeated beside a portal, whose
  // top bar shows the signed-in user's typed name, is no row (nor anything around it).
  const PAGE_LEVEL = "h1, main, nav, [role=main], [role=navigation], [role=banner]";

  function rowsOf(el) {
    const out = [];
    for (let node = el.parentElement; node && out.length < 4; node = node.parentElement) {
      if (node === document.body || !node.parentElement) break;
      if (node.matches(PAGE_LEVEL) || node.querySelector(PAGE_LEVEL)) break;
      if (!node.matches(CELLS) && (node.matches(ROW_LIKE) || repeated(node))) out.push(node);
    }
    return out;
  }

  function chooseRow(el) {
    if (L.rootOf(el) !== document) return false;
    for (const row of rowsOf(el)) {
      const text = api.visibleText(row);
      const shown = api.choosable().filter((v) => api.hasToken(text, v));
      if (!shown.length) continue;
      const set = api.setOf(row);
      if (!set || !set.candidates.length || set.members.length > 1000) return false;
      const chosenBy = shown.filter((v) => {
        const showing = set.members.filter((m) => api.hasToken(api.visibleText(m), v));
        return showing.length === 1 && showing[0] === row;
      }).map((v) => api.textHash(v));
      const target = chosenBy.length ? inRow(row, el) : null;
      if (!target) return false;
      target.row = {candidates: set.candidates, fingerprint: set.fingerprint};
      api.report({type: "click", target, chosenBy});
      return true;
    }
    return false;
  }

  // The clicked element as one of its row: candidates relative to the row (role and name, a
  // non-numeric aria-label or title, the row-relative path), a fingerprint without its own text,
  // its row's header or its raw link (model.locators.in_row); no name when the name is a bare id.
  function inRow(row, el) {
    const d = api.describe(el);
    if (!d) return null;
    const fp = Object.assign({}, d.fingerprint, {attributes: Object.assign({}, d.fingerprint.attributes)});
    delete fp.textHash;
    delete fp.rowHash;
    delete fp.attributes.href;
    const name = L.accessibleName(el);
    if (L.bareId(name)) for (const k of ["nameHash", "labelHash", "valueHash"]) delete fp[k];
    const candidates = [];
    const add = (strategy, selector) => {
      if (selector.length <= 1024 && !candidates.some((c) => c.selector === selector)) {
        candidates.push({strategy, selector, matchCount: 1});
      }
    };
    const role = L.roleOf(el);
    const same = (n) => L.roleOf(n) === role && L.normText(L.accessibleName(n)) === L.normText(name);
    if (role && fp.nameHash && Array.prototype.filter.call(row.querySelectorAll("*"), same).length === 1) {
      add("role-name", `role=${role} name=${fp.nameHash}`);
    }
    for (const attr of ["aria-label", "title"]) {
      const v = el.getAttribute(attr);
      if (!v || /\p{N}/u.test(v) || api.echoes(v)) continue;
      const selector = ":scope " + L.attrSelector(el.localName, attr, v);
      if (row.querySelectorAll(selector).length === 1) add(attr === "aria-label" ? attr : "css", selector);
    }
    for (const selector of api.relativeSelectors(row, el)) add("css", selector);
    return candidates.length ? {candidates: candidates.slice(0, 12), fingerprint: fp} : null;
  }

  return Object.freeze({choose: chooseRow});
};

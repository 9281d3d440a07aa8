// skillreel replay/call.js — the function every call from Python runs in the isolated world
// (driver.py, as Runtime.callFunctionOn's function). It goes to settle.js: SkillreelSettle.call, or,
// with `quiet` (after an action), SkillreelSettle.after; `aim`: aim at the element the call marks
// (settle.js). In a world our scripts are not in yet (a
// document the script registered for new documents did not reach) it returns the marker below, and
// the driver installs them and calls again.
function skillreelCall(quiet, method, arg, aim) {
  "use strict";
  if (typeof SkillreelSettle === "undefined") return "skillreel:not-installed";
  return quiet ? SkillreelSettle.after(quiet, method, arg, aim) : SkillreelSettle.call(method, arg, aim);
}

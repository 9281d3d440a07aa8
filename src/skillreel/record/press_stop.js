// skillreel record/press_stop.js — evaluated on the watcher press_watch.js returned: stops it and
// returns what it saw ({clicked, replaced}).
(watch) => watch.stop()

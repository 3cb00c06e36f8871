// Polling for the live pages: call poll() every interval ms until it answers false. A
// failed request (the server restarting) is tried again at the next tick.
window.arenaPoll = function (poll, interval) {
  "use strict";
  async function loop() {
    let again = true;
    try { again = await poll(); } catch (e) { again = true; }
    if (again) setTimeout(loop, interval);
  }
  setTimeout(loop, interval);
};

// Added by `vatcar-site serve` to the pages it serves (never to the built files): waits for
// the site to be rebuilt with a change, then reloads the page.
(() => {
  "use strict";
  const seen = document.currentScript?.dataset.generation;
  if (seen === undefined) return;
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));
  (async () => {
    for (;;) {
      try {
        const answer = await fetch(
          "/__vatcar-site/changes?since=" + encodeURIComponent(seen),
          { cache: "no-store" },
        );
        if (answer.ok) {
          if ((await answer.text()).trim() !== seen) {
            location.reload();
            return;
          }
          // The wait ran out with nothing new: ask again at once.
          continue;
        }
      } catch {
        // The server is stopped or restarting: a restarted one answers a new generation.
      }
      await pause(2000);
    }
  })();
})();

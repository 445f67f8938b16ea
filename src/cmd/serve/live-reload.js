// Added by `vatcar-site serve` to the pages it serves (never to the built files): waits for
// the site to be rebuilt with a change, then reloads the page. A rebuild that failed shows
// its errors over the page instead, until the next good one reloads it.
(() => {
  "use strict";
  let seen = document.currentScript?.dataset.generation;
  if (seen === undefined) return;
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));
  const OVERLAY = "vatcar-site-errors";

  // The errors as text (never as markup), over the page, which is the last good build.
  const show = (errors) => {
    document.getElementById(OVERLAY)?.remove();
    const overlay = document.createElement("div");
    overlay.id = OVERLAY;
    overlay.setAttribute("role", "alertdialog");
    overlay.setAttribute("aria-labelledby", OVERLAY + "-title");
    overlay.style.cssText =
      "position:fixed;inset:0;z-index:2147483647;overflow:auto;padding:2rem;" +
      "background:rgba(20,20,20,.92);color:#fff;font:16px/1.5 system-ui,sans-serif";
    const title = document.createElement("h2");
    title.id = OVERLAY + "-title";
    title.style.cssText = "margin:0 0 .5rem;color:#ffb4a8;font-size:1.4rem";
    title.textContent = "The site could not be rebuilt";
    const note = document.createElement("p");
    note.style.cssText = "margin:0 0 1rem";
    note.textContent =
      "vatcar-site serve is still serving the last good build. Fix these and save: the page reloads by itself.";
    const text = document.createElement("pre");
    text.style.cssText =
      "white-space:pre-wrap;word-break:break-word;margin:0 0 1rem;padding:1rem;" +
      "background:#000;color:#fff;font:14px/1.5 ui-monospace,monospace";
    text.textContent = errors;
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "Show the last good site";
    close.style.cssText = "font:inherit;padding:.5rem 1rem;cursor:pointer";
    close.addEventListener("click", () => overlay.remove());
    overlay.append(title, note, text, close);
    document.body.append(overlay);
    close.focus();
  };

  const errors = async () => {
    const answer = await fetch("/__vatcar-site/errors", { cache: "no-store" });
    return answer.ok ? (await answer.text()).trim() : "";
  };

  (async () => {
    // A page opened while the last rebuild is broken shows its errors at once.
    try {
      const now = await errors();
      if (now) show(now);
    } catch {
      // The server is stopped: nothing to show.
    }
    for (;;) {
      try {
        const answer = await fetch(
          "/__vatcar-site/changes?since=" + encodeURIComponent(seen),
          { cache: "no-store" },
        );
        if (answer.ok) {
          const now = (await answer.text()).trim();
          if (now === seen) {
            // The wait ran out with nothing new: ask again at once.
            continue;
          }
          const failed = await errors();
          if (!failed) {
            location.reload();
            return;
          }
          show(failed);
          seen = now;
          continue;
        }
      } catch {
        // The server is stopped or restarting: a restarted one answers a new generation.
      }
      await pause(2000);
    }
  })();
})();

// Added by `vatcar-site serve` to the pages it serves (never to the built files): waits for
// the site to be rebuilt with a change, then reloads the page. A rebuild that failed shows
// its errors over the page instead, until the next good one reloads it.
(() => {
  "use strict";
  let seen = document.currentScript?.dataset.generation;
  if (seen === undefined) return;
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));
  const OVERLAY = "vatcar-site-errors";

  // The overlay's words in the site's language (the catalogue's [serve]); English while the
  // server cannot say.
  const english = {
    title: "The site could not be rebuilt",
    note: "vatcar-site serve is still serving the last good build. Fix these and save: the page reloads by itself.",
    close: "Show the last good site",
  };
  const words = async () => {
    try {
      const answer = await fetch("/__vatcar-site/words", { cache: "no-store" });
      return answer.ok ? { ...english, ...(await answer.json()) } : english;
    } catch {
      return english;
    }
  };

  // The errors as text (never as markup), over the page, which is the last good build. The
  // overlay is opaque and dark in both schemes: nothing of the page shows through the text.
  const show = async (errors) => {
    const said = await words();
    document.getElementById(OVERLAY)?.remove();
    const overlay = document.createElement("div");
    overlay.id = OVERLAY;
    overlay.setAttribute("role", "alertdialog");
    overlay.setAttribute("aria-labelledby", OVERLAY + "-title");
    overlay.style.cssText =
      "position:fixed;inset:0;z-index:2147483647;overflow:auto;padding:2rem;" +
      "background:#141414;color:#fff;color-scheme:dark;font:16px/1.5 system-ui,sans-serif";
    const title = document.createElement("h2");
    title.id = OVERLAY + "-title";
    title.style.cssText = "margin:0 0 .5rem;color:#ffb4a8;font-size:1.4rem";
    title.textContent = said.title;
    const note = document.createElement("p");
    note.style.cssText = "margin:0 0 1rem";
    note.textContent = said.note;
    const text = document.createElement("pre");
    text.style.cssText =
      "white-space:pre-wrap;word-break:break-word;margin:0 0 1rem;padding:1rem;" +
      "background:#000;color:#fff;font:14px/1.5 ui-monospace,monospace";
    text.textContent = errors;
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = said.close;
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
      if (now) await show(now);
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
          await show(failed);
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

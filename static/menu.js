// The header's menu, on top of a page that is complete without this script (the menu is then
// a plain list, wrapping onto as many rows as it needs). Read in <head>, before the page is
// drawn, so that a folded menu never shows unfolded first.
// - Small screens: the menu folds behind a "Menu" button (the stylesheet decides which
//   screens): the GOV.UK header's pattern.
// - Wide screens: the menu keeps to one row. The entries that do not fit move, in their
//   order, behind a "More" button at the row's end (the "priority+" pattern): the first ones,
//   the site's own sections, stay one click away, and the header keeps its height however
//   long the webmaster's menu is.
// And the site's name in the header, which the stylesheet shows in two lines at most: where
// it needs more, the short name the config gives (data-short) takes its place, and what still
// does not fit ends with the last whole word that does and an ellipsis, never inside a word.
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("menu-js");

  function fitName() {
    var name = document.querySelector(".brand-name");
    var text = name && name.firstChild;
    if (!text || text.nodeType !== 3) { return; }
    var link = name.closest("a");
    var full = name.getAttribute("data-full") || text.data;
    // The box that shows two lines and hides the rest.
    var clip = name.closest(".brand-line") || name;
    var range = document.createRange();
    // Whether the name's last letter is inside the two lines shown.
    function fits() {
      range.selectNodeContents(text);
      var boxes = range.getClientRects();
      return !boxes.length || boxes[boxes.length - 1].bottom <= clip.getBoundingClientRect().bottom + 0.5;
    }
    name.setAttribute("data-full", full);
    text.data = full;
    if (link) { link.removeAttribute("aria-label"); }
    if (fits()) { return; }
    var shown = name.getAttribute("data-short") || full;
    text.data = shown;
    var words = shown.split(" ");
    while (!fits() && words.length > 1) {
      words.pop();
      text.data = words.join(" ").replace(/[\s,;:.\u2013\u2014-]+$/, "") + "\u2026";
    }
    // A screen reader still hears the whole of what was cut.
    var code = clip.querySelector(".brand-code");
    if (link && text.data !== shown) { link.setAttribute("aria-label", shown + (code ? " " + code.textContent : "")); }
  }

  document.addEventListener("DOMContentLoaded", function () {
    // Fitted whenever the name's room changes: once laid out (after the menu button below
    // takes its place beside it), and at every resize. Without ResizeObserver, on resizes.
    var brandText = document.querySelector(".brand-text");
    if (brandText && typeof ResizeObserver === "function") {
      new ResizeObserver(fitName).observe(brandText);
    } else {
      window.addEventListener("resize", fitName);
      window.setTimeout(fitName, 0);
    }
    var button = document.querySelector("button.menu-button[aria-controls]");
    var menu = button && document.getElementById(button.getAttribute("aria-controls"));
    // A theme's own header may have no button: its menu stays a list.
    if (!menu) { root.classList.remove("menu-js"); return; }
    function show(open) {
      button.setAttribute("aria-expanded", open ? "true" : "false");
      menu.classList.toggle("is-open", open);
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      show(button.getAttribute("aria-expanded") !== "true");
    });
    // Escape folds the menu and puts the keyboard back on its button.
    menu.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { show(false); button.focus(); }
    });

    // "More": a theme's own menu may have none, and then wraps as it does without the script.
    var more = menu.querySelector(".menu-more");
    var moreButton = more && more.querySelector("button");
    var moreList = moreButton && moreButton.nextElementSibling;
    var list = more && more.previousElementSibling;
    if (!moreList || !list || list.localName !== "ul") { return; }
    function open(state) {
      moreButton.setAttribute("aria-expanded", state ? "true" : "false");
      more.classList.toggle("is-open", state);
    }
    moreButton.addEventListener("click", function () {
      open(moreButton.getAttribute("aria-expanded") !== "true");
    });
    more.addEventListener("keydown", function (event) {
      // Only "More" closes: the menu's own handler, above, is for its small-screen form.
      if (event.key === "Escape") { event.stopPropagation(); open(false); moreButton.focus(); }
    });
    // Closed when the keyboard or a click goes elsewhere.
    more.addEventListener("focusout", function (event) {
      if (!more.contains(event.relatedTarget)) { open(false); }
    });
    document.addEventListener("click", function (event) {
      if (!more.contains(event.target)) { open(false); }
    });
    // Whether the row's last entry sits lower than its first: the row has wrapped.
    function wraps() {
      var first = list.firstElementChild;
      return !!first && list.lastElementChild.offsetTop > first.offsetTop;
    }
    function fit() {
      open(false);
      while (moreList.firstElementChild) { list.appendChild(moreList.firstElementChild); }
      more.hidden = true;
      more.classList.remove("has-current");
      // Folded behind "Menu" (small screens): every entry stays in the one list.
      if (getComputedStyle(button).display !== "none" || !wraps()) { return; }
      more.hidden = false;
      // Keep at least one entry on the row, whatever the width.
      while (list.children.length > 1 && wraps()) {
        moreList.insertBefore(list.lastElementChild, moreList.firstElementChild);
      }
      more.classList.toggle("has-current", !!moreList.querySelector("[aria-current]"));
    }
    var pending = false;
    window.addEventListener("resize", function () {
      if (pending) { return; }
      pending = true;
      window.requestAnimationFrame(function () { pending = false; fit(); });
    });
    fit();
  });
  // After the handler above, however it ended: the menu's row is as it will stay, and the
  // stylesheet's clip of it until then goes.
  document.addEventListener("DOMContentLoaded", function () {
    root.classList.add("menu-fitted");
  });
})();

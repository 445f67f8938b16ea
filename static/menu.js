// The header's menu folded behind a "Menu" button on small screens (the stylesheet decides
// which): the GOV.UK header's pattern. The page is complete without this script: the button
// stays hidden and the menu is a plain list. Read in <head>, before the page is drawn, so that
// a folded menu never shows unfolded first.
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("menu-js");
  document.addEventListener("DOMContentLoaded", function () {
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
  });
})();

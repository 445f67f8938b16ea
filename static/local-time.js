// Small enhancements; every page is complete without them:
// the reader's own local time next to each event time where it is not already said, time
// zones by their names in the page's language, and banners that fail to load hidden.
//
// Read in <head>, before the page is drawn: each time's line is filled as the parser puts its
// (empty) element in the page, before anything below it is drawn, so that nothing moves under
// the reader (issue 50: a deferred fill shifted the events page by up to 0.146 at 390 px).
//
// Each time is said once to each reader (issue 48). The page says it in Zulu, and in the
// site's display zone when one is set (base.html puts its IANA name on this script's element,
// data-display-zone); the reader's own time is added only where their zone's offset at that
// instant differs from both, and names their zone once, by its name ("Eastern Standard
// Time"), never beside a "GMT-5".
(function () {
  "use strict";
  // The page's language gives the label: base.html puts it on this script's element.
  var script = document.currentScript;
  var label = (script && script.getAttribute("data-your-time")) || "Your time";
  var displayZone = (script && script.getAttribute("data-display-zone")) || "";
  document.addEventListener("DOMContentLoaded", function () {
    var banners = document.querySelectorAll("img.event-banner");
    for (var b = 0; b < banners.length; b++) {
      banners[b].addEventListener("error", function (event) { event.target.hidden = true; });
      if (banners[b].complete && banners[b].naturalWidth === 0) { banners[b].hidden = true; }
    }
  });
  if (typeof Intl === "undefined" || !Intl.DateTimeFormat) { return; }
  // Written in the page's language, so the line reads like the page around it; the browser's
  // own when it cannot format that one (an unknown or ill-formed tag throws RangeError).
  var locale;
  var pageLang = document.documentElement.lang;
  try {
    if (pageLang && Intl.DateTimeFormat.supportedLocalesOf([pageLang]).length) { locale = pageLang; }
  } catch (e) { locale = undefined; }
  // A zone's long name in the page's language at `when` ("Atlantic-standaardtijd"), or null
  // where the browser has none (an old one, or a zone it does not know). The reader's own
  // zone is `undefined`. Formats are made once each: making one is the costly part.
  var namers = {};
  function zoneName(zone, when) {
    try {
      var key = zone || "";
      if (!namers[key]) {
        namers[key] = new Intl.DateTimeFormat(locale, { timeZone: zone || undefined, timeZoneName: "long" });
      }
      var parts = namers[key].formatToParts(when);
      for (var p = 0; p < parts.length; p++) {
        if (parts[p].type === "timeZoneName") { return parts[p].value; }
      }
    } catch (e) { return null; }
    return null;
  }
  // The display zone, which the page names by its place ("Curacao"), by its name instead.
  var now = new Date();
  function rename(zone) {
    var named = zoneName(zone.getAttribute("data-zone"), now);
    // Its own text, once set, is a change the observer sees too: it is left as it is.
    if (named && zone.textContent !== named) { zone.textContent = named; }
  }
  // Minutes east of UTC in the display zone at `when` (0 without one: the page says Zulu
  // only), from its wall clock there; NaN where the browser does not know the zone (then
  // the reader's time is said, as it cannot be told apart).
  var wallClock = null;
  try {
    wallClock = displayZone ? new Intl.DateTimeFormat("en-US", {
      timeZone: displayZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric",
      hour: "numeric", minute: "numeric", second: "numeric"
    }) : null;
  } catch (e) { wallClock = undefined; }
  function displayOffset(when) {
    if (wallClock === undefined) { return NaN; }
    if (!wallClock) { return 0; }
    var v = {};
    var parts = wallClock.formatToParts(when);
    for (var p = 0; p < parts.length; p++) { v[parts[p].type] = Number(parts[p].value); }
    var wall = Date.UTC(v.year, v.month - 1, v.day, v.hour % 24, v.minute, v.second);
    return Math.round((wall - Math.floor(when.getTime() / 1000) * 1000) / 60000);
  }
  // Whether the reader's clock at `when` reads other than both the Zulu and the display zone's.
  function another(when) {
    var own = -when.getTimezoneOffset();
    return own !== 0 && own !== displayOffset(when);
  }
  var day = new Intl.DateTimeFormat(locale, { weekday: "short", day: "numeric", month: "short" });
  var clock = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  // A time's line, filled from its attributes alone (its element is empty in the page).
  function fill(node) {
    if (node.vatcarFilled) { return; }
    node.vatcarFilled = true;
    var start = new Date(node.getAttribute("data-start"));
    var end = new Date(node.getAttribute("data-end"));
    if (isNaN(start.getTime()) || isNaN(end.getTime()) || !(another(start) || another(end))) { return; }
    var sameDay = day.format(start) === day.format(end);
    var zone = zoneName(undefined, start);
    // The zone's name wraps as a name does; the rest breaks between its parts only.
    node.textContent = label;
    if (zone) {
      node.appendChild(document.createTextNode(" ("));
      var name = document.createElement("span");
      name.className = "zone";
      name.textContent = zone;
      node.appendChild(name);
      node.appendChild(document.createTextNode(")"));
    }
    node.appendChild(document.createTextNode(": " + day.format(start) + " " + clock.format(start) +
      (sameDay ? "–" : " – " + day.format(end) + " ") + clock.format(end)));
    node.hidden = false;
  }
  var lines = ".reader-time[data-start]";
  // Each line as the parser adds it, and each zone's name as its text comes: an observer's
  // records are taken before the next frame is drawn. Then, once the page is read, what the
  // observer did not see.
  var observer = typeof MutationObserver === "function" && new MutationObserver(function (records) {
    for (var r = 0; r < records.length; r++) {
      var added = records[r].addedNodes;
      for (var a = 0; a < added.length; a++) {
        var node = added[a];
        if (node.nodeType === 1 && node.matches(lines)) { fill(node); }
        var parent = node.nodeType === 3 && node.parentNode;
        if (parent && parent.nodeType === 1 && parent.hasAttribute("data-zone")) { rename(parent); }
      }
    }
  });
  if (observer) { observer.observe(document.documentElement, { childList: true, subtree: true }); }
  document.addEventListener("DOMContentLoaded", function () {
    if (observer) { observer.disconnect(); }
    var nodes = document.querySelectorAll(lines);
    for (var i = 0; i < nodes.length; i++) { fill(nodes[i]); }
    var zones = document.querySelectorAll("[data-zone]");
    for (var z = 0; z < zones.length; z++) { rename(zones[z]); }
  });
})();

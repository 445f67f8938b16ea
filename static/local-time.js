// Small enhancements; every page is complete without them:
// the reader's own local time next to each event time, time zones by their names in the
// page's language, and banners that fail to load hidden.
(function () {
  "use strict";
  // The page's language gives the label: base.html puts it on this script's element.
  var script = document.currentScript;
  var label = (script && script.getAttribute("data-your-time")) || "Your time";
  var banners = document.querySelectorAll("img.event-banner");
  for (var b = 0; b < banners.length; b++) {
    banners[b].addEventListener("error", function (event) { event.target.hidden = true; });
    if (banners[b].complete && banners[b].naturalWidth === 0) { banners[b].hidden = true; }
  }
  if (typeof Intl === "undefined" || !Intl.DateTimeFormat) { return; }
  // Written in the page's language, so the line reads like the page around it; the browser's
  // own when it cannot format that one (an unknown or ill-formed tag throws RangeError).
  var locale;
  var pageLang = document.documentElement.lang;
  try {
    if (pageLang && Intl.DateTimeFormat.supportedLocalesOf([pageLang]).length) { locale = pageLang; }
  } catch (e) { locale = undefined; }
  // A zone's long name in the page's language ("Atlantic-standaardtijd"), or null where the
  // browser has none (an old one, or a zone it does not know).
  function zoneName(zone) {
    try {
      var parts = new Intl.DateTimeFormat(locale, { timeZone: zone || undefined, timeZoneName: "long" })
        .formatToParts(new Date());
      for (var p = 0; p < parts.length; p++) {
        if (parts[p].type === "timeZoneName") { return parts[p].value; }
      }
    } catch (e) { return null; }
    return null;
  }
  // The display zone, which the page names by its place ("Curacao"), by its name instead.
  var zones = document.querySelectorAll("[data-zone]");
  for (var z = 0; z < zones.length; z++) {
    var named = zoneName(zones[z].getAttribute("data-zone"));
    if (named) { zones[z].textContent = named; }
  }
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  // Zulu is already on the page.
  if (/^(Etc\/)?(UTC|GMT|Zulu|UCT)$/.test(zone)) { return; }
  // The reader's zone by its name, not its IANA id ("America/Curacao").
  var readerZone = zone ? (zoneName(zone) || zone) : "";
  var day = new Intl.DateTimeFormat(locale, { weekday: "short", day: "numeric", month: "short" });
  var clock = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
  var nodes = document.querySelectorAll(".reader-time[data-start]");
  for (var i = 0; i < nodes.length; i++) {
    var node = nodes[i];
    var start = new Date(node.getAttribute("data-start"));
    var end = new Date(node.getAttribute("data-end"));
    if (isNaN(start.getTime()) || isNaN(end.getTime())) { continue; }
    var sameDay = day.format(start) === day.format(end);
    node.textContent = label + (readerZone ? " (" + readerZone + ")" : "") + ": " + day.format(start) + " " +
      clock.format(start) + " – " + (sameDay ? "" : day.format(end) + " ") + clock.format(end);
    node.hidden = false;
  }
})();

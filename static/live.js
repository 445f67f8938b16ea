// Who is on now, from VATSIM's data feed, on the live page and the home page's live block
// (templates/live.html, templates/live-home.html). The page is complete without it: the
// bookings are written by the build, and a <noscript> says what this list would show.
//
// - What it reads is in the page: the [data-live] element's data-live-config holds the
//   feed's address, our callsign prefixes and airports, and the words in the page's
//   language; its data-live-roster names the site's own data/roster.json, read once for the
//   roster's names and ratings by CID (none with the roster page off: then the feed's
//   names, and no one is marked visiting).
// - When: once on load, or once first seen when opened in a background tab. On the live page
//   (data-live-refresh="SECONDS" on its [data-live] element) again about once a minute while
//   the page is visible (the Page Visibility API), never while it is hidden, never twice
//   within 30 seconds. After a failure, on either page, again later each time (two minutes,
//   four, up to fifteen). The home block otherwise loads once. The feed is large (a few MB,
//   new every 15 seconds): no page asks for it more often.
// - A feed that cannot be read (offline, blocked, an error, JSON of a shape this script does
//   not know, a time more than 15 minutes old or more than 5 minutes ahead of the visitor's
//   clock) shows one calm line, saying it will try again, and no list, and hides no booking:
//   nothing old is shown as live, and a feed from the future says nothing about now. No
//   error escapes.
// - A booking is online now when the controller who booked it (its CID) is on its callsign;
//   when another is on it, the row says the position is held, by whom where the roster names
//   them.
// - The element [data-live] says what it shows in data-live-state (loading, live,
//   unavailable), for the styles.
// - The feed is filtered to ours before anything is drawn, and at most MOST_ROWS rows of
//   each list are (data-live-rows on a [data-live] element says fewer: the home block draws
//   what its room holds): a feed listing absurd numbers is counted ("4800 more are not
//   listed"), not drawn.
// - On a member's page (templates/person.html), the [data-live] element names the member's
//   CID (data-live-member): it says whether the feed has that CID on one of our positions
//   (the callsign, and since when), by CID alone, and nothing while the feed cannot be read.
// - Every value from the feed is put in the page as text (textContent), inside <bdi> where
//   it is a name, never as markup. The page's Content-Security-Policy lets it connect to its
//   own origin and the feed's only.
(function () {
  "use strict";

  var MIN_GAP = 30 * 1000;
  // After a failure the page asks again after twice its refresh (or this), doubling each time.
  var RETRY = 60 * 1000;
  var MAX_BACKOFF = 15 * 60 * 1000;
  var TOO_OLD = 15 * 60 * 1000;
  var TIMEOUT = 20 * 1000;
  var LONGEST = 120;
  // How far the feed's time may be ahead of the visitor's clock: clocks differ a little.
  var SKEW = 5 * 60 * 1000;
  // VATSIM began in 2001: no time of its is older.
  var FIRST = Date.UTC(2001, 0, 1);
  // No one is on a position for a week: a logon time further back shows no duration.
  var LONGEST_SESSION = 7 * 24 * 60 * 60 * 1000;
  // The most rows of one list put in the page. A busy event brings a hundred or so flights
  // to an airport; a feed listing far more is wrong or hostile, and drawing 100,000 rows
  // held the page still for seconds at each reading.
  var MOST_ROWS = 200;
  // A controller may log on a little before the booking starts.
  var EARLY = 15 * 60 * 1000;

  var roots = document.querySelectorAll("[data-live]");
  if (!roots.length) { return; }
  var config;
  try { config = JSON.parse(roots[0].getAttribute("data-live-config")); } catch (e) { return; }
  if (!config || typeof config.feed !== "string") { return; }
  var text = config.text || {};
  var prefixes = upperList(config.callsigns);
  var airports = upperList(config.airports);
  var one = Array.isArray(config.one) ? config.one : [1];
  var rosterAddress = roots[0].getAttribute("data-live-roster");
  // The roster's names and ratings by CID, once read; null while unknown.
  var roster = null;
  var rosterAsked = null;

  var refresh = 0;
  for (var r = 0; r < roots.length; r++) {
    var seconds = parseInt(roots[r].getAttribute("data-live-refresh") || "0", 10);
    if (seconds > 0) { refresh = Math.max(refresh, seconds * 1000, MIN_GAP); }
  }

  var lastAsked = 0;
  var failures = 0;
  var timer = null;
  var inFlight = false;

  function upperList(list) {
    var out = [];
    if (!Array.isArray(list)) { return out; }
    for (var i = 0; i < list.length; i++) {
      if (typeof list[i] === "string") { out.push(list[i].toUpperCase()); }
    }
    return out;
  }

  // The same rule as the build's (src/view/live.rs, is_ours): the part before the first
  // "_" is one of ours, and something follows the "_".
  function isOurs(callsign, list) {
    var at = callsign.indexOf("_");
    if (at <= 0 || at === callsign.length - 1) { return false; }
    return list.indexOf(callsign.slice(0, at).toUpperCase()) >= 0;
  }

  function fill(template, values) {
    return String(template || "").replace(/\{([a-z_]+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }

  function counted(key, n) {
    return fill(text[key + (one.indexOf(n) >= 0 ? "_one" : "_other")], { n: n });
  }

  // Text from the feed as it is shown: a string (or a number), without control characters,
  // cut short; anything else is none.
  function plain(value) {
    if (typeof value === "number" && isFinite(value)) { value = String(value); }
    if (typeof value !== "string") { return ""; }
    // eslint-disable-next-line no-control-regex
    var cleaned = value.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, " ").trim();
    return cleaned.length > LONGEST ? cleaned.slice(0, LONGEST) + "…" : cleaned;
  }

  // An airport's code as the feed writes it, for comparing with ours: anything longer than a
  // code is none, without looking further.
  function code(value) {
    return typeof value === "string" && value.length <= 16 ? value.trim().toUpperCase() : "";
  }

  function time(value) {
    if (typeof value !== "string") { return NaN; }
    return Date.parse(value);
  }

  function two(n) { return (n < 10 ? "0" : "") + n; }

  // Whether a logon time is one to show, by the feed's time `now`: not before VATSIM, not
  // ahead of the feed, not a week back.
  function plausibleLogon(logon, now) {
    return !isNaN(logon) && logon >= FIRST && logon <= now + SKEW && now - logon <= LONGEST_SESSION;
  }

  // A time of day in UTC: `18:42Z`.
  function clock(t) {
    var at = new Date(t);
    return two(at.getUTCHours()) + ":" + two(at.getUTCMinutes()) + "Z";
  }

  // How long since `logon`, by the feed's time `now`; none for a time out of range.
  function onlineFor(logon, now) {
    if (!plausibleLogon(logon, now)) { return ""; }
    var minutes = Math.max(0, Math.floor((now - logon) / 60000));
    if (minutes < 60) { return fill(text.online_minutes, { minutes: minutes }); }
    return fill(text.online_hours, { hours: Math.floor(minutes / 60), minutes: two(minutes % 60) });
  }

  // What the feed holds that the page shows, or null for a shape this script does not know.
  function read(feed) {
    if (!feed || typeof feed !== "object" || !feed.general || typeof feed.general !== "object") {
      return null;
    }
    var updated = time(feed.general.update_timestamp);
    if (isNaN(updated) || updated < FIRST || !Array.isArray(feed.controllers) ||
        !Array.isArray(feed.atis) || !Array.isArray(feed.pilots)) {
      return null;
    }
    var ratings = {};
    if (Array.isArray(feed.ratings)) {
      for (var k = 0; k < feed.ratings.length; k++) {
        var rating = feed.ratings[k];
        if (rating && typeof rating.id === "number") { ratings[rating.id] = plain(rating.short_name); }
      }
    }
    var controllers = [];
    for (var i = 0; i < feed.controllers.length; i++) {
      var c = feed.controllers[i];
      if (!c || typeof c !== "object") { continue; }
      var callsign = plain(c.callsign).toUpperCase();
      // Observers are not on a position: facility 0, or a callsign ending _OBS.
      if (!callsign || c.facility === 0 || /_OBS$/.test(callsign) || !isOurs(callsign, prefixes)) {
        continue;
      }
      var cid = typeof c.cid === "number" || typeof c.cid === "string" ? String(c.cid) : "";
      var known = roster && Object.prototype.hasOwnProperty.call(roster, cid) ? roster[cid] : null;
      var logon = time(c.logon_time);
      controllers.push({
        callsign: callsign,
        cid: cid,
        rostered: !!known,
        frequency: plain(c.frequency),
        name: known ? plain(known[0]) || cid : plain(c.name) || cid,
        rating: known ? plain(known[1]) : (ratings[c.rating] || ""),
        // Visiting: not on the roster, as far as the roster is known.
        visiting: !!roster && !known,
        online: onlineFor(logon, updated),
        since: plausibleLogon(logon, updated) ? clock(logon) : ""
      });
    }
    controllers.sort(function (a, b) { return a.callsign < b.callsign ? -1 : a.callsign > b.callsign ? 1 : 0; });
    var atis = [];
    var places = airports.concat(prefixes);
    for (var j = 0; j < feed.atis.length; j++) {
      var a = feed.atis[j];
      if (!a || typeof a !== "object") { continue; }
      var station = plain(a.callsign).toUpperCase();
      if (!station || !isOurs(station, places)) { continue; }
      var lines = [];
      if (Array.isArray(a.text_atis)) {
        for (var l = 0; l < a.text_atis.length && l < 40; l++) {
          var line = plain(a.text_atis[l]);
          if (line) { lines.push(line); }
        }
      }
      atis.push({ callsign: station, letter: plain(a.atis_code).slice(0, 2) || "–", lines: lines });
    }
    atis.sort(function (x, y) { return x.callsign < y.callsign ? -1 : x.callsign > y.callsign ? 1 : 0; });
    var flights = [];
    if (airports.length) {
      for (var p = 0; p < feed.pilots.length; p++) {
        var pilot = feed.pilots[p];
        var plan = pilot && typeof pilot === "object" ? pilot.flight_plan : null;
        if (!plan || typeof plan !== "object") { continue; }
        var from = code(plan.departure);
        var to = code(plan.arrival);
        if (airports.indexOf(from) < 0 && airports.indexOf(to) < 0) { continue; }
        flights.push({
          callsign: plain(pilot.callsign).toUpperCase(),
          aircraft: plain(plan.aircraft_short) || plain(plan.aircraft).split("/")[0],
          from: from,
          to: to
        });
      }
      flights.sort(function (x, y) { return x.callsign < y.callsign ? -1 : x.callsign > y.callsign ? 1 : 0; });
    }
    return { updated: updated, controllers: controllers, atis: atis, flights: flights };
  }

  function element(name, value, className) {
    var node = document.createElement(name);
    if (value !== undefined && value !== null) { node.textContent = value; }
    if (className) { node.className = className; }
    return node;
  }

  // A name from outside: isolated, so that right-to-left text cannot turn what is around it.
  function isolated(value) { return element("bdi", value); }

  // A cell of a stacked table, labelled with its column's heading.
  function cell(row, table, index) {
    var td = element("td");
    var head = table && table.tHead && table.tHead.rows[0] && table.tHead.rows[0].cells[index];
    if (head) { td.setAttribute("data-label", head.textContent.trim()); }
    row.appendChild(td);
    return td;
  }

  function controllerParts(c, into) {
    into.appendChild(isolated(c.name));
    if (c.rating) { into.appendChild(document.createTextNode(" ")); into.appendChild(element("span", c.rating, "rating")); }
    if (c.visiting) { into.appendChild(document.createTextNode(" ")); into.appendChild(element("span", text.visiting, "badge badge-visiting")); }
  }

  function replaceRows(list, rows) {
    while (list.firstChild) { list.removeChild(list.firstChild); }
    for (var i = 0; i < rows.length; i++) { list.appendChild(rows[i]); }
  }

  // The first MOST_ROWS of `items` in the list `name`, and how many more there are. Where it is
  // empty, its sentence saying so shows, unless `said` (the summary says it already): then
  // its section goes, heading and all.
  function showList(root, name, items, make, said) {
    var list = root.querySelector('[data-live-list="' + name + '"]');
    var empty = root.querySelector('[data-live-empty="' + name + '"]');
    var more = root.querySelector('[data-live-more="' + name + '"]');
    var section = root.querySelector('[data-live-section="' + name + '"]');
    if (section) { section.hidden = !items.length && !!said; }
    if (!list) { return; }
    var table = list.closest ? list.closest("table") : null;
    var rows = [];
    var most = parseInt(root.getAttribute("data-live-rows") || "", 10);
    var shown = Math.min(items.length, most > 0 ? most : MOST_ROWS);
    for (var i = 0; i < shown; i++) { rows.push(make(items[i], list.tagName === "TBODY", table)); }
    replaceRows(list, rows);
    if (more) {
      more.textContent = items.length > shown ? counted("not_listed", items.length - shown) : "";
      more.hidden = items.length <= shown;
    }
    var frame = table && table.parentNode && table.parentNode.classList && table.parentNode.classList.contains("table-wrap")
      ? table.parentNode : table || list;
    frame.hidden = items.length === 0;
    if (empty) { empty.hidden = items.length !== 0 || !!said; }
  }

  function controllerRow(c, tabular, table) {
    if (!tabular) {
      var li = element("li");
      li.appendChild(element("strong", c.callsign, "callsign"));
      if (c.frequency) { li.appendChild(document.createTextNode(" " + c.frequency)); }
      li.appendChild(document.createTextNode(" · "));
      controllerParts(c, li);
      return li;
    }
    var tr = element("tr");
    cell(tr, table, 0).appendChild(element("strong", c.callsign, "callsign"));
    cell(tr, table, 1).textContent = c.frequency;
    controllerParts(c, cell(tr, table, 2));
    cell(tr, table, 3).textContent = c.online;
    return tr;
  }

  function atisRow(a, tabular, table) {
    if (!tabular) {
      var li = element("li", null, "chip");
      li.appendChild(element("strong", a.callsign));
      li.appendChild(document.createTextNode(" " + a.letter));
      return li;
    }
    var tr = element("tr");
    cell(tr, table, 0).appendChild(element("strong", a.callsign, "callsign"));
    cell(tr, table, 1).appendChild(element("span", a.letter, "atis-letter"));
    var td = cell(tr, table, 2);
    if (a.lines.length) {
      var details = element("details");
      details.appendChild(element("summary", fill(text.atis_text, { callsign: a.callsign })));
      var body = element("p", null, "atis-text");
      body.appendChild(isolated(a.lines.join("\n")));
      details.appendChild(body);
      td.appendChild(details);
    }
    return tr;
  }

  function flightRow(f, tabular, table) {
    var tr = element("tr");
    cell(tr, table, 0).appendChild(element("strong", f.callsign, "callsign"));
    cell(tr, table, 1).textContent = f.aircraft;
    cell(tr, table, 2).textContent = f.from;
    cell(tr, table, 3).textContent = f.to;
    return tr;
  }

  // Announced (aria-live=polite) only when what it says changes.
  function say(root, words) {
    var status = root.querySelector("[data-live-status]");
    if (status && status.textContent !== words) { status.textContent = words; }
  }

  function setWhen(root, words) {
    var when = root.querySelector("[data-live-when]");
    if (when) { when.textContent = words; when.hidden = !words; }
  }

  // `template` into `node`, its {name} an isolated name.
  function sayWithName(node, template, name) {
    var parts = String(template || "").split("{name}");
    while (node.firstChild) { node.removeChild(node.firstChild); }
    node.appendChild(document.createTextNode(parts[0]));
    if (parts.length > 1) {
      node.appendChild(isolated(name));
      node.appendChild(document.createTextNode(parts.slice(1).join("{name}")));
    }
  }

  // `online`: who is on each of our callsigns, by callsign; null when the feed is not read.
  function markBookings(online, now) {
    var rows = document.querySelectorAll("[data-booking]");
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      // A member's page keeps its bookings as the build wrote them: its own line says whether
      // the member is on, and a badge put into a narrow column moved the page.
      if (row.closest && row.closest("[data-bookings-as-built]")) { continue; }
      var callsign = (row.getAttribute("data-booking") || "").toUpperCase();
      var cid = row.getAttribute("data-cid") || "";
      var start = Date.parse(row.getAttribute("data-start") || "");
      var end = Date.parse(row.getAttribute("data-end") || "");
      // Online now: the controller who booked it is on its callsign, and it is going on (or
      // about to start). Someone else on that callsign holds the position: said so, with
      // their name where the roster has it. A booking with no CID is neither.
      var cid = row.getAttribute("data-cid") || "";
      var holder = online && Object.prototype.hasOwnProperty.call(online, callsign) &&
        start - EARLY <= now && now < end ? online[callsign] : null;
      var badge = row.querySelector("[data-online-now]");
      if (badge) { badge.hidden = !(holder && cid && holder.cid === cid); }
      var held = row.querySelector("[data-held-by]");
      if (held) {
        var other = holder && cid && holder.cid !== cid;
        held.hidden = !other;
        held.textContent = !other ? "" : holder.rostered
          ? fill(text.held_by, { name: holder.name }) : text.held_by_another;
      }
      // Over by the feed's time: the build listed it, the feed says it has ended.
      if (online && !isNaN(end) && end <= now) { row.hidden = true; }
    }
    hideEmptyGroups();
  }

  // A member's page: whether its member (data-live-member, a CID) is on one of our positions,
  // by CID alone; `controllers` null (the feed not read) says nothing, rather than "not on".
  function markMember(controllers) {
    var lines = document.querySelectorAll("[data-live-member]");
    for (var i = 0; i < lines.length; i++) {
      var line = lines[i];
      var cid = line.getAttribute("data-live-member") || "";
      var on = null;
      for (var c = 0; controllers && c < controllers.length && !on; c++) {
        if (cid && controllers[c].cid === cid) { on = controllers[c]; }
      }
      var words = "";
      if (on) {
        words = fill(line.getAttribute(on.since ? "data-live-member-online" : "data-live-member-on"),
          { callsign: on.callsign, time: on.since });
      } else if (controllers) {
        words = line.getAttribute("data-live-member-offline") || "";
      }
      line.removeAttribute("data-checking");
      if (line.textContent !== words) { line.textContent = words; }
      if (on) { line.setAttribute("data-online", ""); } else { line.removeAttribute("data-online"); }
    }
  }

  // A day (or the next 24 hours) whose bookings are all over goes with them, the count says
  // how many are left, and where none is, the sentence saying so shows instead of the table
  // and what is said about it (data-bookings-some).
  function hideEmptyGroups() {
    var empties = document.querySelectorAll("[data-bookings-empty]");
    for (var e = 0; e < empties.length; e++) {
      var holder = empties[e].parentNode;
      var groups = holder.querySelectorAll("[data-booking-group]");
      for (var g = 0; g < groups.length; g++) {
        groups[g].hidden = !groups[g].querySelector("[data-booking]:not([hidden])");
      }
      var left = holder.querySelectorAll("[data-booking]:not([hidden])").length;
      empties[e].hidden = left > 0;
      var some = holder.querySelectorAll("[data-bookings-some]");
      for (var s = 0; s < some.length; s++) { some[s].hidden = left === 0; }
      var count = holder.querySelector("[data-bookings-count]");
      if (count) { count.textContent = String(left); }
    }
  }

  function show(state) {
    var online = {};
    for (var i = 0; i < state.controllers.length; i++) { online[state.controllers[i].callsign] = state.controllers[i]; }
    var asOf = fill(text.as_of, { time: clock(state.updated) });
    // The summary counts what there is, never "0": with nothing to count, it says no one is
    // on, and the controllers' list does not say it again.
    var counts = [];
    if (state.controllers.length) { counts.push(counted("controllers", state.controllers.length)); }
    if (airports.length && state.flights.length) { counts.push(counted("flights", state.flights.length)); }
    var nobody = !counts.length;
    var summary = nobody ? text.no_controllers : counts.join(" · ");
    for (var r = 0; r < roots.length; r++) {
      var root = roots[r];
      root.setAttribute("data-live-state", "live");
      showList(root, "controllers", state.controllers, controllerRow, nobody);
      showList(root, "atis", state.atis, atisRow);
      showList(root, "traffic", state.flights, flightRow);
      var lists = root.querySelectorAll("[data-live-lists]");
      for (var l = 0; l < lists.length; l++) { lists[l].hidden = false; }
      setWhen(root, asOf);
      say(root, summary);
    }
    markBookings(online, state.updated);
    markMember(state.controllers);
  }

  function unavailable() {
    for (var r = 0; r < roots.length; r++) {
      var root = roots[r];
      root.setAttribute("data-live-state", "unavailable");
      var lists = root.querySelectorAll("[data-live-lists]");
      for (var l = 0; l < lists.length; l++) { lists[l].hidden = true; }
      // Nothing older is kept to be shown again as if it were live.
      var filled = root.querySelectorAll("[data-live-list]");
      for (var f = 0; f < filled.length; f++) { replaceRows(filled[f], []); }
      var mores = root.querySelectorAll("[data-live-more]");
      for (var m = 0; m < mores.length; m++) { mores[m].hidden = true; }
      setWhen(root, "");
      say(root, text.unavailable);
    }
    markBookings(null, 0);
    markMember(null);
  }

  // Whether the feed's time `updated` is now, by the visitor's clock: not more than 15
  // minutes old, and not ahead of it by more than clocks differ.
  function current(updated, now) {
    return updated >= now - TOO_OLD && updated <= now + SKEW;
  }

  function schedule(delay) {
    if (timer) { clearTimeout(timer); timer = null; }
    if (document.visibilityState === "hidden") { return; }
    timer = setTimeout(ask, Math.max(delay, 0));
  }

  // The next reading: after a failure, later each time; else the refresh, if the page has one.
  function next() {
    if (!lastAsked) { ask(); return; }
    var wait = failures ? Math.min((refresh || RETRY) * Math.pow(2, failures), MAX_BACKOFF) : refresh;
    if (wait) { schedule(lastAsked + wait - Date.now()); }
  }

  // The site's data/roster.json (docs/data.md), read once: its controllers and visitors by
  // CID. A roster that cannot be read leaves the feed's names, and no one marked visiting.
  function readRoster() {
    if (!rosterAddress) { return Promise.resolve(); }
    if (!rosterAsked) {
      rosterAsked = fetch(rosterAddress, { credentials: "same-origin" }).then(function (response) {
        return response.ok ? response.json() : null;
      }).then(function (data) {
        if (!data || typeof data !== "object") { return; }
        var people = {};
        var lists = [data.controllers, data.visitors];
        for (var l = 0; l < lists.length; l++) {
          if (!Array.isArray(lists[l])) { continue; }
          for (var i = 0; i < lists[l].length; i++) {
            var member = lists[l][i];
            if (member && (typeof member.cid === "number" || typeof member.cid === "string")) {
              people[String(member.cid)] = [member.name, member.rating];
            }
          }
        }
        roster = people;
      }).catch(function () { return undefined; });
    }
    return rosterAsked;
  }

  function ask() {
    timer = null;
    if (inFlight || document.visibilityState === "hidden") { return; }
    var since = Date.now() - lastAsked;
    if (lastAsked && since < MIN_GAP) { schedule(MIN_GAP - since); return; }
    inFlight = true;
    lastAsked = Date.now();
    var controller = typeof AbortController === "function" ? new AbortController() : null;
    var stop = controller ? setTimeout(function () { controller.abort(); }, TIMEOUT) : null;
    var done = function (state) {
      if (stop) { clearTimeout(stop); }
      inFlight = false;
      if (state) { failures = 0; show(state); } else { failures += 1; unavailable(); }
      next();
    };
    var request;
    try {
      request = fetch(config.feed, {
        cache: "no-store",
        credentials: "omit",
        referrerPolicy: "no-referrer",
        signal: controller ? controller.signal : undefined
      });
    } catch (e) {
      done(null);
      return;
    }
    Promise.all([request, readRoster()]).then(function (both) {
      var response = both[0];
      if (!response.ok) { return null; }
      return response.json();
    }).then(function (feed) {
      var state = feed ? read(feed) : null;
      if (state && !config.sample && !current(state.updated, Date.now())) { state = null; }
      done(state);
    }).catch(function () { done(null); });
  }

  for (var s = 0; s < roots.length; s++) {
    roots[s].setAttribute("data-live-state", "loading");
    setWhen(roots[s], text.loading || "");
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      if (timer) { clearTimeout(timer); timer = null; }
    } else if (!timer && !inFlight) {
      next();
    }
  });
  // The feed is large: it is asked for once the page has been painted, so that reading it
  // never holds back what the page shows first. Opened in a background tab, the first look
  // waits until it is seen.
  requestAnimationFrame(function () {
    setTimeout(function () {
      if (!lastAsked && document.visibilityState !== "hidden") { ask(); }
    }, 0);
  });
})();

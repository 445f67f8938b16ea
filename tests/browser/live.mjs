#!/usr/bin/env node
// live.mjs VATCAR_SITE TOOLS CHROMIUM REPO
//
// The live page and the home page's live block in a browser (issue 39): headless Chromium
// (playwright-core and axe-core from the TOOLS folder, the system's CHROMIUM, never a
// downloaded one) against a site built by VATCAR_SITE from the demo's data (REPO/demo), whose
// [live] feed is a mock of VATSIM's data feed on 127.0.0.1, written from its published shape
// and sent with the real feed's CORS header. Checked:
//
// - ours are shown (controllers on our callsigns, named from the roster, visitors marked;
//   the ATIS of our airports, its text on demand; the traffic in and out of them, counted on
//   the home page), and no observer and no other facility's controller;
// - bookings going on with the controller who booked them on their callsign are marked
//   "online now", and one whose position another holds says who (issue 48); one the feed's time
//   says is over is hidden, at 390 and at 1280 px, and with every one over, the days and the
//   table go, the count is 0 and a sentence says none is booked;
// - hostile names (markup, a right-to-left override, 10,000 characters) are shown as text;
// - a feed that cannot be read (5xx, bad JSON, an unknown shape, a refused connection, data an
//   hour old) shows the calm line, no list and no page error;
// - no request goes to any host but the site's and the feed's;
// - the refresh rule: once on load; on the live page again after about a minute while
//   visible, never while hidden, never twice within 30 s, later after a failure; the home
//   block once; the status is announced (aria-live) only when it changes;
// - without JavaScript the bookings and the sentence saying what the list would show;
// - axe-core finds nothing serious or critical; the words are the site's language;
// - issue 45: the pages' Content-Security-Policy blocks a script, an event handler, a <base>
//   and a plugin put into the page, while the page's own scripts run and break none of its
//   rules; a feed of 5,000 controllers and 100,000 flights of ours is counted, and 200 rows
//   of each list drawn, saying how many more there are; a feed stamped in 2099 (or 10
//   minutes ahead of the visitor's clock) is not live and hides no booking, while one 2
//   minutes ahead is; a logon time before VATSIM, in the future or a week back shows no
//   duration.
// - issue 49: a member's page says whether the member is on one of our positions now, by CID
//   alone (not as an observer, not elsewhere, not someone of the same name), with the
//   callsign and since when (without the time where the logon time is out of range); says
//   nothing when the feed cannot be read and without JavaScript; keeps its room at 320, 390,
//   768 and 1280 px in English and Dutch (no layout shift).
//
// Prints "live: ok" and exits 0, or says what failed and exits 1. Run by tests/it/live.rs.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, resolve } from 'node:path';
import { demoSnapshot } from './lib/demo-snapshot.mjs';

const [given, tools, chromiumPath, repo] = process.argv.slice(2);
if (!given || !tools || !chromiumPath || !repo) {
  console.error('usage: live.mjs VATCAR_SITE TOOLS CHROMIUM REPO');
  process.exit(2);
}
const binary = resolve(given);
const toolsRequire = createRequire(join(tools, 'package.json'));
const { chromium } = toolsRequire('playwright-core');
// Evaluated in the page (as the other browser checks do), not added as a script: the pages'
// policy runs no inline script.
const axeSource = readFileSync(toolsRequire.resolve('axe-core/axe.min.js'), 'utf8');

const fail = (message) => {
  throw new Error(message);
};
const check = (ok, message) => ok || fail(message);

// ---- The mock data feed, from the published shape (data.vatsim.net/v3/vatsim-data.json) ----

const iso = (ms) => new Date(ms).toISOString().replace('Z', '0000Z');
const controller = (cid, name, callsign, frequency, facility, logon) => ({
  cid, name, callsign, frequency, facility, rating: 5, server: 'USA-EAST', visual_range: 150,
  text_atis: ['Online until 2300z'], last_updated: iso(NOW), logon_time: iso(logon),
});
const atis = (callsign, code, lines) => ({
  cid: 1400000, name: 'ATIS Operator', callsign, frequency: '127.650', facility: 4, rating: 3,
  server: 'USA-EAST', visual_range: 0, atis_code: code, text_atis: lines,
  last_updated: iso(NOW), logon_time: iso(NOW - 3600e3),
});
const pilot = (cid, callsign, aircraft, departure, arrival) => ({
  cid, name: 'A Pilot', callsign, server: 'USA-EAST', pilot_rating: 0, military_rating: 0,
  latitude: 18.43, longitude: -66.0, altitude: 3500, groundspeed: 180, transponder: '2200',
  heading: 80, qnh_i_hg: 29.92, qnh_mb: 1013,
  flight_plan: departure === null ? null : {
    flight_rules: 'I', aircraft: `${aircraft}/M-SDE3FGHIRWY/LB1`, aircraft_faa: `H/${aircraft}/L`,
    aircraft_short: aircraft, departure, arrival, alternate: '', cruise_tas: '450',
    altitude: '35000', deptime: '1200', enroute_time: '0330', fuel_time: '0500', remarks: '/V/',
    route: 'DCT', revision_id: 1, assigned_transponder: '4521',
  },
  logon_time: iso(NOW - 3600e3), last_updated: iso(NOW),
});
const feed = (updated, controllers, stations, pilots) => ({
  general: {
    version: 3, reload: 1, update: '20261120120000', update_timestamp: iso(updated),
    connected_clients: 9, unique_users: 9,
  },
  pilots, controllers, atis: stations, servers: [], prefiles: [],
  facilities: ['OBS', 'FSS', 'DEL', 'GND', 'TWR', 'APP', 'CTR'].map((short, id) => ({ id, short, long_name: short })),
  ratings: [{ id: 5, short_name: 'C1', long_name: 'Enroute Controller' }],
  pilot_ratings: [], military_ratings: [],
});

const NOW = Date.now();
const UNAVAILABLE = 'Live data is unavailable right now. This page will try again in a few minutes.';
const MEMBER = 1590318; // Tyrone Gumbs, S2, on the demo's roster.
const ours = () => feed(NOW, [
  controller(MEMBER, 'Tyrone Gumbs', 'TJSJ_APP', '119.400', 5, NOW - 75 * 60e3),
  controller(1487720, 'Visiting Controller', 'TJZS_CTR', '134.050', 6, NOW - 20 * 60e3),
  controller(1684319, 'Jada Hughes', 'TJSJ_OBS', '199.998', 0, NOW),
  controller(1612745, 'Valentina Ortiz', 'TJSJ_TWR', '199.998', 0, NOW),
  controller(1234567, 'Elsewhere Controller', 'TNCM_TWR', '118.700', 4, NOW),
  controller(1234568, 'Lookalike Controller', 'TJSJX_TWR', '118.300', 4, NOW),
], [
  atis('TJSJ_ATIS', 'B', ['LUIS MUNOZ MARIN INFORMATION BRAVO', '08012KT 10SM FEW025 28/22 A3001']),
  atis('TNCM_ATIS', 'K', ['PRINCESS JULIANA INFORMATION KILO']),
], [
  pilot(1700101, 'AAL1234', 'B738', 'KJFK', 'TJSJ'),
  pilot(1700102, 'JBU789', 'A320', 'TJSJ', 'KMCO'),
  pilot(1700103, 'N172SP', 'C172', 'TJIG', 'TJBQ'),
  pilot(1700104, 'UAL2', 'B77W', 'KJFK', 'KLAX'),
  pilot(1700105, 'CXP44', 'B738', null, null),
]);
const HOSTILE_LONG = 'W'.repeat(10000);
const hostile = () => feed(NOW, [
  controller(1000001, '<img src=x onerror="window.hacked=1">Mallory', 'TJSJ_APP', '119.400', 5, NOW),
  controller(1000002, 'Eve \u202Eesrever\u202C Smith', 'TJSJ_TWR', '118.300', 4, NOW),
  controller(1000003, HOSTILE_LONG, 'TJSJ_GND', '121.700', 3, NOW),
], [atis('TJSJ_ATIS', '<b>C</b>', ['<script>window.hacked=2</script>', 'RWY 8'])], []);

let reply = { status: 200, body: JSON.stringify(ours()) };
const feedLog = [];
const feedServer = createServer((request, response) => {
  feedLog.push({ url: request.url, at: Date.now() });
  if (reply.drop) {
    request.socket.destroy();
    return;
  }
  const answer = reply;
  setTimeout(() => {
    response.writeHead(answer.status, {
    'Content-Type': 'application/json',
    'Access-Control-Allow-Origin': '*',
      'Cache-Control': 'no-store',
    });
    response.end(answer.body);
  }, answer.delay ?? 0);
});
await new Promise((done) => feedServer.listen(0, '127.0.0.1', done));
const feedOrigin = `http://127.0.0.1:${feedServer.address().port}`;

// ---- The site: the demo's data, bookings around now, [live] on the mock feed ----

const { work, snapshot } = demoSnapshot(repo, 'vatcar-live-');
const stamp = (ms) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const hour = 3600e3;
writeFileSync(join(snapshot, 'bookings.json'), JSON.stringify([
  { id: 1, cid: MEMBER, type: 'booking', callsign: 'TJSJ_APP', start: stamp(NOW - hour), end: stamp(NOW + hour), division: 'CAR', subdivision: null },
  { id: 2, cid: 1382214, type: 'event', callsign: 'TJZS_CTR', start: stamp(NOW + 5 * hour), end: stamp(NOW + 7 * hour), division: 'CAR', subdivision: null },
  { id: 3, cid: 1234567, type: 'booking', callsign: 'TNCM_TWR', start: stamp(NOW - hour), end: stamp(NOW + hour), division: 'CAR', subdivision: null },
]));

function build(name, language, data = snapshot, ...settings) {
  const folder = join(work, name);
  mkdirSync(folder);
  // The demo's logo, which the site names.
  cpSync(join(repo, 'demo', 'site', 'static'), join(folder, 'static'), { recursive: true });
  writeFileSync(join(folder, 'vatcar-site.toml'), [
    `language = "${language}"`,
    ...settings,
    '[live]',
    'callsigns = ["TJSJ", "TJZS"]',
    'airports = ["TJSJ", "TJBQ"]',
    `feed = "${feedOrigin}/v3/vatsim-data.json"`,
    '',
  ].join('\n'));
  const out = join(folder, 'public');
  const ran = spawnSync(binary, ['build', '-q', '--snapshot', data, '--config',
    join(folder, 'vatcar-site.toml'), '--output', out], { encoding: 'utf8' });
  check(ran.status === 0, `the build failed: ${ran.stderr}`);
  return out;
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml', '.ics': 'text/calendar' };
// What `?inject` puts into a page, as a flaw that let markup in would: an inline script, an
// event handler, a script from elsewhere, a <base> to elsewhere and a plugin. The policy
// must stop each: none runs, and nothing is asked of evil.example.
const INJECTED = '<base href="https://evil.example/"><script>window.injected = "inline"</script>' +
  '<img src="missing.png" alt="" onerror="window.injected = \'handler\'">' +
  '<script src="https://evil.example/x.js"></script><object data="https://evil.example/x.swf"></object>';
function serve(root) {
  const server = createServer((request, response) => {
    const asked = new URL(request.url, 'http://x');
    let path = decodeURIComponent(asked.pathname);
    if (path.endsWith('/')) path += 'index.html';
    const file = resolve(root, '.' + path);
    if (!file.startsWith(root) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      response.writeHead(404);
      response.end();
      return;
    }
    response.writeHead(200, { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream' });
    let body = readFileSync(file);
    if (asked.searchParams.has('inject') && file.endsWith('.html')) {
      body = body.toString('utf8').replace('<main id="main" class="wrap">', `$&${INJECTED}`);
    }
    response.end(body);
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done({
    server, origin: `http://127.0.0.1:${server.address().port}`,
  })));
}

const english = await serve(build('en', 'en', snapshot, 'logo = "logo.svg"'));
// A Spanish site in Santo Domingo, as the webmaster of issue 48 had: its times in that zone too.
const spanish = await serve(build('es', 'es', snapshot, 'display_zone = "America/Santo_Domingo"'));
// Issue 48: positions booked by one controller and held by another. Ana Sofía (on the roster)
// booked TJSJ_APP, where Tyrone Gumbs (on the roster) is on, and TJZS_CTR, where a visitor
// is on; Tyrone booked TJSJ_APP too; a booking that names no CID is neither.
const held = demoSnapshot(repo, 'vatcar-held-');
writeFileSync(join(held.snapshot, 'bookings.json'), JSON.stringify([
  { id: 11, cid: 1617058, type: 'booking', callsign: 'TJSJ_APP', start: stamp(NOW - hour), end: stamp(NOW + hour), division: 'CAR', subdivision: null },
  { id: 12, cid: 1617058, type: 'booking', callsign: 'TJZS_CTR', start: stamp(NOW - hour), end: stamp(NOW + hour), division: 'CAR', subdivision: null },
  { id: 13, cid: MEMBER, type: 'booking', callsign: 'TJSJ_APP', start: stamp(NOW - hour), end: stamp(NOW + hour), division: 'CAR', subdivision: null },
  { id: 14, cid: null, type: 'booking', callsign: 'TJSJ_APP', start: stamp(NOW - hour), end: stamp(NOW + hour), division: 'CAR', subdivision: null },
]));
const heldSite = await serve(build('held', 'en', held.snapshot));
// Issue 49: member pages (`[people]`), in English and Dutch (the longest words).
const people = await serve(build('people', 'en', snapshot, '[people]', 'enabled = true'));
const peopleNl = await serve(build('people-nl', 'nl', snapshot, '[people]', 'enabled = true'));

// ---- The browser ----

const browser = await chromium.launch({ executablePath: chromiumPath });
let status = 0;
// What a reader sees of each element: its rendered text (cells apart), white space folded.
const text = (page, css) => page.$$eval(css, (nodes) => nodes.map((n) => (n.innerText || n.textContent).replace(/\s+/g, ' ').trim()));
const visibleRows = (page, scope) => page.$$eval(`${scope} [data-live-list] > *`,
  (nodes) => nodes.filter((n) => n.offsetParent !== null).map((n) => n.innerText.replace(/\s+/g, ' ').trim()));

/// A page of the site, with every request outside the site and the feed recorded (and
/// stopped), every uncaught error, and every breach of its Content-Security-Policy
/// (`violations()`; a problem unless `options.breaches` says they are expected). At
/// `options.time`, the visitor's clock stands still at that time.
async function open(site, path, options = {}) {
  const context = await browser.newContext({
    javaScriptEnabled: options.javaScript !== false, viewport: options.viewport ?? null,
    timezoneId: options.timezone,
  });
  await context.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__violations.push(`${e.effectiveDirective} ${e.blockedURI}`));
    // The layout shifts as Lighthouse counts them: none a reader's input caused.
    window.__shifts = [];
    new PerformanceObserver((list) => {
      for (const shift of list.getEntries()) {
        if (!shift.hadRecentInput) window.__shifts.push(shift);
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await context.route('**/*', (route) => {
    const url = route.request().url();
    // A privacy extension or a firewall that stops the feed's request.
    if (options.blocked && url.startsWith(feedOrigin + '/')) return route.abort('blockedbyclient');
    if (url.startsWith(site.origin + '/') || url.startsWith(feedOrigin + '/')) return route.continue();
    problems.push(`a request to another host: ${url}`);
    return route.abort();
  });
  // Opened in a background tab: hidden until the test shows it.
  if (options.hidden) {
    await context.addInitScript(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    });
  }
  if (options.clock) await page.clock.install({ time: NOW });
  if (options.time !== undefined) await page.clock.setFixedTime(options.time);
  await page.goto(site.origin + path);
  const violations = () => (options.javaScript === false ? [] : page.evaluate(() => window.__violations));
  return { page, context, problems, violations, breaches: options.breaches };
}

// A member's page's line has read the feed: it no longer says it is checking (data-checking).
async function memberRead(page) {
  await page.waitForFunction(() => !document.querySelector('[data-live-member]').hasAttribute('data-checking'),
    null, { timeout: 15_000 });
}

async function settled(page, css = '[data-live-status]') {
  await page.waitForFunction((selector) => {
    const node = document.querySelector(selector);
    return node && node.textContent.trim() !== '';
  }, css, { timeout: 15_000 });
}

const done = async ({ context, problems, violations, breaches }, what) => {
  if (!breaches) {
    const broken = await violations();
    check(broken.length === 0, `${what}: the page breaks its Content-Security-Policy: ${broken.join('; ')}`);
  }
  check(problems.length === 0, `${what}: ${problems.join('; ')}`);
  await context.close();
};

async function axe(page, what) {
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  check(found.length === 0, `${what}: axe: ${found.join('; ')}`);
}

try {
  // Ours, and only ours.
  reply = { status: 200, body: JSON.stringify(ours()) };
  let opened = await open(english, '/live/');
  let page = opened.page;
  await settled(page);
  const status = (await text(page, '[data-live-status]'))[0];
  check(status === '2 controllers online · 3 flights to or from our airports', `status: ${status}`);
  const asOf = (await text(page, '[data-live-when]'))[0];
  const at = new Date(NOW);
  const hhmm = `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}Z`;
  check(asOf === `As of ${hhmm}`, `as of: ${asOf}`);
  const controllers = await text(page, '[data-live-list="controllers"] tr');
  check(controllers.length === 2, `controllers: ${controllers.join(' | ')}`);
  check(/^TJSJ_APP 119\.400 Tyrone Gumbs S2 1 h 15 min$/.test(controllers[0]), `the member: ${controllers[0]}`);
  check(/^TJZS_CTR 134\.050 Visiting Controller C1 visiting 20 min$/.test(controllers[1]), `the visitor: ${controllers[1]}`);
  const main = await page.innerText('main');
  for (const gone of ['TNCM_TWR', 'TJSJX_TWR', 'TJSJ_OBS', 'Jada Hughes', 'Valentina Ortiz', 'TNCM_ATIS', 'UAL2', 'CXP44', 'KLAX']) {
    check(!main.includes(gone), `${gone} is shown`);
  }
  const stations = await text(page, '[data-live-list="atis"] tr');
  check(stations.length === 1 && stations[0].startsWith('TJSJ_ATIS B Text of TJSJ_ATIS'), `ATIS: ${stations}`);
  check(!(await page.isVisible('.atis-text')), 'the ATIS text is shown before it is asked for');
  await page.click('[data-live-list="atis"] summary');
  check((await page.textContent('.atis-text')).includes('LUIS MUNOZ MARIN INFORMATION BRAVO'), 'no ATIS text');
  const traffic = await text(page, '[data-live-list="traffic"] tr');
  check(traffic.join(' | ') === 'AAL1234 B738 KJFK TJSJ | JBU789 A320 TJSJ KMCO | N172SP C172 TJIG TJBQ', `traffic: ${traffic.join(' | ')}`);
  // The booking going on with its callsign online; not the one tonight, nor another's.
  const marked = await page.$$eval('[data-booking]', (rows) => rows.map((row) =>
    `${row.getAttribute('data-booking')}:${!row.querySelector('[data-online-now]').hidden}`));
  check(marked.join(' ') === 'TJSJ_APP:true TJZS_CTR:false', `online now: ${marked.join(' ')}`);
  check((await text(page, '[data-held-by]:not([hidden])')).length === 0, 'a position said held by another');

  // Issue 48: "online now" is the controller who booked it on its callsign; another on it is
  // named where the roster has them, and said to be another controller where it does not.
  for (const path of ['/live/', '/']) {
    const heldPage = await open(heldSite, path);
    await settled(heldPage.page);
    const rows = await heldPage.page.$$eval('[data-booking]', (all) => all.map((row) => {
      const online = !row.querySelector('[data-online-now]').hidden;
      const heldBy = row.querySelector('[data-held-by]');
      return `${row.getAttribute('data-booking')}/${row.getAttribute('data-cid') || '-'}:` +
        `${online ? 'online' : ''}${heldBy.hidden ? '' : heldBy.textContent}`;
    }));
    const expected = [
      'TJSJ_APP/-:', 'TJSJ_APP/1590318:online', 'TJSJ_APP/1617058:Held by Tyrone Gumbs',
      'TJZS_CTR/1617058:Held by another controller',
    ];
    check(JSON.stringify(rows.sort()) === JSON.stringify(expected), `${path}, held positions: ${rows.sort().join(' | ')}`);
    await done(heldPage, `${path}, held positions`);
  }
  check((await page.getAttribute('[data-live-status]', 'aria-live')) === 'polite', 'not aria-live=polite');
  await axe(page, 'the live page');
  await done(opened, 'the live page');

  // A booking that the feed's time says is over is hidden: on a laptop, and on a phone, where
  // the bookings' table is stacked into blocks.
  reply = { status: 200, body: JSON.stringify(feed(NOW + 2 * hour, [], [], [])) };
  for (const width of [390, 1280]) {
    opened = await open(english, '/live/', { viewport: { width, height: 800 }, time: NOW + 2 * hour });
    await settled(opened.page);
    const shown = await opened.page.$$eval('[data-booking]', (rows) =>
      rows.filter((row) => row.getClientRects().length > 0).map((row) => row.getAttribute('data-booking')));
    check(shown.join(' ') === 'TJZS_CTR', `${width} px, a booking over by the feed's time: shown ${shown.join(' ')}`);
    await done(opened, `the live page at ${width} px, a booking over`);
  }
  // Every booking over: no day, no table, the count at 0 and the sentence saying none is
  // booked, on the live page and in the home block.
  reply = { status: 200, body: JSON.stringify(feed(NOW + 8 * hour, [], [], [])) };
  const nothingLeft = [['/live/', 'No positions are booked.'], ['/', 'No positions are booked in the next 24 hours.']];
  for (const [path, sentence] of nothingLeft) {
    opened = await open(english, path, { viewport: { width: 390, height: 800 }, time: NOW + 8 * hour });
    await settled(opened.page);
    const groups = await opened.page.$$eval('[data-booking-group]', (nodes) =>
      nodes.filter((node) => node.getClientRects().length > 0).length);
    check(groups === 0, `${path}, every booking over: ${groups} days or tables shown`);
    const empty = (await text(opened.page, '[data-bookings-empty]:not([hidden])')).join(' ');
    check(empty === sentence, `${path}, every booking over: "${empty}"`);
    if (path === '/live/') {
      const count = (await text(opened.page, '[data-bookings-count]')).join(' ');
      check(count === '0', `every booking over: counted ${count}`);
    }
    await done(opened, `${path}, every booking over`);
  }
  reply = { status: 200, body: JSON.stringify(ours()) };

  // The home block: once, with the count.
  opened = await open(english, '/');
  page = opened.page;
  await settled(page);
  check((await text(page, '.live-home [data-live-status]'))[0] === '2 controllers online · 3 flights to or from our airports', 'the home block');
  const homeRows = await visibleRows(page, '.live-home');
  check(homeRows.join(' | ') === 'TJSJ_APP 119.400 · Tyrone Gumbs S2 | TJZS_CTR 134.050 · Visiting Controller C1 visiting | TJSJ_ATIS B',
    `home rows: ${homeRows.join(' | ')}`);
  await axe(page, 'the home page');
  await done(opened, 'the home page');

  // Hostile names: text, never markup; isolated; cut short; the page no wider.
  reply = { status: 200, body: JSON.stringify(hostile()) };
  opened = await open(english, '/live/');
  page = opened.page;
  await settled(page);
  await page.click('[data-live-list="atis"] summary');
  check((await page.$$('.live-now img, .live-now script:not([id]):not([src]), .live-now b')).length === 0, 'feed markup became elements');
  check((await page.evaluate(() => window.hacked)) === undefined, 'a script from the feed ran');
  const names = await text(page, '[data-live-list="controllers"] bdi');
  check(names.some((n) => n.startsWith('<img src=x onerror="window.hacked=1">Mallory')), `markup not shown as text: ${names}`);
  check(names.every((n) => !/[\u202A-\u202E\u2066-\u2069]/.test(n)), 'a bidi control was kept');
  const long = names.find((n) => n.startsWith('WWW'));
  check(long && long.length <= 121 && long.endsWith('…'), `the long name: ${long && long.length}`);
  check((await page.textContent('.atis-text')).includes('<script>window.hacked=2</script>'), 'the ATIS text is not text');
  check(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the page got wider');
  await done(opened, 'hostile names');

  // Issue 45. What is put into the page is stopped by its policy; the page's own scripts
  // still run.
  reply = { status: 200, body: JSON.stringify(ours()) };
  for (const path of ['/live/?inject', '/?inject']) {
    opened = await open(english, path, { breaches: true });
    page = opened.page;
    await settled(page);
    const line = (await text(page, '[data-live-status]'))[0];
    check(line === '2 controllers online · 3 flights to or from our airports', `${path}: ${line}`);
    check((await page.$$('main object')).length === 1, `${path}: nothing was injected`);
    check((await page.evaluate(() => window.injected)) === undefined,
      `${path}: the injected ${await page.evaluate(() => window.injected)} script ran`);
    check((await page.evaluate(() => document.baseURI)).startsWith(english.origin), `${path}: the <base> was taken`);
    const breaches = (await opened.violations()).join(' | ');
    for (const directive of ['base-uri', 'script-src-elem inline', 'script-src-attr inline', 'script-src-elem https://evil.example/x.js', 'object-src https://evil.example']) {
      check(breaches.includes(directive), `${path}: not stopped by the policy: ${directive} (${breaches})`);
    }
    await done(opened, `${path}, injected`);
  }

  // Issue 45. A feed of absurd numbers of ours: counted, 200 rows of each list drawn, the
  // rest said in a line.
  const many = feed(NOW,
    Array.from({ length: 5000 }, (_, i) => ({
      cid: 1800000 + i, name: `Controller ${i}`, callsign: `TJSJ_${String(i).padStart(4, '0')}_CTR`,
      frequency: '134.050', facility: 6, rating: 5, logon_time: iso(NOW - 600e3),
    })),
    [atis('TJSJ_ATIS', 'B', ['RWY 8'])],
    Array.from({ length: 100000 }, (_, i) => ({
      callsign: `N${i}`, flight_plan: { departure: i % 2 ? 'KJFK' : 'TJSJ', arrival: i % 2 ? 'TJSJ' : 'KMIA', aircraft_short: 'B738' },
    })));
  reply = { status: 200, body: JSON.stringify(many) };
  for (const path of ['/live/', '/']) {
    opened = await open(english, path);
    page = opened.page;
    await settled(page);
    const line = (await text(page, '[data-live-status]'))[0];
    check(line === '5000 controllers online · 100000 flights to or from our airports', `${path}, a huge feed: ${line}`);
    // The home block draws what its room holds: three.
    const drawn = await page.$$eval('[data-live-list="controllers"] > *', (rows) => rows.length);
    check(drawn === (path === '/' ? 3 : 200), `${path}, a huge feed: ${drawn} controllers drawn`);
    const notListed = await text(page, '[data-live-more]:not([hidden])');
    const lists = path === '/' ? ['4997 more are not listed.'] : ['4800 more are not listed.', '99800 more are not listed.'];
    check(notListed.join(' | ') === lists.join(' | '), `${path}, a huge feed: ${notListed.join(' | ')}`);
    if (path === '/live/') {
      const flights = await page.$$eval('[data-live-list="traffic"] > tr', (rows) => rows.length);
      check(flights === 200, `a huge feed: ${flights} flights drawn`);
      // Still a page that answers: the ATIS's text opens.
      await page.click('[data-live-list="atis"] summary');
      check((await page.textContent('.atis-text')).includes('RWY 8'), 'a huge feed: the ATIS text');
    }
    await done(opened, `${path}, a huge feed`);
  }
  // With as many as are drawn, no line.
  reply = { status: 200, body: JSON.stringify(ours()) };
  opened = await open(english, '/live/');
  await settled(opened.page);
  check((await text(opened.page, '[data-live-more]:not([hidden])')).length === 0, 'a line of none more');
  await done(opened, 'none more');

  // Issue 45. The feed's time ahead of the visitor's clock: 2 minutes is clocks differing;
  // 10 minutes, or 2099, is not now, and hides no booking.
  const ahead = [
    ['2 minutes ahead', NOW + 2 * 60e3, true],
    ['10 minutes ahead', NOW + 10 * 60e3, false],
    ['2099', Date.UTC(2099, 0, 1), false],
  ];
  for (const [what, updated, live] of ahead) {
    const later = ours();
    later.general.update_timestamp = iso(updated);
    reply = { status: 200, body: JSON.stringify(later) };
    for (const path of ['/live/', '/']) {
      opened = await open(english, path, { time: NOW });
      page = opened.page;
      await settled(page);
      const line = (await text(page, '[data-live-status]'))[0];
      const expected = live ? '2 controllers online · 3 flights to or from our airports' : UNAVAILABLE;
      check(line === expected, `a feed ${what}, ${path}: ${line}`);
      const shown = await page.$$eval('[data-booking]', (rows) =>
        rows.filter((row) => row.getClientRects().length > 0).map((row) => row.getAttribute('data-booking')));
      check(shown.join(' ') === 'TJSJ_APP TJZS_CTR', `a feed ${what}, ${path}: bookings shown: ${shown.join(' ')}`);
      if (path === '/live/') {
        const count = (await text(page, '[data-bookings-count]')).join(' ');
        check(count === '2', `a feed ${what}: counted ${count}`);
      }
      await done(opened, `a feed ${what} on ${path}`);
    }
  }

  // Issue 45. A logon time out of range shows no duration.
  reply = { status: 200, body: JSON.stringify(feed(NOW, [
    controller(MEMBER, 'Tyrone Gumbs', 'TJSJ_APP', '119.400', 5, Date.parse('0001-01-01T00:00:00Z')),
    controller(1487720, 'Visiting Controller', 'TJZS_CTR', '134.050', 6, Date.UTC(2099, 0, 1)),
    controller(1000004, 'Long Session', 'TJSJ_CTR', '134.050', 6, NOW - 8 * 24 * hour),
    controller(1000005, 'Day Session', 'TJSJ_DEP', '119.400', 5, NOW - 30 * hour - 5 * 60e3),
    controller(1000006, 'Early Session', 'TJSJ_GND', '121.700', 3, NOW + 60e3),
  ], [], [])) };
  opened = await open(english, '/live/', { time: NOW });
  page = opened.page;
  await settled(page);
  const online = await page.$$eval('[data-live-list="controllers"] tr', (rows) =>
    rows.map((row) => `${row.cells[0].innerText.trim()}:${row.cells[3].innerText.trim()}`));
  check(online.join(' ') === 'TJSJ_APP: TJSJ_CTR: TJSJ_DEP:30 h 05 min TJSJ_GND:0 min TJZS_CTR:',
    `logon times out of range: ${online.join(' ')}`);
  await done(opened, 'logon times out of range');

  // A feed that cannot be read: the calm line, no list, no error.
  const broken = [
    ['503', { status: 503, body: 'Service Unavailable' }],
    ['bad JSON', { status: 200, body: '{"general": {' }],
    ['an unknown shape', { status: 200, body: JSON.stringify({ data: { pilots: [] } }) }],
    ['no arrays', { status: 200, body: JSON.stringify({ general: { update_timestamp: iso(NOW) }, controllers: 'none' }) }],
    ['a refused connection', { drop: true }],
    ['data an hour old', { status: 200, body: JSON.stringify(feed(NOW - hour, [controller(MEMBER, 'x', 'TJSJ_APP', '1', 5, NOW)], [], [])) }],
  ];
  for (const [what, broke] of broken) {
    reply = broke;
    for (const path of ['/live/', '/']) {
      opened = await open(english, path);
      page = opened.page;
      await settled(page);
      const line = (await text(page, '[data-live-status]'))[0];
      check(line === UNAVAILABLE, `${what} on ${path}: ${line}`);
      check((await visibleRows(page, 'main')).length === 0, `${what} on ${path}: a list is shown`);
      check(!(await page.isVisible('[data-live-when]')), `${what} on ${path}: a time is shown`);
      check((await page.$$('[data-online-now]:not([hidden])')).length === 0, `${what}: marked online`);
      await done(opened, `${what} on ${path}`);
    }
  }

  // The refresh rule, on a clock of the test's: the live page.
  reply = { status: 200, body: JSON.stringify(ours()) };
  const asked = () => feedLog.length;
  let before = asked();
  // Time jumps ahead by `ms`, firing what is due once (so a request's own time limit, 20 s
  // after it starts, is not reached by the jump that starts it); then the requests so far
  // must be `expected`. A request expected is waited for, answered and read.
  const tick = async (page, ms, expected, message) => {
    const answered = expected > asked() - before
      ? page.waitForResponse((r) => r.url().startsWith(feedOrigin), { timeout: 15_000 })
      : null;
    await page.clock.fastForward(ms);
    if (answered) await answered;
    await page.waitForTimeout(answered ? 300 : 500);
    check(asked() - before === expected, `${message}: asked ${asked() - before} times, not ${expected}`);
  };
  opened = await open(english, '/live/', { clock: true });
  page = opened.page;
  await settled(page);
  check(asked() - before === 1, 'not asked once on load');
  let changes = 0;
  await page.exposeFunction('statusChanged', () => { changes += 1; });
  await page.evaluate(() => new MutationObserver(() => window.statusChanged())
    .observe(document.querySelector('[data-live-status]'), { childList: true, characterData: true, subtree: true }));
  await tick(page, 50_000, 1, 'within a minute');
  await tick(page, 15_000, 2, 'after a minute');
  check(changes === 0, 'the same data was announced again');
  // Hidden: never asked.
  const visibility = (state) => page.evaluate((s) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => s === 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
  }, state);
  await visibility('hidden');
  for (let i = 0; i < 5; i++) await tick(page, 60_000, 2, 'while hidden');
  // Seen again: at once, more than a minute having passed; then never within 30 s, however
  // often it is hidden and seen.
  await visibility('visible');
  await tick(page, 100, 3, 'when seen again');
  for (let i = 0; i < 5; i++) {
    await visibility('hidden');
    await visibility('visible');
    await tick(page, 2_000, 3, 'within 30 s');
  }
  // Changed data is announced, once.
  const changed = ours();
  changed.controllers.splice(1, 1);
  reply = { status: 200, body: JSON.stringify(changed) };
  await tick(page, 60_000, 4, 'a minute later');
  check(changes === 1, `a change was announced ${changes} times`);
  check((await text(page, '[data-live-status]'))[0].startsWith('1 controller online'), 'the change is not shown');
  // A failure: later each time (two minutes, then four).
  reply = { status: 503, body: '' };
  await tick(page, 60_000, 5, 'a minute later');
  await tick(page, 90_000, 5, 'before backing off');
  await tick(page, 35_000, 6, 'two minutes after a failure');
  await tick(page, 200_000, 6, 'before four minutes');
  await tick(page, 45_000, 7, 'four minutes after a second failure');
  await done(opened, 'the refresh rule');

  // The home block loads once, however long it stays open.
  reply = { status: 200, body: JSON.stringify(ours()) };
  before = asked();
  opened = await open(english, '/', { clock: true });
  page = opened.page;
  await settled(page);
  check(asked() - before === 1, 'the home block did not ask once');
  for (let i = 0; i < 3; i++) await tick(page, 10 * 60_000, 1, 'the home block, later');
  await done(opened, 'the home block, once');

  // Issue 48: opened in a background tab, neither page asks until it is seen; then once.
  for (const path of ['/', '/live/']) {
    before = asked();
    opened = await open(english, path, { hidden: true });
    page = opened.page;
    await page.waitForTimeout(1500);
    check(asked() - before === 0, `${path}, opened hidden: asked ${asked() - before} times`);
    const seen = page.waitForResponse((r) => r.url().startsWith(feedOrigin), { timeout: 15_000 });
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await seen;
    await settled(page);
    check(asked() - before === 1, `${path}, seen: asked ${asked() - before} times, not once`);
    await done(opened, `${path}, opened hidden`);
  }

  // Without JavaScript: the bookings and one sentence.
  opened = await open(english, '/live/', { javaScript: false });
  page = opened.page;
  const noscript = await page.textContent('noscript');
  check(noscript.includes('With JavaScript on, this page also shows who is controlling our positions right now'), `noscript: ${noscript}`);
  check((await text(page, '.live-bookings [data-booking]')).length === 2, 'no bookings without JavaScript');
  await done(opened, 'without JavaScript');

  // In the site's language.
  opened = await open(spanish, '/live/');
  page = opened.page;
  await settled(page);
  const dicho = (await text(page, '[data-live-status]'))[0];
  check(dicho === '2 controladores conectados · 3 vuelos desde o hacia nuestros aeropuertos', `es: ${dicho}`);
  check((await text(page, '[data-live-when]'))[0].startsWith('Datos de las '), 'es: as of');
  check((await page.textContent('[data-live-list="controllers"]')).includes('visitante'), 'es: visiting');
  await done(opened, 'Spanish');

  // ---- Issue 48 ----

  // "Online now" is the controller who booked, on the position booked: another on it holds
  // it, named where the roster has them, and no one else is said to be on.
  const holders = [
    ['a controller of the roster', controller(1608894, 'Name In The Feed', 'TJSJ_APP', '119.400', 5, NOW - 600e3), 'Held by Emmanuel Joseph'],
    ['a visitor', controller(1487720, 'Visiting Controller', 'TJSJ_APP', '119.400', 5, NOW - 600e3), 'Held by another controller'],
  ];
  for (const [who, holder, says] of holders) {
    reply = { status: 200, body: JSON.stringify(feed(NOW, [holder], [], [])) };
    for (const path of ['/live/', '/']) {
      opened = await open(english, path);
      page = opened.page;
      await settled(page);
      const row = await page.$eval('[data-booking="TJSJ_APP"]', (node) => ({
        online: node.querySelector('[data-online-now]')?.getClientRects().length > 0,
        held: [...node.querySelectorAll('[data-held-by]')].filter((n) => n.getClientRects().length > 0)
          .map((n) => n.innerText.replace(/\s+/g, ' ').trim()).join(' | '),
        text: node.innerText,
      }));
      check(!row.online, `${path}, TJSJ_APP held by ${who}: marked online now`);
      check(row.held === says, `${path}, TJSJ_APP held by ${who}: "${row.held}", not "${says}"`);
      check(!/Name In The Feed|Visiting Controller/.test(row.text), `${path}, held by ${who}: the feed's name is shown in the booking`);
      await done(opened, `${path}, a booking held by ${who}`);
    }
  }
  // In the four languages (here the Spanish).
  reply = { status: 200, body: JSON.stringify(feed(NOW, [holders[1][1]], [], [])) };
  opened = await open(spanish, '/live/');
  await settled(opened.page);
  const ocupada = (await text(opened.page, '[data-booking="TJSJ_APP"] [data-held-by]:not([hidden])')).join(' | ');
  check(ocupada === 'Ocupada por otro controlador', `es, held by another: "${ocupada}"`);
  await done(opened, 'Spanish, held by another');

  // The board keeps its room whatever the feed does: nothing in sight moves, on a phone and a
  // laptop, on the live page and the home page.
  const shifted = async (page) => {
    await page.evaluate(() => new Promise((ready) => requestAnimationFrame(() => requestAnimationFrame(ready))));
    await page.waitForTimeout(200);
    return page.evaluate(() => window.__shifts.map((s) => ({
      value: s.value,
      moved: s.sources.map((x) => x.node?.nodeType === 1
        ? `${x.node.localName}${x.node.className ? '.' + String(x.node.className).replace(/ /g, '.') : ''}`
        : x.node?.nodeName).join(' '),
    })));
  };
  const empty = feed(NOW, [], [], []);
  const feeds = [
    ['unreachable', { drop: true }, {}],
    ['blocked', { status: 200, body: JSON.stringify(ours()) }, { blocked: true }],
    ['an error', { status: 503, body: '' }, {}],
    ['slow', { status: 200, body: JSON.stringify(ours()), delay: 1500 }, {}],
    ['empty', { status: 200, body: JSON.stringify(empty) }, {}],
    ['ours', { status: 200, body: JSON.stringify(ours()) }, {}],
    ['huge', { status: 200, body: JSON.stringify(many) }, {}],
  ];
  for (const [what, answer, how] of feeds) {
    reply = answer;
    for (const path of ['/live/', '/']) {
      for (const [width, height] of [[390, 844], [1280, 800]]) {
        opened = await open(english, path, { viewport: { width, height }, ...how });
        await settled(opened.page);
        const shifts = await shifted(opened.page);
        const total = shifts.reduce((sum, s) => sum + s.value, 0);
        check(total < 0.01, `a feed ${what}, ${path} at ${width} px: layout shift ${total.toFixed(3)} ` +
          `(${shifts.map((s) => `${s.value.toFixed(3)} ${s.moved}`).join('; ')})`);
        await done(opened, `a feed ${what}, ${path} at ${width} px`);
      }
    }
  }

  // The line saying the feed cannot be read says the page will try again, and sits evenly in
  // its box.
  reply = { drop: true };
  for (const path of ['/live/', '/']) {
    opened = await open(english, path, { viewport: { width: 390, height: 844 } });
    page = opened.page;
    await settled(page);
    const line = (await text(page, '[data-live-status]'))[0];
    check(/try again/.test(line), `${path}, unavailable: "${line}" does not say it will try again`);
    const gaps = await page.$eval('[data-live-status]', (status) => {
      const box = status.closest('.live-board').getBoundingClientRect();
      const range = document.createRange();
      range.selectNodeContents(status);
      const words = range.getBoundingClientRect();
      return { top: words.top - box.top, bottom: box.bottom - words.bottom, left: words.left - box.left, right: box.right - words.right };
    });
    check(Math.abs(gaps.top - gaps.bottom) <= 2 && Math.abs(gaps.left - gaps.right) <= 2,
      `${path}, unavailable: the line is not in the middle of its box (${Object.entries(gaps).map(([k, v]) => `${k} ${Math.round(v)}`).join(', ')} px)`);
    await done(opened, `${path}, unavailable`);
  }

  // Nothing of ours on: the count line does not say 0 above the sentences saying none.
  reply = { status: 200, body: JSON.stringify(empty) };
  for (const path of ['/live/', '/']) {
    opened = await open(english, path);
    page = opened.page;
    await settled(page);
    const line = (await text(page, '[data-live-status]'))[0];
    check(!/\b0\b/.test(line), `${path}, nothing on: the count line says "${line}"`);
    const board = await page.innerText('.live-board');
    for (const sentence of ['None of our positions is staffed right now.', 'No flights are planned to or from our airports right now.']) {
      check(board.split(sentence).length <= 2, `${path}, nothing on: "${sentence}" said twice`);
    }
    await done(opened, `${path}, nothing on`);
  }

  // Every booking over: no sentence about their times above "No positions are booked".
  reply = { status: 200, body: JSON.stringify(feed(NOW + 8 * hour, [], [], [])) };
  opened = await open(english, '/live/', { time: NOW + 8 * hour });
  await settled(opened.page);
  check(!(await opened.page.innerText('.live-bookings')).includes('All times are UTC'),
    'every booking over: the sentence about UTC is still shown');
  await done(opened, 'every booking over, the UTC sentence');

  // The logo has its width and height, in its own proportions: the header does not move as it
  // loads.
  opened = await open(english, '/');
  const logo = await opened.page.$eval('.brand-logo', (img) => ({
    width: Number(img.getAttribute('width')), height: Number(img.getAttribute('height')),
    drawn: img.getBoundingClientRect().width / img.getBoundingClientRect().height,
  }));
  // The demo's logo is square (viewBox="0 0 64 64").
  check(logo.width > 0 && logo.width === logo.height && Math.abs(logo.drawn - 1) < 0.02,
    `the logo's width and height: ${JSON.stringify(logo)}`);
  await done(opened, 'the logo');

  // A time is said once to each reader: Zulu; the display zone's time where the site has one;
  // the reader's own only where their offset differs from both at that instant, in one form.
  const forms = (page) => page.$$eval('.live-bookings [data-booking]', (rows) => rows.map((row) =>
    [...row.querySelectorAll('.when, .when-local, .reader-time')]
      .filter((n) => n.getClientRects().length > 0)
      .map((n) => n.innerText.replace(/\s+/g, ' ').trim()).filter(Boolean)));
  const readers = [
    // [site, the reader's zone, forms shown]
    [spanish, 'America/Santo_Domingo', 2],
    [spanish, 'America/Puerto_Rico', 2], // another name, the same offset
    [spanish, 'UTC', 2],
    [spanish, 'America/New_York', 3],
    [spanish, 'Europe/Amsterdam', 3],
    [english, 'America/New_York', 2], // no display zone: Zulu and the reader's
    [english, 'Etc/GMT', 1],
  ];
  reply = { status: 200, body: JSON.stringify(ours()) };
  for (const [site, zone, count] of readers) {
    opened = await open(site, '/live/', { timezone: zone });
    page = opened.page;
    await settled(page);
    const said = await forms(page);
    check(said.length > 0 && said.every((f) => f.length === count),
      `${site === spanish ? 'es' : 'en'}, a reader in ${zone}: ${said.map((f) => f.join(' / ')).join(' | ')} (not ${count} forms)`);
    for (const f of said) {
      const own = f[count - 1];
      if (count === 3 || (count === 2 && site === english)) {
        // One name for the zone: no "GMT-4" beside "hora estándar del Atlántico".
        check(!/GMT|UTC[+−-]/.test(own), `a reader in ${zone}: the zone named twice: "${own}"`);
      }
    }
    await done(opened, `a reader in ${zone}`);
  }

  // ---- Issue 49: a member's page says whether the member is controlling now ----
  const clockOf = (ms) => {
    const t = new Date(ms);
    return `${String(t.getUTCHours()).padStart(2, '0')}:${String(t.getUTCMinutes()).padStart(2, '0')}Z`;
  };
  const since = clockOf(NOW - 75 * 60e3);
  const memberPage = (cid) => `/roster/${cid}/`;
  // A slow feed, so that the page is drawn before the line is filled: what it fills must not
  // move anything.
  const slowly = (body) => ({ status: 200, body: JSON.stringify(body), delay: 600 });
  const totalShift = async (page) => (await shifted(page)).reduce((sum, s) => sum + s.value, 0);
  for (const [site, language, words] of [
    [people, 'en', `Controlling TJSJ_APP since ${since}`],
    [peopleNl, 'nl', `Verkeersleider op TJSJ_APP sinds ${since}`],
  ]) {
    reply = slowly(ours());
    for (const width of [320, 390, 768, 1280]) {
      for (const scheme of ['light', 'dark']) {
        opened = await open(site, memberPage(MEMBER), { viewport: { width, height: 800 } });
        page = opened.page;
        await page.emulateMedia({ colorScheme: scheme });
        await memberRead(page);
        const line = (await text(page, '[data-live-member]'))[0];
        check(line === words, `${language}, the member's page at ${width} px: "${line}"`);
        const shifts = await shifted(page);
        const shift = shifts.reduce((sum, s) => sum + s.value, 0);
        check(shift < 0.01, `${language}, the member's page at ${width} px, ${scheme}: layout shift ${shift.toFixed(3)} ` +
          `(${shifts.map((s) => `${s.value.toFixed(3)} ${s.moved}`).join('; ')})`);
        check(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
          `${language}, the member's page at ${width} px is wider than the window`);
        if (width === 320) await axe(page, `${language}, the member's page at 320 px, ${scheme}`);
        await done(opened, `${language}, the member's page at ${width} px, ${scheme}`);
      }
    }
  }
  // Not on: another member, one on as an observer (facility 0 on a TWR callsign, or _OBS),
  // the member on another facility's position, or someone else of the member's name.
  const notOn = 'Not controlling right now';
  const elsewhere = feed(NOW, [
    controller(MEMBER, 'Tyrone Gumbs', 'TNCM_TWR', '118.700', 4, NOW - 60e3),
    controller(1999999, 'Tyrone Gumbs', 'TJSJ_TWR', '118.300', 4, NOW - 60e3),
  ], [], []);
  const untimed = feed(NOW, [controller(MEMBER, 'Tyrone Gumbs', 'TJSJ_APP', '119.400', 5, NOW + 3 * hour)], [], []);
  for (const [what, body, cid, words] of [
    ['another member', ours(), 1617058, notOn],
    ['an observer on a TWR callsign', ours(), 1612745, notOn],
    ['an observer on _OBS', ours(), 1684319, notOn],
    ['the member elsewhere, a namesake here', elsewhere, MEMBER, notOn],
    ['a logon time ahead of the feed', untimed, MEMBER, 'Controlling TJSJ_APP now'],
  ]) {
    reply = { status: 200, body: JSON.stringify(body) };
    opened = await open(people, memberPage(cid));
    await memberRead(opened.page);
    const line = (await text(opened.page, '[data-live-member]'))[0];
    check(line === words, `the member's page, ${what}: "${line}"`);
    await done(opened, `the member's page, ${what}`);
  }
  // A feed that cannot be read says nothing of the member, never "not controlling"; nor does
  // the page without JavaScript, where the line is not drawn.
  for (const [what, answer] of [['an error', { status: 503, body: '', delay: 600 }], ['unreachable', { drop: true }]]) {
    reply = answer;
    opened = await open(people, memberPage(MEMBER), { viewport: { width: 320, height: 800 } });
    page = opened.page;
    await page.waitForFunction(() => document.querySelector('[data-live-member]')
      .getAttribute('data-live-state') === 'unavailable', null, { timeout: 15_000 });
    const line = await page.textContent('[data-live-member]');
    check(line === '', `the member's page, a feed ${what}: "${line}"`);
    const shift = await totalShift(page);
    check(shift < 0.01, `the member's page, a feed ${what}: layout shift ${shift.toFixed(3)}`);
    await done(opened, `the member's page, a feed ${what}`);
  }
  reply = { status: 200, body: JSON.stringify(ours()) };
  opened = await open(people, memberPage(MEMBER), { javaScript: false });
  const drawn = await opened.page.$eval('[data-live-member]', (node) => node.getClientRects().length);
  check(drawn === 0, 'the member\'s page without JavaScript: the live line is drawn');
  check(!(await opened.page.innerText('main')).includes('controlling'), 'the member\'s page without JavaScript says something of the feed');
  await done(opened, 'the member\'s page without JavaScript');

  console.log('live: ok');
} catch (error) {
  console.error(`live: FAILED: ${error.message}`);
  status = 1;
} finally {
  await browser.close();
  for (const site of [english, spanish, heldSite, people, peopleNl]) site.server.close();
  feedServer.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(held.work, { recursive: true, force: true });
}
process.exit(status);

#!/usr/bin/env node
// check-layout.mjs SITE [options]
//
// The built-in theme's layout goals (issue 23), measured on a built site in Debian's headless
// Chromium, at every width of WIDTHS and in both colour schemes, on every page kind (home,
// events list, an event, roster, a member's page, documents, live, a content page, a section
// page, 404):
//   page width     documentElement.scrollWidth <= innerWidth: no horizontal overflow, with
//                  any overflow hidden on <html> or <body> undone first (hiding it does not count)
//   header height  the header's height with the menu collapsed, at most HEADER_MAX_PX
//   menu           every entry of the menu (the links of the <nav>s outside <main> and the
//                  footer) is focused by pressing Tab from the top of the page, a closed
//                  <summary> or aria-expanded="false" button on the way being opened with
//                  Enter, and is visible when focused; with JavaScript off too, where every
//                  entry must also be in the DOM
//   logo contrast  WCAG contrast between the accent (the page's --accent in that scheme, and
//                  --logo-colour if given: an SVG logo keeps its colour in both schemes) and
//                  the logo's backdrop (the background of its nearest ancestor, itself
//                  included, with one, semi-transparent layers composited), at least
//                  LOGO_MIN_CONTRAST; and (issue 48) the logo's <img> has width and height in
//                  the image's own proportions, so that the header keeps its room as it loads
//   axe            axe-core at AXE_WIDTHS in both schemes: no violation of AXE_MIN_IMPACT or worse
// and, since issue 40 (a site it was not tuned on, a long name, a wide logo, a bright accent):
//   letters        no text of the header, and no heading of the page, set a few letters a line:
//                  each text of more than one line holds MIN_LETTERS_PER_LINE letters a line or
//                  more ("Curaçao FIR" one letter a line, a code badge stacked T/J/Z/S)
//   hyphens        <html lang> is set, and every text of the header and <main> that holds a word
//                  of LONG_WORD letters or more has hyphens: auto (addresses, code and
//                  preformatted text aside), so that long words break at syllables, with a hyphen
//   accent         with --accent: the configured colour itself is a surface of the header (its
//                  top rule or its background) in both schemes, not a shade of it, and text on
//                  any surface in that colour reads at ACCENT_INK_MIN_CONTRAST or more
//   focus ring     every focusable element in view (the first FOCUS_SAMPLE of the header, of
//                  <main> and of the footer), focused, has an outline of FOCUS_MIN_PX or more
//                  whose colour is FOCUS_MIN_CONTRAST or more against what is behind the ring
//   banners        with --local-banners: every event banner (img.event-banner) is served by the
//                  site itself (not the API's host), with srcset, width and height
// and, since issue 48 (tables broken mid-word once the reader's own time widened them):
//   words          no word of a bookings or live table (a callsign, a type, a rating, a part of
//                  a time, a frequency, a code), nor of an event's time anywhere (a date, a
//                  clock, issue 50), is set on two lines, and no badge either; names
//                  (people's <bdi>, which may be longer than any column, a zone's .zone) and the
//                  ATIS's text wrap as text does. Each word is measured by the lines its letters
//                  are set on; a compound breaks at its own hyphen ("Eastern-|standaardtijd"),
//                  a date never ("2026-|11-21").
// and, since issue 50 (the Dutch home page's menu wrapped onto rows until menu.js folded it):
//   shift          the page does not move under the reader as it loads, its scripts run and
//                  the live lists fill: the layout shifts add up to SHIFT_MAX or less (the
//                  Core Web Vitals' cumulative layout shift, without the user's input)
// The pages are seen as a reader in READER_ZONE sees them, so that each time carries the
// reader's own too (local-time.js), as it does for most readers.
// and keeps a full-page screenshot of each view that misses a goal in --out (of every view with
// --screenshots all). It measures geometry and colours, never pixels, so a restyle that keeps
// the goals passes.
//
// Options:
//   --tools DIR         the validators (playwright-core, axe-core, the static server);
//                       default tests/validators (scripts/ci/install-tools.sh installs them)
//   --out DIR           where screenshots go (default target/ci/screenshots)
//   --screenshots WHICH failures (the default): of each view that misses a goal; all: of every
//                       view, for a person to look at (a fifth of the time goes to taking them)
//   --page KIND=PATH    the page of a kind, a path in SITE (repeatable); content and section
//                       have no default and are left out without it, the others default to
//                       index.html, events/index.html, the first event page holding a table
//                       (else the first), roster/index.html, documents/index.html,
//                       live/index.html, 404.html
//   --feed FILE         a sample of VATSIM's data feed (JSON), sent to the live script of the
//                       pages that carry it (the home and live pages, a member's page), so that
//                       they are measured with their lists filled;
//                       the pages' clock stands at the sample's time (its general.update_timestamp,
//                       when the sites of scripts/ci/sites.sh were built), so that the bookings
//                       are not over by it. Without it the feed's host does not resolve, as every
//                       other host, and they show the line saying so
//   --menu-entries N    the number of menu entries the site has; another count is a failure
//   --logo-colour HEX   the logo's own colour (#rrggbb), checked as well as the accent
//   --local-banners     the site serves its banners (banners = "local", built from the API):
//                       the banner goal is left out without it
//   --accent HEX        the site's configured accent (#rrggbb): the accent goal is left out
//                       without it
//   --chromium PATH     default $CHROMIUM, or /usr/bin/chromium (never a downloaded browser)
//   -v                  print every measurement, not only failures
//
// Output: one line per failure, naming the page kind, its path, the width, the scheme and the
// measured value; then a summary line. Exit: 0 every goal met; 1 a goal missed; 2 usage or
// infrastructure error (SITE missing, Chromium failed to start).
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The goals, one constant each (issue 23, items 1, 2, 4 and 9).
const WIDTHS = [320, 390, 768, 1280];
/** A window height for each width: phones, a tablet, a laptop. */
const HEIGHTS = { 320: 568, 390: 844, 768: 1024, 1280: 800 };
const SCHEMES = ['light', 'dark'];
/** The tallest the header may be at a width, with the menu collapsed; widths not named are free. */
const HEADER_MAX_PX = { 320: 96, 390: 96, 1280: 140 };
const LOGO_MIN_CONTRAST = 3;
/** The first characters of the site's name the header shows at a width (issue 50): at 390 px
    the distinctive part of a long name ("Centro de Control de Área de Santo Domingo ACC"), from
    768 px all of it; widths not named are free, save that no word of it is cut. */
const NAME_MIN_SHOWN = { 390: 30, 768: Infinity, 1280: Infinity };
/** The smallest type the name may take to fit, in px: below it, a second line, then a cut. */
const NAME_MIN_PX = 13;
const AXE_WIDTHS = [390, 1280];
/** Lighthouse scores a cumulative layout shift of 0.1 "good"; a page that holds its place
    shifts by nothing, and a hundredth is left for rounding in the last pixel. */
const SHIFT_MAX = 0.01;
/** A text of several lines with fewer letters a line than this is set letter by letter. */
const MIN_LETTERS_PER_LINE = 4;
/** A word this long (in letters) breaks mid-word at a phone's width unless it hyphenates. */
const LONG_WORD = 10;
/** WCAG's 4.5:1 for the text on an accent surface, 3:1 (WCAG 2.2) for a focus ring of 2px. */
const ACCENT_INK_MIN_CONTRAST = 4.5;
const FOCUS_MIN_CONTRAST = 3;
const FOCUS_MIN_PX = 2;
/** Focusable elements measured per part of the page (header, main, footer). */
const FOCUS_SAMPLE = 12;
const AXE_IMPACTS = ['minor', 'moderate', 'serious', 'critical'];
/** Every violation counts, whatever its impact. */
const AXE_MIN_IMPACT = 'minor';
/** Tab presses before giving up on reaching the menu: a page's header holds far fewer stops. */
const MAX_TABS = 60;
/** The reader's time zone: none of the sites' display zones (nor UTC), at another offset. */
const READER_ZONE = 'America/New_York';

const HERE = dirname(fileURLToPath(import.meta.url));
const KINDS = ['home', 'events', 'event', 'roster', 'member', 'documents', 'live', 'content', 'section', '404'];

function usage(message) {
  if (message) console.error(`check-layout: ${message}`);
  console.error('usage: check-layout.mjs SITE [--tools DIR] [--out DIR] [--page KIND=PATH]... [--menu-entries N]\n' +
    '       [--screenshots failures|all] [--logo-colour #rrggbb] [--accent #rrggbb] [--feed FILE] [--local-banners]\n' +
    '       [--chromium PATH] [-v]');
  process.exit(2);
}

const opt = { tools: resolve(HERE, '../validators'), out: 'target/ci/screenshots', screenshots: 'failures', pages: {}, menuEntries: null,
  logoColour: null, accent: null, feed: null, localBanners: false, chromium: process.env.CHROMIUM || '/usr/bin/chromium',
  verbose: false };
let site = null;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  const value = () => (i + 1 < args.length ? args[++i] : usage(`${a} needs a value`));
  if (a === '--tools') opt.tools = resolve(value());
  else if (a === '--out') opt.out = value();
  else if (a === '--screenshots') {
    opt.screenshots = value();
    if (!['failures', 'all'].includes(opt.screenshots)) usage('--screenshots takes failures or all');
  }
  else if (a === '--page') {
    const m = /^([^=]+)=(.+)$/.exec(value());
    if (!m || !KINDS.includes(m[1])) usage(`--page takes KIND=PATH, KIND one of ${KINDS.join(', ')}`);
    opt.pages[m[1]] = m[2];
  } else if (a === '--menu-entries') {
    opt.menuEntries = Number(value());
    if (!Number.isInteger(opt.menuEntries) || opt.menuEntries < 1) usage('--menu-entries takes a count');
  } else if (a === '--logo-colour') {
    opt.logoColour = value();
    if (!/^#[0-9a-fA-F]{6}$/.test(opt.logoColour)) usage('--logo-colour takes #rrggbb');
  } else if (a === '--accent') {
    opt.accent = value();
    if (!/^#[0-9a-fA-F]{6}$/.test(opt.accent)) usage('--accent takes #rrggbb');
  } else if (a === '--feed') {
    const file = value();
    try {
      opt.feed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      usage(`--feed ${file}: ${e.message.split('\n')[0]}`);
    }
    if (!opt.feed?.general) usage(`--feed ${file}: not VATSIM's data feed (no "general")`);
  } else if (a === '--local-banners') opt.localBanners = true;
  else if (a === '--chromium') opt.chromium = value();
  else if (a === '-v' || a === '--verbose') opt.verbose = true;
  else if (a === '-h' || a === '--help') usage();
  else if (a.startsWith('-')) usage(`unknown option ${a}`);
  else if (site === null) site = resolve(a);
  else usage(`one site at a time (${a})`);
}
if (!site) usage();
if (!existsSync(site) || !statSync(site).isDirectory()) usage(`${site} is not a folder`);
if (!existsSync(opt.chromium)) usage(`${opt.chromium} not found (apt-get install chromium)`);

/** The page of each kind: PATH in the site, or a note saying why the kind is left out. */
function pagesOf(dir) {
  const found = {};
  const skipped = [];
  const defaults = { home: 'index.html', events: 'events/index.html', roster: 'roster/index.html',
    documents: 'documents/index.html', live: 'live/index.html', 404: '404.html' };
  const eventDir = join(dir, 'events');
  if (existsSync(eventDir)) {
    const events = readdirSync(eventDir).filter((n) => /^\d+$/.test(n) && existsSync(join(eventDir, n, 'index.html')))
      .sort((a, b) => Number(a) - Number(b)).map((n) => `events/${n}/index.html`);
    defaults.event = events.find((p) => readFileSync(join(dir, p), 'utf8').includes('<table')) ?? events[0];
  }
  // A member's page ([people]): the first with the most to show (a chart of their hours).
  const rosterDir = join(dir, 'roster');
  if (existsSync(rosterDir)) {
    const members = readdirSync(rosterDir).filter((n) => /^\d+$/.test(n) && existsSync(join(rosterDir, n, 'index.html')))
      .sort((a, b) => Number(a) - Number(b)).map((n) => `roster/${n}/index.html`);
    defaults.member = members.find((p) => readFileSync(join(dir, p), 'utf8').includes('<figure')) ?? members[0];
  }
  for (const kind of KINDS) {
    const path = opt.pages[kind] ?? defaults[kind];
    if (opt.pages[kind] !== undefined && !existsSync(join(dir, path))) usage(`--page ${kind}=${path}: no such file in ${dir}`);
    if (path === undefined) skipped.push(`${kind} (no --page ${kind}=PATH)`);
    else if (!existsSync(join(dir, path))) skipped.push(`${kind} (${path} not in the site)`);
    else found[kind] = path;
  }
  return { found, skipped };
}

const requireTool = createRequire(join(opt.tools, 'package.json'));
let chromium, axeSource, startServer;
try {
  ({ chromium } = requireTool('playwright-core'));
  axeSource = readFileSync(join(opt.tools, 'node_modules/axe-core/axe.min.js'), 'utf8');
  ({ startServer } = await import(pathToFileURL(join(opt.tools, 'lib/static-server.mjs')).href));
} catch (e) {
  console.error(`check-layout: the validators in ${opt.tools} are not installed (${e.message.split('\n')[0]}); ` +
    `run scripts/ci/install-tools.sh or pass --tools`);
  process.exit(2);
}

const { found, skipped } = pagesOf(site);
const started = Date.now();
const failures = [];
const counts = { width: 0, header: 0, menu: 0, logo: 0, plate: 0, name: 0, axe: 0, letters: 0, hyphens: 0, accent: 0, focus: 0, banner: 0, words: 0, shift: 0 };
let measured = 0;
/** The logo's plate in the first scheme, by page kind and width, to compare with the second. */
const plates = new Map();
let shots = 0;
/** Milliseconds spent in each phase, for the summary: what to speed up when it grows. */
const spent = { load: 0, measure: 0, axe: 0, screenshots: 0, keyboard: 0 };
const timed = async (phase, work) => {
  const t = Date.now();
  try {
    return await work();
  } finally {
    spent[phase] += Date.now() - t;
  }
};
const fail = (check, where, text) => {
  counts[check]++;
  const line = `${where}: ${text}`;
  failures.push(line);
  console.log(line);
};
const note = (where, text) => opt.verbose && console.log(`${where}: ok: ${text}`);

// In the page: the page width with any overflow hidden on <html> or <body> let out.
function pageWidth() {
  const hidden = [];
  const undone = [];
  for (const el of [document.documentElement, document.body]) {
    const x = getComputedStyle(el).overflowX;
    if (x === 'hidden' || x === 'clip') {
      hidden.push(`${el.localName} overflow-x: ${x}`);
      undone.push([el, el.style.getPropertyValue('overflow-x'), el.style.getPropertyPriority('overflow-x')]);
      el.style.setProperty('overflow-x', 'visible', 'important');
    }
  }
  const width = document.documentElement.scrollWidth;
  for (const [el, value, priority] of undone) el.style.setProperty('overflow-x', value, priority);
  return { width, window: innerWidth, hidden };
}

// In the page: the header (the banner landmark), its height, the logo, its backdrop, the accent.
function headerAndLogo({ logoColour, kit: source }) {
  const { paint, alpha, contrast, rgb, name, opaque } = (0, eval)(`(${source})`)();
  const header = document.querySelector('body > header, header.site-header, [role="banner"]') ??
    [...document.querySelectorAll('header')].find((h) => !h.closest('main, article, aside, section, footer'));
  const resolved = (property, value, parent) => {
    const probe = document.createElement('span');
    probe.style.setProperty(property, value);
    parent.append(probe);
    const c = getComputedStyle(probe)[property === 'color' ? 'color' : 'backgroundColor'];
    probe.remove();
    return c;
  };
  const out = { header: null, height: null, logo: null };
  if (!header) return out;
  out.header = name(header);
  out.height = Math.round(header.getBoundingClientRect().height * 10) / 10;
  // The logo is a file of the site's static/ folder, shown as an <img>; an inline <svg> in the
  // header is an icon (the menu button's), not the logo.
  const logo = header.querySelector('img');
  if (!logo) return out;
  // The backdrop: backgrounds from the logo up to the first opaque one, else the window's canvas.
  const layers = [];
  let base = null;
  let image = null;
  for (let el = logo; el; el = el.parentElement) {
    const style = getComputedStyle(el);
    if (style.backgroundImage !== 'none' && !image) image = name(el);
    const a = alpha(style.backgroundColor);
    if (a > 0) {
      layers.unshift(style.backgroundColor);
      if (a >= 1) { base = name(el); break; }
    }
  }
  if (!base) {
    layers.unshift(resolved('background-color', 'Canvas', document.documentElement));
    base = 'the window';
  }
  const backdrop = paint(layers);
  // Its plate: what is drawn around it in its own box, which must not depend on the scheme.
  const own = getComputedStyle(logo);
  const plate = alpha(own.backgroundColor) > 0 ? `${own.backgroundColor}, padding ${own.padding}, radius ${own.borderRadius}` : 'none';
  out.logo = { element: name(logo), base, image, backdrop: rgb(backdrop), plate, opaque: opaque(logo), colours: [],
    width: logo.getAttribute('width'), height: logo.getAttribute('height'),
    // The image's own proportions, as the browser read them from the file; the box may be
    // narrower (max-width, with object-fit keeping the drawing whole).
    drawn: logo.naturalWidth / logo.naturalHeight };
  // An opaque logo brings its own ground: the accent around it is nothing it must read on.
  if (out.logo.opaque) return out;
  // The logo is drawn in the accent as given: the page's --accent-surface where it has one
  // (issue 40), else its --accent.
  const surface = getComputedStyle(logo).getPropertyValue('--accent-surface').trim() ? 'var(--accent-surface)' : 'var(--accent)';
  if (getComputedStyle(logo).getPropertyValue('--accent').trim()) {
    const accent = paint([resolved('color', surface, logo.parentElement)]);
    out.logo.colours.push({ what: 'accent', colour: rgb(accent), ratio: contrast(accent, backdrop) });
  }
  if (logoColour) {
    const own = paint([logoColour]);
    out.logo.colours.push({ what: 'logo colour', colour: rgb(own), ratio: contrast(own, backdrop) });
  }
  return out;
}

// In the page: colours, read and compared as the browser paints them. The checks below run in
// the page, where nothing of this file is defined: they are handed its source as `kit` and
// make it there (KIT).
function colourKit() {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const ink = canvas.getContext('2d', { willReadFrequently: true });
  const paint = (colours) => {
    ink.clearRect(0, 0, 1, 1);
    for (const c of colours) {
      ink.fillStyle = '#000';
      ink.fillStyle = c;
      ink.fillRect(0, 0, 1, 1);
    }
    return [...ink.getImageData(0, 0, 1, 1).data.slice(0, 3)];
  };
  const alpha = (c) => {
    const slash = /\/\s*([\d.]+%?)\s*\)/.exec(c);
    const parts = c.match(/[\d.]+%?/g) ?? [];
    const a = slash ? slash[1] : /^rgba?\(/.test(c) && parts.length === 4 ? parts[3] : null;
    return a === null ? 1 : parseFloat(a) / (a.endsWith('%') ? 100 : 1);
  };
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  // The backdrop of an element: its background and its ancestors', composited, up to the
  // first opaque one, else the window's canvas.
  const backdrop = (from) => {
    const layers = [];
    for (let el = from; el; el = el.parentElement) {
      const bg = getComputedStyle(el).backgroundColor;
      const a = alpha(bg);
      if (a > 0) {
        layers.unshift(bg);
        if (a >= 1) return paint(layers);
      }
    }
    const probe = document.createElement('span');
    probe.style.backgroundColor = 'Canvas';
    document.documentElement.append(probe);
    layers.unshift(getComputedStyle(probe).backgroundColor);
    probe.remove();
    return paint(layers);
  };
  const rgb = (c) => `rgb(${c.join(', ')})`;
  const name = (el) => el.localName + (el.id ? `#${el.id}` : '') + [...el.classList].map((c) => `.${c}`).join('');
  // Whether an image is opaque, every pixel of it (a square logo on its own ground), drawn on
  // a canvas; an image not loaded, or not readable, counts as not.
  const opaque = (img) => {
    if (!img.complete || !img.naturalWidth) return false;
    const sheet = document.createElement('canvas');
    sheet.width = sheet.height = 64;
    const pen = sheet.getContext('2d', { willReadFrequently: true });
    try {
      pen.drawImage(img, 0, 0, 64, 64);
      const data = pen.getImageData(0, 0, 64, 64).data;
      for (let i = 3; i < data.length; i += 4) if (data[i] < 255) return false;
      return true;
    } catch {
      return false;
    }
  };
  return { paint, alpha, contrast, backdrop, rgb, name, opaque };
}

const KIT = colourKit.toString();

// In the page: the site's name in the header (the header's link outside its menu, named by
// the page's og:site_name): how many of its first characters are in view, whether a word of
// it is partly hidden or ellipsed by the browser (text-overflow, line-clamp: they cut inside
// a word), and the smallest type it is set in.
function brandName() {
  const name = document.querySelector('meta[property="og:site_name"]')?.content.replace(/\s+/g, ' ').trim();
  const header = document.querySelector('body > header, header.site-header, [role="banner"]');
  const link = header && [...header.querySelectorAll('a[href]')].find((a) => !a.closest('nav') && a.textContent.trim());
  if (!name || !link) return null;
  const out = { name, shown: '', cut: [], ellipsed: null, smallest: Infinity };
  const walker = document.createTreeWalker(link, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || !node.textContent.trim()) continue;
    // Each word, and which of its characters are in view: inside every box that clips it.
    const clips = [];
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      if (getComputedStyle(e).overflow !== 'visible') clips.push(e.getBoundingClientRect());
    }
    const range = document.createRange();
    const words = [...node.textContent.matchAll(/\S+/g)];
    for (const word of words) {
      let seen = '';
      for (let i = word.index; i < word.index + word[0].length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const r = range.getBoundingClientRect();
        const inside = r.width > 0 && clips.every((c) => r.left >= c.left - 0.5 && r.right <= c.right + 0.5 &&
          r.top >= c.top - 0.5 && r.bottom <= c.bottom + 0.5);
        seen += inside ? word[0][i - word.index] : '\u0000';
      }
      if (seen.includes('\u0000') && seen.replaceAll('\u0000', '')) out.cut.push(`${word[0]} (shown: ${seen.replaceAll('\u0000', '')})`);
      if (!seen.includes('\u0000')) out.shown += `${out.shown ? ' ' : ''}${word[0]}`;
      if (seen.replaceAll('\u0000', '')) out.smallest = Math.min(out.smallest, parseFloat(style.fontSize));
    }
    const clamped = style.webkitLineClamp !== 'none' || style.textOverflow === 'ellipsis';
    if (clamped && (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1)) {
      out.ellipsed = `${style.webkitLineClamp !== 'none' ? `line-clamp ${style.webkitLineClamp}` : 'text-overflow: ellipsis'} on ${el.localName}.${[...el.classList].join('.')}`;
    }
  }
  return out;
}

// In the page: texts set a few letters a line (the header's, and the page's headings), and
// long words that cannot hyphenate (the header's and <main>'s texts).
function lettersAndHyphens({ minLettersPerLine, longWord }) {
  const out = { lang: document.documentElement.lang, narrow: [], unhyphenated: [] };
  const header = document.querySelector('body > header, header.site-header, [role="banner"]');
  const main = document.querySelector('main');
  const shown = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.display === 'none' || style.visibility === 'hidden') return false;
    }
    return true;
  };
  const letters = (text) => (text.match(/\p{L}/gu) ?? []).length;
  const seen = new Set();
  for (const root of [header, main].filter(Boolean)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.replace(/\s+/g, ' ').trim();
      const el = node.parentElement;
      if (!text || !el || el.closest('script, style, pre, code, kbd, samp') || !shown(el)) continue;
      // Text for screen readers only (a box of a pixel, clipped) is never set in lines.
      const box = el.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) continue;
      // Lines: the distinct tops of the text's boxes.
      const range = document.createRange();
      range.selectNodeContents(node);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      const count = letters(text);
      const heading = el.closest('h1, h2, h3, h4');
      if ((root === header || heading) && tops.size > 1 && count / tops.size < minLettersPerLine) {
        out.narrow.push({ text: text.slice(0, 50), lines: tops.size, letters: count,
          where: el.localName + [...el.classList].map((c) => `.${c}`).join('') });
      }
      // A long word: letters only, once the punctuation around it is off (an address, an
      // e-mail address or a code is no word).
      const long = text.split(/\s+/).map((w) => w.replace(/^[(«"“‘]+|[.,;:!?)»"”’]+$/gu, ''))
        .some((w) => /^[\p{L}\p{M}'’-]+$/u.test(w) && letters(w) >= longWord);
      if (!long) continue;
      const hyphens = getComputedStyle(el).hyphens;
      if (hyphens !== 'auto' && !seen.has(el)) {
        seen.add(el);
        out.unhyphenated.push({ text: text.slice(0, 50), hyphens, where: el.localName + [...el.classList].map((c) => `.${c}`).join('') });
      }
    }
  }
  return out;
}

// In the page: the words of the bookings and live tables (and the home block's list) set on
// more than one line, and the badges. A word is what lies between spaces, dashes and the
// hyphens of a compound (a hyphen between letters).
function brokenWords() {
  const out = [];
  const lines = (range) => new Set([...range.getClientRects()].filter((r) => r.width > 0.5)
    .map((r) => Math.round(r.top))).size;
  const range = document.createRange();
  // And every event time (issue 50), and every date of a table (the roster's, issue 49): a
  // date broken at its hyphens ("2026-12-" / "02") is two lines of one word.
  const cells = document.querySelectorAll('main table.bookings td, main table.live-table td, main .live-controllers li, ' +
    'main .when, main .when-local, main .reader-time, main td > time');
  for (const cell of cells) {
    if (!cell.getClientRects().length) continue;
    const where = cell.getAttribute('data-label') || cell.localName;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('bdi, .zone, details, [hidden]')) continue;
      for (const word of node.textContent.matchAll(/(?:[^\s\u2013\u2014-]|(?<!\p{L})-|-(?!\p{L}))+/gu)) {
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const n = lines(range);
        if (n > 1) out.push({ text: word[0], where, lines: n });
      }
    }
    for (const badge of cell.querySelectorAll('.badge')) {
      if (!badge.getClientRects().length) continue;
      range.selectNodeContents(badge);
      const n = lines(range);
      if (n > 1) out.push({ text: badge.textContent.trim(), where: `${where}, a badge`, lines: n });
    }
  }
  return out;
}

// In the page: the configured accent on the header's surface, and text on accent surfaces.
function accentShown({ accent, minInk, kit: source }) {
  const kit = (0, eval)(`(${source})`)();
  const want = kit.paint([accent]);
  const same = (c) => kit.alpha(c) >= 1 && kit.paint([c]).every((v, i) => Math.abs(v - want[i]) <= 1);
  const header = document.querySelector('body > header, header.site-header, [role="banner"]');
  const out = { header: null, rule: null, background: null, shown: false, unreadable: [] };
  if (!header) return out;
  const style = getComputedStyle(header);
  out.header = kit.name(header);
  out.rule = parseFloat(style.borderTopWidth) >= 1 && style.borderTopStyle !== 'none' ? style.borderTopColor : null;
  out.background = style.backgroundColor;
  out.shown = (out.rule !== null && same(out.rule)) || same(out.background);
  // Every element painted in the accent: its own text must read on it.
  for (const el of document.querySelectorAll('body *')) {
    const s = getComputedStyle(el);
    if (!same(s.backgroundColor) || s.display === 'none' || s.visibility === 'hidden') continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const ratio = kit.contrast(kit.paint([kit.rgb(want), s.color]), want);
    if (ratio < minInk) out.unreadable.push({ where: kit.name(el), colour: s.color, ratio });
  }
  return out;
}

// In the page: each focusable element in view, focused, and its ring measured against what is
// behind it (the elements under the ring's middle line, beside each side).
function focusRings({ sample, kit: source }) {
  const kit = (0, eval)(`(${source})`)();
  const parts = [document.querySelector('body > header, header.site-header, [role="banner"]'),
    document.querySelector('main'), document.querySelector('body > footer, footer.site-footer')];
  const focusable = 'a[href], button:not([disabled]), summary, input:not([type="hidden"]), select, textarea, [tabindex]:not([tabindex="-1"])';
  const visible = (el) => {
    if (!el.getClientRects().length) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && !el.closest('[hidden], [inert]');
  };
  const chosen = [];
  const skip = document.querySelector('body > a[href^="#"]');
  if (skip) chosen.push(skip);
  for (const part of parts.filter(Boolean)) {
    chosen.push(...[...part.querySelectorAll(focusable)].filter(visible).slice(0, sample));
  }
  const out = [];
  for (const el of chosen) {
    el.focus({ preventScroll: false });
    if (document.activeElement !== el) continue;
    const s = getComputedStyle(el);
    const label = `${kit.name(el)} "${(el.textContent || el.getAttribute('aria-label') || '').replace(/\s+/g, ' ').trim().slice(0, 30)}"`;
    const width = parseFloat(s.outlineWidth) || 0;
    if (s.outlineStyle === 'none' || s.outlineStyle === 'auto' || width < 0.5) {
      out.push({ label, style: s.outlineStyle, width, ratio: null });
      continue;
    }
    const offset = parseFloat(s.outlineOffset) || 0;
    const r = el.getBoundingClientRect();
    const d = offset + width / 2;
    let worst = null;
    const points = [[r.left + r.width / 2, r.top - d], [r.left + r.width / 2, r.bottom + d],
      [r.left - d, r.top + r.height / 2], [r.right + d, r.top + r.height / 2]];
    for (const [x, y] of points) {
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
      // Drawn inside the element (a negative offset): on its own background.
      const under = d < 0 ? el : document.elementsFromPoint(x, y).find((e) => e !== el && !el.contains(e));
      const behind = kit.backdrop(under ?? document.documentElement);
      const ring = kit.paint([kit.rgb(behind), s.outlineColor]);
      const ratio = kit.contrast(ring, behind);
      if (worst === null || ratio < worst.ratio) worst = { ratio, ring: kit.rgb(ring), behind: kit.rgb(behind), under: under ? kit.name(under) : 'the window' };
    }
    if (worst) out.push({ label, style: s.outlineStyle, width, ...worst });
  }
  document.activeElement?.blur?.();
  window.scrollTo(0, 0);
  return out;
}

// In the page: each event banner that is not served by the site itself, or lacks what keeps
// the page from moving as it loads (width, height) and a phone from loading the largest copy.
function remoteBanners() {
  const out = [];
  for (const img of document.querySelectorAll('img.event-banner')) {
    const src = img.currentSrc || img.src;
    const missing = ['srcset', 'width', 'height'].filter((name) => !img.hasAttribute(name));
    if (new URL(src, location.href).origin !== location.origin) out.push(`a remote banner ${src}`);
    else if (missing.length) out.push(`a banner without ${missing.join(', ')}: ${src}`);
  }
  return out;
}

// In the page: the menu's entries, the links of the <nav>s outside <main> and the footer.
function menuEntries() {
  const seen = new Map();
  for (const nav of document.querySelectorAll('nav')) {
    if (nav.closest('main, footer')) continue;
    for (const a of nav.querySelectorAll('a[href]')) {
      if (!seen.has(a.href)) seen.set(a.href, a.textContent.replace(/\s+/g, ' ').trim());
    }
  }
  return [...seen].map(([href, text]) => ({ href, text }));
}

// In the page: what has the focus, and whether it opens the menu.
function focused() {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return { none: true };
  const r = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  const visible = r.width > 0 && r.height > 0 && r.right > 0 && r.left < innerWidth && style.visibility !== 'hidden' &&
    Number(style.opacity) > 0;
  const closedSummary = el.localName === 'summary' && el.parentElement?.localName === 'details' && !el.parentElement.open;
  const closedButton = el.getAttribute('aria-expanded') === 'false' && !el.closest('main, footer');
  const path = [];
  for (let e = el; e && e !== document.body; e = e.parentElement) path.unshift([...e.parentElement.children].indexOf(e));
  return { key: path.join('.'), href: el.localName === 'a' ? el.href : null, inMain: !!el.closest('main'), visible,
    opens: closedSummary || closedButton, label: (el.textContent || '').trim().slice(0, 40) };
}

/** Presses Tab from the top of the loaded page: the menu entries focused, and those focused unseen. */
async function tabThrough(page, entries) {
  const wanted = new Set(entries.map((e) => e.href));
  const reached = new Set();
  const unseen = new Set();
  const opened = new Map();
  const visited = new Set();
  await page.evaluate(() => { document.activeElement?.blur?.(); window.scrollTo(0, 0); });
  for (let i = 0; i < MAX_TABS && reached.size < wanted.size; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(focused);
    if (f.none) continue;
    // Past the header into the page, or round to the start again: the menu is behind us.
    if ((f.inMain && reached.size) || visited.has(f.key)) break;
    visited.add(f.key);
    if (f.opens && !opened.has(f.key)) {
      await page.keyboard.press('Enter');
      opened.set(f.key, f.label);
      continue;
    }
    if (f.href && wanted.has(f.href)) {
      if (f.visible) reached.add(f.href);
      else unseen.add(f.href);
    }
  }
  return { missed: entries.filter((e) => !reached.has(e.href)), unseen, opened: [...opened.values()] };
}

/** A request for the data feed: JSON from any host but the site's. */
const isFeed = (u) => u.hostname !== '127.0.0.1' && u.pathname.endsWith('.json');
/** --feed's sample, as the data feed sends it: readable from any origin. */
function feedReply(route) {
  return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(opt.feed),
    headers: { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' } });
}

const { server, port } = await startServer(site, 0);
const origin = `http://127.0.0.1:${port}`;
let browser;
try {
  browser = await chromium.launch({
    executablePath: opt.chromium,
    headless: true,
    // Every host but the loopback server fails to resolve, at once: event banners on the API's
    // host are not waited for, and no request needs intercepting (which slows every load).
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
} catch (e) {
  console.error(`check-layout: Chromium failed to start: ${e.message.split('\n').slice(0, 6).join('\n')}`);
  server.close();
  process.exit(2);
}
// Two contexts, one page each, reused for every measurement: scripts on, and scripts off.
const contexts = [];
for (const javaScriptEnabled of [true, false]) {
  const context = await browser.newContext({ javaScriptEnabled, serviceWorkers: 'block', reducedMotion: 'reduce',
    timezoneId: READER_ZONE });
  // Every layout shift from the page's first paint on, as the Layout Instability API reports it.
  // The observer's callback is a task of its own, which a loaded machine runs frames after the
  // shift (a CI run missed the self-test's shift at 1280 px): the total is read with the
  // entries not yet handed to it (takeRecords).
  await context.addInitScript(() => {
    let total = 0;
    const add = (entries) => { for (const shift of entries) if (!shift.hadRecentInput) total += shift.value; };
    const observer = new PerformanceObserver((list) => add(list.getEntries()));
    observer.observe({ type: 'layout-shift', buffered: true });
    window.__layoutShift = () => { add(observer.takeRecords()); return total; };
  });
  const page = await context.newPage();
  // The pages' clock at the sample's time: its data is live then, and the bookings on.
  if (opt.feed) await page.clock.setFixedTime(new Date(opt.feed.general.update_timestamp));
  contexts.push(page);
}
const [page, noScript] = contexts;
mkdirSync(opt.out, { recursive: true });
const urlOf = (path) => `${origin}/${path.replace(/(^|\/)index\.html$/, '$1').split('/').map(encodeURIComponent).join('/')}`;
const open = async (p, url, width) => {
  await p.setViewportSize({ width, height: HEIGHTS[width] });
  // A page of the loopback server loads in well under a second: a load that times out is the
  // machine (a runner under load, once in CI), so it is tried once more, with more time,
  // before it counts.
  let response;
  try {
    response = await p.goto(url, { waitUntil: 'load' });
  } catch (e) {
    if (e.name !== 'TimeoutError') throw e;
    console.error(`check-layout: ${url} did not load in 30 s; trying once more`);
    response = await p.goto(url, { waitUntil: 'load', timeout: 90000 });
  }
  if (!response || response.status() !== 200) throw new Error(`${url}: HTTP ${response?.status()}`);
};

let infrastructure = null;
try {
  for (const [kind, path] of Object.entries(found)) {
    const url = urlOf(path);
    // The pages that read the data feed (the home and live pages, a member's page: each
    // carries the live script's data-live-config) get --feed's sample (only those: routing
    // slows every load), and are measured once the script has said what it found.
    const live = opt.feed !== null && readFileSync(join(site, path), 'utf8').includes('data-live-config=');
    if (live) await page.route(isFeed, feedReply);
    for (const width of WIDTHS) {
      await timed('load', () => open(page, url, width));
      if (live) {
        await page.waitForFunction(() => [...document.querySelectorAll('[data-live]')].every((s) => s.getAttribute('data-live-state') !== 'loading') &&
          [...document.querySelectorAll('[data-live-status]')].every((s) => s.textContent), null, { timeout: 15000 });
      }
      // Two frames drawn after the load, and the task after the second's paint: a shift made
      // in them has been measured by then.
      const shift = await page.evaluate(() => new Promise((done) =>
        requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(window.__layoutShift()))))));
      if (shift > SHIFT_MAX) fail('shift', `${kind} (${path}) ${width}px ${SCHEMES[0]}`, `layout shift ${shift.toFixed(3)} > ${SHIFT_MAX} as it loads`);
      for (const scheme of SCHEMES) {
        const where = `${kind} (${path}) ${width}px ${scheme}`;
        const failedBefore = failures.length;
        await page.emulateMedia({ colorScheme: scheme });
        measured++;
        const w = await timed('measure', () => page.evaluate(pageWidth));
        const undone = w.hidden.length ? ` (measured with ${w.hidden.join(', ')} undone: hiding overflow does not count)` : '';
        if (w.width > w.window) fail('width', where, `page width ${w.width} px > window ${w.window} px${undone}`);
        else note(where, `page width ${w.width} px`);
        const h = await timed('measure', () => page.evaluate(headerAndLogo, { logoColour: opt.logoColour, kit: KIT }));
        if (!h.header) fail('header', where, 'no header (<header> or role="banner") found');
        else if (HEADER_MAX_PX[width] !== undefined && h.height > HEADER_MAX_PX[width]) {
          fail('header', where, `header height ${h.height} px > ${HEADER_MAX_PX[width]} px (${h.header})`);
        } else note(where, `header height ${h.height} px`);
        if (h.logo && !h.logo.opaque && !h.logo.colours.length) fail('logo', where, 'no --accent on the page and no --logo-colour: nothing to measure the logo against');
        if (h.logo && !(Math.abs(Number(h.logo.width) / Number(h.logo.height) - h.logo.drawn) < 0.02)) {
          fail('logo', where, `the logo's width="${h.logo.width}" height="${h.logo.height}" are not its own proportions (${h.logo.drawn.toFixed(2)}:1)`);
        }
        if (h.logo) {
          // The logo as given: the same plate (or none) in both schemes.
          const key = `${kind} ${width}`;
          if (scheme === SCHEMES[0]) plates.set(key, h.logo.plate);
          else if (plates.get(key) !== h.logo.plate) {
            fail('plate', where, `the logo's plate is ${h.logo.plate} here but ${plates.get(key)} in ${SCHEMES[0]}` +
              `${h.logo.opaque ? ' (an opaque logo)' : ''}: the schemes treat it differently`);
          } else note(where, `the logo's plate is ${h.logo.plate} in both schemes${h.logo.opaque ? ' (an opaque logo)' : ''}`);
        }
        const n = await timed('measure', () => page.evaluate(brandName));
        if (n) {
          let shown = 0;
          while (shown < n.name.length && n.shown[shown] === n.name[shown]) shown++;
          const wanted = Math.min(n.name.length, NAME_MIN_SHOWN[width] ?? 0);
          const says = `the name "${n.name}" shows "${n.shown}"`;
          if (shown < wanted) fail('name', where, `${says}: its first ${shown} characters, not ${wanted}`);
          for (const c of n.cut) fail('name', where, `${says}: a word cut, ${c}`);
          if (n.ellipsed) fail('name', where, `${says}, ellipsed by ${n.ellipsed}, which cuts inside a word`);
          if (n.smallest < NAME_MIN_PX) fail('name', where, `${says} in ${n.smallest} px type < ${NAME_MIN_PX} px`);
          if (shown >= wanted && !n.cut.length && !n.ellipsed && n.smallest >= NAME_MIN_PX) {
            note(where, `${says} (${shown} characters, ${n.smallest} px), no word cut`);
          }
        }
        if (h.logo) {
          for (const c of h.logo.colours) {
            const text = `logo contrast ${c.ratio.toFixed(2)}:1, ${c.what} ${c.colour} on backdrop ${h.logo.backdrop} ` +
              `(${h.logo.base})${h.logo.image ? `, a background image on ${h.logo.image} not counted` : ''}`;
            if (c.ratio < LOGO_MIN_CONTRAST) fail('logo', where, `${text} < ${LOGO_MIN_CONTRAST}:1`);
            else note(where, text);
          }
        }
        const text = await timed('measure', () => page.evaluate(lettersAndHyphens,
          { minLettersPerLine: MIN_LETTERS_PER_LINE, longWord: LONG_WORD }));
        for (const n of text.narrow) {
          fail('letters', where, `"${n.text}" (${n.where}) is set ${n.lines} lines for ${n.letters} letters: ` +
            `${(n.letters / n.lines).toFixed(1)} a line < ${MIN_LETTERS_PER_LINE}`);
        }
        if (!text.narrow.length) note(where, 'no text set letter by letter');
        if (!text.lang) fail('hyphens', where, '<html> has no lang: nothing can hyphenate');
        for (const u of text.unhyphenated.slice(0, 3)) {
          fail('hyphens', where, `hyphens: ${u.hyphens} on ${u.where} ("${u.text}"): its long words cannot hyphenate`);
        }
        if (text.unhyphenated.length > 3) fail('hyphens', where, `... and ${text.unhyphenated.length - 3} more without hyphens: auto`);
        if (text.lang && !text.unhyphenated.length) note(where, `long words hyphenate (lang="${text.lang}")`);
        const broken = await timed('measure', () => page.evaluate(brokenWords));
        for (const b of broken.slice(0, 3)) fail('words', where, `"${b.text}" (${b.where}) is set on ${b.lines} lines`);
        if (broken.length > 3) fail('words', where, `... and ${broken.length - 3} more words on two lines`);
        if (!broken.length) note(where, 'no word of a table on two lines');
        if (opt.accent) {
          const a = await timed('measure', () => page.evaluate(accentShown, { accent: opt.accent, minInk: ACCENT_INK_MIN_CONTRAST, kit: KIT }));
          if (a.header && !a.shown) {
            fail('accent', where, `the accent ${opt.accent} is not the header's top rule (${a.rule ?? 'none'}) or its ` +
              `background (${a.background}): shown as another colour`);
          } else if (a.header) note(where, `the accent ${opt.accent} is on the header, as given`);
          for (const u of a.unreadable.slice(0, 3)) {
            fail('accent', where, `text ${u.colour} on the accent ${opt.accent} (${u.where}): ${u.ratio.toFixed(2)}:1 < ${ACCENT_INK_MIN_CONTRAST}:1`);
          }
        }
        const rings = await timed('measure', () => page.evaluate(focusRings, { sample: FOCUS_SAMPLE, kit: KIT }));
        for (const r of rings) {
          if (r.ratio === null) fail('focus', where, `no focus ring on ${r.label} (outline ${r.style} ${r.width}px)`);
          else if (r.width < FOCUS_MIN_PX) fail('focus', where, `focus ring of ${r.width}px on ${r.label} < ${FOCUS_MIN_PX}px`);
          else if (r.ratio < FOCUS_MIN_CONTRAST) {
            fail('focus', where, `focus ring ${r.ring} on ${r.label}: ${r.ratio.toFixed(2)}:1 against ${r.behind} (${r.under}) ` +
              `< ${FOCUS_MIN_CONTRAST}:1`);
          } else note(where, `focus ring on ${r.label}: ${r.width}px, ${r.ratio.toFixed(2)}:1 against ${r.behind}`);
        }
        if (AXE_WIDTHS.includes(width)) {
          const violations = await timed('axe', async () => {
            await page.evaluate(axeSource);
            return page.evaluate(async () =>
              // eslint-disable-next-line no-undef
              (await axe.run(document, { resultTypes: ['violations'] })).violations.map((v) => ({ id: v.id, impact: v.impact,
                help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) })));
          });
          for (const v of violations) {
            if (AXE_IMPACTS.indexOf(v.impact) < AXE_IMPACTS.indexOf(AXE_MIN_IMPACT)) continue;
            const nodes = v.nodes.slice(0, 3).join(', ') + (v.nodes.length > 3 ? `, … (${v.nodes.length} nodes)` : '');
            fail('axe', where, `axe ${v.id} (${v.impact}): ${v.help} -- ${nodes}`);
          }
          if (!violations.length) note(where, 'axe: no violations');
        }
        if (opt.localBanners && width === WIDTHS[0] && scheme === SCHEMES[0]) {
          const banners = await timed('measure', () => page.evaluate(remoteBanners));
          for (const b of banners) fail('banner', where, b);
          if (!banners.length) note(where, 'every banner is served by the site');
        }
        if (opt.screenshots === 'all' || failures.length > failedBefore) {
          await timed('screenshots', () => page.screenshot({ path: join(opt.out, `${kind}-${width}-${scheme}.png`), fullPage: true }));
          shots++;
        }
      }
      // The menu, by keyboard, in the light scheme; then with scripts off. Measuring left the
      // page as it loaded (nothing was focused or clicked), so it is not loaded again.
      await page.emulateMedia({ colorScheme: 'light' });
      const entries = await page.evaluate(menuEntries);
      const where = `${kind} (${path}) ${width}px`;
      if (!entries.length) fail('menu', where, 'no menu: no links in a <nav> outside <main> and the footer');
      else if (opt.menuEntries !== null && entries.length !== opt.menuEntries) {
        fail('menu', where, `${entries.length} menu entries, not ${opt.menuEntries}: ${entries.map((e) => e.text).join(' | ')}`);
      }
      await timed('load', () => open(noScript, url, width));
      const withoutScripts = new Set(await noScript.evaluate(menuEntries).then((list) => list.map((e) => e.href)));
      for (const e of entries) {
        if (!withoutScripts.has(e.href)) fail('menu', where, `menu entry "${e.text}" is not in the page with JavaScript off`);
      }
      for (const [p, label] of [[page, ''], [noScript, ', JavaScript off']]) {
        const walk = await timed('keyboard', () => tabThrough(p, entries));
        for (const e of walk.missed) {
          fail('menu', where, `menu entry "${e.text}" ${walk.unseen.has(e.href) ? 'is focused but not visible' : 'is not reached'} ` +
            `by Tab${label}${walk.opened.length ? ` (opened: ${walk.opened.join(', ')})` : ''}`);
        }
        if (entries.length && !walk.missed.length) note(where, `${entries.length} menu entries reached by Tab${label}`);
      }
    }
    if (live) await page.unroute(isFeed, feedReply);
  }
} catch (e) {
  infrastructure = e;
}
await browser.close().catch(() => {});
server.close();
if (infrastructure) {
  console.error(`check-layout: ${infrastructure.message.split('\n')[0]}`);
  process.exit(2);
}

const seconds = ((Date.now() - started) / 1000).toFixed(1);
for (const s of skipped) console.log(`check-layout: left out: ${s}`);
console.log(`layout: ${Object.keys(found).length} page kinds x ${WIDTHS.length} widths x ${SCHEMES.length} schemes ` +
  `(${measured} views) of ${site}: ${failures.length} failures (page width ${counts.width}, header height ${counts.header}, ` +
  `menu ${counts.menu}, logo contrast ${counts.logo}, logo plate ${counts.plate}, name ${counts.name}, axe ${counts.axe}, letters ${counts.letters}, hyphens ${counts.hyphens}, ` +
  `accent ${counts.accent}, focus ring ${counts.focus}, banners ${counts.banner}, words ${counts.words}, layout shift ${counts.shift}); ${shots} screenshots in ${opt.out}; ${seconds} s ` +
  `(${Object.entries(spent).map(([phase, ms]) => `${phase} ${(ms / 1000).toFixed(1)}`).join(', ')})`);
process.exit(failures.length ? 1 : 0);

#!/usr/bin/env node
// check-browser.mjs DIR [options] [PAGE...]
//
// Serves DIR on 127.0.0.1 (lib/static-server.mjs), opens every .html page
// (or only the PAGEs given, paths relative to DIR) in Debian's headless
// Chromium driven by playwright-core, and records per page:
//   [console-error]    console.error messages and failed resource loads
//   [js-error]         uncaught exceptions
//   [dialog]           alert/confirm/prompt/beforeunload (dismissed) -> XSS executed
//   [navigation]       the main frame navigating away, or a popup   -> XSS executed
//   [external-request] any request to a host other than the loopback server
//                      (blocked; e.g. exfiltration by an injected <img>)
//   [javascript-url]   href/src/action="javascript:..." in the DOM (runs on click)
//   [a11y]             axe-core violations of impact serious/critical
//                      (--axe-impact to change the threshold)
//   [load]             the page itself did not load with HTTP 200
// and takes full-page PNG screenshots / print-to-PDF of the pages asked for.
//
// Options:
//   --out DIR            where screenshots/PDFs go (default ./browser-out)
//   --screenshot PAGE    full-page PNG of PAGE (repeatable)
//   --screenshot-all     full-page PNG of every checked page
//   --pdf PAGE           print PAGE to PDF with page.pdf() (repeatable)
//   --axe-impact LEVEL   minor|moderate|serious|critical (default serious)
//   --allow-external     report external requests but do not count them
//   --settle MS          wait after "load" for late scripts (default 250)
//   --viewport WxH       default 1280x800
//   --chromium PATH      default $CHROMIUM, or /usr/bin/chromium (never a downloaded browser)
//   -q                   only the summary line
//
// Last line: 'browser: N pages, C console errors, J js errors, D dialogs,
//   V navigations, X external requests, U javascript: urls, A a11y violations,
//   L load failures, S screenshots, P pdfs'
// Exit: 0 no problems; 1 problems found; 2 usage or infrastructure error
//       (DIR missing, no pages, Chromium failed to start, screenshot/PDF failed).
import { readdirSync, readFileSync, statSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startServer } from './lib/static-server.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const IMPACTS = ['minor', 'moderate', 'serious', 'critical'];

function usage(msg) {
  if (msg) console.error(`check-browser: ${msg}`);
  console.error('usage: check-browser.mjs DIR [--out DIR] [--screenshot PAGE]... [--screenshot-all] [--pdf PAGE]...\n' +
    '       [--axe-impact serious] [--allow-external] [--settle MS] [--viewport WxH] [--chromium PATH] [-q] [PAGE...]');
  process.exit(2);
}

const args = process.argv.slice(2);
const opt = { out: 'browser-out', shots: [], shotAll: false, pdfs: [], impact: 'serious', allowExternal: false,
  settle: 250, viewport: [1280, 800], chromium: process.env.CHROMIUM || '/usr/bin/chromium', quiet: false };
let dir = null;
const pagesArg = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  const val = () => (i + 1 < args.length ? args[++i] : usage(`${a} needs a value`));
  if (a === '--out') opt.out = val();
  else if (a === '--screenshot') opt.shots.push(val());
  else if (a === '--screenshot-all') opt.shotAll = true;
  else if (a === '--pdf') opt.pdfs.push(val());
  else if (a === '--axe-impact') {
    opt.impact = val();
    if (!IMPACTS.includes(opt.impact)) usage(`--axe-impact must be one of ${IMPACTS.join(', ')}`);
  } else if (a === '--allow-external') opt.allowExternal = true;
  else if (a === '--settle') opt.settle = Number(val());
  else if (a === '--viewport') {
    const m = /^(\d+)x(\d+)$/.exec(val());
    if (!m) usage('--viewport WxH');
    opt.viewport = [Number(m[1]), Number(m[2])];
  } else if (a === '--chromium') opt.chromium = val();
  else if (a === '-q' || a === '--quiet') opt.quiet = true;
  else if (a === '-h' || a === '--help') usage();
  else if (a.startsWith('-')) usage(`unknown option ${a}`);
  else if (dir === null) dir = a;
  else pagesArg.push(a);
}
if (!dir) usage();
dir = resolve(dir);
if (!existsSync(dir) || !statSync(dir).isDirectory()) usage(`${dir} is not a directory`);
if (!existsSync(opt.chromium)) usage(`${opt.chromium} not found (apt-get install chromium)`);

function walk(d, out = []) {
  for (const ent of readdirSync(d, { withFileTypes: true })) {
    if (ent.name === 'node_modules' || ent.name === '.git') continue;
    const p = join(d, ent.name);
    if (ent.isDirectory()) walk(p, out);
    else if (ent.isFile() && /\.html?$/i.test(ent.name)) out.push(relative(dir, p));
  }
  return out;
}
const clean = (p) => p.replace(/^\.?\//, '');
let pages = pagesArg.length ? pagesArg.map(clean) : walk(dir).sort();
for (const p of [...pages, ...opt.shots.map(clean), ...opt.pdfs.map(clean)]) {
  if (!existsSync(join(dir, p))) usage(`page ${p} not found under ${dir}`);
}
// screenshot/PDF pages are checked too
for (const p of [...opt.shots, ...opt.pdfs].map(clean)) if (!pages.includes(p)) pages.push(p);
if (pages.length === 0) usage(`no .html pages under ${dir}`);
const shotSet = new Set(opt.shotAll ? pages : opt.shots.map(clean));
const pdfSet = new Set(opt.pdfs.map(clean));

let chromium, axeSource;
try {
  ({ chromium } = await import('playwright-core'));
  axeSource = readFileSync(join(HERE, 'node_modules/axe-core/axe.min.js'), 'utf8');
} catch (e) {
  console.error(`check-browser: playwright-core/axe-core not installed (${e.message.split('\n')[0]}); run scripts/ci/install-tools.sh`);
  process.exit(2);
}

const counts = { console: 0, js: 0, dialog: 0, nav: 0, external: 0, jsurl: 0, a11y: 0, load: 0, shots: 0, pdfs: 0 };
let infraError = false;
const lines = [];
const report = (page, kind, msg) => {
  const line = `${page}: [${kind}] ${String(msg).replace(/\s+/g, ' ').slice(0, 500)}`;
  lines.push(line);
  if (!opt.quiet) console.log(line);
};

const { server, port } = await startServer(dir, 0);
const origin = `http://127.0.0.1:${port}`;
const userDataDir = mkdtempSync(join(tmpdir(), 'check-browser-profile-'));
let context;
try {
  // launchPersistentContext gives Chromium a fresh, throw-away --user-data-dir
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: opt.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    viewport: { width: opt.viewport[0], height: opt.viewport[1] },
    acceptDownloads: false,
    serviceWorkers: 'block',
  });
} catch (e) {
  console.error(`check-browser: Chromium failed to start: ${e.message.split('\n').slice(0, 6).join('\n')}`);
  server.close();
  rmSync(userDataDir, { recursive: true, force: true });
  process.exit(2);
}
if (shotSet.size || pdfSet.size) mkdirSync(opt.out, { recursive: true });
const outName = (p, ext) => join(opt.out, p.replace(/\.html?$/i, '').replace(/[\\/]/g, '__') + ext);
const stripHash = (u) => u.split('#')[0];
const isLocal = (u) => u.startsWith(origin + '/') || u === origin || /^(data|blob|about):/.test(u);

// Every external request is blocked and remembered (per page, see below).
let current = null; // per-page state
await context.route('**/*', (route) => {
  const req = route.request();
  const url = req.url();
  if (isLocal(url)) return route.continue();
  if (current) {
    const isNav = req.isNavigationRequest() && req.frame() === current.page.mainFrame();
    if (isNav) current.navs.add(url);
    else current.external.add(url);
  }
  return route.abort('blockedbyclient');
});
context.on('page', (p) => {
  if (current && p !== current.page) {
    current.popups.push(p.url() || '(about:blank)');
    p.close().catch(() => {});
  }
});

const page = context.pages()[0] || (await context.newPage());
const impactMin = IMPACTS.indexOf(opt.impact);
for (const rel of pages) {
  const url = `${origin}/${rel.split('/').map(encodeURIComponent).join('/')}`;
  const st = { page, navs: new Set(), external: new Set(), popups: [], consoleErrors: [], jsErrors: [], dialogs: [] };
  current = st;
  const onConsole = (msg) => {
    if (msg.type() !== 'error') return;
    const loc = msg.location()?.url || '';
    // a blocked external request also logs "Failed to load resource"; counted as external-request instead
    if (/net::ERR_BLOCKED_BY_CLIENT/.test(msg.text()) && !isLocal(loc)) return;
    st.consoleErrors.push(msg.text() + (loc && loc !== url ? ` (${loc.replace(origin, '')})` : ''));
  };
  const onPageError = (err) => st.jsErrors.push(err.message.split('\n')[0]);
  const onDialog = (d) => {
    st.dialogs.push(`${d.type()}(${JSON.stringify(d.message())})`);
    d.dismiss().catch(() => {});
  };
  const onNav = (frame) => {
    const u = frame.url();
    // chrome-error:// is where a blocked navigation lands; the navigation itself was recorded by onRequest/route
    if (frame === page.mainFrame() && stripHash(u) !== stripHash(url) && u !== 'about:blank' && !u.startsWith('chrome-error:')) {
      st.navs.add(u);
    }
  };
  const onRequest = (req) => {
    if (req.isNavigationRequest() && req.frame() === page.mainFrame() && stripHash(req.url()) !== stripHash(url)) {
      st.navs.add(req.url());
    }
  };
  page.on('console', onConsole);
  page.on('pageerror', onPageError);
  page.on('dialog', onDialog);
  page.on('framenavigated', onNav);
  page.on('request', onRequest);
  try {
    let resp = null;
    try {
      resp = await page.goto(url, { waitUntil: 'load', timeout: 30000 });
    } catch (e) {
      // a navigation started by the page itself aborts goto(); that is reported as [navigation]
      if (!st.navs.size) report(rel, 'load', `failed to load: ${e.message.split('\n')[0]}`), counts.load++;
    }
    if (resp && resp.status() !== 200) {
      report(rel, 'load', `HTTP ${resp.status()} for the page itself`);
      counts.load++;
    }
    await page.waitForTimeout(opt.settle);
    const stayed = stripHash(page.url()) === stripHash(url);
    if (stayed) {
      // javascript: URLs only run when clicked, so look for them in the DOM
      const jsUrls = await page.evaluate(() => {
        const out = [];
        for (const el of document.querySelectorAll('[href],[src],[action],[formaction],[xlink\\:href]')) {
          for (const a of ['href', 'src', 'action', 'formaction', 'xlink:href']) {
            const v = el.getAttribute(a);
            if (v && /^\s*javascript:/i.test(v)) out.push(`<${el.localName} ${a}="${v.slice(0, 80)}">`);
          }
        }
        return out;
      }).catch(() => []);
      for (const j of jsUrls) report(rel, 'javascript-url', `${j} -- script injection via URL?`), counts.jsurl++;
      try {
        await page.evaluate(axeSource);
        const res = await page.evaluate(async () => {
          // eslint-disable-next-line no-undef
          const r = await axe.run(document, { resultTypes: ['violations'] });
          return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => n.target.join(' ')) }));
        });
        for (const v of res) {
          if (IMPACTS.indexOf(v.impact) < impactMin) continue;
          const targets = v.nodes.slice(0, 3).join(', ') + (v.nodes.length > 3 ? `, … (${v.nodes.length} nodes)` : '');
          report(rel, 'a11y', `${v.id} (${v.impact}): ${v.help} -- ${targets}`);
          counts.a11y++;
        }
      } catch (e) {
        report(rel, 'a11y', `axe-core could not run: ${e.message.split('\n')[0]}`);
        counts.a11y++;
      }
    }
    for (const m of st.consoleErrors) report(rel, 'console-error', m), counts.console++;
    for (const m of st.jsErrors) report(rel, 'js-error', m), counts.js++;
    for (const m of st.dialogs) report(rel, 'dialog', `JavaScript dialog opened: ${m} -- script injection executed?`), counts.dialog++;
    for (const u of st.navs) report(rel, 'navigation', `page navigated away to ${u} -- script injection executed?`), counts.nav++;
    for (const u of st.popups) report(rel, 'navigation', `page opened a popup ${u}`), counts.nav++;
    for (const u of st.external) {
      report(rel, 'external-request', `request to ${u} (blocked)${opt.allowExternal ? ' [allowed]' : ''}`);
      if (!opt.allowExternal) counts.external++;
    }
    if (shotSet.has(rel)) {
      try {
        if (!stayed) await page.goto(url, { waitUntil: 'load' }).catch(() => {});
        const path = outName(rel, '.png');
        await page.screenshot({ path, fullPage: true });
        counts.shots++;
        if (!opt.quiet) console.log(`${rel}: screenshot ${path}`);
      } catch (e) {
        console.error(`check-browser: screenshot of ${rel} failed: ${e.message.split('\n')[0]}`);
        infraError = true;
      }
    }
    if (pdfSet.has(rel)) {
      try {
        const path = outName(rel, '.pdf');
        await page.emulateMedia({ media: 'print' });
        await page.pdf({ path, format: 'A4', printBackground: true, margin: { top: '12mm', bottom: '12mm', left: '12mm', right: '12mm' } });
        await page.emulateMedia({ media: null });
        const pdf = readFileSync(path);
        const nPages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) || []).length;
        if (!pdf.subarray(0, 5).equals(Buffer.from('%PDF-')) || nPages < 1) throw new Error('output is not a PDF with pages');
        counts.pdfs++;
        if (!opt.quiet) console.log(`${rel}: pdf ${path} (${nPages} page${nPages === 1 ? '' : 's'}, ${pdf.length} bytes)`);
      } catch (e) {
        console.error(`check-browser: PDF of ${rel} failed: ${e.message.split('\n')[0]}`);
        infraError = true;
      }
    }
  } finally {
    page.off('console', onConsole);
    page.off('pageerror', onPageError);
    page.off('dialog', onDialog);
    page.off('framenavigated', onNav);
    page.off('request', onRequest);
    current = null;
    // reset between pages: blank page, no cookies/storage carried over
    await page.goto('about:blank').catch(() => {});
    await context.clearCookies().catch(() => {});
  }
}
await context.close().catch(() => {});
server.close();
rmSync(userDataDir, { recursive: true, force: true });

const problems = counts.console + counts.js + counts.dialog + counts.nav + counts.external + counts.jsurl + counts.a11y + counts.load;
console.log(`browser: ${pages.length} pages, ${counts.console} console errors, ${counts.js} js errors, ${counts.dialog} dialogs, ` +
  `${counts.nav} navigations, ${counts.external} external requests, ${counts.jsurl} javascript: urls, ${counts.a11y} a11y violations, ` +
  `${counts.load} load failures, ${counts.shots} screenshots, ${counts.pdfs} pdfs`);
process.exit(infraError ? 2 : problems ? 1 : 0);

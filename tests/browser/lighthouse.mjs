#!/usr/bin/env node
// lighthouse.mjs VATCAR_SITE TOOLS CHROMIUM REPO [--keep DIR]
//
// Lighthouse on the live page and the home page (issue 39): a site built by VATCAR_SITE from
// the demo's data and site folder (REPO/demo, REPO/demo/site), with bookings around now and its [live] feed on a mock of
// VATSIM's data feed on 127.0.0.1 (the demo's sample feed, stamped with the time it is
// served, sent with the real feed's CORS header), served from 127.0.0.1 as a static host
// would. Lighthouse (from the TOOLS folder, pinned in tests/validators/package.json) runs
// each page in the system's CHROMIUM, never a downloaded one, with its default mobile
// settings, and every one of its four categories must score 100: performance,
// accessibility, best practices and SEO.
//
// Prints each page's four scores, and for a score under 100 the audits that cost it; exits 0
// when every score is 100, 1 otherwise. With --keep DIR, Lighthouse's JSON reports are kept
// there.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { demoSnapshot } from './lib/demo-snapshot.mjs';

const [given, tools, chromiumPath, repo, keepFlag, keepDir] = process.argv.slice(2);
if (!given || !tools || !chromiumPath || !repo || (keepFlag && (keepFlag !== '--keep' || !keepDir))) {
  console.error('usage: lighthouse.mjs VATCAR_SITE TOOLS CHROMIUM REPO [--keep DIR]');
  process.exit(2);
}
const binary = resolve(given);
const lighthouse = join(resolve(tools), 'node_modules', 'lighthouse', 'cli', 'index.js');
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const PAGES = [['home', '/'], ['live', '/live/']];

// ---- The mock data feed: the demo's sample, as of now ----

const sample = JSON.parse(readFileSync(join(repo, 'demo', 'vatsim-data.json'), 'utf8'));
const feedServer = createServer((request, response) => {
  const now = new Date();
  sample.general.update_timestamp = now.toISOString().replace('Z', '0000Z');
  sample.general.update = now.toISOString().slice(0, 19).replace(/[-T:]/g, '');
  response.writeHead(200, {
    'Content-Type': 'application/json',
    'Access-Control-Allow-Origin': '*',
    'Cache-Control': 'no-store',
  });
  response.end(JSON.stringify(sample));
});
await new Promise((done) => feedServer.listen(0, '127.0.0.1', done));
const feedOrigin = `http://127.0.0.1:${feedServer.address().port}`;

// ---- The site: the demo's data, bookings around now, [live] on the mock feed ----

const { work, snapshot } = demoSnapshot(repo, 'vatcar-lighthouse-');
const NOW = Date.now();
const hour = 3600e3;
const stamp = (ms) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
writeFileSync(join(snapshot, 'bookings.json'), JSON.stringify([
  { id: 1, cid: 1590318, type: 'booking', callsign: 'TJSJ_APP', start: stamp(NOW - hour), end: stamp(NOW + hour), division: 'CAR', subdivision: null },
  { id: 2, cid: 1382214, type: 'event', callsign: 'TJZS_CTR', start: stamp(NOW + 5 * hour), end: stamp(NOW + 7 * hour), division: 'CAR', subdivision: null },
  { id: 3, cid: 1234567, type: 'training', callsign: 'TJSJ_TWR', start: stamp(NOW + 26 * hour), end: stamp(NOW + 28 * hour), division: 'CAR', subdivision: null },
]));
// The demo's own site folder: its content pages and static files, as `build --demo` has them.
cpSync(join(repo, 'demo', 'site'), work, { recursive: true });
writeFileSync(join(work, 'vatcar-site.toml'), [
  '[live]',
  'callsigns = ["TJSJ", "TJZS"]',
  'airports = ["TJSJ", "TJBQ"]',
  `feed = "${feedOrigin}/v3/vatsim-data.json"`,
  '',
].join('\n'));

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript',
  '.svg': 'image/svg+xml', '.ics': 'text/calendar', '.json': 'application/json',
  '.xml': 'application/xml', '.txt': 'text/plain; charset=utf-8', '.png': 'image/png',
  '.ico': 'image/x-icon', '.webmanifest': 'application/manifest+json',
};
const siteServer = createServer((request, response) => {
  let path = decodeURIComponent(new URL(request.url, 'http://x').pathname);
  if (path.endsWith('/')) path += 'index.html';
  const root = join(work, 'public');
  const file = resolve(root, '.' + path);
  const found = file.startsWith(root) && statSync(file, { throwIfNoEntry: false })?.isFile();
  const served = found ? file : join(root, '404.html');
  response.writeHead(found ? 200 : 404, {
    'Content-Type': TYPES[extname(served)] || 'application/octet-stream',
    // What a static host sends for a site's files (a week for styles and scripts).
    'Cache-Control': /\.(css|js|svg|png|ico)$/.test(served) ? 'public, max-age=604800' : 'no-cache',
  });
  response.end(statSync(served, { throwIfNoEntry: false }) ? readFileSync(served) : '');
});
await new Promise((done) => siteServer.listen(0, '127.0.0.1', done));
const origin = `http://127.0.0.1:${siteServer.address().port}`;

const built = spawnSync(binary, ['build', '-q', '--snapshot', snapshot, '--config',
  join(work, 'vatcar-site.toml'), '--site-url', `${origin}/`, '--output', join(work, 'public')],
{ encoding: 'utf8' });
if (built.status !== 0) {
  console.error(`lighthouse: the build failed: ${built.stderr}`);
  process.exit(1);
}

// ---- Lighthouse, one page at a time ----

function run(url, report) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [lighthouse, url, '--quiet', '--output=json',
      `--output-path=${report}`, `--only-categories=${CATEGORIES.join(',')}`,
      `--chrome-path=${chromiumPath}`, '--chrome-flags=--headless=new --no-sandbox --disable-gpu',
      '--max-wait-for-load=30000'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('close', (code) => done({ code, stderr }));
  });
}

let failed = false;
const reports = keepDir ? resolve(keepDir) : join(work, 'reports');
mkdirSync(reports, { recursive: true });
for (const [name, path] of PAGES) {
  const report = join(reports, `${name}.json`);
  const ran = await run(origin + path, report);
  if (ran.code !== 0) {
    console.error(`lighthouse: ${path}: Lighthouse failed (${ran.code}): ${ran.stderr.slice(-2000)}`);
    failed = true;
    continue;
  }
  const result = JSON.parse(readFileSync(report, 'utf8'));
  const scores = CATEGORIES.map((c) => Math.round((result.categories[c]?.score ?? 0) * 100));
  console.log(`lighthouse: ${path}: ${CATEGORIES.map((c, i) => `${c} ${scores[i]}`).join(', ')}`);
  for (const [i, category] of CATEGORIES.entries()) {
    if (scores[i] === 100) continue;
    failed = true;
    for (const ref of result.categories[category].auditRefs) {
      const audit = result.audits[ref.id];
      if (ref.weight > 0 && audit.score !== null && audit.score < 1) {
        console.log(`  ${category}: ${ref.id} (${audit.score}): ${audit.title}${audit.displayValue ? ` (${audit.displayValue})` : ''}`);
      }
    }
  }
  if (result.runtimeError) {
    console.log(`  runtime error: ${result.runtimeError.message}`);
    failed = true;
  }
}

feedServer.close();
siteServer.close();
rmSync(join(work, 'public'), { recursive: true, force: true });
if (!keepDir) rmSync(work, { recursive: true, force: true });
console.log(failed ? 'lighthouse: a score is under 100' : 'lighthouse: ok');
process.exit(failed ? 1 : 0);

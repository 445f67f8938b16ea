#!/usr/bin/env node
// check-html: validate generated site directories.
//   node lib/check-html.mjs DIR [--site-url URL] [DIR [--site-url URL]]... [--warnings] [--no-links]
//   (--site-url belongs to the DIR before it)
// 1. Nu Html Checker (vnu.jar from npm vnu-jar, run on the system Java 17+)
//    on every .html file under each DIR, plus every .css and .svg file
//    (--also-check-css --also-check-svg, so <style>/style="" are checked too),
//    in one JVM for all the DIRs: starting one is most of the time vnu takes.
// 2. linkinator against each DIR served by lib/static-server.mjs on 127.0.0.1:
//    every internal link, asset (href/src/srcset/poster/CSS url()/@import)
//    and #fragment must resolve. External links are not fetched.
// Prints one line per problem, then 'html: N files, E errors, B broken links'
// (plus ', W warnings' with --warnings).
// Exit: 0 clean; 1 errors or broken links (or warnings, with --warnings);
//       2 usage or infrastructure error (no DIR, no .html files, vnu/java
//       could not run).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer } from './static-server.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const TOOLS = resolve(HERE, '..');

function usage(msg) {
  if (msg) console.error(`check-html: ${msg}`);
  console.error('usage: check-html.sh DIR [--site-url URL] [DIR [--site-url URL]]... [--warnings] [--no-links]');
  process.exit(2);
}

const args = process.argv.slice(2);
/** The sites to check: { dir, siteUrl }, in the order given. */
const sites = [];
let warnings = false;
let links = true;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--warnings' || a === '-w') warnings = true;
  else if (a === '--no-links') links = false;
  else if (a === '--site-url') {
    const url = args[++i] ?? usage('--site-url needs a URL');
    if (!sites.length) usage('--site-url comes after the DIR it belongs to');
    sites[sites.length - 1].siteUrl = url;
  } else if (a === '-h' || a === '--help') usage();
  else if (a.startsWith('-')) usage(`unknown option ${a}`);
  else sites.push({ dir: resolve(a), siteUrl: null });
}
if (!sites.length) usage();
for (const { dir } of sites) {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) usage(`${dir} is not a directory`);
}

function walk(d, out = []) {
  for (const ent of readdirSync(d, { withFileTypes: true })) {
    if (ent.name === 'node_modules' || ent.name === '.git') continue;
    const p = join(d, ent.name);
    if (ent.isDirectory()) walk(p, out);
    else if (ent.isFile()) out.push(p);
  }
  return out;
}
for (const site of sites) {
  const all = walk(site.dir).sort();
  site.html = all.filter((f) => /\.html?$/i.test(f));
  site.css = all.filter((f) => /\.css$/i.test(f));
  site.svg = all.filter((f) => /\.svg$/i.test(f));
  if (site.html.length === 0) {
    console.error(`check-html: no .html files under ${site.dir}`);
    console.log(`html: 0 files, 0 errors, 0 broken links`);
    process.exit(2);
  }
}
const rel = (f) => {
  const r = relative(process.cwd(), f);
  return r === '' ? '.' : r.startsWith('..') ? f : r;
};

// ------------------------------------------------------------------ vnu
function runVnu(files) {
  const jar = process.env.VNU_JAR || join(TOOLS, 'node_modules/vnu-jar/build/dist/vnu.jar');
  if (!existsSync(jar)) {
    console.error(`check-html: ${jar} missing; run scripts/ci/install-tools.sh`);
    process.exit(2);
  }
  const java = process.env.JAVA || 'java';
  // A short run: the quick compiler alone and one garbage collector thread cost half the CPU
  // of the JVM's defaults here, in less time.
  const argv = ['-Xss4m', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-jar', jar, '--format', 'json', '--stdout', '--exit-zero-always',
    '--also-check-css', '--also-check-svg'];
  if (!warnings) argv.push('--errors-only');
  argv.push(...files);
  return new Promise((ok) => {
    const p = spawn(java, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', (e) => {
      console.error(`check-html: cannot run ${java}: ${e.message} (Java 17+ is required)`);
      process.exit(2);
    });
    p.on('close', (code) => {
      try {
        ok(JSON.parse(out));
      } catch {
        console.error(`check-html: vnu produced no JSON (exit ${code}):\n${err.slice(-2000)}`);
        process.exit(2);
      }
    });
  });
}

let errors = 0;
let warns = 0;
const vnu = await runVnu(sites.flatMap((site) => [...site.html, ...site.css, ...site.svg]));
for (const m of vnu.messages || []) {
  const isErr = m.type === 'error' || m.type === 'non-document-error';
  const isWarn = m.type === 'info' && m.subType === 'warning';
  if (!isErr && !(warnings && isWarn)) continue;
  if (isErr) errors++;
  else warns++;
  let where = m.url ? rel(fileURLToPath(m.url)) : '(vnu)';
  const line = m.firstLine ?? m.lastLine;
  if (line !== undefined) where += `:${line}`;
  if (m.firstColumn !== undefined || m.lastColumn !== undefined) where += `:${m.firstColumn ?? m.lastColumn}`;
  const kind = isErr ? (m.subType === 'fatal' ? 'error (fatal)' : 'error') : 'warning';
  console.log(`${where}: ${kind}: [vnu] ${m.message.replace(/\s+/g, ' ')}`);
}

// ------------------------------------------------------------------ links
let broken = 0;
/** linkinator over one site: each broken link printed, and counted in `broken`. */
async function checkLinks({ dir, siteUrl, html, css }) {
  const { check } = await import('linkinator');
  const { Parser } = await import('htmlparser2');
  const { server, port } = await startServer(dir, 0);
  const base = `http://127.0.0.1:${port}/`;
  const toUrl = (f) => base + relative(dir, f).split('/').map(encodeURIComponent).join('/');
  const fromUrl = (u) => {
    try {
      const x = new URL(u);
      if (x.origin !== new URL(base).origin) return u;
      const local = rel(join(dir, decodeURIComponent(x.pathname)).replace(/\/+$/, ''));
      return local + (x.pathname.endsWith('/') ? '/' : '') + x.search + x.hash;
    } catch {
      return u;
    }
  };
  const skipped = new Set();
  const opts = {
    path: [...(existsSync(join(dir, 'index.html')) ? [base] : []), ...html.map(toUrl), ...css.map(toUrl)],
    recurse: true,
    checkCss: true,
    checkFragments: true,
    concurrency: 8,
    timeout: 15000,
    linksToSkip: async (link) => {
      const skip = !link.startsWith(base);
      if (skip) skipped.add(link);
      return skip;
    },
  };
  if (siteUrl) {
    const esc = siteUrl.replace(/\/?$/, '/').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    opts.urlRewriteExpressions = [{ pattern: new RegExp('^' + esc), replacement: base }];
  }
  let result;
  try {
    result = await check(opts);
  } finally {
    server.close();
  }
  // Pages that reference a given absolute URL (linkinator does not report a
  // parent for broken #fragments).
  const refsCache = new Map();
  const refsOf = (file) => {
    if (refsCache.has(file)) return refsCache.get(file);
    const refs = new Set();
    const pageUrl = toUrl(file);
    let baseHref = pageUrl;
    const p = new Parser({
      onopentag(name, attrs) {
        if (name === 'base' && attrs.href) baseHref = new URL(attrs.href, pageUrl).href;
        for (const k of ['href', 'src']) {
          if (attrs[k]) {
            try {
              refs.add(new URL(attrs[k], baseHref).href);
            } catch {}
          }
        }
      },
    });
    p.write(readFileSync(file, 'utf8'));
    p.end();
    refsCache.set(file, refs);
    return refs;
  };
  // '/dir/' and '/dir/index.html' are the same page
  const norm = (u) => u.replace(/^([^?#]*\/)([?#]|$)/, '$1index.html$2');
  const seen = new Set();
  for (const l of result.links) {
    if (l.state !== 'BROKEN') continue;
    const target = norm(l.url);
    let parents = l.parent ? [norm(l.parent)]
      : html.filter((f) => [...refsOf(f)].some((r) => norm(r) === target)).map(toUrl);
    if (parents.length === 0) parents = ['(start page)'];
    const isFragment = l.status >= 200 && l.status < 300 && l.url.includes('#');
    for (const parent of parents) {
      const key = `${target}|${parent}`;
      if (seen.has(key)) continue;
      seen.add(key);
      broken++;
      const why = isFragment ? 'no element with that id/name on the target page'
        : l.status ? `HTTP ${l.status}` : `request failed${l.failureDetails?.[0]?.message ? ': ' + l.failureDetails[0].message : ''}`;
      console.log(`${fromUrl(parent)}: broken link: ${fromUrl(l.url)} (${why})`);
    }
  }
  if (process.env.CHECK_HTML_VERBOSE) {
    for (const s of [...skipped].sort()) console.error(`check-html: external link not checked: ${s}`);
  }
}
if (links) {
  for (const site of sites) await checkLinks(site);
}

let summary = `html: ${sites.reduce((n, site) => n + site.html.length, 0)} files, ${errors} errors, ${broken} broken links`;
if (warnings) summary += `, ${warns} warnings`;
console.log(summary);
process.exit(errors || broken || (warnings && warns) ? 1 : 0);

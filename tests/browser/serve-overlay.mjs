#!/usr/bin/env node
// serve-overlay.mjs VATCAR_SITE TOOLS CHROMIUM
//
// `vatcar-site serve` in a browser: a page open in headless Chromium (playwright-core from
// the validators' TOOLS folder (tests/validators), the system's CHROMIUM, never a downloaded one) shows a failed
// rebuild's errors over the page, as text, with the last good site one click away; a page
// opened while the build is broken shows them at once; the next good build reloads both
// pages without them. Run by tests/it/serve_errors.rs.
//
// Prints "serve-overlay: ok" and exits 0, or says what failed and exits 1.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [given, tools, chromiumPath] = process.argv.slice(2);
const binary = given && resolve(given);
if (!given || !tools || !chromiumPath) {
  console.error('usage: serve-overlay.mjs VATCAR_SITE TOOLS CHROMIUM');
  process.exit(2);
}
const { chromium } = createRequire(join(tools, 'package.json'))('playwright-core');

const fail = (message) => {
  throw new Error(message);
};
const check = (ok, message) => ok || fail(message);

const site = mkdtempSync(join(tmpdir(), 'vatcar-overlay-'));
const page = join(site, 'content', 'join.md');
mkdirSync(join(site, 'content'));
writeFileSync(join(site, 'vatcar-site.toml'), '');
writeFileSync(page, '+++\ntitle = "Join us"\n+++\nSee the [roster](@/roster).\n');

const server = spawn(binary, ['serve', '--demo', '--port', '0', '--output', 'site'], {
  cwd: site,
  stdio: ['ignore', 'ignore', 'pipe'],
});
let printed = '';
const address = await new Promise((found, failed) => {
  server.stderr.on('data', (chunk) => {
    printed += chunk;
    const match = printed.match(/at (http:\/\/127\.0\.0\.1:\d+\/)/);
    if (match) found(match[1]);
  });
  server.on('exit', () => failed(new Error(`serve exited: ${printed}`)));
});

const browser = await chromium.launch({ executablePath: chromiumPath });
let status = 0;
try {
  const context = await browser.newContext();
  const open = await context.newPage();
  await open.goto(address + 'join/');
  check((await open.textContent('main h1')).includes('Join us'), 'the page did not load');

  // A broken rebuild: markup in the errors (a YAML title) must show as text.
  writeFileSync(
    page,
    '---\ntitle: <img src=x onerror="window.hacked=1">\n---\n[a](@/rostr)\n',
  );
  const overlay = open.locator('#vatcar-site-errors');
  await overlay.waitFor({ state: 'visible', timeout: 60_000 });
  const shown = await overlay.textContent();
  check(shown.includes('The site could not be rebuilt'), `no title in: ${shown}`);
  check(shown.includes('this front matter is YAML'), `no YAML error in: ${shown}`);
  check(shown.includes('title = "<img src=x onerror='), `the markup is not shown as text: ${shown}`);
  check(shown.includes('did you mean `@/roster`?'), `no suggestion in: ${shown}`);
  check((await overlay.locator('img').count()) === 0, 'the errors were read as markup');
  check((await open.evaluate(() => window.hacked)) === undefined, 'a script in the errors ran');
  check((await open.getAttribute('#vatcar-site-errors', 'role')) === 'alertdialog', 'no role');
  // Opaque in both schemes: the page's header and heading do not show through the errors.
  for (const colorScheme of ['light', 'dark']) {
    await open.emulateMedia({ colorScheme });
    const background = await overlay.evaluate((node) => getComputedStyle(node).backgroundColor);
    check(/^rgb\(\d+, \d+, \d+\)$/.test(background), `${colorScheme}: the overlay's background is ${background}, not opaque`);
  }
  // Behind it, the last good site; one click away.
  check((await open.textContent('main h1')).includes('Join us'), 'the page behind changed');
  await open.getByRole('button', { name: 'Show the last good site' }).click();
  check((await overlay.count()) === 0, 'the overlay did not close');

  // A page opened now shows the errors at once.
  const later = await context.newPage();
  await later.goto(address);
  await later.locator('#vatcar-site-errors').waitFor({ state: 'visible', timeout: 30_000 });

  // The next good build reloads both, without the errors.
  const reloaded = open.waitForEvent('load', { timeout: 60_000 });
  const laterReloaded = later.waitForEvent('load', { timeout: 60_000 });
  writeFileSync(page, '+++\ntitle = "Welcome aboard"\n+++\nSee the [roster](@/roster).\n');
  await reloaded;
  await laterReloaded;
  check((await open.textContent('main h1')).includes('Welcome aboard'), 'not the new build');
  check((await open.locator('#vatcar-site-errors').count()) === 0, 'the errors stayed');
  check((await later.locator('#vatcar-site-errors').count()) === 0, 'the errors stayed');
  console.log('serve-overlay: ok');
} catch (error) {
  console.error(`serve-overlay: FAILED: ${error.message}\nserve printed:\n${printed}`);
  status = 1;
} finally {
  await browser.close();
  server.kill();
  rmSync(site, { recursive: true, force: true });
}
process.exit(status);

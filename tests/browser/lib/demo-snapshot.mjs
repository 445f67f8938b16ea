// The demo's API answers copied into a new snapshot folder of a new temporary folder, for the
// Chromium tests that build a site of their own (the bookings and the feed they write
// themselves): { work, snapshot }; the caller removes `work`.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function demoSnapshot(repo, prefix) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const snapshot = join(work, 'snapshot');
  mkdirSync(snapshot);
  for (const name of readdirSync(join(repo, 'demo'))) {
    if (name.endsWith('.json') && name !== 'bookings.json' && name !== 'vatsim-data.json') {
      copyFileSync(join(repo, 'demo', name), join(snapshot, name));
    }
  }
  return { work, snapshot };
}

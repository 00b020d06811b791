// What the browser tests share: the Chromium and the netprof they drive,
// where their pages and screenshots go, Chromium's flags, and the skip
// (exit 77) when one of them is missing. CI (NETPROF_TESTS_NO_SKIP=1) ran
// the install step, so there a missing one is a failure.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const BIN = process.env.NETPROF_BIN;
export const OUT = process.env.NETPROF_BROWSER_OUT ||
  path.join(process.env.NETPROF_TEST_TMP || tmpdir(), 'browser');
export const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-quic'];

export function skip(why) {
  if (process.env.NETPROF_TESTS_NO_SKIP === '1') {
    console.log(`FAIL: ${why}`);
    process.exit(1);
  }
  console.log(`SKIP: ${why}`);
  process.exit(77);
}

if (!BIN || !existsSync(BIN)) skip('NETPROF_BIN is not set to the built netprof');
if (!existsSync(CHROMIUM)) skip(`${CHROMIUM} is missing; run tests/browser/install.sh`);
let playwright;
try {
  playwright = await import('playwright-core');
} catch {
  skip('playwright-core is not installed; run tests/browser/install.sh');
}
export const { chromium } = playwright;
mkdirSync(OUT, { recursive: true });

// A Chromium of its own: a fresh profile directory that is also its HOME and
// XDG directories (Chromium writes ~/.config/chromium and ~/.cache/dconf
// beside any --user-data-dir), removed by close(). Nothing lands in the
// home of the user who runs the tests.
export async function launch(options = {}) {
  const profile = mkdtempSync(path.join(process.env.NETPROF_TEST_TMP || tmpdir(),
    'netprof-chromium-'));
  const home = path.join(profile, 'home');
  mkdirSync(home);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'), XDG_DATA_HOME: path.join(home, '.local/share') };
  const context = await chromium.launchPersistentContext(path.join(profile, 'profile'), {
    executablePath: CHROMIUM, headless: true, args: FLAGS, env, ...options,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

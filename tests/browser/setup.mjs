// What the browser tests share: the Chromium and the netprof they drive,
// where their pages and screenshots go, Chromium's flags, and the skip
// (exit 77) when one of them is missing. CI (NETPROF_TESTS_NO_SKIP=1) ran
// the install step, so there a missing one is a failure.
import { existsSync, mkdirSync } from 'node:fs';
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

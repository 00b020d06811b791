// A trace in Jaeger's UI, as a PNG: the picture in docs/tracing.md.
//
//   node tests/browser/trace.mjs QUERY_URL TRACE_ID OUT.png
//
// Opens QUERY_URL/trace/TRACE_ID in headless Chromium (Debian's, through
// playwright-core, with a home of its own: setup.mjs's launch(), as the
// browser tests) and takes the page once the
// trace's rows are drawn. test_trace_jaeger.sh runs it on its bench trace
// when its Jaeger serves a UI (NETPROF_TEST_JAEGER_UI: the jaeger_query
// extension's ui.assets_path; the Go module's build has no UI of its own).
import { launch } from './setup.mjs';

const [url, traceId, out] = process.argv.slice(2);
if (!url || !traceId || !out) {
  console.error('usage: trace.mjs QUERY_URL TRACE_ID OUT.png');
  process.exit(2);
}
const chrome = await launch({ viewport: { width: 1500, height: 1000 },
  deviceScaleFactor: 1 });
try {
  const page = await chrome.context.newPage();
  await page.goto(`${url}/trace/${traceId}`, { waitUntil: 'networkidle' });
  // the timeline's rows, one per span
  await page.waitForSelector('.span-row', { timeout: 20000 });
  await page.waitForTimeout(500);
  const rows = await page.locator('.span-row').count();
  await page.screenshot({ path: out, fullPage: true });
  console.log(`trace ${traceId}: ${rows} rows drawn, ${out}`);
} finally {
  await chrome.close();
}

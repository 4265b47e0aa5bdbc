// Opens the code-server workbench in headless Debian chromium (the remote extension host starts only when a
// browser connects), waits for the probe's result file, then takes the UI screenshots.
// Usage: node browser.mjs URL RESULT_JSON SHOTS_DIR TIMEOUT_MS
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const [url, resultPath, shots, timeoutArg] = process.argv.slice(2);
const timeout = Number(timeoutArg || 300000);
const started = Date.now();
const log = (msg) => console.log(`[browser ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);

function readResult() {
  try {
    return JSON.parse(fs.readFileSync(resultPath, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Polls until the probe is done or failed (no fixed sleeps: a bounded wait for a condition). */
async function waitForProbe(page) {
  let last = '';
  while (Date.now() - started < timeout) {
    const result = readResult();
    const steps = result ? result.steps.join(', ') : '';
    if (steps !== last) log(`probe: ${steps}`);
    last = steps;
    if (result && (result.done || result.error)) return result;
    await page.waitForTimeout(250);
  }
  throw new Error(`the probe did not finish within ${timeout} ms`);
}

async function screenshots(page) {
  fs.mkdirSync(shots, { recursive: true });
  // The squiggle under `past_key_values=DynamicCache()` (VS Code marks error decorations .squiggly-error).
  const squiggle = page.locator('.squiggly-error').first();
  await squiggle.waitFor({ state: 'visible', timeout: 60000 });
  const box = await squiggle.boundingBox();
  // The editor opens its hover on mouse *movement* over the range (a single jump may not count):
  // come in from below the line in steps.
  await page.mouse.move(box.x + box.width / 2, box.y + box.height * 4);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 8 });
  await page.getByText('cache-conflict', { exact: false }).first().waitFor({ state: 'visible', timeout: 30000 });
  await page.screenshot({ path: path.join(shots, 'hover.png') });
  log('hover.png');

  // Cursor into the flagged range, then the quick-fix menu with Ctrl+.
  await page.mouse.click(box.x + 8, box.y + box.height / 2);
  // Off the range, so the hover does not come back over the menu; on a loaded machine the first Ctrl+. can
  // go unanswered: ask again (a bounded number of times).
  await page.mouse.move(box.x + 8, box.y + box.height * 14, { steps: 4 });
  await page.keyboard.press('Escape');
  const fix = page.getByText('Set `cache_implementation=None` in this call').first();
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Control+Period');
    try {
      await fix.waitFor({ state: 'visible', timeout: 15000 });
      break;
    } catch (error) {
      if (attempt === 3) throw error;
      log(`quick-fix menu not shown (attempt ${attempt}); again`);
      await page.keyboard.press('Escape');
    }
  }
  await page.screenshot({ path: path.join(shots, 'quickfix.png') });
  log('quickfix.png');
  await page.keyboard.press('Escape');

  // The language status (the `{}` beside "Python"): hovering it opens the items, ours among them.
  const languageStatus = page.locator('[id="status.languageStatus"]').first();
  await languageStatus.waitFor({ state: 'visible', timeout: 30000 });
  await languageStatus.hover();
  await page.getByText('hf-cache-lint target', { exact: false }).first().waitFor({ state: 'visible', timeout: 30000 });
  await page.screenshot({ path: path.join(shots, 'language-status.png') });
  log('language-status.png');

  // A file that is not Python (notes.txt, opened with Quick Open): none of our items may show.
  await page.mouse.move(400, 400);
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+P');
  await page.keyboard.type('notes.txt', { delay: 20 });
  await page.keyboard.press('Enter');
  await page.getByRole('tab', { name: /notes\.txt/ }).first().waitFor({ state: 'visible', timeout: 30000 });
  await page.locator('.statusbar').getByText('Plain Text', { exact: false }).first().waitFor({ timeout: 30000 });
  const indicator = page.locator('[id="status.languageStatus"]');
  const indicatorShown = (await indicator.count()) > 0 && (await indicator.first().isVisible());
  // Without the `{}` indicator no language status item shows at all (ours would bring it for any language
  // they were scoped to); with it, hover and give our items a bounded time to appear.
  let oursShown = false;
  if (indicatorShown) {
    await indicator.first().hover();
    oursShown = await page.getByText('hf-cache-lint target', { exact: false }).first()
      .waitFor({ state: 'visible', timeout: 3000 }).then(() => true, () => false);
  }
  fs.writeFileSync(path.join(shots, 'non-python.json'), JSON.stringify({ indicatorShown, oursShown }));
  await page.screenshot({ path: path.join(shots, 'non-python.png') });
  log(`non-python.png (language status shown: ${indicatorShown}, ours: ${oursShown})`);
}

/** The notification centre's text (the probe opened it), and its screenshot. */
async function notifications(page) {
  fs.mkdirSync(shots, { recursive: true });
  const center = page.locator('.notifications-center').first();
  await center.waitFor({ state: 'visible', timeout: 30000 });
  await page.getByText('hf-cache-lint:', { exact: false }).first().waitFor({ state: 'visible', timeout: 30000 });
  fs.writeFileSync(path.join(shots, 'notifications.txt'), await center.innerText());
  await page.screenshot({ path: path.join(shots, 'notifications.png') });
  log('notifications.png');
}

const browser = await chromium.launch({
  executablePath: process.env.HFC_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
let code = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on('console', (m) => {
    if (m.type() === 'error') log(`console: ${m.text().slice(0, 300)}`);
  });
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 120000 });
  await page.locator('.monaco-workbench').waitFor({ timeout: 120000 });
  log('workbench loaded');
  const result = await waitForProbe(page);
  if (result.error) {
    log(`probe failed: ${result.error}`);
  } else if (shots) {
    if (result.showNotifications) {
      await notifications(page).catch((error) => log(`notifications failed: ${error}`));
    }
    try {
      await screenshots(page);
    } catch (error) {
      // Screenshots are documentation: record the failure, keep the probe's verdict.
      fs.mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, 'failure.png') }).catch(() => {});
      log(`screenshots failed: ${error}`);
      code = 3;
    }
  }
} catch (error) {
  log(`error: ${error && error.stack ? error.stack : error}`);
  code = 2;
} finally {
  await browser.close();
}
process.exit(code);

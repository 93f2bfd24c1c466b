// Pictures of each page for the manual (docs/images/, 1280x800), from a real server: a session
// retried once, a batch with a failing goal, workers, configuration. Run with
// WEB_TEST_SCREENSHOTS=DIR (scripts/web-screenshots.sh sets docs/images); the pages are checked
// whether or not pictures are kept.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {after, before, test} from 'node:test';
import {api, launch, openDetails, pageErrors, server, signedIn} from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function shot(page, name) {
  if (!server.screenshots) return;
  fs.mkdirSync(server.screenshots, {recursive: true});
  await page.evaluate(() => document.activeElement?.blur());
  await page.screenshot({path: path.join(server.screenshots, `serve-${name}.png`)});
}

test('every page renders a real session and batch', async () => {
  // A node --test suite of four, three of which want changelog.txt: "failing 3 → 0".
  fs.writeFileSync(path.join(server.workspace, 'changelog.test.mjs'), [
    "import {test} from 'node:test';",
    "import assert from 'node:assert';",
    "import fs from 'node:fs';",
    "const has = () => fs.existsSync('changelog.txt');",
    "test('the entry exists', () => assert.ok(has()));",
    "test('the entry names the flag', () => assert.ok(has()));",
    "test('the entry is under Unreleased', () => assert.ok(has()));",
    "test('the flag parses', () => assert.ok(true));",
    ''].join('\n'));
  const retried = await api('POST', '/api/v1/sessions', {
    goal: 'Add a CHANGELOG entry for the new --dry-run flag and note it in the file changelog.txt',
    verify: 'node --test changelog.test.mjs', max_iterations: 3});
  assert.equal(retried.status, 201, retried.text);
  // The scripted model writes the file each goal names on its second attempt; lint's check wants
  // another file, so that goal fails.
  const goals = [
    {id: 'parser', goal: 'Split the parser into modules and list them in the file parser.txt', verify: 'test -f parser.txt'},
    {id: 'docs', goal: 'Document the cache options and index them in the file docs.txt', verify: 'test -f docs.txt'},
    {id: 'lint', goal: 'Fix every lint warning and report it in the file lint.txt', verify: 'test -f lint-clean.txt'},
  ].map((g) => ({...g, max_iterations: 2}));
  const batch = await api('POST', '/api/v1/batches', {goals, concurrency: 2, cost_budget: 1});
  assert.equal(batch.status, 201, batch.text);

  const {page} = await signedIn(browser);
  await page.goto(`${server.base}/sessions/${encodeURIComponent(retried.json.id)}`);
  await page.waitForSelector(`[data-page="session"][data-status="completed"]`);
  await page.waitForSelector('[data-testid="attempt"][data-iteration="2"][data-outcome="pass"]');
  // The runner's counts: three failing, then none.
  assert.equal(await page.innerText('[data-testid="failing-trend"]'), 'failing 3 → 0');
  assert.match(await page.innerText('[data-testid="verdict-matrix"] td[data-iteration="1"]'), /3 failing \/ 4/);
  await openDetails(page, '[data-testid="attempt"][data-iteration="1"]');
  // Fold the last attempt, so the picture shows the first one's feedback.
  await page.locator('[data-testid="attempt"][data-iteration="2"]').evaluate((el) => { el.open = false; });
  await page.waitForSelector('[data-testid="attempt"][data-iteration="1"] [data-testid="feedback"]');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, 'session');
  await page.evaluate(() => document.querySelector('[data-testid="timeline"]').scrollIntoView());
  await shot(page, 'session-attempt');
  // The verifier's whole output, fetched when its cell opens.
  const output = '[data-testid="verdict-matrix"] td[data-iteration="1"] details.lazy';
  await page.click(`${output} > summary`);
  await page.waitForSelector(`${output}[data-loaded="true"]`);
  assert.match(await page.locator(`${output} pre`).innerText(), /the entry exists/);

  await page.goto(`${server.base}/batches/${encodeURIComponent(batch.json.id)}`);
  await page.waitForSelector('[data-page="batch"][data-state="finished"]');
  await page.waitForSelector('[data-testid="failing-verifiers"] li');
  await shot(page, 'batch');

  await page.goto(`${server.base}/`);
  await page.waitForSelector('[data-page="sessions"][data-loaded="true"]');
  assert.ok(await page.locator('[data-testid="session-row"]').count() >= 4);
  await shot(page, 'sessions');

  // (workers.test.mjs takes the workers page, with a PostgreSQL store and a worker.)
  await page.goto(`${server.base}/workers`);
  await page.waitForSelector('[data-page="workers"][data-loaded="true"][data-workers="0"]');

  await page.goto(`${server.base}/config`);
  await page.waitForSelector('[data-page="config"][data-loaded="true"]');
  assert.ok(await page.locator('[data-testid="config-body"] tr').count() > 5);
  await shot(page, 'config');
  assert.deepEqual(pageErrors, []);
});

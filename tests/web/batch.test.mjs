// A batch page while the batch runs: the goal grid follows each goal, spend and the verifiers
// that fail most show, and re-running the failed goals becomes possible at the end.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {api, explain, launch, pageErrors, release, server, signedIn} from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// Each goal works in a git worktree of the server's workspace of its own.
function goal(id, marker) {
  return {id, goal: `Create the file the check wants [model:${marker}]`, verify: `test -f ${id}.txt`, max_iterations: 2};
}

test('the batch page follows a running batch to its end', async () => {
  const started = await api('POST', '/api/v1/batches', {
    goals: [goal('bheld', 'bheld:held'), goal('blazy', 'blazy:lazy'), goal('bfast', 'bfast')], concurrency: 3});
  assert.equal(started.status, 201, started.text);
  const id = started.json.id;

  const {page} = await signedIn(browser);
  await page.goto(`${server.base}/batches/${encodeURIComponent(id)}`);
  await page.waitForSelector(`[data-page="batch"][data-batch-id="${id}"][data-state="running"]`);
  await page.waitForSelector('[data-testid="goal-card"][data-goal-id="bheld"][data-state="running"]');
  assert.equal(await page.locator('[data-testid="goal-card"]').count(), 3);
  assert.equal(await page.locator('[data-testid="batch-stop"]').isEnabled(), true);
  // The goals that need no gate end while the held one still runs.
  await page.waitForSelector('[data-testid="goal-card"][data-goal-id="bfast"][data-state="done"][data-verified="true"]')
    .catch(explain(`/api/v1/batches/${id}`));
  await page.waitForSelector('[data-testid="goal-card"][data-goal-id="blazy"]:is([data-state="failed"], [data-state="done"][data-verified="false"])');
  assert.equal(await page.getAttribute('[data-page="batch"]', 'data-state'), 'running');

  await release('bheld', 1, 2, 3);
  await page.waitForSelector(`[data-page="batch"][data-state="finished"]`);
  await page.waitForSelector('[data-testid="goal-card"][data-goal-id="bheld"][data-state="done"][data-verified="true"]');
  const failing = page.locator('[data-testid="failing-verifiers"] li');
  await failing.first().waitFor();
  assert.equal(await failing.count(), 1);
  assert.match(await failing.first().getAttribute('data-verifier'), /blazy\.txt/);
  assert.equal(await page.locator('[data-testid="batch-rerun-failed"]').isEnabled(), true);
  assert.equal(await page.locator('[data-testid="batch-stop"]').isEnabled(), false);

  // The batches list has it, finished.
  await page.click('nav a[data-nav="batches"]');
  await page.waitForSelector(`[data-testid="batch-row"][data-batch-id="${id}"][data-state="finished"]`);
  assert.deepEqual(pageErrors, []);
});

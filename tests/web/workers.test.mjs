// The workers page over a PostgreSQL store: a `ralph worker` holding the queued goals, live, and
// the queue's batch.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {after, before, test} from 'node:test';
import {launch, pageErrors, release, server, signedIn} from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('the workers page shows a worker with its goals and the queue, live', async () => {
  const {page} = await signedIn(browser);
  await page.goto(`${server.base}/workers`);
  // The worker takes both goals; their model calls wait, so it holds them.
  const row = page.locator('[data-testid="worker-row"]');
  await page.waitForSelector('[data-testid="worker-row"] [data-goal-id="refactor"]');
  await page.waitForSelector('[data-testid="worker-row"] [data-goal-id="docs"]');
  assert.equal(await row.count(), 1);
  assert.equal(await row.getAttribute('data-stale'), 'false');
  await page.waitForSelector('[data-testid="queue"] [data-testid="batch-row"]');
  if (server.screenshots) {
    fs.mkdirSync(server.screenshots, {recursive: true});
    await page.screenshot({path: path.join(server.screenshots, 'serve-workers.png')});
  }

  await release('w1', 1, 2, 3);
  await release('w2', 1, 2, 3);
  // Done: the worker holds nothing (or has left).
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="worker-row"] [data-goal-id]').length === 0);
  assert.deepEqual(pageErrors, []);
});

// A server started with --read-only: the pages show what is recorded and offer no action.
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import {api, launch, pageErrors, signedIn} from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('a read-only server shows sessions and offers no action', async () => {
  const {page} = await signedIn(browser);
  await page.waitForSelector('[data-page="sessions"][data-loaded="true"]');
  assert.equal(await page.getAttribute('body', 'data-read-only'), 'true');
  assert.equal(await page.locator('[data-testid="start-form"]').count(), 0);
  const row = page.locator('[data-testid="session-row"][data-status="completed"][data-verified="true"]');
  await row.waitFor();
  const id = await row.getAttribute('data-session-id');

  await page.click(`tr[data-session-id="${id}"] td.goal a`);
  await page.waitForSelector(`[data-page="session"][data-session-id="${id}"][data-status="completed"]`);
  for (const action of ['stop', 'resume', 'rerun', 'verify']) {
    assert.equal(await page.locator(`[data-testid="action-${action}"]`).isDisabled(), true, action);
  }
  // The recorded attempts are there: a failing one, then a passing one.
  await page.waitForSelector('[data-testid="attempt"][data-iteration="1"][data-outcome="fail"]');
  await page.waitForSelector('[data-testid="attempt"][data-iteration="2"][data-outcome="pass"]');

  // No snapshots of a session the server did not run: its diff is "not available".
  await page.click('[data-testid="whole-diff"] details > summary');
  await page.waitForSelector('[data-testid="whole-diff"] details[data-available="false"] [data-testid="diff-unavailable"]');

  // And the server refuses what the page does not offer.
  const refused = await api('POST', `/api/v1/sessions/${encodeURIComponent(id)}/rerun`, {});
  assert.equal(refused.status, 403);
  assert.equal(refused.json.error.code, 'read_only');
  assert.deepEqual(pageErrors, []);
});

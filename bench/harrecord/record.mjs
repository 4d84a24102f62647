// Records the HAR files of importers/har/testdata with Debian's Chromium,
// driven through the DevTools protocol by playwright-core: `go run
// ./bench/harrecord` starts the sites and runs this script.
//
//   node record.mjs SHOP_URL DEMO_URL OUT_DIR [CHROMIUM]
import { chromium } from 'playwright-core';
import path from 'node:path';

const [shop, demo, outDir, executablePath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!shop || !demo || !outDir) {
  console.error('usage: node record.mjs SHOP_URL DEMO_URL OUT_DIR [CHROMIUM]');
  process.exit(2);
}
const pause = ms => new Promise(r => setTimeout(r, ms));

async function record(file, visit) {
  const browser = await chromium.launch({ executablePath, headless: true });
  const context = await browser.newContext({ recordHar: { path: path.join(outDir, file), content: 'embed' } });
  const page = await context.newPage();
  await visit(page);
  await context.close(); // writes the HAR
  await browser.close();
  console.log('wrote', path.join(outDir, file));
}

// The shop: the login form with its CSRF token, then the dashboard, whose
// script carries a second token and an id from one request to the next.
await record('shop.har', async page => {
  await page.goto(shop + '/login');
  await pause(600);
  await page.fill('input[name=username]', 'alice');
  await page.fill('input[name=password]', 'wonderland');
  await pause(300);
  await Promise.all([page.waitForURL('**/dashboard'), page.click('button[type=submit]')]);
  await page.waitForFunction(() => document.title === 'done', null, { timeout: 10000 });
  await pause(500);
});

// loadgate's built-in server: its API, driven by fetch from its own page
// as a single-page application would.
await record('builtin-api.har', async page => {
  await page.goto(demo + '/');
  await pause(300);
  await page.evaluate(async () => {
    const pause = ms => new Promise(r => setTimeout(r, ms));
    const json = { 'Content-Type': 'application/json', 'Accept': 'application/json' };
    const login = await (await fetch('/api/login', { method: 'POST', headers: json,
      body: JSON.stringify({ user: 'user1', pass: 'pw-user1' }) })).json();
    const auth = { 'Accept': 'application/json', 'Authorization': 'Bearer ' + login.access_token };
    await pause(500);
    const items = await (await fetch('/api/items?page=2', { headers: auth })).json();
    await pause(800);
    const item = await (await fetch('/api/items/' + items.items[3].id, { headers: auth })).json();
    await pause(400);
    const order = await fetch('/api/orders', { method: 'POST', headers: { ...auth, ...json },
      body: JSON.stringify({ item: item.id, qty: 2 }) });
    await pause(200);
    await (await fetch(order.headers.get('Location'), { headers: auth })).json();
  });
  await pause(300);
});

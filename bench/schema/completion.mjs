// Asks yaml-language-server, the engine of VS Code's YAML extension and of
// most other editors' YAML support, what it offers while a scenario is
// typed against docs/loadgate.schema.json: completions of keys with their
// documentation and default, of values (defaults, examples, enums), and a
// hover. Prints what it got and exits 1 when an expected offer is missing.
//
//   npm install --prefix /tmp/yls yaml-language-server@latest
//   node bench/schema/completion.mjs /tmp/yls/node_modules/.bin/yaml-language-server > bench/schema/completion.txt
//
// The server runs over stdio; the documents are opened in memory under
// bench/schema/, each starting with the modeline a user writes,
// `# yaml-language-server: $schema=../../docs/loadgate.schema.json`, so the
// server reads the schema from the repository. Nothing touches the network.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const server = process.argv[2] || process.env.YAML_LANGUAGE_SERVER || 'yaml-language-server';
const modeline = '# yaml-language-server: $schema=../../docs/loadgate.schema.json\n';
const head = 'version: 1\nname: probe\ntargets:\n  - name: api\n    http:\n      url: http://127.0.0.1:8080/\n';

// Each probe is a document with | where the cursor is, and what the
// answer must hold.
const probes = [
  {
    name: 'keys of a phase',
    text: head + 'phases:\n  - name: steady\n    duration: 30s\n    |\n',
    want: {
      labels: ['concurrency', 'rate', 'graceful_stop', 'trials', 'think_time'],
      doc: { graceful_stop: 'Default `30s`', max_in_flight: 'default `1000`', concurrency: 'default `1`' },
      insert: { warmup: 'false', interleave: 'false' },
    },
  },
  {
    name: 'value of graceful_stop',
    text: head + 'phases:\n  - name: steady\n    duration: 30s\n    graceful_stop: |\n',
    want: { labels: ['30s', '5s', '0s'], detail: { '30s': 'Default value' } },
  },
  {
    name: 'keys of an http target',
    text: 'version: 1\nname: probe\ntargets:\n  - name: api\n    http:\n      url: http://127.0.0.1:8080/\n      |\nphases:\n  - { name: m, requests: 1 }\n',
    want: {
      labels: ['timeout', 'keepalive', 'max_body', 'method', 'http2'],
      doc: { timeout: 'Default `30s`', max_body: 'Default `10MiB`', method: 'default `GET`' },
      insert: { keepalive: 'true', http2: 'false' },
    },
  },
  {
    name: 'value of an http method',
    text: head + '      method: |\nphases:\n  - { name: m, requests: 1 }\n',
    want: { labels: ['GET', 'POST', 'PUT', 'DELETE'], detail: { GET: 'Default value' } },
  },
  {
    name: 'value of a data source mode (enum)',
    text: head + 'data:\n  users:\n    file: users.csv\n    mode: |\nphases:\n  - { name: m, requests: 1 }\n',
    want: { labels: ['sequential', 'random', 'unique'] },
  },
  {
    name: 'value of stop_signal (enum beside a pattern)',
    text: head + 'server:\n  command: ./server\n  stop_signal: |\nphases:\n  - { name: m, requests: 1 }\n',
    want: { labels: ['TERM', 'INT', 'KILL'] },
  },
  {
    name: 'keys of the scenario',
    text: head + 'phases:\n  - { name: m, requests: 1 }\n|\n',
    want: { labels: ['monitors', 'monitor', 'server', 'thresholds', 'matrix'], doc: { monitors: 'servers.NAME.cpu' } },
  },
  {
    // What docs/scenario.md's VS Code settings do, without a modeline.
    name: 'keys of a phase, schema from yaml.schemas',
    file: 'loadtests/api.yaml',
    noModeline: true,
    text: head + 'phases:\n  - name: steady\n    requests: 10\n    |\n',
    want: { labels: ['duration', 'concurrency', 'rate'], doc: { concurrency: 'default `1`' } },
  },
  {
    name: 'hover on timeout',
    hover: true,
    text: 'version: 1\nname: probe\ntargets:\n  - name: api\n    http:\n      url: http://127.0.0.1:8080/\n      time|out: 5s\nphases:\n  - { name: m, requests: 1 }\n',
    want: { hover: ['Default `30s`', '5s'] },
  },
];

let nextId = 1;
const pending = new Map();
const diagnostics = new Map();
const cursorLine = new Map();
const child = spawn(server, ['--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
child.on('error', (err) => fail(`cannot start ${server}: ${err.message}`));
const timer = setTimeout(() => fail('no answer within 60s'), 60_000);

function fail(msg) {
  console.log(`FAIL: ${msg}`);
  child.kill();
  process.exit(1);
}

function send(msg) {
  const body = JSON.stringify({ jsonrpc: '2.0', ...msg });
  child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

function request(method, params) {
  const id = nextId++;
  send({ id, method, params });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

const settings = {
  yaml: {
    validate: true,
    hover: true,
    completion: true,
    format: { enable: false },
    schemaStore: { enable: false },
    schemas: { './docs/loadgate.schema.json': ['loadtests/*.yaml'] },
  },
};

// The server asks for its settings and registers capabilities; a client
// must answer, or the server waits.
function onServerRequest(msg) {
  if (msg.method === 'workspace/configuration') {
    send({ id: msg.id, result: msg.params.items.map((i) => (i.section ? settings[i.section] ?? null : settings)) });
  } else {
    send({ id: msg.id, result: null });
  }
}

let buf = Buffer.alloc(0);
child.stdout.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, end).toString())[1]);
    if (buf.length < end + 4 + len) return;
    const msg = JSON.parse(buf.subarray(end + 4, end + 4 + len).toString());
    buf = buf.subarray(end + 4 + len);
    if (msg.id !== undefined && msg.method) onServerRequest(msg);
    else if (msg.id !== undefined) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) p.reject(new Error(JSON.stringify(msg.error)));
      else p.resolve(msg.result);
    } else if (msg.method === 'textDocument/publishDiagnostics') {
      diagnostics.set(msg.params.uri, msg.params.diagnostics);
    }
  }
});

// position of | in text, and the text without it.
function cursor(text) {
  const at = text.indexOf('|');
  const before = text.slice(0, at).split('\n');
  return { text: text.slice(0, at) + text.slice(at + 1), position: { line: before.length - 1, character: before.at(-1).length } };
}

function docText(doc) {
  if (!doc) return '';
  return typeof doc === 'string' ? doc : doc.value;
}

function oneLine(s, n = 160) {
  const t = String(s ?? '').replace(/\s+/g, ' ').trim();
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
}

function check(probe, items, hoverText) {
  const problems = [];
  const byLabel = new Map(items.map((i) => [i.label, i]));
  for (const l of probe.want.labels ?? []) if (!byLabel.has(l)) problems.push(`no completion ${l}`);
  for (const [l, v] of Object.entries(probe.want.insert ?? {})) {
    const ins = byLabel.get(l)?.insertText ?? '';
    if (!ins.includes(v)) problems.push(`${l} inserts ${JSON.stringify(ins)}, without the default ${v}`);
  }
  for (const [l, d] of Object.entries(probe.want.detail ?? {})) {
    if (byLabel.get(l)?.detail !== d) problems.push(`${l} has detail ${JSON.stringify(byLabel.get(l)?.detail)}, want ${d}`);
  }
  for (const [l, d] of Object.entries(probe.want.doc ?? {})) {
    if (!docText(byLabel.get(l)?.documentation).includes(d)) problems.push(`${l}'s documentation lacks ${JSON.stringify(d)}`);
  }
  for (const h of probe.want.hover ?? []) if (!hoverText.includes(h)) problems.push(`hover lacks ${JSON.stringify(h)}`);
  for (const l of probe.want.labels ?? []) {
    const it = byLabel.get(l);
    if (it && it.kind === 10 && !docText(it.documentation)) problems.push(`${l} has no documentation`);
  }
  return problems;
}

async function main() {
  const rootUri = pathToFileURL(path.resolve(here, '../..')).href;
  const version = spawnSync(server, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`yaml-language-server ${version || '(version unknown)'}, node ${process.version}`);
  await request('initialize', {
    processId: process.pid,
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: 'loadgate' }],
    capabilities: {
      workspace: { configuration: true },
      textDocument: {
        completion: { completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] } },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        publishDiagnostics: {},
      },
    },
  });
  send({ method: 'initialized', params: {} });
  send({ method: 'workspace/didChangeConfiguration', params: { settings } });
  let failed = 0;
  for (const [i, probe] of probes.entries()) {
    const { text, position } = cursor((probe.noModeline ? '' : modeline) + probe.text);
    const uri = pathToFileURL(path.join(here, probe.file ?? `probe-${i}.yaml`)).href;
    cursorLine.set(uri, position.line);
    send({ method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'yaml', version: 1, text } } });
    console.log(`== ${probe.name} (line ${position.line + 1}, column ${position.character + 1})`);
    let items = [];
    let hoverText = '';
    if (probe.hover) {
      const h = await request('textDocument/hover', { textDocument: { uri }, position });
      hoverText = docText(h?.contents).replaceAll(rootUri, '<repo>');
      console.log(hoverText.split('\n').map((l) => `  | ${l}`).join('\n'));
    } else {
      const res = await request('textDocument/completion', { textDocument: { uri }, position });
      items = Array.isArray(res) ? res : (res?.items ?? []);
      for (const it of items.toSorted((a, b) => a.label.localeCompare(b.label))) {
        const parts = [`  ${it.label}`];
        if (it.detail) parts.push(`[${it.detail}]`);
        if (it.insertText && it.insertText !== it.label) parts.push(`inserts ${JSON.stringify(it.insertText)}`);
        const doc = docText(it.documentation);
        if (doc) parts.push(`— ${oneLine(doc)}`);
        console.log(parts.join(' '));
      }
    }
    const problems = check(probe, items, hoverText);
    for (const p of problems) console.log(`  MISSING: ${p}`);
    console.log(problems.length ? '  => FAIL' : '  => ok');
    failed += problems.length ? 1 : 0;
  }
  // Diagnostics arrive on their own; give validation a moment to report.
  await new Promise((r) => setTimeout(r, 1500));
  // The only ones expected are at the cursor, where a value is still to
  // be typed: the schema itself loaded, and the rest of each document is valid.
  console.log(`== diagnostics`);
  let stray = 0;
  for (const [uri, list] of diagnostics) {
    for (const d of list) {
      const atCursor = d.range.start.line === cursorLine.get(uri);
      stray += atCursor ? 0 : 1;
      console.log(`  ${path.basename(uri)} line ${d.range.start.line + 1}${atCursor ? ' (the value being typed)' : ' UNEXPECTED'}: ${oneLine(d.message)}`);
    }
  }
  if (stray) failed++;
  await request('shutdown', null);
  send({ method: 'exit' });
  clearTimeout(timer);
  console.log(`${probes.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => fail(err.stack || err.message));

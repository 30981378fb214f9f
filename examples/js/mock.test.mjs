// Drive the callproof mock from a JavaScript test suite: node's built-in test runner and openai-node.
//
//   npm ci --prefix examples     # openai-node, from examples/package.json (or `make node`)
//   CALLPROOF_BIN=.venv/bin/callproof node --test examples/js/mock.test.mjs
//
// In your own project: `npm install openai`, and `callproof` on PATH (pip install callproof) or in CALLPROOF_BIN.
//
// `callproof mock` starts on a free port (it prints its URL), each test registers the scenario it needs over HTTP
// (POST /_callproof/scenarios, scoped to the test's case tag), streams a Responses request through openai-node and
// asserts on what the SDK assembled, then the mock is stopped. See docs/mock.md#the-control-api.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';

import OpenAI from 'openai';

const BIN = process.env.CALLPROOF_BIN || 'callproof';
let mock;
let root; // http://127.0.0.1:PORT: the control API lives here, the OpenAI base URL is root + '/v1'

before(async () => {
  mock = spawn(BIN, ['mock', '--port', '0', '--strict', '--virtual-clock'], { stdio: ['ignore', 'pipe', 'inherit'] });
  root = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('callproof mock printed no URL within 30 s')), 30_000);
    let seen = '';
    mock.stdout.on('data', (chunk) => {
      seen += chunk;
      const found = seen.match(/listening on (http:\/\/\S+)\/v1/);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    mock.on('error', (error) => reject(new Error(`cannot start ${BIN}: ${error.message} (set CALLPROOF_BIN)`)));
    mock.on('exit', (code) => reject(new Error(`callproof mock exited with status ${code}`)));
  });
});

after(async () => {
  const exited = new Promise((resolve) => mock.once('exit', resolve));
  mock.kill('SIGTERM');
  await exited;
});

async function register(scenario, caseTag) {
  const url = `${root}/_callproof/scenarios?case=${encodeURIComponent(caseTag)}`;
  const response = await fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(scenario),
  });
  assert.equal(response.status, 201, await response.text());
}

const WEATHER_TOOL = {
  type: 'function', name: 'get_weather', strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

test('a registered scenario streams a tool call that openai-node assembles', async () => {
  const caseTag = randomUUID();
  await register({
    id: 'js_weather',
    description: 'one get_weather call in 4-character fragments',
    output: [{ type: 'function_call', name: 'get_weather', call_id: 'call_js_1',
               arguments: '{"city":"Lyon"}', chunk: { size: 4 } }],
    request: { input: [{ role: 'user', text: 'Weather in Lyon?' }] },
    expect: { status: 'completed', tool_calls: [{ name: 'get_weather', arguments: { city: 'Lyon' } }] },
  }, caseTag);

  const client = new OpenAI({ baseURL: `${root}/v1`, apiKey: 'callproof', maxRetries: 0 });
  const stream = client.responses.stream({
    model: 'callproof/js_weather',
    input: `Weather in Lyon? [callproof:case=${caseTag}]`,
    tools: [WEATHER_TOOL],
  });
  const deltas = [];
  stream.on('response.function_call_arguments.delta', (event) => deltas.push(event.delta));
  const final = await stream.finalResponse();

  const calls = final.output.filter((item) => item.type === 'function_call');
  assert.deepEqual(calls.map((c) => [c.name, c.call_id, JSON.parse(c.arguments)]),
                   [['get_weather', 'call_js_1', { city: 'Lyon' }]]);
  assert.deepEqual(deltas, ['{"ci', 'ty":', '"Lyo', 'n"}']);

  const journal = await (await fetch(`${root}/_callproof/journal?case=${caseTag}`)).text();
  const requests = journal.trim().split('\n').map((line) => JSON.parse(line)).filter((r) => r.kind === 'request');
  assert.deepEqual(requests.map((r) => [r.method, r.path, r.status]),
                   [['POST', '/_callproof/scenarios', 201], ['POST', '/v1/responses', 200]]);
});

test('a sequence: openai-node retries two 429 legs and gets the stream', async () => {
  const caseTag = randomUUID();
  const client = new OpenAI({ baseURL: `${root}/v1`, apiKey: 'callproof', maxRetries: 2 });
  const stream = client.responses.stream({
    model: 'callproof/retry_429_twice_then_stream',
    input: `Weather in Paris? [callproof:case=${caseTag}]`,
    tools: [WEATHER_TOOL],
  });
  const final = await stream.finalResponse();
  assert.deepEqual(final.output.filter((i) => i.type === 'function_call').map((c) => c.name), ['get_weather']);

  const report = await (await fetch(`${root}/_callproof/sequences?case=${caseTag}`)).json();
  assert.deepEqual(report.sequences.map((s) => [s.scenario, s.played, s.unplayed]),
                   [['retry_429_twice_then_stream', [0, 1, 2], []]]);
});

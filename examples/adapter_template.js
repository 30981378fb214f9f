#!/usr/bin/env node
// A client adapter template for JavaScript and TypeScript clients (docs/adapters.md: the client adapter protocol),
// written with openai-node. As it stands it runs openai-node's own streaming helpers; replace `callYourClient` with
// your client code and keep the rest.
//
//   npm install --prefix examples          # openai-node at the version of examples/package.json (or: make node)
//   callproof run --client-cmd 'node examples/adapter_template.js'                         # Responses
//   callproof run --client-dialect chat --client-cmd 'node examples/adapter_template.js'   # Chat Completions
//
// stdin: one JSON object, the case's request body in the client's dialect ($CALLPROOF_DIALECT: responses or chat).
// stdout: exactly one result object {text, tool_calls: [{call_id, name, arguments}], error, incomplete}; a custom tool
// call is {type: 'custom', call_id, name, input} with its raw input, and `refusal` and `reasoning` (the summary parts
// joined with a blank line) are optional. Exit 0 even when your client failed: report the failure in `error` (a crash
// is a failed case, CLI-001). Node >= 18.
// Loops and retries (docs/adapters.md): with CALLPROOF_TOOL_LOOP=1 run `toolOutput` for every call and send the calls
// and their outputs back (`nextRequest`) until an answer has no call; CALLPROOF_MAX_RETRIES is the SDK's maxRetries.
'use strict';

const OpenAI = require('openai');

// What the result reports (docs/adapters.md#layers): 'raw' while the template runs openai-node, which hands its caller
// each call's `arguments` as the string the stream carried, never parsed. A client that hands on calls ready to run
// (arguments parsed or checked) is 'parsed'; an agent runtime that runs them itself, 'executing'. The layer decides
// what CLI-008 asks of a call whose arguments are not JSON: only a raw layer may hand it on, as it came.
const LAYER = 'raw';

// What openai-node hands its caller, as the result object: report it as it is, do not repair it.
function fromResponse(response, error) {
  const calls = error ? [] : (response.output || [])
    .filter((item) => (item.type === 'function_call' && item.status !== 'incomplete') || item.type === 'custom_tool_call')
    .map((item) => (item.type === 'custom_tool_call'
      ? { type: 'custom', call_id: item.call_id, name: item.name, input: item.input }
      : { call_id: item.call_id, name: item.name, arguments: item.arguments }));
  const parts = (response.output || []).filter((item) => item.type === 'message').flatMap((item) => item.content || []);
  const refusals = parts.filter((part) => part.type === 'refusal').map((part) => part.refusal);
  const reasoning = (response.output || []).filter((item) => item.type === 'reasoning')
    .flatMap((item) => item.summary || []).map((part) => part.text).join('\n\n');
  // `output_text` is a getter of the helpers' final responses, not of a terminal event's: join the parts as it does.
  const text = (response.output || []).filter((item) => item.type === 'message')
    .flatMap((item) => item.content || []).filter((part) => part.type === 'output_text').map((part) => part.text).join('');
  return { text, tool_calls: calls, error, incomplete: response.status === 'incomplete',
    refusal: refusals.length ? refusals.join('') : null, reasoning };
}

function fromCompletion(completion) {
  const choice = (completion.choices || [])[0];
  if (!choice) return { text: '', tool_calls: [], error: 'the completion has no choice', incomplete: false };
  const calls = (choice.message.tool_calls || [])
    .filter((call) => call.type === 'function')
    .map((call) => ({ call_id: call.id, name: call.function.name, arguments: call.function.arguments }));
  const incomplete = choice.finish_reason === 'length' || choice.finish_reason === 'content_filter';
  return { text: choice.message.content || '', tool_calls: calls, error: null, incomplete,
    refusal: choice.message.refusal || null, reasoning: null };
}

async function responses(client, request) {
  const { stream, ...body } = request;
  if (stream === false) {
    const response = await client.responses.create(body);
    return fromResponse(response, response.status === 'failed' ? `response.failed: ${response.error?.message}` : null);
  }
  for await (const event of client.responses.stream(body)) {
    if (event.type === 'response.completed' || event.type === 'response.incomplete') return fromResponse(event.response, null);
    if (event.type === 'response.failed') return fromResponse(event.response, `response.failed: ${event.response.error?.message}`);
    if (event.type === 'error') return { text: '', tool_calls: [], error: `error event: ${event.code}: ${event.message}`, incomplete: false };
  }
  throw new Error('the stream ended without a terminal event');
}

async function chat(client, request) {
  const { stream, ...body } = request;
  if (stream === false) {
    delete body.stream_options; // only valid with stream: true
    return fromCompletion(await client.chat.completions.create(body));
  }
  const runner = client.chat.completions.stream(body);
  for await (const _chunk of runner) { /* the helper accumulates; its final completion is what callers read */ }
  return fromCompletion(await runner.finalChatCompletion());
}

// Replace with your client: run `request` against `client` (or your own HTTP code against process.env.
// CALLPROOF_BASE_URL) and return {text, tool_calls, error, incomplete}; throw on any failure your client detects.
async function callYourClient(client, request, dialect) {
  if (dialect === 'responses') return responses(client, request);
  if (dialect === 'chat') return chat(client, request);
  throw new Error(`this template speaks responses and chat, not ${dialect}: use @anthropic-ai/sdk for anthropic`);
}

// The protocol's deterministic tool: "<name> ok <call_id>", or "<name> error <call_id>" (isError) when the arguments
// are not a JSON object or their `fail` member is true.
function toolOutput(name, args, callId) {
  let parsed = null;
  try { parsed = JSON.parse(args || '{}'); } catch (_err) { parsed = null; }
  const failed = parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || parsed.fail === true;
  return { output: `${name} ${failed ? 'error' : 'ok'} ${callId}`, isError: failed };
}

// The loop's next request: the request so far, then this turn's calls and one output per call id.
function nextRequest(dialect, request, calls) {
  if (dialect === 'chat') {
    const assistant = { role: 'assistant', content: null, tool_calls: calls.map((c) => (
      { id: c.call_id, type: 'function', function: { name: c.name, arguments: c.arguments } })) };
    const tools = calls.map((c) => ({ role: 'tool', tool_call_id: c.call_id, content: toolOutput(c.name, c.arguments, c.call_id).output }));
    return { ...request, messages: [...request.messages, assistant, ...tools] };
  }
  const input = typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : [...request.input];
  for (const c of calls) {
    input.push(c.type === 'custom' ? { type: 'custom_tool_call', call_id: c.call_id, name: c.name, input: c.input }
      : { type: 'function_call', call_id: c.call_id, name: c.name, arguments: c.arguments });
  }
  for (const c of calls) {
    const type = c.type === 'custom' ? 'custom_tool_call_output' : 'function_call_output';
    input.push({ type, call_id: c.call_id, output: toolOutput(c.name, c.type === 'custom' ? c.input : c.arguments, c.call_id).output });
  }
  return { ...request, input };
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function main() {
  let result;
  try {
    const request = JSON.parse(await readStdin());
    if (request === null || typeof request !== 'object' || Array.isArray(request)) throw new Error('stdin is not one JSON object');
    const client = new OpenAI({
      baseURL: process.env.CALLPROOF_BASE_URL,
      apiKey: process.env.OPENAI_API_KEY || 'callproof',
      maxRetries: Number(process.env.CALLPROOF_MAX_RETRIES || 0),
    });
    const dialect = process.env.CALLPROOF_DIALECT || 'responses';
    let body = request;
    result = await callYourClient(client, body, dialect);
    for (let turn = 1; turn < Number(process.env.CALLPROOF_MAX_TURNS || 8); turn += 1) {
      if (process.env.CALLPROOF_TOOL_LOOP !== '1' || result.error || result.tool_calls.length === 0) break;
      body = nextRequest(dialect, body, result.tool_calls);
      result = await callYourClient(client, body, dialect);
    }
  } catch (err) { // every failure is reported, never raised: callproof judges it
    const name = err && err.constructor ? err.constructor.name : 'Error';
    result = { text: '', tool_calls: [], error: `${name}: ${err && err.message ? err.message : err}`, incomplete: false };
  }
  process.stdout.write(JSON.stringify({ layer: LAYER, ...result }) + '\n');
}

main();

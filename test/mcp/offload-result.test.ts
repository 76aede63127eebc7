// What the proxy does to an upstream tool result, on real fixtures and a real store: large text stored and replaced
// by the descriptor, everything else untouched; JSON stored as JSON (envelopes unwrapped, several JSON blocks as one
// array); structuredContent replaced so that it still validates (checked with the SDK's own validator, as a client
// checks it); --exclude and --threshold-for; a store that cannot be written.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openResult, readResult } from '../../src/api/results.js';
import { CallReader } from '../../src/mcp/calls.js';
import { loadToolDefs } from '../../src/mcp/definitions.js';
import { ResultOffloader, shortArguments, textPayload, unwrapEnvelope, type CallResult, type OffloadPolicy } from '../../src/mcp/offload-result.js';
import { allowOffloaded, mergeToolList } from '../../src/mcp/tool-list.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { cleanup, ls, tempDir } from '../helpers/cli.js';

const CORPUS = resolve(__dirname, '../../fixtures/corpus');
const HDFS = readFileSync(join(CORPUS, 'loghub/HDFS_2k.log'), 'utf8');
const EVENTS = readFileSync(join(CORPUS, 'json-docs/github_events.json'), 'utf8');
const FS_SCHEMA = { type: 'object', properties: { content: { type: 'string' } }, required: ['content'], additionalProperties: false, $schema: 'http://json-schema.org/draft-07/schema#' };
const validate = (schema: Record<string, unknown>, value: unknown) => new AjvJsonSchemaValidator().getValidator(schema as never)(value).valid;

let root: string;
let store: string;
let calls: CallReader;
const warnings: string[] = [];

function offloader(over: Partial<OffloadPolicy> = {}, options: OffloadPolicy['options'] = {}): ResultOffloader {
  return new ResultOffloader({
    options: { dir: store, env: {}, warn: (m) => warnings.push(m), ...options },
    thresholdFor: new Map(),
    exclude: new Set(),
    descriptor: 'text',
    calls,
    ...over,
  });
}

const call = (tool: string, args: Record<string, unknown> = {}) => ({ tool, arguments: args });
const idIn = (text: string) => /\bid: ([0-9A-Z]{26})\b/.exec(text)![1];

beforeAll(async () => {
  root = tempDir();
  store = join(root, 'store');
  calls = new CallReader(await loadToolDefs((t) => !t.serverOnly));
});
afterAll(() => cleanup(root));

describe('ResultOffloader', () => {
  it('passes a small result through as it is', async () => {
    const result: CallResult = { content: [{ type: 'text', text: 'small' }], structuredContent: { content: 'small' } };
    expect(await offloader().apply(result, call('read_text_file'))).toBe(result);
  });

  it('with redact, a small result passes through with its secrets redacted, in content and structuredContent', async () => {
    const line = 'connecting to postgres://app:S3cr3tPa55w0rd@db.internal:5432/app';
    const result: CallResult = { content: [{ type: 'text', text: line }], structuredContent: { content: line } };
    const out = await offloader({}, { redact: true }).apply(result, call('read_text_file'));
    const redacted = 'connecting to postgres://app:[REDACTED:lro-url-password]@db.internal:5432/app';
    expect(out.content).toEqual([{ type: 'text', text: redacted }]);
    expect(out.structuredContent).toEqual({ content: redacted });
    expect(ls(store).filter((n) => n.endsWith('.jsonl'))).toEqual([]); // small: nothing stored
  });

  it('stores large text; the descriptor takes its place, names lro tool calls, and says which tool produced it', async () => {
    const image = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
    const result: CallResult = { content: [image, { type: 'text', text: HDFS }, { type: 'text', text: HDFS }], structuredContent: { content: HDFS } };
    const out = await offloader().apply(result, call('read_text_file', { path: '/logs/HDFS_2k.log' }));
    expect(out.content.map((b) => b.type)).toEqual(['image', 'text']); // the image kept, in its place; the texts became one
    expect(out.content[0]).toBe(image);
    const text = out.content[1].text as string;
    expect(text).toMatch(/^Result of read_text_file offloaded: 4,000 lines of text/);
    expect(text).toMatch(/Next: `lro_grep \{"id":"[0-9A-Z]{26}","pattern":"exception","ignore_case":true,"context":2\}`/);
    expect(text).not.toMatch(/`lro (grep|read|jq) /);
    // structuredContent: the same descriptor text in the same string field, so the declared schema still holds
    expect(out.structuredContent).toEqual({ content: text });
    expect(validate(FS_SCHEMA, out.structuredContent)).toBe(true);
    const rf = openResult(idIn(text), { dir: store });
    expect(rf.header.operation).toBe('read_text_file');
    expect(rf.header.source).toEqual({ command: 'read_text_file {"path":"/logs/HDFS_2k.log"}', exit_code: null, tool: 'read_text_file', arguments: { path: '/logs/HDFS_2k.log' } });
    expect(rf.header.count).toBe(4000);
    expect(readResult(rf, { from: 2001, to: 2001 })[0].text).toBe(HDFS.split(/\r?\n/)[0]);
  });

  it('stores JSON text as JSON records; an MCP envelope is unwrapped; several JSON blocks become one array', async () => {
    const json = await offloader().apply({ content: [{ type: 'text', text: EVENTS }] }, call('get_events'));
    const a = openResult(idIn(json.content[0].text as string), { dir: store });
    expect([a.header.content_type, a.header.count]).toEqual(['json', 30]);

    const envelope = JSON.stringify({ content: [{ type: 'text', text: EVENTS }] });
    const wrapped = await offloader().apply({ content: [{ type: 'text', text: envelope }] }, call('get_events'));
    const b = openResult(idIn(wrapped.content[0].text as string), { dir: store });
    expect([b.header.content_type, b.header.count]).toEqual(['json', 30]);

    const items = (JSON.parse(EVENTS) as unknown[]).map((e) => ({ type: 'text', text: JSON.stringify(e) }));
    const many = await offloader().apply({ content: items }, call('get_events'));
    const c = openResult(idIn(many.content[0].text as string), { dir: store });
    expect([c.header.content_type, c.header.count]).toEqual(['json', 30]);
    expect(readResult(c, { from: 3, to: 3 })[0].value).toEqual((JSON.parse(EVENTS) as unknown[])[2]);
  });

  it('replaces structuredContent whose bulk is not a string, and the proxy schema allows what replaces it', async () => {
    const events = JSON.parse(EVENTS) as unknown[];
    const schema = { type: 'object', properties: { events: { type: 'array', items: { type: 'object' } } }, required: ['events'], additionalProperties: false };
    const structured = { events };
    // the usual pair: the text is the JSON of structuredContent
    const same = await offloader().apply({ content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured }, call('list_events'));
    const placeholder = same.structuredContent as { lro_offloaded: { id: string } };
    expect(placeholder.lro_offloaded.id).toBe(idIn(same.content[0].text as string)); // stored once
    expect(validate(schema, placeholder)).toBe(false); // what the upstream declared cannot hold it...
    expect(validate(allowOffloaded(schema), placeholder)).toBe(true); // ...what the proxy lists can
    expect(validate(allowOffloaded(schema), structured)).toBe(true); // and still takes the real thing
    // what the wrapping costs every session, per wrapped tool (o200k tokens of the JSON as listed)
    const tokens = (v: unknown) => getTokenizer('o200k_base').count(JSON.stringify(v));
    expect(tokens(allowOffloaded(schema)) - tokens(schema)).toBeLessThanOrEqual(20);
    // a small text beside large structured data: the data is stored, and the model is told where
    const own = await offloader().apply({ content: [{ type: 'text', text: '30 events' }], structuredContent: structured }, call('list_events'));
    expect(own.content[0]).toEqual({ type: 'text', text: '30 events' });
    const id = (own.structuredContent as { lro_offloaded: { id: string } }).lro_offloaded.id;
    expect(own.content[1].text).toContain(`id: ${id}`);
    const rf = openResult(id, { dir: store });
    expect([rf.header.content_type, rf.header.split, rf.header.count]).toEqual(['json', 'path', 30]); // split on its array
    expect(readResult(rf, { from: 1, to: 1 })[0].value).toEqual(events[0]);
  });

  it('keeps an error result an error, and says so in the header and the guidance', async () => {
    const out = await offloader().apply({ content: [{ type: 'text', text: HDFS }], isError: true }, call('run_tests'));
    expect(out.isError).toBe(true);
    expect(out.content[0].text).toContain('MCP tool call `run_tests {}` returned an error.');
    expect(openResult(idIn(out.content[0].text as string), { dir: store }).header.source?.is_error).toBe(true);
  });

  it('--exclude passes a tool through whatever its size; --threshold-for sets one tool its own threshold', async () => {
    const big: CallResult = { content: [{ type: 'text', text: HDFS }] };
    expect(await offloader({ exclude: new Set(['read_text_file']) }).apply(big, call('read_text_file'))).toBe(big);
    const small: CallResult = { content: [{ type: 'text', text: HDFS.slice(0, 2000) }] };
    const per = offloader({ thresholdFor: new Map([['tail', 100]]) });
    expect(await per.apply(small, call('head'))).toBe(small);
    expect((await per.apply(small, call('tail'))).content[0].text).toMatch(/^Result of tail offloaded/);
  });

  it('with a store it cannot write, gives the text cut to the threshold and a warning, never a failure', async () => {
    const file = join(root, 'not-a-dir');
    writeFileSync(file, 'x');
    const before = ls(store).length;
    const out = await offloader({}, { dir: join(file, 'store'), threshold: 200 }).apply({ content: [{ type: 'text', text: HDFS }] }, call('read_text_file'));
    const text = out.content[0].text as string;
    expect(text.startsWith(HDFS.slice(0, 100))).toBe(true);
    expect(text).toMatch(/\[lro: output truncated to 200 of ~[\d,]+ tokens: could not store the full result/);
    expect(warnings.some((w) => w.startsWith('output truncated'))).toBe(true);
    expect(ls(store).length).toBe(before);
  });
});

describe('pieces', () => {
  it('unwraps only the MCP envelope of text blocks', () => {
    expect(unwrapEnvelope('{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}')).toEqual(['a', 'b']);
    expect(unwrapEnvelope('{"content":[{"type":"image","data":"x"}]}')).toBeNull();
    expect(unwrapEnvelope('{"contents":[]}')).toBeNull();
    expect(unwrapEnvelope('{"content":[{"type":"text","text":')).toBeNull();
  });

  it('joins text blocks: JSON ones into an array, others as lines', () => {
    expect(textPayload(['{"a":1}', '[2]'], 'auto')).toEqual({ text: '[{"a":1},[2]]', format: 'json' });
    expect(textPayload(['one', '{"a":1}'], 'auto')).toEqual({ text: 'one\n{"a":1}', format: 'auto' });
    expect(textPayload(['one\n', 'two'], 'auto')).toEqual({ text: 'one\ntwo', format: 'auto' });
    expect(textPayload([], 'auto')).toBeNull();
  });

  it('shortens long strings in the arguments kept in the header', () => {
    expect(shortArguments({ path: 'a', content: 'x'.repeat(1000), list: ['y'.repeat(300)] })).toEqual({
      path: 'a',
      content: `${'x'.repeat(200)}… (1000 characters)`,
      list: [`${'y'.repeat(200)}… (300 characters)`],
    });
  });

  it('merges tools/list: lro tools on the last page, same-named upstream tools hidden, output schemas widened', () => {
    const lro = [{ name: 'lro_read' }] as never[];
    const warned: string[] = [];
    const page = mergeToolList({ tools: [{ name: 'a', outputSchema: FS_SCHEMA }, { name: 'lro_read' }], nextCursor: 'p2' }, lro, () => true, (w) => warned.push(w));
    expect((page.tools as { name: string }[]).map((t) => t.name)).toEqual(['a']);
    expect(warned).toEqual(["the upstream's tool lro_read is hidden: lro's own tool of that name takes its place"]);
    const last = mergeToolList({ tools: [{ name: 'b', outputSchema: FS_SCHEMA }] }, lro, (t) => t !== 'b', () => undefined);
    expect(last.tools).toEqual([{ name: 'b', outputSchema: FS_SCHEMA }, { name: 'lro_read' }]); // b is excluded: its schema kept
  });
});

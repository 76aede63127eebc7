// An MCP server on stdio written without the SDK, so a test decides every byte it sends and how it misbehaves:
//   exact       answers with a result whose numbers JSON.parse cannot keep (above 2^53, -0, 1.0, 1E+2)
//   exact_meta  the same with a `_meta` written after `content` (the SDK's schema puts it first)
//   big_exact   a text of SIZE bytes (arguments: {bytes: SIZE}) and a number above 2^53 in structuredContent
//   image       answers with an image block of SIZE bytes of base64 (arguments: {bytes: SIZE})
//   hang        never answers
//   lines       answers with N text lines (arguments: {lines: N}), the first naming $FAKE_GREETING (what the
//               client's config gave the server's environment)
// Flags: --stubborn: ignores SIGTERM and the end of its stdin, and starts a child of its own that does the same
// (what a proxy must still stop); its pid is written to the file given as --child-pid FILE.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const stubborn = process.argv.includes('--stubborn');
const pidFile = process.argv[process.argv.indexOf('--child-pid') + 1];
if (stubborn) {
  process.on('SIGTERM', () => undefined);
  setInterval(() => undefined, 1000);
  const child = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
  if (pidFile) writeFileSync(pidFile, String(child.pid));
}

const TOOLS = ['exact', 'exact_meta', 'big_exact', 'image', 'hang', 'lines'].map((name) => ({ name, inputSchema: { type: 'object' } }));
const send = (text) => process.stdout.write(`${text}\n`);

function answer(m) {
  const id = JSON.stringify(m.id);
  switch (m.method) {
    case 'initialize':
      return send(`{"jsonrpc":"2.0","id":${id},"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`);
    case 'tools/list':
      return send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: TOOLS } }));
    case 'ping':
      return send(`{"jsonrpc":"2.0","id":${id},"result":{}}`);
    case 'tools/call':
      return call(id, m.params.name, m.params.arguments ?? {});
    default:
      if (m.id !== undefined) send(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"no such method"}}`);
  }
}

function call(id, name, args) {
  if (name === 'exact') {
    return send(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"n: 9007199254740993"}],"structuredContent":{"big":9007199254740993,"neg":-0,"one":1.0,"hundred":1E+2}}}`);
  }
  if (name === 'exact_meta') {
    return send(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"n: 9007199254740993"}],"_meta":{"big":9007199254740993},"structuredContent":{"big":9007199254740993,"one":1.0}}}`);
  }
  if (name === 'big_exact') {
    const text = 'z'.repeat(args.bytes ?? 1000);
    return send(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${text}"}],"structuredContent":{"big":9007199254740993}}}`);
  }
  if (name === 'image') {
    const data = 'A'.repeat(args.bytes ?? 1000);
    return send(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(id), result: { content: [{ type: 'image', mimeType: 'image/png', data }] } }));
  }
  if (name === 'lines') {
    const rows = Array.from({ length: args.lines ?? 1 }, (_, i) => `line ${i + 1} of the fake upstream`);
    const text = [`greeting: ${process.env.FAKE_GREETING ?? '(none)'}`, ...rows].join('\n');
    return send(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(id), result: { content: [{ type: 'text', text }] } }));
  }
  // hang: no answer
}

let buffer = '';
process.stdin.on('data', (d) => {
  buffer += d;
  for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.trim()) answer(JSON.parse(line));
  }
});
process.stdin.on('end', () => stubborn || process.exit(0));

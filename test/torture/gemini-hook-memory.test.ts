// Gemini CLI's hook on an output of 100 MB, as Gemini CLI hands it (the output twice: llmContent for the model,
// returnDisplay for the screen), through bin/lro-hook as `lro init gemini` installs it: stored whole, the model
// gets the descriptor, and the Node process stays under 120 MB resident (issue 37: "Gemini's hook bounded in
// memory, ≤ 120 MB for any output"; it held 333 MB for a 25 MB output before it streamed its input).
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { spawn } from 'node:child_process';
import { closeSync, createReadStream, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

const HOOK = resolve(__dirname, '../../bin/lro-hook');
const TRACE = resolve(__dirname, '../helpers/read-trace.mjs');
const root = tempDir();
afterAll(() => cleanup(root));

it('a 100 MB output: stored whole, the descriptor given, the hook under 120 MB resident', async () => {
  const MB = 1 << 20;
  const lines = 100 * MB / 16; // 16 bytes a line: "line 0000000001\n"
  const input = join(root, 'input.json');
  const fd = openSync(input, 'w');
  const text = (escape: boolean) => {
    for (let i = 0; i < lines; i += 65536) {
      let chunk = '';
      for (let k = i; k < Math.min(lines, i + 65536); k++) chunk += `line ${String(k).padStart(10, '0')}${escape ? '\\n' : '\n'}`;
      writeSync(fd, chunk);
    }
  };
  writeSync(fd, '{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"make logs"},');
  writeSync(fd, '"tool_response":{"llmContent":"<untrusted_context>\\nOutput: ');
  text(true);
  writeSync(fd, 'Exit Code: 0\\n</untrusted_context>","returnDisplay":"');
  text(true);
  writeSync(fd, '"}}');
  closeSync(fd);
  // the Node that lro-hook starts, with the trace of its peak memory (VmHWM) written at its exit
  const trace = join(root, 'trace');
  const node = join(root, 'node');
  writeFileSync(node, `#!/bin/sh\nexec '${process.execPath}' --import '${TRACE}' "$@"\n`, { mode: 0o755 });
  const env = { PATH: process.env.PATH!, HOME: root, TMPDIR: root, LRO_DIR: join(root, 'store'), LRO_NODE: node, LRO_READ_TRACE: trace, LRO_RESIDENT: '0' };
  const out = await new Promise<string>((done, fail) => {
    const child = spawn(HOOK, ['__gemini-hook'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.on('error', fail);
    child.on('close', () => done(text));
    createReadStream(input).pipe(child.stdin);
  });
  const answer = JSON.parse(out) as { decision: string; reason: string };
  expect(answer.decision).toBe('deny');
  expect(answer.reason).toContain(`Output offloaded: ${lines.toLocaleString('en-US')} lines`);
  const id = /id: (\w{26})/.exec(answer.reason)![1];
  const header = JSON.parse((await lro(['info', id, '--header'], { env: { LRO_DIR: env.LRO_DIR } })).out) as { bytes: number };
  expect(header.bytes).toBe(lines * 16 - 1); // (the newline before "Exit Code" is Gemini CLI's, not the output's)
  const peakMb = Number(readFileSync(trace, 'utf8').split(' ')[1]) / 1024;
  expect(peakMb).toBeLessThan(120);
}, 600_000);

// `lro __resident`: the shell prefix's resident helper, so that a medium output (over the threshold in bytes, maybe
// not in tokens) is decided without starting Node on every such call. `lro __shell-output` starts one, detached,
// the first time it runs for a call; it listens on a port of 127.0.0.1 and writes `PORT TOKEN PID VERSION` to the file
// `resident` in the prefix's own folder ($TMPDIR/lro-prefix-$UID, 0700: only this user reads the token). The
// prefix (bin/lro-shell-prefix) connects with bash's /dev/tcp, sends one line `TOKEN tokens BYTES THRESHOLD` and
// the bytes, and reads `small` or `large`: the same decision `lro offload` makes (offload.ts fitsThreshold). It
// stores nothing: a large output still goes to `lro __shell-output`. It also answers for Codex's hook (bin/lro-hook):
// `TOKEN codex-hook BYTES 0`, then CODEX_HOME, a newline and the hook's input, is answered `ok`, a newline, and
// what `lro __codex-hook` prints for that input (harness/codex/hook.ts); and for Gemini CLI's
// (`TOKEN gemini-hook BYTES 0`: `leave` when `lro __gemini-hook` would leave the input as it is, else `run`, and
// bin/lro-hook then starts Node, which stores it: the helper never stores anything, its env may not be the
// caller's; geminiAnswer()). Anything else (a wrong token, a malformed
// line, more than MAX_BODY bytes, a slow client) closes the connection without an answer, and the prefix then
// does as without the helper. It exits after IDLE_MS without a request, or as soon as its file is gone or names
// another helper (a newer one, or the folder removed).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import type { CommandDef } from './command.js';
import type { IO } from '../io.js';
import { fitsThreshold } from '../offload.js';
import { codexHookOutput } from '../harness/codex/hook.js';
import { leaves } from '../harness/gemini/hook.js';
import { Malformed, readHookInput, scratchFile } from '../harness/gemini/input.js';
import { offloadOptions } from '../offload-settings.js';
import { RESIDENT_FILE, residentVersion } from '../harness/resident-start.js';
import { UsageError } from '../errors.js';

/** The largest output the helper is asked about (the prefix asks up to 16 thresholds of bytes). */
const MAX_BODY = 4 << 20;
const IDLE_MS = 15 * 60_000;
const CHECK_MS = 10_000;
const CLIENT_MS = 5_000;

const VERBS = ['tokens', 'codex-hook', 'gemini-hook'] as const;
type Verb = (typeof VERBS)[number];

/** What a request line says, or null when it is not one. */
interface Request {
  verb: Verb;
  bytes: number;
  threshold: number;
}

function parseRequest(line: string, token: Buffer): Request | null {
  const [got, verb, bytes, threshold, ...rest] = line.split(' ');
  if (rest.length > 0 || !VERBS.includes(verb as Verb) || !/^\d{1,9}$/.test(bytes ?? '') || !/^\d{1,9}$/.test(threshold ?? '')) return null;
  const given = Buffer.from(got ?? '');
  if (given.length !== token.length || !timingSafeEqual(given, token)) return null;
  const n = Number(bytes);
  return n > MAX_BODY ? null : { verb: verb as Verb, bytes: n, threshold: Number(threshold) };
}

/**
 * `leave` when `lro __gemini-hook` would leave this input as it is, else `run`: the body is the caller's
 * LRO_THRESHOLD_TOKENS and LRO_REDACT (a line each, empty when unset: the helper's own env may differ), then the
 * hook's input. The input is read as the hook reads it (harness/gemini/input.ts: its llmContent to a file of its
 * own in the helper's folder, its name removed at once) and decided as the hook decides (harness/gemini/hook.ts leaves()).
 */
async function geminiAnswer(body: Buffer, spool: string): Promise<string> {
  const first = body.indexOf(10);
  const second = first < 0 ? -1 : body.indexOf(10, first + 1);
  if (second < 0) throw new Error('malformed');
  const setting = (text: string) => text || undefined;
  const env = { LRO_THRESHOLD_TOKENS: setting(body.subarray(0, first).toString('utf8')), LRO_REDACT: setting(body.subarray(first + 1, second).toString('utf8')) };
  const settings = offloadOptions({}, { env, now: () => new Date() });
  const fd = scratchFile(spool);
  try {
    let input;
    try {
      input = await readHookInput((async function* () {
        yield body.subarray(second + 1);
      })(), fd);
    } catch (e) {
      if (e instanceof Malformed) return 'leave'; // not an input the hook can read: it leaves the call as it is too
      throw e;
    }
    return (await leaves(input, fd, settings)) ? 'leave' : 'run';
  } finally {
    closeSync(fd);
  }
}

/** The answer to one request (without its newline for `tokens` and `gemini-hook`). */
async function respond(request: Request, body: Buffer, spool: string): Promise<string> {
  if (request.verb === 'tokens') return fitsThreshold(body, request.threshold) ? 'small' : 'large';
  if (request.verb === 'gemini-hook') return geminiAnswer(body, spool);
  const eol = body.indexOf(10);
  const home = body.subarray(0, Math.max(eol, 0)).toString('utf8');
  const env = { ...process.env, CODEX_HOME: home || undefined };
  return `ok\n${codexHookOutput(body.subarray(eol + 1).toString('utf8'), env)}`;
}

/** Answers one connection: reads the line and the bytes, writes the answer, closes. */
function serve(socket: Socket, token: Buffer, spool: string, onRequest: () => void): void {
  socket.setTimeout(CLIENT_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  let held: Buffer = Buffer.alloc(0);
  let request: Request | null = null;
  socket.on('data', (chunk: Buffer) => {
    held = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
    if (!request) {
      const eol = held.indexOf(10);
      if (eol < 0) {
        if (held.length > 256) socket.destroy();
        return;
      }
      request = parseRequest(held.subarray(0, eol).toString('latin1'), token);
      if (!request) return void socket.destroy();
      held = held.subarray(eol + 1);
      onRequest();
    }
    if (held.length < request.bytes) return;
    const verb = request.verb;
    socket.removeAllListeners('data');
    socket.resume();
    respond(request, held.subarray(0, request.bytes), spool).then(
      (answer) => socket.end(verb === 'codex-hook' ? answer : `${answer}\n`),
      () => socket.destroy(),
    );
  });
}

/** Runs the helper until it has been idle IDLE_MS, or its file stops naming it. */
export async function runResident(o: { spool?: string }, _io: IO): Promise<number> {
  if (!o.spool) throw new UsageError('__resident needs --spool DIR');
  const token = randomBytes(16).toString('hex');
  const file = join(o.spool, RESIDENT_FILE);
  let last = Date.now();
  const server = createServer((socket) => serve(socket, Buffer.from(token), o.spool!, () => (last = Date.now())));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const line = `${port} ${token} ${process.pid} ${residentVersion()}\n`;
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, line, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, file);
  } catch (e) {
    // (a full $TMPDIR): no call can find this helper, and its open port would keep it running for ever
    server.close();
    try {
      unlinkSync(tmp);
    } catch {
      // never written
    }
    throw e;
  }
  const ours = () => {
    try {
      return readFileSync(file, 'utf8') === line;
    } catch {
      return false;
    }
  };
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (ours() && Date.now() - last < IDLE_MS) return;
      clearInterval(timer);
      if (ours()) {
        try {
          unlinkSync(file);
        } catch {
          // gone already
        }
      }
      server.close(() => resolve());
    }, CHECK_MS);
  });
  return 0;
}

/** The hidden `lro __resident` that `lro __shell-output` starts. */
export const residentCommand: CommandDef<{ spool?: string }> = {
  name: '__resident',
  description: "the shell prefix's resident helper: answers whether a medium output is over the threshold (started by __shell-output)",
  options: [{ flags: '--spool <dir>', description: "the prefix's folder, where the helper's port and token are written" }],
  examples: ['lro __resident --spool "$TMPDIR/lro-prefix-$UID"'],
  hidden: true,
  run: (o, io) => runResident(o, io),
};

// `lro __resident`: the shell prefix's resident helper, so that a medium output (over the threshold in bytes, maybe
// not in tokens) is decided without starting Node on every such call. `lro __shell-output` starts one, detached,
// the first time it runs for a call; it listens on a port of 127.0.0.1 and writes `PORT TOKEN PID VERSION DOOR` to
// the file `resident` in the prefix's own folder ($TMPDIR/lro-prefix-$UID, 0700: only this user reads the token).
// The prefix (bin/lro-shell-prefix) connects with bash's /dev/tcp, sends one line `TOKEN tokens BYTES THRESHOLD` and
// the bytes, and reads `small` or `large`: the same decision `lro offload` makes (offload.ts fitsThreshold).
// A call in a sandbox has no network to reach the port by (Codex's workspace-write sandbox refuses sockets, Claude
// Code's bubblewrap gives the call a network of its own), but may share the folder: there the prefix knocks at the
// helper's door, a FIFO named DOOR in the folder (openDoor, answerKnock). A helper started inside such a sandbox has
// the door alone (PORT `-`). It
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
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, lstatSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { connect, createServer, Socket, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import type { CommandDef } from './command.js';
import type { IO } from '../io.js';
import { fitsThreshold } from '../offload.js';
import { codexHookOutput } from '../harness/codex/hook.js';
import { leaves } from '../harness/gemini/hook.js';
import { Malformed, readHookInput, scratchFile } from '../harness/gemini/input.js';
import { offloadOptions } from '../offload-settings.js';
import { isResident, RESIDENT_FILE, residentVersion } from '../harness/resident-start.js';
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

/** A name the prefix gives the pair of FIFOs of one knock (`ASK.in`, `ASK.out`): never a path. */
const ASK_RE = /^ask\.[0-9]{1,10}\.[0-9]{1,30}$/;

/** Whether `path` is a FIFO of this user's (not a link, not another's). */
function ownFifo(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isFIFO() && st.uid === process.getuid?.();
  } catch {
    return false;
  }
}

/**
 * One knock at the door (`TOKEN tokens BYTES THRESHOLD ASK`, a line of its own: lines of at most PIPE_BUF bytes
 * written at once never mix): the caller made the FIFOs ASK.in and ASK.out in the folder, and holds ASK.out open.
 * The helper opens ASK.in (read and write, so it never blocks nor ends early), says `go` on ASK.out, reads BYTES
 * bytes from ASK.in, answers on ASK.out as on the port, and removes the two. A caller gone (ASK.out without a
 * reader), a slow one or a wrong line gets nothing: it does as without the helper.
 */
function answerKnock(line: string, token: Buffer, spool: string, onRequest: () => void): void {
  const fields = line.split(' ');
  const ask = fields.pop() ?? '';
  const request = ASK_RE.test(ask) ? parseRequest(fields.join(' '), token) : null;
  if (!request || request.verb !== 'tokens') return;
  const [inPath, outPath] = [join(spool, `${ask}.in`), join(spool, `${ask}.out`)];
  if (!ownFifo(inPath) || !ownFifo(outPath)) return;
  onRequest();
  let out: number;
  let input: Socket;
  try {
    out = openSync(outPath, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch {
    return; // no reader: the caller has given up
  }
  try {
    input = new Socket({ fd: openSync(inPath, constants.O_RDWR | constants.O_NONBLOCK), readable: true, writable: false });
  } catch {
    closeSync(out);
    return;
  }
  let open = true;
  const done = (answer?: string) => {
    if (!open) return;
    open = false;
    input.destroy();
    try {
      if (answer !== undefined) writeSync(out, `${answer}\n`);
    } catch {
      // the caller has given up
    }
    closeSync(out);
    // (what the caller would remove: one process fewer for it to start; one that got no answer removes them too)
    for (const path of [inPath, outPath]) {
      try {
        unlinkSync(path);
      } catch {
        // removed by the caller
      }
    }
  };
  input.setTimeout(CLIENT_MS, () => done());
  input.on('error', () => done());
  let held: Buffer = Buffer.alloc(0);
  input.on('data', (chunk: Buffer) => {
    held = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
    if (held.length < request.bytes) return;
    input.removeAllListeners('data');
    respond(request, held.subarray(0, request.bytes), spool).then(done, () => done());
  });
  try {
    writeSync(out, 'go\n');
  } catch {
    done();
  }
}

/** Opens the door: the FIFO `door` (made here), read for knocks until `close()`; null when it cannot be made. */
function openDoor(door: string, token: Buffer, spool: string, onRequest: () => void): { close(): void } | null {
  let reader: Socket;
  try {
    execFileSync('mkfifo', ['-m', '600', door], { stdio: 'ignore' });
    // read and write: the door never ends when a caller closes it, and opening it never waits for one
    reader = new Socket({ fd: openSync(door, constants.O_RDWR | constants.O_NONBLOCK), readable: true, writable: false });
  } catch {
    try {
      unlinkSync(door);
    } catch {
      // never made
    }
    return null;
  }
  let held = '';
  reader.setEncoding('latin1');
  reader.on('error', () => undefined);
  reader.on('data', (chunk: string) => {
    held += chunk;
    for (let eol = held.indexOf('\n'); eol >= 0; eol = held.indexOf('\n')) {
      answerKnock(held.slice(0, eol), token, spool, onRequest);
      held = held.slice(eol + 1);
    }
    if (held.length > 4096) held = ''; // no line of a caller: dropped
  });
  return {
    close() {
      reader.destroy();
      try {
        unlinkSync(door);
      } catch {
        // removed by a caller that found no answer (a helper stopped): this one is going anyway
      }
    },
  };
}

/**
 * Listens on a port of 127.0.0.1 that a caller can reach (this process connects to it once); null where sockets
 * are refused (Codex's sandbox) or 127.0.0.1 leads nowhere (a network namespace whose loopback is down).
 */
async function listenLocal(server: Server): Promise<number | null> {
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve, reject) => {
      const probe = connect(port, '127.0.0.1', () => {
        probe.destroy();
        resolve();
      });
      probe.on('error', reject);
    });
    return port;
  } catch {
    server.close();
    return null;
  }
}

/**
 * Whether the file names a live helper of this lro with a door alone: a helper that cannot listen either (started
 * in the same sandbox) does not replace it, since it would be no better.
 */
function doorOnlyRunning(file: string, spool: string): boolean {
  try {
    const [port, , pid, version, door] = readFileSync(file, 'utf8').trim().split(' ');
    return port === '-' && version === residentVersion() && !!door && ownFifo(join(spool, door)) && isResident(Number(pid), spool);
  } catch {
    return false;
  }
}

/** Runs the helper until it has been idle IDLE_MS, or its file or its door stops naming it. */
export async function runResident(o: { spool?: string }, _io: IO): Promise<number> {
  if (!o.spool) throw new UsageError('__resident needs --spool DIR');
  const spool = o.spool;
  const token = randomBytes(16).toString('hex');
  const file = join(spool, RESIDENT_FILE);
  let last = Date.now();
  const onRequest = () => (last = Date.now());
  const server = createServer((socket) => serve(socket, Buffer.from(token), spool, onRequest));
  const port = await listenLocal(server);
  if (port === null && doorOnlyRunning(file, spool)) return 0;
  const doorName = `door.${randomBytes(8).toString('hex')}`;
  const line = (door: boolean) => `${port ?? '-'} ${token} ${process.pid} ${residentVersion()} ${door ? doorName : '-'}\n`;
  // the file is written first (not yet under its name): on a full $TMPDIR the helper ends before it makes its
  // door, and no process of it holds the folder (a door held open keeps its file system from being unmounted). Its
  // name is one no other helper makes: a helper killed before it named its file (its sandbox ended: bubblewrap
  // --unshare-pid kills what the call started) leaves it, and the next sandbox's helper has the same small pid
  // (its 'wx' write failed: that helper did not start, and only removed the file as it gave up)
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  let door: { close(): void } | null = null;
  let written = line(true);
  try {
    writeFileSync(tmp, written, { mode: 0o600, flag: 'wx' });
    door = openDoor(join(spool, doorName), Buffer.from(token), spool, onRequest);
    if (!door) {
      if (port === null) throw new Error(`the helper can neither listen on 127.0.0.1 nor make a FIFO in ${spool}`);
      written = line(false);
      writeFileSync(tmp, written, { mode: 0o600 });
    }
    renameSync(tmp, file);
  } catch (e) {
    // (a full $TMPDIR): no call can find this helper, and its open port would keep it running for ever
    door?.close();
    if (port !== null) server.close();
    try {
      unlinkSync(tmp);
    } catch {
      // never written
    }
    throw e;
  }
  const ours = () => {
    try {
      return readFileSync(file, 'utf8') === written && (!door || existsSync(join(spool, doorName)));
    } catch {
      return false;
    }
  };
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (ours() && Date.now() - last < IDLE_MS) return;
      clearInterval(timer);
      try {
        if (readFileSync(file, 'utf8') === written) unlinkSync(file);
      } catch {
        // gone already
      }
      door?.close();
      if (port === null) return resolve();
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

// The offload's settings from what a caller typed and its LRO_* variables: the options `lro offload`, `lro run`,
// `lro mcp proxy`, the hooks and the shell prefix's helpers share, turned into the library's OffloadOptions.
import { LroError, UsageError } from './errors.js';
import type { IO } from './io.js';
import { DEFAULT_THRESHOLD, DEFAULT_TTL_SECONDS, type InputFormat, type OffloadOptions } from './offload.js';
import { checkSession } from './store/session.js';
import type { Encoding } from './tokens/tokenizer.js';
import { parseCount, parseDuration } from './units.js';

/** The offload options as typed (strings, as commander gives them). */
export interface OffloadCliOptions {
  dir?: string;
  threshold?: string;
  force?: boolean;
  json?: boolean;
  operation?: string;
  query?: string;
  session?: string;
  meta?: string[];
  ttl?: string;
  encoding?: string;
  detail?: string;
  format?: string;
  previewTokens?: string;
  descriptor?: string;
  dedupe?: boolean;
  redact?: boolean;
}

/** Parses a retention; one so long that its expiry is past the last date JavaScript can hold is a usage error. */
function parseTtl(text: string, what: string, now: Date): number {
  const seconds = parseDuration(text, what);
  if (!Number.isFinite(new Date(now.getTime() + seconds * 1000).getTime())) {
    throw new UsageError(`invalid ${what} '${text}': too long for an expiry date; use at most 100000d`);
  }
  return seconds;
}

/** LRO_REDACT: 1/true/yes/on, or 0/false/no/off (or unset). */
function parseRedact(value: string): boolean {
  if (/^(0|false|no|off|)$/i.test(value.trim())) return false;
  if (/^(1|true|yes|on)$/i.test(value.trim())) return true;
  throw new UsageError(`invalid LRO_REDACT '${value}': use 1 (redact) or 0`);
}

/**
 * The LRO_* variables. The caller (an agent) cannot see its environment, so one that does not parse is not a
 * usage error that would drop the piped output: it falls back (LRO_REDACT to redacting: the safe side), and
 * `problems` names it so the offload can pass the output on without storing it, saying what to fix.
 */
class EnvSettings {
  readonly problems: string[] = [];

  constructor(readonly env: NodeJS.ProcessEnv) {}

  /**
   * The variable parsed: `unset` when it is not set or empty (`export LRO_TTL=` reads as unsetting it), `bad` when
   * it does not parse (then noted in `problems`).
   */
  read<T>(name: string, parse: (text: string) => T, unset: T, bad: T = unset): T {
    const text = this.env[name];
    if (text === undefined || text === '') return unset;
    try {
      return parse(text);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      this.problems.push(`${e.message}, or unset ${name}`);
      return bad;
    }
  }

  /** The problems as the error an offload falls back on; undefined when there are none. */
  error(): LroError | undefined {
    return this.problems.length ? new LroError(this.problems.join('; ')) : undefined;
  }
}

/**
 * Parses the offload options (with their environment fallbacks) into library options. A bad option throws a
 * usage error (the caller typed it and sees the answer); a bad LRO_* variable becomes `settingError` (see
 * EnvSettings).
 */
export function offloadOptions(o: OffloadCliOptions, io: Pick<IO, 'env' | 'now'> & Partial<Pick<IO, 'stderr'>>): OffloadOptions {
  const env = new EnvSettings(io.env);
  const meta: Record<string, string> = {};
  for (const kv of o.meta ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid --meta '${kv}': expected key=value`);
    meta[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const threshold =
    o.threshold !== undefined
      ? parseCount(o.threshold, '--threshold')
      : env.read('LRO_THRESHOLD_TOKENS', (t) => parseCount(t, 'LRO_THRESHOLD_TOKENS'), DEFAULT_THRESHOLD);
  const ttlSeconds =
    o.ttl !== undefined
      ? parseTtl(o.ttl, '--ttl', io.now())
      : env.read('LRO_TTL', (t) => parseTtl(t, 'LRO_TTL', io.now()), DEFAULT_TTL_SECONDS);
  const session =
    o.session !== undefined
      ? checkSession(o.session, '--session')
      : env.read('LRO_SESSION', (t) => checkSession(t, 'LRO_SESSION'), null);
  const redact = o.redact ?? env.read('LRO_REDACT', parseRedact, false, true);
  return {
    dir: o.dir,
    env: io.env,
    threshold,
    force: !!o.force,
    operation: o.operation,
    query: o.query ?? null,
    session,
    dedupe: o.dedupe !== false,
    redact,
    meta,
    ttlSeconds,
    encoding: (o.encoding ?? 'o200k_base') as Encoding,
    detail: o.detail ?? 'full',
    format: (o.format ?? 'auto') as InputFormat,
    previewTokens: o.previewTokens !== undefined ? parseCount(o.previewTokens, '--preview-tokens') : undefined,
    settingError: env.error(),
    now: io.now,
    warn: (m) => void io.stderr?.write(`lro: ${m}\n`).catch(() => undefined),
  };
}

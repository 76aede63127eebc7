// The output budget of every command that prints records (CONTRACT section 4): --max-tokens N (default 2000,
// $LRO_MAX_OUTPUT_TOKENS, 0 = unlimited). Output is taken whole line by whole line until the next one would not
// fit; the command then ends with one line saying what was left out and the exact command for the next part.
// A run for an MCP tool call (its IO's `run`, io.ts RunCapture) also has a limit in bytes, and gets its continuation
// as data, with the values a command gives besides its text (giveValue: `lro ls`'s rows): passed in, never taken
// from a context of the process, so what a run gives is where its IO says.
import type { IO, LroLine, Next, RunCapture } from './io.js';
import { tokenBound } from './tokens/token-bound.js';
import { getTokenizer, MAX_TOKEN_BYTES, type Encoding, type Tokenizer } from './tokens/tokenizer.js';
import { parseCount } from './units.js';

export const DEFAULT_MAX_TOKENS = 2000;

/** --max-tokens, else $LRO_MAX_OUTPUT_TOKENS, else 2000. */
export function maxTokensFrom(option: string | undefined, env: NodeJS.ProcessEnv): number {
  if (option !== undefined) return parseCount(option, '--max-tokens');
  if (env.LRO_MAX_OUTPUT_TOKENS !== undefined) return parseCount(env.LRO_MAX_OUTPUT_TOKENS, 'LRO_MAX_OUTPUT_TOKENS');
  return DEFAULT_MAX_TOKENS;
}

export type { Continuation, LroLine, Next } from './io.js';

/**
 * Makes the next command of an input, for a printer below the command table (floor 6): the command passes
 * `nextCommand` of commands/argv.ts with its own declaration, and the printer gives the input of the next part.
 */
export type NextOf = (input: Record<string, unknown>) => Next;

/** Hands a value of the output (what the text printed, as data) to the caller that takes them (an MCP tool call). */
export function giveValue(io: Pick<IO, 'run'>, value: unknown): void {
  io.run?.values.push(value);
}

/** A line lro adds to an output, handed to the run's capture (an MCP tool call's) as it was made; its text. */
function said(run: RunCapture | undefined, line: LroLine): string {
  run?.lines.push(line);
  return line.line;
}

/**
 * A line lro writes on stderr that names commands (`mentions`), handed to the run's capture as an output's lines
 * are: `what` is the line without its newline.
 */
export function stderrLine(run: RunCapture | undefined, what: string, mentions: Next[]): string {
  return said(run, { what, mentions, line: `${what}\n`, stderr: true });
}

/**
 * The command a run prints as its whole answer (`lro where --explain`: the lro jq command that gives the same),
 * its line, handed to the run's capture so an MCP tool call names it as the tool call it is.
 */
export function commandAnswer(io: Pick<IO, 'run'>, command: Next): string {
  return said(io.run, { what: command.text, mentions: [command], line: `${command.text}\n` });
}

/** The least budget a next part asks for when its part showed nothing (see largerBudget). */
export const MIN_PROGRESS_TOKENS = 100;

/**
 * The budget a next part asks for when its part showed none of what is left (not one line fitted beside the line
 * saying so): the same budget would stop at the same place again, and an agent following next commands would go
 * round in a loop. Four times as large, and at least MIN_PROGRESS_TOKENS: the pages always move on.
 */
export function largerBudget(max: number): number {
  return Math.max(4 * max, MIN_PROGRESS_TOKENS);
}

/** A search's or query's plan whose options ask for largerBudget(max), for the next command of a part that showed nothing. */
export function withLargerBudget<P extends { options: { maxTokens?: string } }>(plan: P, max: number): P {
  return { ...plan, options: { ...plan.options, maxTokens: String(largerBudget(max)) } };
}

/** Whether this runs for an MCP tool call, whose layer bounds listings and descriptors as wholes of its own. */
export function inToolCall(io: Pick<IO, 'run'>): boolean {
  return io.run !== undefined;
}

export class OutputBudget {
  private counted = 0;
  private tokenizer: Tokenizer | null = null;
  /**
   * Lines taken but not counted yet, while an upper bound of their tokens fits the budget: their UTF-8 bytes (a
   * token is at least one byte), then, once bytes no longer tell, tokenBound's (tokens/token-bound.ts). Loading the
   * tokenizer's table (about 25 ms) waits until an output is too big to tell that way (about 2,000 bytes of a log
   * by bytes, about 6,000 by tokenBound, for the default budget).
   */
  private uncounted: string[] | null = [];
  private uncountedBound = 0;
  /** Whether uncountedBound is tokenBound's, not bytes. */
  private bounded = false;
  private takenAny = false;
  /** The run's limit in bytes (IO.run), and the bytes taken against it. */
  private readonly maxBytes: number;
  private bytes = 0;

  /** `run`: the IO's, when its caller takes the continuations as data (an MCP tool call). */
  constructor(
    readonly max: number,
    private readonly encoding: Encoding = 'o200k_base',
    private readonly run?: RunCapture,
  ) {
    this.maxBytes = run?.maxBytes ?? Infinity;
  }

  /**
   * The final line of an output cut here, `[lro: WHAT; next: COMMAND]`, handed to the run's capture too (IO.run):
   * the one way a continuation is made, so an MCP call never misses one a printer wrote. `mentions`: the commands
   * WHAT names (io.ts LroLine).
   */
  continuation(what: string, next: Next, mentions: Next[] = []): string {
    return said(this.run, { what, mentions, next, line: `[lro: ${what}; next: ${next.text}]\n` });
  }

  /**
   * A line `[lro: WHAT]` ending an output that is not cut (a record shown in part, and the command that reads all
   * of it, in `mentions`), handed to the run's capture as a continuation is.
   */
  note(what: string, mentions: Next[]): string {
    return said(this.run, { what, mentions, line: `[lro: ${what}]\n` });
  }

  /** Nothing taken yet: what is printed next begins the output (or its page). */
  get empty(): boolean {
    return !this.takenAny;
  }

  get unlimited(): boolean {
    return this.max === 0;
  }

  /** Tokens taken so far. */
  get used(): number {
    this.countTaken();
    return this.counted;
  }

  /** Tokens of text (0 without a limit: nothing is counted then). */
  cost(text: string): number {
    if (this.unlimited) return 0;
    this.tokenizer ??= getTokenizer(this.encoding);
    return this.tokenizer.count(text);
  }

  /** Whether text would fit in what is left, counting no further than needed. */
  fits(text: string): boolean {
    if (this.maxBytes !== Infinity && this.bytes + Buffer.byteLength(text) > this.maxBytes) return false;
    if (this.unlimited) return true;
    if (this.uncounted && this.fitsUncounted(text, false)) return true;
    const bytes = Buffer.byteLength(text); // never fewer than its tokens
    const left = this.left;
    if (bytes <= left) return true;
    if (this.tooLong(text)) return false;
    let used = 0;
    for (let start = 0; start < text.length; ) {
      let end = text.indexOf('\n', start + 4096);
      end = end < 0 ? text.length : end + 1;
      used += this.cost(text.slice(start, end));
      if (used > left) return false;
      start = end;
    }
    return true;
  }

  /** Takes text if it fits in what is left; false (and nothing taken) if it does not. */
  take(text: string): boolean {
    const bytes = this.maxBytes === Infinity ? 0 : Buffer.byteLength(text);
    if (this.bytes + bytes > this.maxBytes || !this.takeTokens(text)) return false;
    this.bytes += bytes;
    this.takenAny = true;
    return true;
  }

  private takeTokens(text: string): boolean {
    if (this.unlimited) return true;
    if (this.uncounted) {
      if (this.fitsUncounted(text, true)) return true;
      this.countTaken();
    }
    if (this.tooLong(text)) return false;
    const c = this.cost(text);
    if (this.counted + c > this.max) return false;
    this.counted += c;
    return true;
  }

  /**
   * Whether text has more bytes than what is left could hold even in the longest tokens: then it cannot fit,
   * and is not counted (counting a record of megabytes takes seconds, and its memory grows with it).
   */
  private tooLong(text: string): boolean {
    return text.length > this.left * MAX_TOKEN_BYTES || Buffer.byteLength(text) > this.left * MAX_TOKEN_BYTES;
  }

  /** Tokens left (Infinity without a limit). */
  get left(): number {
    return this.unlimited ? Infinity : this.max - this.used;
  }

  /**
   * Whether text fits beside the lines taken uncounted, by an upper bound of its tokens (and takes it, uncounted,
   * when `take`): its exact bytes while the lines' bytes fit (a string has no more characters than UTF-8 bytes: a
   * guess of 3 bytes a character loaded the tokenizer for an ASCII output of 700 bytes), then tokenBound.
   */
  private fitsUncounted(text: string, take: boolean): boolean {
    let rest = this.max - this.uncountedBound;
    let bound = !this.bounded && text.length <= rest ? Buffer.byteLength(text) : Infinity;
    if (bound > rest) {
      if (!this.bounded) {
        // bytes no longer tell: the lines taken are bounded anew, once, and every line after them
        this.bounded = true;
        this.uncountedBound = 0;
        for (const t of this.uncounted!) this.uncountedBound += tokenBound(t, this.encoding);
        rest = this.max - this.uncountedBound;
      }
      bound = tokenBound(text, this.encoding, rest);
    }
    if (bound > rest) return false;
    if (take) {
      this.uncounted!.push(text);
      this.uncountedBound += bound;
    }
    return true;
  }

  /** Counts the lines taken uncounted; from then on every line is counted. */
  private countTaken(): void {
    if (!this.uncounted) return;
    for (const t of this.uncounted) this.counted += this.cost(t);
    this.uncounted = null;
    this.uncountedBound = 0;
  }

  /**
   * The length of the longest prefix of text (in characters) whose tokens fit in `tokens`. Token counts of
   * prefixes grow about linearly, so the search guesses from the characters per token seen so far (a few
   * counts, the first of a typical 4 characters a token, instead of a dozen of up to 16), then bisects.
   */
  fitPrefix(text: string, tokens: number): number {
    if (this.unlimited) return text.length;
    let lo = 0; // fits
    let loCost = 0;
    // the answer is in [lo, hi]; an MCP run's byte limit bounds it too (3 bytes at most a character)
    let hi = Math.min(text.length, tokens * 16, Math.floor((this.maxBytes - this.bytes) / 3));
    let hiCost = Infinity; // of a prefix just past hi, once one was counted
    for (let guesses = 0; lo < hi; guesses++) {
      let guess: number;
      if (guesses === 0) guess = tokens * 4;
      else if (guesses >= 5) guess = (lo + hi) / 2;
      else if (hiCost === Infinity) guess = loCost > 0 ? (lo * tokens) / loCost : hi;
      else guess = lo + ((hi - lo) * (tokens - loCost)) / (hiCost - loCost);
      const mid = Math.min(hi, Math.max(lo + 1, Math.ceil(guess)));
      const c = this.cost(text.slice(0, mid));
      if (c <= tokens) {
        lo = mid;
        loCost = c;
      } else {
        hi = mid - 1;
        hiCost = c;
      }
    }
    if (lo > 0 && lo < text.length && /[\ud800-\udbff]/.test(text[lo - 1])) lo--; // never split a surrogate pair
    return lo;
  }
}

/** The last line of a cut --json output: the continuation as a JSON object. */
export function truncatedObject(what: string, next: Next): string {
  return `${JSON.stringify({ type: 'truncated', message: what, next: next.text })}\n`;
}

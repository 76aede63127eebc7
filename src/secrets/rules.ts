// The secret rules: gitleaks' default rules plus lro's own, translated to JavaScript at build time
// (scripts/build-secrets.mjs → dist/secrets/rules.json) and compiled here once, on first use, so commands that
// never scan pay nothing. Every regex runs on a latin1 string of the input bytes (see scripts/re2-to-js.mjs).
import { existsSync, readFileSync } from 'node:fs';
import { Allowlist, type AllowlistSpec } from './allowlist.js';
import { setV8Flags } from '../v8-flags.js';

/** A rule as built (one entry of rules.json). */
export interface RuleSpec {
  id: string;
  origin: 'gitleaks' | 'lro';
  source: string;
  flags: string;
  groups: number;
  /** The pattern can backtrack exponentially (a repeat holding an unbounded repeat): use V8's linear engine. */
  linear?: boolean;
  /** lro's own: a finding of another rule that covers this one's wins (its label and count stay). */
  fallback?: boolean;
  /** Hide the whole match (the rule has no capture group, or its groups only label alternatives or repeat). */
  hideMatch: boolean;
  secretGroup: number;
  entropy: number;
  /** Lower case; the rule runs only on text holding one of them (gitleaks' keywords). */
  keywords: string[];
  /** For a rule without keywords: literals one of which every match holds (null: run on every line). */
  prefilter: string[] | null;
  /**
   * Every match holds one of `literals` (lower case), starting at most maxOffset characters into it; `prefix`,
   * when not null: the ranges of the only characters that can come before it in a match.
   */
  anchor: { literals: string[]; ids: number[]; maxOffset: number; prefix: [number, number][] | null } | null;
  allowlists: AllowlistSpec[];
}

/** rules.json. */
export interface RuleTable {
  source: { repository: string; path: string; commit: string };
  rules: RuleSpec[];
  /** All anchor literals; the keyword automaton reports them after the rules' triggers and `-----begin`. */
  anchorLiterals: string[];
  allowlist: { regexes: { source: string; flags: string }[]; stopwords: string[] };
  dropped: { id: string; origin: string; reason: string }[];
}

/** A compiled rule. */
export interface Rule {
  id: string;
  index: number;
  /** Global (for exec loops); on the linear engine for a rule marked `linear`. */
  re: RegExp;
  /** The same pattern with `d`, for the group offsets inside a short match. */
  withIndices: RegExp;
  /** How many capture groups the pattern has. */
  groups: number;
  /**
   * Literals every match holds (case-insensitive, global), the sticky regex tried before them, and which bytes can
   * come before a literal in a match (a table of 256, or null: any); or null.
   */
  anchor: { literals: RegExp; ids: number[]; maxOffset: number; sticky: RegExp; prefix: Uint8Array | null } | null;
  hideMatch: boolean;
  secretGroup: number;
  entropy: number;
  /** Strings whose presence (case-insensitive) makes the rule worth running; null: always. */
  triggers: string[] | null;
  allowlists: Allowlist[];
  /** gitleaks drops a finding of a "generic" rule when another rule found the same secret on the line. */
  generic: boolean;
  /** Dropped when a finding of another rule covers it (lro-keyed-secret: gitleaks' rules keep their label). */
  fallback: boolean;
}

/** The compiled rule set and the global allowlist. */
export interface Rules {
  rules: Rule[];
  global: Allowlist;
  table: RuleTable;
}

/** A table of 256 bytes: 1 for the bytes in the ranges. */
function byteTable(ranges: [number, number][]): Uint8Array {
  const t = new Uint8Array(256);
  for (const [lo, hi] of ranges) t.fill(1, lo, hi + 1);
  return t;
}

const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** A file built with the rules (dist/secrets/NAME): next to the bundle, or from the sources (src/secrets). */
export function rulesFile(name: string): string {
  const candidates = [new URL(`./secrets/${name}`, import.meta.url), new URL(`../../dist/secrets/${name}`, import.meta.url)];
  for (const u of candidates) if (existsSync(u)) return u.pathname;
  throw new Error(`the secret rules are missing (dist/secrets/${name}): run npm run build`);
}

let cached: Rules | null = null;

/** A regex, on the linear engine when the rule needs it and the engine takes the pattern. */
function compile(s: RuleSpec, flags: string): RegExp {
  if (s.linear) {
    try {
      return new RegExp(s.source, `${flags}l`);
    } catch {
      // a construct the linear engine lacks: backtracking it is
    }
  }
  return new RegExp(s.source, flags);
}

/**
 * A rule whose regexes are made when first used: most inputs trigger a few rules of the 200, and making all of
 * them took 7 ms of every scan's start (a 100 KB offload takes about 100 ms).
 */
class LazyRule implements Rule {
  readonly id: string;
  readonly groups: number;
  readonly hideMatch: boolean;
  readonly secretGroup: number;
  readonly entropy: number;
  readonly triggers: string[] | null;
  readonly generic: boolean;
  readonly fallback: boolean;
  private compiled: { re?: RegExp; withIndices?: RegExp; anchor?: Rule['anchor']; allowlists?: Allowlist[] } = {};

  constructor(
    private readonly spec: RuleSpec,
    readonly index: number,
  ) {
    this.id = spec.id;
    this.groups = spec.groups;
    this.hideMatch = spec.hideMatch;
    this.secretGroup = spec.secretGroup;
    this.entropy = spec.entropy;
    this.triggers = spec.keywords.length ? spec.keywords : spec.prefilter;
    this.generic = spec.id.toLowerCase().includes('generic');
    this.fallback = spec.fallback === true;
  }

  get re(): RegExp {
    return (this.compiled.re ??= compile(this.spec, `g${this.spec.flags}`));
  }

  get withIndices(): RegExp {
    return (this.compiled.withIndices ??= new RegExp(this.spec.source, `d${this.spec.flags}`));
  }

  get anchor(): Rule['anchor'] {
    if (this.compiled.anchor === undefined) {
      const a = this.spec.anchor;
      this.compiled.anchor = a
        ? {
            literals: new RegExp(a.literals.map(escapeRegExp).join('|'), 'gi'),
            ids: a.ids,
            maxOffset: a.maxOffset,
            sticky: compile(this.spec, `y${this.spec.flags}`),
            prefix: a.prefix ? byteTable(a.prefix) : null,
          }
        : null;
    }
    return this.compiled.anchor;
  }

  get allowlists(): Allowlist[] {
    return (this.compiled.allowlists ??= this.spec.allowlists.map((a) => new Allowlist(a)));
  }
}

/**
 * Loads the rules; each compiles its regexes on first use (LazyRule). gitleaks relies on RE2, which is linear; a
 * pattern that holds an unbounded repeat inside a repeat (curl-auth-user: 80 `\r` on a line took 4 s) backtracks
 * exponentially in JavaScript, so those run on V8's linear engine (the `l` flag, which V8 offers behind a flag
 * that changes nothing else).
 */
export function loadRules(): Rules {
  if (cached) return cached;
  setV8Flags('--enable-experimental-regexp-engine'); // (node:v8 loaded only here: importing it cost every command)
  const table = JSON.parse(readFileSync(rulesFile('rules.json'), 'utf8')) as RuleTable;
  const rules = table.rules.map((s, index): Rule => new LazyRule(s, index));
  const global = new Allowlist({ condition: 'OR', target: 'secret', regexes: table.allowlist.regexes, stopwords: table.allowlist.stopwords });
  cached = { rules, global, table };
  return cached;
}

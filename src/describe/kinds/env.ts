// NAME=value lines (env, printenv, .env files, set): the variables by name, never their values (they are often
// secrets; the descriptor's preview masks what looks like one).
import type { KindFacts, TextSample } from './types.js';
import { most, numbered, scope } from './util.js';

const ASSIGN = /^(?:export |declare -x )?([A-Za-z_][A-Za-z0-9_]*)=/;

export function detectEnv(s: TextSample): KindFacts | null {
  const lines = numbered(s.lines);
  if (!most(lines.map((l) => l.text), (t) => ASSIGN.test(t), 0.9, 5)) return null;
  const names = lines.map((l) => ASSIGN.exec(l.text)?.[1]).filter((n): n is string => !!n);
  // a listing of variables names each once: `n=1`, `n=2`, … is data keyed by one name, not an environment
  if (new Set(names).size < 0.9 * names.length) return null;
  const name = names.includes('PATH') ? 'PATH' : names[0];
  return {
    kind: 'env',
    facts: { variables: names.length, ...scope(s.complete, s.lines.length), names: names.slice(0, 40) },
    errors: 'none',
    levels: false,
    next: [`lro grep ID '^${name}='`, "lro grep ID '^LC_|^LANG' -c"],
  };
}

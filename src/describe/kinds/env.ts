// NAME=value lines (env, printenv, .env files, set): the variables by name, never their values (they are often
// secrets; the descriptor's preview masks what looks like one).
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { most, numbered } from './util.js';

const ASSIGN = /^(?:export |declare -x )?([A-Za-z_][A-Za-z0-9_]*)=/;
const NAMED = 40;

class EnvCounter implements KindCounter {
  private variables = 0;
  private readonly names: string[] = [];
  private path = false;

  line(text: string): void {
    const name = ASSIGN.exec(text)?.[1];
    if (!name) return;
    this.variables++;
    if (name === 'PATH') this.path = true;
    if (this.names.length < NAMED) this.names.push(name);
  }

  end(): KindFacts {
    const name = this.path ? 'PATH' : this.names[0];
    return {
      kind: 'env',
      facts: { variables: this.variables, names: this.names },
      errors: 'none',
      levels: false,
      nextCommands: [['grep', 'ID', `^${name}=`], ['grep', 'ID', '^LC_|^LANG', '-c']],
    };
  }
}

export function countEnv(s: TextSample): KindCounter | null {
  const lines = numbered(s.lines);
  if (!most(lines.map((l) => l.text), (t) => ASSIGN.test(t), 0.9, 5)) return null;
  const names = lines.map((l) => ASSIGN.exec(l.text)?.[1]).filter((n): n is string => !!n);
  // a listing of variables names each once: `n=1`, `n=2`, … is data keyed by one name, not an environment
  if (new Set(names).size < 0.9 * names.length) return null;
  return fed(new EnvCounter(), s);
}

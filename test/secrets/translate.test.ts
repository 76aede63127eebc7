// The RE2 → JavaScript translation (scripts/re2-to-js.mjs) on what gitleaks' patterns use, and the anchors the
// scanner relies on: trying a rule only near its literals finds exactly what a plain search finds.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { anchorOf, requiredLiterals, translateRe2, Untranslatable } from '../../scripts/re2-to-js.mjs';
import { findSecrets } from '../../src/secrets/scan.js';
import { loadRules, type Rule, type Rules } from '../../src/secrets/rules.js';

const js = (p: string) => {
  const t = translateRe2(p);
  return new RegExp(t.source, t.flags);
};
const latin1 = (s: string) => Buffer.from(s).toString('latin1');

describe('translateRe2', () => {
  it('folds case where (?i) reaches, to the end of its group, and not inside (?-i:…)', () => {
    const re = js('\\b(p8e-(?i)[a-z0-9]{4})x');
    expect(re.test('p8e-AbC1x')).toBe(true);
    expect(re.test('P8E-abc1x')).toBe(false); // before (?i)
    expect(re.test('p8e-abc1X')).toBe(false); // after its group
    const mixed = js('(?i)[\\w.-]{0,5}?(?:(?-i:[Aa]pi|API)|key)=');
    expect(mixed.test('my_KEY=')).toBe(true);
    expect(mixed.test('api=')).toBe(true);
    expect(mixed.test('aPI=')).toBe(false);
    expect(js('(?i)a|b').test('B')).toBe(true); // flags reach later branches
    expect(js('(?i:ab)c').test('ABc')).toBe(true);
    expect(js('(?i:ab)c').test('ABC')).toBe(false);
  });

  it("gives \\s, . and negated classes RE2's meaning over bytes", () => {
    expect(js('a\\sb').test('a\u000bb')).toBe(false); // \v is not RE2 space
    expect(js('a\\sb').test(latin1('a\u00a0b'))).toBe(false); // nor is NBSP
    expect(js('a.b').test('a\rb')).toBe(true); // . takes \r in RE2
    expect(js('a.b').test('a\nb')).toBe(false);
    expect(js('a(?s:.)b').test('a\nb')).toBe(true);
    expect(js('[^]]+]').test('x]')).toBe(true); // ] first in a class is literal
    expect(js('[\\S]').test('\u000b')).toBe(true);
    expect(js('[\\w .-/]').test('/')).toBe(true); // .-/ is a range
    expect(js('^\\$(?:\\d+|{\\d+})$').test('${12}')).toBe(true); // { not starting a repeat is literal
    expect(js('a\\zb|c\\z').test('xc')).toBe(true);
    expect(js('[\\x60]').test('`')).toBe(true);
    expect(js('x(?P<name>y)').exec('xy')?.groups?.name).toBe('y');
  });

  it('refuses what it cannot translate exactly', () => {
    for (const p of ['(?m)^a', '(?U)a+', '\\pL', '\\Qa\\E', 'a**', '(a', 'a)', '\\1', 'é']) expect(() => translateRe2(p), p).toThrow(Untranslatable);
  });

  it('finds the literals every match holds, and how far into the match they start', () => {
    expect(anchorOf('ghp_[0-9a-zA-Z]{36}')).toEqual({ literals: ['ghp_'], maxOffset: 0, prefix: [] });
    const generic = anchorOf('(?i)[\\w.-]{0,50}?(?:access|key)(?:[ \\t\\w.-]{0,20})=');
    expect(generic?.literals).toEqual(['access', 'key']);
    expect(generic?.maxOffset).toBe(50);
    expect(generic?.prefix).not.toBeNull();
    expect(anchorOf('[a-z]+x')).toBeNull();
    expect(requiredLiterals('(?i)(?:db_passw(?:or)?d|pwd)=')).toEqual(['db_passw', 'pwd']);
  });
});

describe('anchored search', () => {
  const rules = loadRules();
  // the same rules without anchors: every regex searched from the start of the text
  // (a rule compiles its regexes when first asked: its fields are getters, so they are copied one by one)
  const withoutAnchor = (r: Rule): Rule => ({
    id: r.id,
    index: r.index,
    re: r.re,
    withIndices: r.withIndices,
    groups: r.groups,
    anchor: null,
    hideMatch: r.hideMatch,
    secretGroup: r.secretGroup,
    entropy: r.entropy,
    triggers: r.triggers,
    allowlists: r.allowlists,
    generic: r.generic,
    fallback: r.fallback,
  });
  const plain: Rules = { ...rules, rules: rules.rules.map(withoutAnchor) };
  const all = rules.rules.map((r) => r.index);
  const examples = JSON.parse(readFileSync(resolve(__dirname, 'fixtures/gitleaks-examples.json'), 'utf8')) as {
    rules: Record<string, { tps: string[]; fps: string[]; samples: { secret: string }[] }>;
  };
  const pieces = Object.values(examples.rules).flatMap((r) => [...r.tps, ...r.fps, ...r.samples.map((s) => s.secret)]);

  it("finds what a plain search finds, on gitleaks' examples", () => {
    for (const p of pieces) {
      const t = latin1(p);
      expect(findSecrets(rules, t, all), p).toEqual(findSecrets(plain, t, all));
    }
  });

  it('finds what a plain search finds, on texts mixing examples, keywords and noise', () => {
    const words = ['key', 'token=', 'api_key: "', 'password', '://', 'ghp_', 'xoxb-', ' ', '\n', '"', '=', 'AKIA', 'sk-', 'eyJ', '-----BEGIN', 'x'];
    const part = fc.oneof(fc.constantFrom(...pieces, ...words), fc.string({ maxLength: 12 }), fc.stringMatching(/^[A-Za-z0-9_\-.]{8,48}$/));
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), (parts) => {
        const t = latin1(parts.join(''));
        expect(findSecrets(rules, t, all)).toEqual(findSecrets(plain, t, all));
      }),
      { numRuns: 300, seed: 42 },
    );
  });
});

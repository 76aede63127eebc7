// Unit: the literals lro grep extracts from a regex (search/literals.ts), each a set such that every match of the
// pattern contains one of its strings; and the patterns from which nothing may be extracted.
import { describe, expect, it } from 'vitest';
import { analyzeLiterals, extractLiterals } from '../../src/search/literals.js';
import { compilePattern, withoutSuperstrings } from '../../src/search/pattern.js';

const ex = (p: string, max = 8) => extractLiterals(p, true, max).sort();

describe('extractLiterals', () => {
  it.each([
    ['ERROR.*ipc', ['ERROR']],
    ['key="v(13|42)"', ['key="v13"', 'key="v42"']],
    ['colou?r', ['color', 'colour']],
    ['\\bsshd\\b', ['sshd']],
    ['^Nov \\d+ ', ['Nov ']],
    ['"level":"error"', ['"level":"error"']],
    ['user (root|admin|guest) from', ['user admin from', 'user guest from', 'user root from']],
    ['(ERROR|WARN|FATAL): .*timeout', ['ERROR: ', 'FATAL: ', 'WARN: ']],
    ['xa+yz', ['ayz']],
    ['[Ff]ailed password', ['Failed password', 'failed password']],
    ['(?:x|y)z', ['xz', 'yz']],
    ['foo\\.bar\\x41', ['foo.barA']],
    ['(?<name>abc)d', ['abcd']],
    ['[^abc]def', ['def']],
  ])('%s requires one of %j', (p, want) => {
    expect(ex(p)).toEqual([...want].sort());
  });

  it('every string found is in every match (a few patterns against sample texts)', () => {
    const samples = ['key="v13"', 'user root from x', 'colour', 'xaaayz', 'ERROR: x timeout'];
    for (const p of ['key="v(13|42)"', 'user (root|admin|guest) from', 'colou?r', 'xa+yz', '(ERROR|WARN): .*timeout']) {
      const lits = ex(p);
      for (const s of samples) if (new RegExp(p, 'u').test(s)) expect(lits.some((l) => s.includes(l)), `${p} on ${s}`).toBe(true);
    }
  });

  it.each([
    ['(?<=user )root', 'a lookbehind'],
    ['root(?=:)', 'a lookahead'],
    ['(ab)\\1', 'a backreference'],
    ['(?<w>ab)\\k<w>', 'a named backreference'],
    ['a?', 'an optional character'],
    ['foo|', 'an empty alternative'],
    ['(foo|)', 'an empty alternative in a group'],
    ['foo|\\d+', 'an alternative without a literal'],
    ['\\d{4}-\\d{2}', 'single characters only'],
    ['x*', 'a star'],
    ['.', 'any character'],
    ['[^a]b', 'a negated class, then one character'],
  ])('%s extracts nothing (%s)', (p, why) => {
    expect(ex(p), why).toEqual([]);
  });

  it('caps the set: more alternatives than allowed give nothing', () => {
    expect(ex('(a1|a2|a3|a4|a5|a6|a7|a8|a9)', 8)).toEqual([]);
    expect(ex('(a1|a2|a3|a4|a5|a6|a7|a8|a9)z.*longer_literal', 8)).toEqual(['longer_literal']);
  });

  it('parses as the u flag does, or the legacy syntax', () => {
    expect(extractLiterals('a\\-b', false, 8)).toEqual(['a-b']);
    expect(extractLiterals('a\\-b', true, 8)).toEqual([]);
  });
});

describe('analyzeLiterals: the whole match as a set of strings', () => {
  const exact = (p: string, max = 8) => analyzeLiterals(p, true, max).exact?.sort() ?? null;
  it.each([
    ['(Failed|Accepted) password', ['Accepted password', 'Failed password']],
    ['uid=10(01|00)', ['uid=1000', 'uid=1001']],
    ['Receiv(ed|ing) block', ['Received block', 'Receiving block']],
    ['colou?r', ['color', 'colour']],
    ['key="v(13|42)"', ['key="v13"', 'key="v42"']],
  ])('%s matches exactly one of %j', (p, want) => {
    expect(exact(p)).toEqual(want);
  });

  it.each([
    ['^Jun (1|2)', 'an anchor: the strings are required, not the match'],
    ['\\bsshd\\b', 'a word boundary'],
    ['ssh(2|3)$', 'an anchor at the end'],
    ['a[0-9]', 'more strings than needles'],
    ['ERROR.*ipc', 'a part that is no string'],
    ['a(?=b)', 'a lookahead'],
  ])('%s is no exact set (%s)', (p) => {
    expect(exact(p)).toBeNull();
  });
});

describe('compilePattern: the literals looked for', () => {
  it('drops a literal that contains another (a text holding aac holds ac), but not the exact strings of -w', () => {
    const m = compilePattern('(a|aa)+c', { fixed: false, ignoreCase: false, word: false });
    expect(m.literals).toEqual(['ac']);
    expect(compilePattern('ac|aac|b\\d', { fixed: false, ignoreCase: false, word: false }).exact).toBeNull();
    expect(compilePattern('ac|aac', { fixed: false, ignoreCase: false, word: false }).exact).toEqual(['ac']);
    expect(compilePattern('ac|aac', { fixed: false, ignoreCase: false, word: true }).exact).toEqual(['ac', 'aac']);
    expect(withoutSuperstrings(['abc', 'bc', 'xbcx', 'q', 'bc'])).toEqual(['bc', 'q']);
  });
});

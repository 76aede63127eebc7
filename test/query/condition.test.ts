import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { literalValue } from '../../src/values/literal.js';
import { conditionToJq, joinConditionArgs, parseCondition, test as holds } from '../../src/query/condition.js';
import { parseRecord } from '../../src/values/json-value.js';
import { parsePath, pathLabel, pathToJq } from '../../src/query/path.js';
import { LroError } from '../../src/errors.js';

describe('field paths', () => {
  it('reads jq-style paths', () => {
    expect(pathToJq(parsePath('.a.b'))).toBe('.a?.b?');
    expect(pathLabel(parsePath('a.b'))).toBe('.a.b');
    expect(pathToJq(parsePath('.items[].status'))).toBe('.items?[]?.status?');
    expect(pathLabel(parsePath('.items[].status'))).toBe('.items[].status');
    expect(pathLabel(parsePath('."key with space".x'))).toBe('."key with space".x');
    expect(pathLabel(parsePath('.["a]b"]'))).toBe('."a]b"');
    expect(pathToJq(parsePath('.[1]'))).toBe('.[1]?');
    expect(pathLabel(parsePath('@timestamp'))).toBe('."@timestamp"');
    expect(pathToJq(parsePath('.'))).toBe('.');
    expect(() => parsePath('.a[x]')).toThrow(LroError);
  });
});

describe('conditions', () => {
  const c = (s: string) => parseCondition(s);
  it('splits at the first operator after the field', () => {
    expect(c('status=error')).toMatchObject({ op: '=', values: ['error'] });
    expect(c('q=a=b')).toMatchObject({ op: '=', values: ['a=b'] });
    expect(c('msg=connection refused')).toMatchObject({ op: '=', values: ['connection refused'] });
    expect(c('latency >= 500')).toMatchObject({ op: '>=', values: [500] });
    expect(c('a!=1')).toMatchObject({ op: '!=', values: [1] });
    expect(c('code="200"')).toMatchObject({ op: '=', values: ['200'] });
    expect(c('x=null')).toMatchObject({ op: '=', values: [null] });
    expect(c('user.id?')).toMatchObject({ op: '?' });
    expect(c('level in warn, error,"a,b"')).toMatchObject({ op: 'in', values: ['warn', 'error', 'a,b'] });
    expect(c('url~a=b')).toMatchObject({ op: '~', pattern: 'a=b' });
    expect(c('."a=b"=c')).toMatchObject({ op: '=', values: ['c'] });
    expect(joinConditionArgs(['status', 'in', 'a,b', 'x', '=', 'y z'])).toEqual(['status in a,b', 'x = y z']);
  });

  it('refuses conditions it cannot read, saying how to write one', () => {
    expect(() => c('status')).toThrow(/no operator after status: write FIELD=VALUE/);
    expect(() => c('a<true')).toThrow(/compares numbers or strings/);
    expect(() => c('a?x')).toThrow(/nothing may follow/);
  });

  it('tests records as jq would', () => {
    const r = parseRecord('{"status":"error","ms":700,"id":505874924095815681,"tags":["a","urgent"],"user":{"name":"al"},"n":null}');
    expect(holds(c('status=error'), r)).toBe(true);
    expect(holds(c('ms>500'), r)).toBe(true);
    expect(holds(c('ms>"500"'), r)).toBe(false); // strings with strings only
    expect(holds(c('id=505874924095815681'), r)).toBe(true);
    expect(holds(c('id=505874924095815680'), r)).toBe(false);
    expect(holds(c('id>505874924095815680'), r)).toBe(true);
    expect(holds(c('tags[]=urgent'), r)).toBe(true);
    expect(holds(c('user.name~^a'), r)).toBe(true);
    expect(holds(c('n?'), r)).toBe(false);
    expect(holds(c('missing=null'), r)).toBe(true);
    expect(holds(c('missing!=1'), r)).toBe(true);
    expect(holds(c('status in ok,error'), r)).toBe(true);
  });

  it('writes each condition as jq', () => {
    expect(conditionToJq(c('status=error'))).toBe('.status? == "error"');
    expect(conditionToJq(c('latency>500'))).toBe('any(.latency?; type == "number" and . > 500)');
    expect(conditionToJq(c('tags[]=x'))).toBe('any(.tags?[]?; . == "x")');
    expect(conditionToJq(c('msg~^err'))).toBe('any(.msg?; type == "string" and test("^err"))');
    expect(conditionToJq(c('id=505874924095815681'))).toBe('.id? == 505874924095815681');
    expect(conditionToJq(c('a in 1,x'))).toBe('any(.a?; . == 1 or . == "x")');
    expect(conditionToJq(c('a?'))).toBe('.a? != null');
  });
});

describe("a condition's value is what was typed after the operator, spaces at its end included", () => {
  // words with spaces inside and at the end; none begins with a space (spaces after the operator are layout)
  const word = fc.stringMatching(/^[A-Za-z0-9_\-:/.,=<>!~?@%]{1,8}$/);
  const value = fc
    .tuple(word, fc.array(fc.tuple(fc.constantFrom(' ', '  ', '\t'), word), { maxLength: 3 }), fc.constantFrom('', ' ', '  ', ' \t'))
    .map(([first, more, end]) => first + more.map(([sp, w]) => sp + w).join('') + end)
    // (a value that begins with an operator's character would lengthen the operator: a==b is a=b)
    .filter((v) => typeof literalValue(v) === 'string' && !/^[,=<>!~?]/.test(v));
  const regex = (v: string) => {
    try {
      return new RegExp(v, 'u') !== null;
    } catch {
      return false;
    }
  };
  const field = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/).filter((f) => f !== 'in');

  it('=, != and ~ keep every character of the value, with or without spaces around the operator', () => {
    fc.assert(
      fc.property(field, fc.constantFrom('=', '!=', '~'), value, fc.constantFrom('', ' ', '  '), (f, op, v, pad) => {
        fc.pre(op !== '~' || regex(v));
        const cond = parseCondition(`${pad}${f}${pad}${op}${pad}${v}`);
        if (op === '~') {
          expect(cond.pattern).toBe(v);
          expect(conditionToJq(cond)).toContain(JSON.stringify(v));
        } else expect(cond.values).toEqual([v]);
        expect(cond.path.steps).toEqual([{ kind: 'key', key: f }]);
      }),
      { numRuns: 500 },
    );
  });

  it("an in-list's items are what lies between the commas, less the spaces after each comma", () => {
    const item = value.filter((v) => !v.includes(','));
    fc.assert(
      fc.property(field, fc.array(item, { minLength: 1, maxLength: 4 }), fc.constantFrom(',', ', ', ',  '), (f, items, comma) => {
        expect(parseCondition(`${f} in ${items.join(comma)}`).values).toEqual(items);
      }),
      { numRuns: 300 },
    );
  });

  it('the examples of the issue: a trailing space is the pattern\'s, a JSON string keeps a leading one', () => {
    expect(parseCondition('cmd~^node ').pattern).toBe('^node ');
    expect(conditionToJq(parseCondition('cmd~^node '))).toBe('any(.cmd?; type == "string" and test("^node "))');
    expect(parseCondition('name=a b  ').values).toEqual(['a b  ']);
    expect(parseCondition('name= " a"').values).toEqual([' a']);
    expect(parseCondition('n > 5 ').values[0]?.toString()).toBe('5');
    expect(parseCondition('x? ').op).toBe('?');
    expect(joinConditionArgs(['cmd', '~', '^node '])).toEqual(['cmd ~ ^node ']);
    expect(parseCondition(joinConditionArgs(['cmd', '~', '^node '])[0]).pattern).toBe('^node ');
  });
});

describe("a table's columns are named as its header writes them", () => {
  const cols = ['package name', 'package', 'installed size', 'Mounted on', 'SIZE/OFF', '1K-blocks'];
  const c = (s: string) => parseCondition(s, false, cols);
  it('spaces and all, in single quotes, or as a jq key; the longest name that an operator follows', () => {
    expect(c('package name=zsh')).toMatchObject({ path: { steps: [{ key: 'package name' }] }, values: ['zsh'] });
    expect(c("'package name' = zsh")).toMatchObject({ path: { steps: [{ key: 'package name' }] }, values: ['zsh'] });
    expect(c('."package name"=zsh')).toMatchObject({ path: { steps: [{ key: 'package name' }] }, values: ['zsh'] });
    expect(c('package=zsh')).toMatchObject({ path: { steps: [{ key: 'package' }] } });
    expect(c('installed size>100000')).toMatchObject({ op: '>', values: [100000] });
    expect(c('Mounted on~^/dev ')).toMatchObject({ pattern: '^/dev ' });
    expect(c('SIZE/OFF>10')).toMatchObject({ path: { steps: [{ key: 'SIZE/OFF' }] } });
    expect(c('1K-blocks>10')).toMatchObject({ path: { steps: [{ key: '1K-blocks' }] } });
  });
  it('a name with a space typed otherwise is an error that says how to write it', () => {
    expect(() => c('installed  size>1')).toThrow(/the column 'installed size' is written as the header writes it/);
    expect(() => parseCondition('package name=zsh')).toThrow(/no operator after package/);
  });
});

import { describe, expect, it } from 'vitest';
import { conditionToJq, joinConditionArgs, parseCondition, test as holds } from '../../src/query/condition.js';
import { parseRecord } from '../../src/query/json-value.js';
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

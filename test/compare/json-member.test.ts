// A record's key read from its JSON bytes (lro diff matches records without parsing them): the same value as
// following the path on the parsed record, for strings and numbers; nothing for other values or absent keys.
import { describe, expect, it } from 'vitest';
import { BOUNDS, keyBounds, keySteps } from '../../src/compare/json-member.js';
import { parsePath } from '../../src/query/path.js';

function key(record: string, path: string): string | null {
  const b = Buffer.from(record);
  const steps = keySteps(parsePath(path))!;
  return keyBounds(b, steps) ? b.subarray(BOUNDS[0], BOUNDS[1]).toString() : null;
}

describe('keyBounds', () => {
  it('finds top-level and nested keys past strings, arrays and objects that hold look-alikes', () => {
    const r = '{"x":"\\"id\\": 9","tags":[{"id":1},"}"],"meta":{"id":"no","name":"web-1"} , "id" : -12.5e3 }';
    expect(key(r, 'id')).toBe('-12.5e3');
    expect(key(r, '.meta.name')).toBe('"web-1"');
    expect(key(r, 'meta.id')).toBe('"no"');
    expect(key(r, 'missing')).toBeNull();
    expect(key(r, 'meta')).toBeNull(); // an object is no key
    expect(key('{"id":null}', 'id')).toBeNull();
    expect(key('{"a b":"v"}', '."a b"')).toBe('"v"');
    expect(key('[1,2]', 'id')).toBeNull();
  });

  it('has no byte path for an index', () => {
    expect(keySteps(parsePath('.items[0].id'))).toBeNull();
  });
});

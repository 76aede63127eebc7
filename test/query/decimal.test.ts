import { describe, expect, it } from 'vitest';
import { compareDecimal, decimalKey, significantDigits } from '../../src/values/decimal.js';
import { compareValues, groupKey, JsonNumber, parseRecord, toJson } from '../../src/values/json-value.js';

describe('exact number literals', () => {
  it('compares literals a float cannot tell apart', () => {
    expect(Number('505874924095815681')).toBe(Number('505874924095815700'));
    expect(compareDecimal('505874924095815681', '505874924095815700')).toBe(-1);
    expect(compareDecimal('505874924095815700', '505874924095815681')).toBe(1);
    expect(compareDecimal('12345678901234567890', '12345678901234567890')).toBe(0);
  });

  it('compares signs, exponents, fractions and zeros', () => {
    const sorted = ['-1e400', '-2', '-1.5', '-0.0001', '0', '-0.0', '1e-400', '0.1', '1', '1.0', '10e-1', '1.0000000000000000001', '2', '1e2', '100.5', '1e400'];
    for (let i = 0; i < sorted.length; i++) {
      for (let j = 0; j < sorted.length; j++) {
        const a = sorted[i];
        const b = sorted[j];
        const same = decimalKey(a) === decimalKey(b);
        const c = compareDecimal(a, b);
        if (same) expect(c, `${a} vs ${b}`).toBe(0);
        else expect(c, `${a} vs ${b}`).toBe(i < j ? -1 : 1);
      }
    }
    expect(decimalKey('1')).toBe(decimalKey('1.000'));
    expect(decimalKey('0')).toBe(decimalKey('-0.0e5'));
    expect(significantDigits('00012300.0')).toBe(3);
  });

  it('parses records keeping numbers a float would change, and nothing else', () => {
    const v = parseRecord('{"id":505874924095815681,"small":42,"f":0.1,"big":1e400,"s":"12345678901234567890","nul":"\\u0000N5"}') as Record<string, unknown>;
    expect(v.id).toEqual(new JsonNumber('505874924095815681'));
    expect(v.small).toBe(42);
    expect(v.f).toBe(0.1);
    expect(v.big).toEqual(new JsonNumber('1e400'));
    expect(v.s).toBe('12345678901234567890');
    expect(v.nul).toBe('\u0000N5'); // a real string that looks like the marker stays a string
    // whitespace of a verbatim jsonl line, arrays, negative numbers, a bare number
    expect(parseRecord('{ "a" :\n -505874924095815681 , "b": [ 1, 9007199254740993 ] }')).toEqual({ a: new JsonNumber('-505874924095815681'), b: [1, new JsonNumber('9007199254740993')] });
    expect(parseRecord('12345678901234567890')).toEqual(new JsonNumber('12345678901234567890'));
    expect(parseRecord('{"s":"x:12345678901234567890"}')).toEqual({ s: 'x:12345678901234567890' });
    expect(toJson(v as never)).toBe('{"id":505874924095815681,"small":42,"f":0.1,"big":1e400,"s":"12345678901234567890","nul":"\\u0000N5"}');
  });

  it('orders values as jq does, and groups equal numbers together', () => {
    const values = [null, false, true, -1, 0.5, new JsonNumber('505874924095815681'), 'A', 'a', 'é', '😀', [], [1], {}, { a: 1 }];
    for (let i = 0; i + 1 < values.length; i++) expect(compareValues(values[i] as never, values[i + 1] as never), String(i)).toBe(-1);
    expect(groupKey(1)).toBe(groupKey(parseRecord('1.0') as never));
    expect(groupKey(new JsonNumber('505874924095815681'))).not.toBe(groupKey(new JsonNumber('505874924095815680')));
    expect(groupKey({ a: 1, b: 2 })).toBe(groupKey({ b: 2, a: 1 }));
  });
});

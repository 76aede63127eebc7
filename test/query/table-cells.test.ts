// A table's cell as a value (query/table.ts cellValue): the fast path for short numbers gives what the exact parse
// gives, for every literal shape, and text stays text.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { cellValue } from '../../src/query/table.js';
import { parseRecord } from '../../src/values/json-value.js';
import { isNumberLiteral } from '../../src/values/decimal.js';

describe('cellValue', () => {
  test('a number literal is the value the exact parse gives (short ones by Number, long ones exactly)', () => {
    const literal = fc
      .tuple(fc.boolean(), fc.stringMatching(/^(0|[1-9][0-9]{0,20})$/), fc.option(fc.stringMatching(/^[0-9]{1,8}$/)), fc.option(fc.stringMatching(/^[eE][+-]?[0-9]{1,3}$/)))
      .map(([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}${exp ?? ''}`);
    fc.assert(
      fc.property(literal, (text) => {
        expect(isNumberLiteral(text)).toBe(true);
        expect(cellValue(text)).toEqual(parseRecord(text));
      }),
      { numRuns: 2000 },
    );
  });

  test('text, empty cells and what only looks like a number', () => {
    expect(cellValue('')).toBeNull();
    for (const text of ['root', 'S<l', '-', '-x', '007', '1.', '.5', '1e', '0x10', ' 1', '1 ', '12:30', '1,000', 'Infinity', 'NaN']) {
      expect(cellValue(text), text).toBe(text);
    }
    expect(cellValue('-0')).toBe(-0);
    expect(cellValue('12345678901234567890')).toEqual(parseRecord('12345678901234567890'));
  });
});

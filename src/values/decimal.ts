// Exact comparison of JSON number literals: 505874924095815681 and 505874924095815700 are different numbers,
// though both become the same JavaScript float. A literal is read as sign, significant digits and exponent,
// and compared digit by digit, so no number ever passes through a float here.

/** A number literal as sign × 0.DIGITS × 10^exp (digits without leading or trailing zeros; zero has none). */
interface Decimal {
  negative: boolean;
  digits: string;
  exp: number;
}

const NUMBER = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Whether text is a JSON number literal (also what String(n) prints for a finite n). */
export function isNumberLiteral(text: string): boolean {
  return NUMBER.test(text) && !/^-?0\d/.test(text);
}

function decimal(text: string): Decimal {
  const m = NUMBER.exec(text);
  if (!m) throw new Error(`not a number literal: ${text}`);
  const all = (m[2] + (m[3] ?? '')).replace(/^0+/, '');
  const lead = (m[2] + (m[3] ?? '')).length - all.length; // zeros dropped from the front
  const digits = all.replace(/0+$/, '');
  if (digits === '') return { negative: false, digits: '', exp: 0 };
  // value = 0.ALL × 10^(intDigits - lead + e)
  const e = m[4] === undefined ? 0 : Number(m[4]);
  return { negative: m[1] === '-', digits, exp: m[2].length - lead + e };
}

/** -1, 0 or 1 as the number a is less than, equal to or greater than b (both number literals). */
export function compareDecimal(a: string, b: string): number {
  if (a === b) return 0;
  const x = decimal(a);
  const y = decimal(b);
  const sx = x.digits === '' ? 0 : x.negative ? -1 : 1;
  const sy = y.digits === '' ? 0 : y.negative ? -1 : 1;
  if (sx !== sy) return sx < sy ? -1 : 1;
  if (sx === 0) return 0;
  let c: number;
  if (x.exp !== y.exp) c = x.exp < y.exp ? -1 : 1;
  else c = x.digits === y.digits ? 0 : x.digits < y.digits ? -1 : 1; // same length prefix order = numeric order
  return sx < 0 ? -c : c;
}

/** How many significant digits a literal has (leading and trailing zeros of the digits not counted). */
export function significantDigits(text: string): number {
  return decimal(text).digits.length;
}

/** A canonical text for a number literal: equal numbers get the same key (1, 1.0 and 10e-1 alike). */
export function decimalKey(text: string): string {
  const d = decimal(text);
  return d.digits === '' ? '0' : `${d.negative ? '-' : ''}0.${d.digits}e${d.exp}`;
}

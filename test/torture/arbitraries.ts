// Inputs that try to break the round trip: raw bytes, line structures with every kind of terminator and invalid
// UTF-8, JSON documents written in odd ways (numbers like 1E+400 and -0, escapes, duplicate keys, deep nesting,
// dominant arrays inside envelopes), and JSONL with broken lines.
import fc from 'fast-check';

/** Bytes that matter to lro's encoders: line ends, NUL, JSON punctuation, and pieces of (in)valid UTF-8. */
const SPECIAL_BYTES = [
  0x0a, 0x0d, 0x00, 0x22, 0x5c, 0x09, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x20, 0x1b, 0x7f, 0xff, 0xfe, 0xc3, 0xa9, 0xed, 0xa0, 0x80,
  0xf0, 0x9f, 0x98, 0xe2, 0x82, 0xac, 0xc0, 0xaf, 0xf4, 0x90,
];

/** Arbitrary bytes: uniform, or biased towards the bytes above. */
export const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }),
  fc.array(fc.oneof(fc.constantFrom(...SPECIAL_BYTES), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0x61, max: 0x7a })), { maxLength: 4000 }).map((a) => Buffer.from(a)),
).map((b) => Buffer.from(b));

/** How an input is cut into chunks on its way in (sizes, cycled): small pieces, or big reads as from a pipe. */
export const chunking = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 6 }) },
  { weight: 1, arbitrary: fc.array(fc.integer({ min: 30_000, max: 1 << 20 }), { minLength: 1, maxLength: 3 }) },
);

/** Cuts input into chunks of the given sizes (cycled). */
export function chunked(input: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0, k = 0; i < input.length; k++) {
    const n = sizes[k % sizes.length];
    out.push(input.subarray(i, i + n));
    i += n;
  }
  return out;
}

const fragment = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.constantFrom('\0', '\x1b[31m', '"', '\\', '\t', '\r', 'é', '€', '😀', '{"a":1}', '[1,2]', '{', '}', ' ', '\f', '\b', '\u2028'),
  fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80]).map((b) => Buffer.from(b)),
);

const line = fc.array(fragment, { maxLength: 6 }).map((parts) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p))));

/** Lines joined by LF, CRLF, CR or nothing: all one kind, or mixed; with or without a final terminator. */
export const lineStructure = fc
  .record({
    lines: fc.array(line, { maxLength: 60 }),
    mode: fc.constantFrom('lf', 'crlf', 'mixed'),
    ends: fc.array(fc.constantFrom('\n', '\r\n', '\r', ''), { minLength: 1, maxLength: 8 }),
    final: fc.constantFrom('', '\n', '\r\n', '\r'),
  })
  .map(({ lines, mode, ends, final }) => {
    const parts: Buffer[] = [];
    lines.forEach((l, i) => {
      parts.push(l);
      if (i < lines.length - 1) parts.push(Buffer.from(mode === 'lf' ? '\n' : mode === 'crlf' ? '\r\n' : ends[i % ends.length]));
    });
    if (lines.length > 0) parts.push(Buffer.from(mode === 'lf' ? (final ? '\n' : '') : mode === 'crlf' ? (final ? '\r\n' : '') : final));
    return Buffer.concat(parts);
  });

/**
 * Many lines (100 KB to a few hundred), so that one chunk holds several of the line splitter's 64 KB regions,
 * with what makes an encoder start over mid-input: more than 1000 broken lines in JSONL, or one bare LF in a
 * CRLF text, anywhere.
 */
export const manyLines = fc
  .record({
    kind: fc.constantFrom('jsonl-turns-text', 'crlf-with-bare-lf', 'jsonl-crlf-bare-lf'),
    before: fc.integer({ min: 0, max: 15_000 }),
    bad: fc.integer({ min: 1, max: 2500 }),
    after: fc.integer({ min: 0, max: 15_000 }),
    final: fc.boolean(),
  })
  .map(({ kind, before, bad, after, final }) => {
    const json = (n: number, eol: string) => Array.from({ length: n }, (_, i) => `{"i":${i},"s":"${'v'.repeat(i % 13)}"}${eol}`).join('');
    if (kind === 'jsonl-turns-text') {
      const broken = Array.from({ length: bad }, (_, i) => `broken line ${i}\n`).join('');
      return Buffer.from(`${json(before, '\n')}${broken}${json(after, '\n')}${final ? '' : 'no newline'}`);
    }
    const lines = (n: number) => (kind === 'crlf-with-bare-lf' ? Array.from({ length: n }, (_, i) => `crlf line ${i}\r\n`).join('') : json(n, '\r\n'));
    return Buffer.from(`${lines(before + 1)}bare lf\n${lines(after)}${final ? '' : 'end'}`);
  });

/** Numbers as people and programs write them, including ones a float cannot hold. */
const oddNumbers = [
  '0', '-0', '-0.0', '0e0', '0E-0', '1E+400', '-1E+400', '1e400', '1.0e-999', '-1.0E-999', '12345678901234567890', '-98765432109876543210e-5',
  '9007199254740993', '1.000000000000000005', '0.1', '1e-7', '2.5E-3', '123.456e+78', '4.9e-324', '1.7976931348623157e308',
  '100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001',
];
const number = fc.oneof(
  fc.constantFrom(...oddNumbers),
  fc
    .record({
      sign: fc.boolean(),
      int: fc.oneof(fc.constant('0'), fc.bigInt({ min: 1n, max: 10n ** 30n }).map(String)),
      frac: fc.option(fc.stringMatching(/^[0-9]{1,25}$/), { nil: undefined }),
      exp: fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 99999 })), { nil: undefined }),
    })
    .map(({ sign, int, frac, exp }) => `${sign ? '-' : ''}${int}${frac !== undefined ? `.${frac}` : ''}${exp ? `${exp[0]}${exp[1]}${exp[2]}` : ''}`),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
);

/** JSON strings written with every kind of escape (and lone surrogate escapes, which JSON allows). */
const string = fc.oneof(
  fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)),
  fc.string({ unit: 'grapheme', maxLength: 8 }).map((s) => JSON.stringify(s)),
  fc
    .array(
      fc.constantFrom('\\u00e9', '\\ud83d\\ude00', '\\u0000', '\\n', '\\"', '\\\\', '\\/', '\\b', '\\f', '\\r', '\\t', '\\uD800', '\\uDFFF', '\\u0041', 'é', '😀', '€', 'plain', ' ', '\u2028', '\x7f'),
      { maxLength: 8 },
    )
    .map((parts) => `"${parts.join('')}"`),
);

const keyPool = fc.oneof(fc.constantFrom('"a"', '"b"', '"items"', '"\\u0061"', '""', '"total"', '"data"'), string);

/** A JSON text; `ws` is the whitespace allowed between tokens (no line breaks for JSONL lines). */
export function jsonText(ws: fc.Arbitrary<string>, maxDepth = 5): fc.Arbitrary<string> {
  const scalar = fc.oneof({ weight: 3, arbitrary: number }, { weight: 3, arbitrary: string }, { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'null') });
  const { value } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
    value: fc.oneof({ depthSize: 'small', maxDepth }, scalar, tie('array'), tie('object')),
    array: fc
      .array(fc.tuple(ws, tie('value'), ws), { maxLength: 6 })
      .chain((items) => ws.map((w) => `[${items.map(([a, v, b]) => `${a}${v}${b}`).join(',')}${items.length === 0 ? w : ''}]`)),
    object: fc
      .array(fc.tuple(ws, keyPool, ws, ws, tie('value'), ws), { maxLength: 6 })
      .map((members) => `{${members.map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`).join(',')}}`),
  }));
  return value;
}

const anyWs = fc.constantFrom('', '', '', '', ' ', '\n', '\t', '\r\n', '  \n  ', '\n\n');
const inlineWs = fc.constantFrom('', '', '', ' ', '\t', '  ');

/** Big arrays, alone or inside an envelope (the shape lro splits on a path), with odd elements. */
const bulky = fc
  .record({
    elements: fc.array(jsonText(inlineWs, 2), { minLength: 1, maxLength: 20 }),
    n: fc.integer({ min: 50, max: 2000 }),
    shape: fc.constantFrom('array', 'items', 'nested', 'dup-key', 'small-envelope-first'),
    head: fc.array(fc.tuple(keyPool, jsonText(inlineWs, 2)), { maxLength: 4 }),
    pretty: fc.boolean(),
  })
  .map(({ elements, n, shape, head, pretty }) => {
    const sep = pretty ? ',\n  ' : ',';
    const arr = `[${Array.from({ length: n }, (_, i) => elements[i % elements.length]).join(sep)}]`;
    const env = head.map(([k, v]) => `${k}:${v}`);
    switch (shape) {
      case 'array':
        return arr;
      case 'items':
        return `{${[...env, `"items":${arr}`].join(',')}}`;
      case 'nested':
        return `{"hits":{${[...env, `"hits":${arr}`].join(',')}},"took":12345678901234567890}`;
      case 'dup-key':
        return `{"items":[1,2],${[...env, `"items":${arr}`].join(',')}}`;
      default:
        return `{"x":[0],${[...env, `"items":${arr}`].join(',')}}`;
    }
  });

/** Nesting hundreds or thousands deep around a scalar, as an array element or as the whole document. */
const deep = fc
  .record({ depth: fc.integer({ min: 50, max: 3000 }), open: fc.constantFrom('[', '{"k":'), inner: jsonText(inlineWs, 1), wrap: fc.boolean() })
  .map(({ depth, open, inner, wrap }) => {
    const close = open === '[' ? ']' : '}';
    const doc = `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
    return wrap ? `[1,${doc},2]` : doc;
  });

/** A JSON document as a whole input, with whitespace around it and maybe a final newline. */
export const jsonDocument = fc
  .tuple(anyWs, fc.oneof({ weight: 4, arbitrary: jsonText(anyWs) }, { weight: 2, arbitrary: bulky }, { weight: 1, arbitrary: deep }), anyWs)
  .map(([a, doc, b]) => Buffer.from(`${a}${doc}${b}`, 'utf8'));

/** JSONL: one JSON value per line (whitespace inside lines), a few broken lines, LF or CRLF, final newline or not. */
export const jsonlDocument = fc
  .record({
    lines: fc.array(
      fc.oneof({ weight: 8, arbitrary: jsonText(inlineWs, 3) }, { weight: 1, arbitrary: fc.constantFrom('', '{"broken":', 'not json', '\u00e9t\u00e9', ' ', '[1,2') }),
      { minLength: 1, maxLength: 80 },
    ),
    eol: fc.constantFrom('\n', '\r\n'),
    final: fc.boolean(),
  })
  .map(({ lines, eol, final }) => Buffer.from(lines.join(eol) + (final ? eol : ''), 'utf8'));

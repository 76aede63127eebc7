// One page of a long text (lro info --full) and bounded error messages: pages put back together are the text, each
// within its budget; a message quoting a huge input keeps its start, what went wrong and what to do.
import { describe, expect, it } from 'vitest';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { boundedMessage } from '../../src/errors.js';
import { textPage } from '../../src/render/text-page.js';
import type { Next } from '../../src/budget.js';

/** A next command as a printer gets it (its input left out: only its line is printed). */
const line = (text: string): Next => ({ command: 'info', input: {}, text });

const tokens = (s: string) => getTokenizer('o200k_base').count(s);

describe('textPage', () => {
  it('returns a text that fits whole, and cuts one that does not at a line or comma, pages adding up to it', () => {
    expect(textPage('short\n', 0, 100, 'o200k_base', () => line('lro x'))).toBe('short\n');
    const text = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ key: `value ${i}`, n: i }))) + '\n';
    let from = 0;
    let joined = '';
    for (let pages = 0; from < text.length; pages++) {
      expect(pages).toBeLessThan(100);
      const page = textPage(text, from, 200, 'o200k_base', (at) => line(`lro info X --full --from ${at}`));
      expect(tokens(page)).toBeLessThanOrEqual(200);
      const m = /\[lro: printed characters (\d+)-(\d+) of [\d,]+ \(--max-tokens 200\); next: lro info X --full --from (\d+)\]\n$/.exec(page);
      if (!m) {
        joined += page;
        break;
      }
      expect(Number(m[1])).toBe(from);
      expect(m[3]).toBe(m[2]);
      const part = page.slice(0, Number(m[2]) - from);
      expect(part.endsWith(',') || part.endsWith('\n')).toBe(true); // a whole member
      joined += part;
      from = Number(m[2]);
    }
    expect(joined).toBe(text);
  });
});

describe('boundedMessage', () => {
  it('cuts a long word and a long message, keeping one line and both ends', () => {
    expect(boundedMessage('no record has the field .a: fields: .b')).toBe('no record has the field .a: fields: .b');
    const w = boundedMessage(`invalid condition '${'x'.repeat(10_000)}=1': no operator`);
    expect(w.length).toBeLessThan(300);
    expect(w).toMatch(/^invalid condition 'x+…\[\d+ more characters\] no operator$|more characters\].*no operator$/);
    const many = boundedMessage(`${Array.from({ length: 2000 }, (_, i) => `w${i}`).join(' ')}\nlast: what to do`);
    expect(many.length).toBeLessThanOrEqual(1200);
    expect(many).toMatch(/^w0 w1 .*characters cut\]….*last: what to do$/);
    expect(many).not.toContain('\n');
  });
});

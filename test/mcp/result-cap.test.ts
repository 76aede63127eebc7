// ResultCap: a tool result over the cap is stored whole as JSON and replaced by an error result naming it; one
// within the cap is the same object (so the relay passes the upstream's text on unchanged).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultCap } from '../../src/mcp/result-cap.js';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

let root: string;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => cleanup(root));

describe('ResultCap', () => {
  it('stores a result over the cap and answers with an error naming it; passes one within the cap as it is', async () => {
    const cap = new ResultCap({ dir: join(root, 'store'), env: {} }, 2000);
    const image = { type: 'image', mimeType: 'image/png', data: 'A'.repeat(3000) };
    const call = { tool: 'screenshot', arguments: { page: 1 } };
    const r = await cap.apply({ content: [image, { type: 'text', text: 'a caption' }] }, call);
    expect(r.isError).toBe(true);
    const text = (r.content[0] as { text: string }).text;
    const m = /^lro: the result of screenshot is 3\.1 kB \(1 image block, 1 text block\), more than the 2\.0 kB a message through lro may carry; it is stored whole as lro result (\w{26}) \(as JSON\): see what it holds with lro_info \{"id":"\1"\}$/.exec(text);
    expect(m, text).not.toBeNull();
    const stored = await lro(['jq', m![1], 'select(.type == "image") | .data | length'], { env: { LRO_DIR: join(root, 'store') } });
    expect(stored.out).toBe('3000\n');
    const small = { content: [{ ...image, data: 'A'.repeat(100) }] };
    expect(await cap.apply(small, call)).toBe(small);
  });
});

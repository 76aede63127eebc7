// A listing's next page is asked for before the caller asks: from the page's bytes (the worker's middleware calls
// early()), or at the latest when the page is handed over. Before, a page taken from the one-page slot had been
// answered while the slot still held it, so it asked for nothing, and only every other page was asked ahead.
import { describe, expect, it } from 'vitest';
import { ListAhead, type ListPage } from '../../src/store/list-ahead.js';

type Ask = { listing: string; token?: string };

/**
 * A listing of `pages` pages (tokens t1, t2, ...); every fetch is recorded, and answered at once, after calling
 * early() with the next page's token as the worker's middleware does when a page's bytes arrive.
 */
function server(pages: number) {
  const fetched: string[] = [];
  const fetch = (q: Ask): Promise<ListPage> => {
    fetched.push(`${q.listing}:${q.token ?? 'first'}`);
    const n = q.token ? Number(q.token.slice(1)) : 0;
    const next = n + 1 < pages ? `t${n + 1}` : undefined;
    return Promise.resolve().then(() => {
      if (next) lister.early({ ...q, token: next });
      return { objects: [{ key: `${q.listing}-${n}`, size: 1, mtimeMs: 0 }], next };
    });
  };
  const lister = new ListAhead<Ask>(fetch, (q) => `${q.listing} ${q.token}`);
  return { fetched, lister };
}

describe('ListAhead', () => {
  it('has each next page asked for by the time a page is handed over, and every page fetched once', async () => {
    const { fetched, lister } = server(5);
    const keys: string[] = [];
    let token: string | undefined;
    for (let k = 0; ; k++) {
      const page = await lister.list({ listing: 'a', token });
      keys.push(page.objects[0].key);
      // the page after this one is on its way before the caller asks for it
      if (page.next) expect(fetched.at(-1)).toBe(`a:${page.next}`);
      if (!page.next) break;
      token = page.next;
    }
    expect(keys).toEqual(['a-0', 'a-1', 'a-2', 'a-3', 'a-4']);
    expect(fetched).toEqual(['a:first', 'a:t1', 'a:t2', 'a:t3', 'a:t4']);
  });

  it('asks one page ahead at most: a listing left midway stops; another listing is not answered with its page', async () => {
    const { fetched, lister } = server(10);
    const first = await lister.list({ listing: 'a' });
    await lister.list({ listing: 'a', token: first.next });
    lister.early({ listing: 'a', token: 't9' }); // a page is asked ahead already: nothing more
    expect(fetched).toEqual(['a:first', 'a:t1', 'a:t2']);
    const other = await lister.list({ listing: 'b' });
    expect(other.objects[0].key).toBe('b-0');
    expect(fetched).toEqual(['a:first', 'a:t1', 'a:t2', 'b:first', 'b:t1']);
  });

  it('hands over the failure of a page asked ahead to the list() that takes it', async () => {
    let calls = 0;
    const lister = new ListAhead<Ask>(
      (q) => (++calls === 2 ? Promise.reject(new Error('SlowDown')) : Promise.resolve({ objects: [], next: q.token ? undefined : 't1' })),
      (q) => `${q.listing} ${q.token}`,
    );
    const first = await lister.list({ listing: 'a' });
    await expect(lister.list({ listing: 'a', token: first.next })).rejects.toThrow('SlowDown');
  });
});

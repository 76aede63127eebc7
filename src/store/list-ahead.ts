// The page of a listing the caller will ask for next, requested before it asks: the server works on it while this
// one is parsed and taken in (a listing of 10,000 keys is ten pages, each waited for in turn; the SDK's parse of a
// page of 1,000 keys took 40 to 150 ms). The next page is asked for as soon as its token is known: from a page's
// bytes, before the SDK parses them (early, from s3-worker.ts's middleware), or at the latest when the page is
// handed over. One page at a time is asked ahead, so a listing the caller leaves stops there.

/** One page of a listing (1,000 keys) and the token of the next (none: the last page, or past what was asked). */
export interface ListPage {
  objects: { key: string; size: number; mtimeMs: number; etag?: string }[];
  next?: string;
}

export class ListAhead<Q extends { token?: string }> {
  private ahead: { ask: string; page: Promise<ListPage> } | undefined;

  constructor(
    private readonly fetch: (q: Q) => Promise<ListPage>,
    /** What makes two asks the same page (the bucket, the range, the token). */
    private readonly askOf: (q: Q) => string,
  ) {}

  /** The page `q`, asked ahead already or now; once it is here, the one after it is asked for. */
  async list(q: Q): Promise<ListPage> {
    const ask = this.askOf(q);
    const taken = this.ahead?.ask === ask ? this.ahead.page : undefined;
    this.ahead = undefined; // taken, or another listing's (stale)
    const page = await (taken ?? this.fetch(q));
    if (page.next) this.early({ ...q, token: page.next });
    return page;
  }

  /** Asks for `q` ahead of the caller, unless a page is asked ahead already. */
  early(q: Q): void {
    if (this.ahead) return;
    const page = this.fetch(q);
    page.catch(() => {}); // its failure is the next list()'s to report, if it is made
    this.ahead = { ask: this.askOf(q), page };
  }
}

// curl -v (and wget -d, httpie --verbose alike): the requests sent (> GET /path HTTP/1.1), the responses'
// statuses (< HTTP/2 404), the hosts connected to, over the whole trace. A response of 400 and up and curl's own
// failures (curl: (7) Failed to connect) are the error lines; a body that says "error" is data.
import { failureWord } from '../error-lines.js';
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { estimateNote, FirstLast, TopCounts } from './util.js';

const REQUEST = /^> ([A-Z]+) (\S+) HTTP\/[\d.]+/;
const RESPONSE = /^< HTTP\/[\d.]+ (\d{3})\b/;
const CONNECTED = /^\* +(?:Connected to|Trying) (\S+)/;

class HttpTraceCounter implements KindCounter {
  private requests = 0;
  private readonly statuses = new TopCounts();
  private readonly methods = new TopCounts();
  private readonly paths = new TopCounts();
  private readonly hosts = new TopCounts();
  private readonly errors = new FirstLast<{ line: number; text: string }>(10);
  private responses = 0;

  line(l: string, n: number): void {
    const c = l.charCodeAt(0);
    if (c === 0x3e /* > */) {
      const m = REQUEST.exec(l);
      if (m) {
        this.requests++;
        this.methods.add(m[1]);
        this.paths.add(m[2].replace(/\?.*$/, ''));
      } else if (l.startsWith('> Host: ')) this.hosts.add(l.slice(8).trim());
    } else if (c === 0x3c /* < */) {
      const m = RESPONSE.exec(l);
      if (!m) return;
      this.responses++;
      this.statuses.add(m[1]);
      if (Number(m[1]) >= 400) this.errors.push({ line: n, text: l });
    } else if ((c === 0x2a /* * */ || l.startsWith('curl: (')) && failureWord(l)) this.errors.push({ line: n, text: l });
  }

  sure(): boolean {
    return this.requests > 0;
  }

  end(): KindFacts {
    const failing = this.errors.count;
    return {
      kind: 'http-trace',
      facts: {
        requests: this.requests,
        responses: this.responses,
        by_status: this.statuses.top(8),
        ...estimateNote('by_status', this.statuses),
        methods: this.methods.top(6),
        hosts: this.hosts.top(6),
        ...estimateNote('hosts', this.hosts),
        paths: this.paths.top(8),
        ...estimateNote('paths', this.paths),
      },
      errors: 'own',
      errorLines: this.errors.items(),
      errorCount: failing,
      levels: false,
      nextCommands: [['grep', 'ID', '^< HTTP/', '-B', '12'], ['grep', 'ID', '^> [A-Z]+ ', '-c']],
    };
  }
}

export function countHttpTrace(s: TextSample): KindCounter | null {
  const start = s.lines.filter((l) => l.trim() !== '').slice(0, 8);
  if (!start.some((l) => CONNECTED.test(l) || REQUEST.test(l))) return null;
  if (!s.lines.some((l) => RESPONSE.test(l)) && !s.complete) return null;
  const c = fed(new HttpTraceCounter(), s);
  return c.sure() ? c : null;
}

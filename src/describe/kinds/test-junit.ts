// A JUnit XML test report (the junit reporters of vitest, jest, pytest, maven, gradle): passed, failed and skipped
// counted over every <testcase> of the file, the failing tests by name (classname > name) with their failure
// message, and each failing test's own <testcase> element addressable, so the next command reads exactly it: by its
// lines when it has lines of its own (vitest, jest: an element per line), else by its characters (pytest writes most
// of a report on one line). Read tag by tag from the raw text as it streams, whatever its lines: memory bounded by
// one tag and the names kept. Told from the output's first bytes (JUNIT_START), not from its lines.
import { StringDecoder } from 'node:string_decoder';
import type { Outcome } from './test-lines.js';
import type { KindFacts } from './types.js';
import type { Words } from '../commands.js';

/** Failing tests named (the descriptor shows them whole). */
const NAMED = 20;
/** Characters of a failure message kept. */
const MESSAGE_CHARS = 200;
/** Characters of a start tag kept (a longer one keeps its whole attributes up to there: the names come first). */
const TAG_CHARS = 16 << 10;
/** Characters of a start tag shown as a failing test's line. */
const SHOWN_CHARS = 300;

/** What ends a tag's text, or opens a quoted value in it. */
const TAG_STOP = /["'>]/g;
const CDATA = '![CDATA[';
/** Sections skipped whole: their opening (after `<`) and their end. */
const SKIPPED: [string, string][] = [
  ['!--', '-->'],
  [CDATA, ']]>'],
];

/** A report's start: an XML declaration and comments, then its root element. */
const JUNIT_START = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<testsuites?[\s>/]/;
/** Bytes of an output's start that tell a JUnit report (JUNIT_START within them). */
export const JUNIT_SNIFF_BYTES = 1024;

/** Whether an output that starts with `head` (its first JUNIT_SNIFF_BYTES, or all of it) is a JUnit report. */
export function isJunitStart(head: string): boolean {
  return JUNIT_START.test(head);
}

/** A tag of the report: its text between `<` and `>`, the line it starts and ends on, its characters [at, end). */
export interface XmlTag {
  text: string;
  line: number;
  endLine: number;
  at: number;
  end: number;
}

/**
 * The tags of an XML text fed in pieces, in order, with their lines and character offsets (as `lro read --chars`
 * counts them: UTF-16 units of the decoded original). Comments and CDATA sections are skipped whole (a failure's
 * CDATA body may hold `<testcase` as text); a quoted attribute value may hold `>`.
 */
export class XmlTags {
  private readonly decoder = new StringDecoder('utf8');
  private line = 1;
  private pos = 0;
  /** The tag being read: its text so far (at most TAG_CHARS), where it began, the quote it is inside. */
  private tag: { text: string; line: number; at: number; quote: string; long: boolean } | null = null;
  /** Inside a comment or CDATA section: the text that ends it, and what of it the last piece ended with. */
  private skip: { until: string; tail: string } | null = null;

  constructor(private readonly onTag: (t: XmlTag) => void) {}

  push(bytes: Uint8Array): void {
    this.text(this.decoder.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)));
  }

  end(): void {
    this.text(this.decoder.end());
  }

  /** Where the text read so far ends: its last line and its length in characters. */
  get where(): { line: number; pos: number } {
    return { line: this.line, pos: this.pos };
  }

  private text(s: string): void {
    this.nl = s.indexOf('\n');
    let i = 0;
    while (i < s.length) {
      if (this.skip) i = this.skipping(s, i);
      else if (this.tag) i = this.inTag(s, i);
      else {
        const lt = s.indexOf('<', i);
        const upto = lt < 0 ? s.length : lt;
        this.lines(s, upto);
        if (lt < 0) i = s.length;
        else {
          this.tag = { text: '', line: this.line, at: this.pos + lt, quote: '', long: false };
          i = lt + 1;
        }
      }
    }
    this.pos += s.length;
  }

  /** The next newline of the piece being read, at or after what lines() has counted (-1: none). */
  private nl = -1;

  /** Counts the newlines of the piece up to s[to] (the text before was counted: reading only goes forward). */
  private lines(s: string, to: number): void {
    while (this.nl >= 0 && this.nl < to) {
      this.line++;
      this.nl = s.indexOf('\n', this.nl + 1);
    }
  }

  /** Reads a tag's characters from s[i]; returns where reading goes on. */
  private inTag(s: string, i: number): number {
    const t = this.tag!;
    if (!t.long && t.text.length < CDATA.length) {
      // a comment or CDATA section: skipped to its end, whatever it holds
      const head = t.text + s.slice(i, i + CDATA.length - t.text.length);
      for (const [open, until] of SKIPPED) {
        if (!head.startsWith(open)) continue;
        const from = i + open.length - t.text.length;
        this.lines(s, from);
        this.tag = null;
        this.skip = { until, tail: '' };
        return from;
      }
      // (the piece ends inside what may open one: wait for the next)
      if (i + CDATA.length - t.text.length > s.length && SKIPPED.some(([open]) => open.startsWith(head))) {
        t.text = head;
        return s.length;
      }
    }
    let j = i;
    let found = false;
    while (j < s.length) {
      if (t.quote) {
        const q = s.indexOf(t.quote, j);
        if (q < 0) j = s.length;
        else {
          t.quote = '';
          j = q + 1;
        }
        continue;
      }
      TAG_STOP.lastIndex = j;
      const m = TAG_STOP.exec(s);
      if (!m) j = s.length;
      else if (m[0] === '>') {
        j = m.index;
        found = true;
        break;
      } else {
        t.quote = m[0];
        j = m.index + 1;
      }
    }
    if (!t.long) {
      t.text += s.slice(i, j);
      if (t.text.length > TAG_CHARS) {
        t.text = t.text.slice(0, TAG_CHARS);
        t.long = true;
      }
    }
    this.lines(s, j);
    if (!found) return j;
    this.tag = null;
    this.onTag({ text: t.long ? wholeAttributes(t.text) : t.text, line: t.line, endLine: this.line, at: t.at, end: this.pos + j + 1 });
    return j + 1;
  }

  /** Inside a comment or CDATA section from s[i]: returns where it ends (or s's end). */
  private skipping(s: string, i: number): number {
    const k = this.skip!;
    const window = k.tail + s.slice(i);
    const hit = window.indexOf(k.until);
    const upto = hit < 0 ? s.length : i + hit - k.tail.length + k.until.length;
    this.lines(s, upto);
    if (hit < 0) {
      k.tail = window.slice(-(k.until.length - 1));
      return s.length;
    }
    this.skip = null;
    return upto;
  }
}

/** A failure message on one line (pytest's holds the assertion's lines: `AssertionError: …&#10;assert …`), cut. */
export function oneLine(message: string): string {
  const m = message.trim().replace(/\s*\n\s*/g, ' / ');
  return m.length > MESSAGE_CHARS ? `${m.slice(0, MESSAGE_CHARS)}…` : m;
}

/**
 * What a tag of a JUnit report tells of a test: `<testcase classname="a.test.js" name="suite &gt; case">` opens one,
 * named `a.test.js > suite > case` (classname and name, as vitest's verbose line names it); a `<failure`, `<error` or
 * `<skipped` inside tells its outcome (with the failure's message attribute); `</testcase>`, or a testcase tag closed
 * on itself (`/>`), ends it. Other tags tell nothing (null).
 */
type JunitElement = { tag: 'case'; name: string; closed: boolean } | { tag: 'failed'; message: string } | { tag: 'skipped' } | { tag: 'end' };

/** The element a tag's text (between `<` and `>`) is, for a test. */
function junitElement(text: string): JunitElement | null {
  const name = /^\/?(testcase|failure|error|skipped)(?=[\s/]|$)/.exec(text);
  if (!name) return null;
  if (text[0] === '/') return name[1] === 'testcase' ? { tag: 'end' } : null;
  if (name[1] === 'skipped') return { tag: 'skipped' };
  if (name[1] !== 'testcase') return { tag: 'failed', message: xmlAttr(text, 'message') ?? '' };
  const test = xmlAttr(text, 'name') ?? '?';
  const cls = xmlAttr(text, 'classname');
  return { tag: 'case', name: cls ? `${cls} > ${test}` : test, closed: text.trimEnd().endsWith('/') };
}

const ATTR_RES = new Map<string, RegExp>();

/** An attribute's value in a start tag (`name="a &gt; b"` or `name='a'` → `a > b`), or undefined. */
function xmlAttr(tag: string, attr: string): string | undefined {
  let re = ATTR_RES.get(attr);
  if (!re) ATTR_RES.set(attr, (re = new RegExp(`\\s${attr}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`)));
  const m = re.exec(tag);
  return m ? unescapeXml(m[1] ?? m[2]) : undefined;
}

const ENTITY: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const unescapeXml = (s: string) =>
  s.includes('&')
    ? s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[\da-fA-F]+);/g, (all, e: string) => {
        if (e[0] !== '#') return ENTITY[e];
        const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        // (a number past Unicode stays as written: fromCodePoint would throw)
        return code <= 0x10ffff ? String.fromCodePoint(code) : all;
      })
    : s;

/** A start tag cut at TAG_CHARS, up to its last whole attribute (its name first: the attributes are quoted). */
function wholeAttributes(text: string): string {
  const re = /\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*')/y;
  const name = /^\/?[\w:.-]+/.exec(text);
  let end = name ? name[0].length : 0;
  re.lastIndex = end;
  for (let m = re.exec(text); m; m = re.exec(text)) end = re.lastIndex;
  return text.slice(0, end);
}

interface Failing {
  name: string;
  message: string;
  /** The start tag (its text between < and >, then as shown). */
  text: string;
  line: number;
  endLine: number;
  at: number;
  end: number;
  /** Whether its element has its lines to itself: no other tag on its first line before it, or on its last after it. */
  ownLines: boolean;
}

/** A test of a report, as its testcase ends: its name, outcome, first line and failure message (one line, cut). */
export interface JunitTest {
  name: string;
  status: Outcome;
  line: number;
  message: string;
}

/**
 * The facts of a JUnit report fed as bytes (push, then end): a test run counted over every testcase, or null when
 * it holds none. `onTest` is told each test as it ends (lro diff compares two reports so).
 */
export class JunitReport {
  constructor(private readonly onTest?: (t: JunitTest) => void) {}

  private readonly counts: Record<Outcome, number> = { passed: 0, failed: 0, skipped: 0 };
  private failed = 0;
  private readonly failing: Failing[] = [];
  /** The testcase being read. */
  private open: (Failing & { status: Outcome }) | null = null;
  /** The last tag's last line (a tag that starts there shares its line). */
  private lastLine = 0;
  private readonly tags = new XmlTags((t) => this.tag(t));

  push(bytes: Uint8Array): void {
    this.tags.push(bytes);
  }

  private tag(t: XmlTag): void {
    const shared = t.line === this.lastLine;
    this.lastLine = t.endLine;
    // the failing test just ended shares its last line with this tag: it is read by characters
    const last = this.failing.at(-1);
    if (shared && last && last.endLine === t.line && last.end <= t.at) last.ownLines = false;
    const el = junitElement(t.text);
    if (!el) return;
    if (el.tag === 'case') {
      this.close(t, false, shared);
      this.open = { name: el.name, message: '', text: t.text, line: t.line, endLine: t.endLine, at: t.at, end: t.end, ownLines: !shared, status: 'passed' };
      if (el.closed) this.close(t, true);
    } else if (el.tag === 'end') this.close(t, true);
    else if (this.open && el.tag === 'failed') {
      this.open.status = 'failed';
      this.open.message ||= oneLine(el.message);
    } else if (this.open && el.tag === 'skipped' && this.open.status === 'passed') this.open.status = 'skipped';
  }

  /**
   * Ends the open testcase at tag `t`: its end tag (`ends`), or the start of the next testcase, or the end of the
   * text (t null: a report cut before its end tag).
   */
  private close(t: XmlTag | null, ends: boolean, shared = false): void {
    const o = this.open;
    this.open = null;
    if (!o) return;
    this.counts[o.status]++;
    this.onTest?.({ name: o.name, status: o.status, line: o.line, message: o.message });
    if (o.status !== 'failed') return;
    this.failed++;
    if (this.failing.length >= NAMED) return;
    o.text = o.text.length > SHOWN_CHARS ? `<${o.text.slice(0, SHOWN_CHARS)}…` : `<${o.text}>`;
    if (t && ends) {
      o.endLine = t.endLine;
      o.end = t.end;
    } else if (t) {
      // (a testcase that starts on a line of its own: the open one ends on the line before)
      o.endLine = shared ? t.line : Math.max(o.endLine, t.line - 1);
      o.end = t.at;
      if (shared) o.ownLines = false;
    } else {
      const w = this.tags.where;
      o.endLine = w.line;
      o.end = w.pos;
    }
    this.failing.push(o);
  }

  get tests(): number {
    return this.counts.passed + this.counts.failed + this.counts.skipped;
  }

  /** The facts over the whole report, or null when it held no testcase. */
  end(): KindFacts | null {
    this.tags.end();
    this.close(null, false);
    if (this.tests === 0) return null;
    const more = this.failed - this.failing.length;
    const byLines = this.failing.filter((f) => f.ownLines);
    const byChars = this.failing.filter((f) => !f.ownLines);
    const first = this.failing[0];
    const read = (f: Failing): Words => (f.ownLines ? ['read', 'ID', '--records', `${f.line}:${f.endLine}`] : ['read', 'ID', '--chars', `${f.at}:${f.end}`, '--raw']);
    return {
      kind: 'test-run',
      facts: {
        runner: 'junit',
        tests: this.tests,
        ...this.counts,
        failing: this.failing.map((f) => f.name),
        ...(more > 0 ? { failing_not_named: more } : {}),
        ...(byLines.length ? { failure_lines: Object.fromEntries(byLines.map((f) => [f.name, `${f.line}:${f.endLine}`])) } : {}),
        ...(byChars.length ? { failure_chars: Object.fromEntries(byChars.map((f) => [f.name, `${f.at}:${f.end}`])) } : {}),
        ...(this.failing.length ? { failure_messages: Object.fromEntries(this.failing.map((f) => [f.name, f.message])) } : {}),
      },
      errors: 'own',
      errorLines: this.failing.slice(0, 10).map(({ line, text }) => ({ line, text })),
      errorCount: this.failed,
      levels: false,
      nextCommands: first ? [read(first), ['grep', 'ID', '<failure|<error', '-C', '3']] : [],
    };
  }
}

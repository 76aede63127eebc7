// Builds the keyword automaton of the secret rules (src/secrets/keywords.ts loads it): an Aho–Corasick automaton
// over bytes, as a full transition table with ASCII letters folded to lower case, so a scan is one table load per
// byte. Built here rather than at run time, where building it took 30 ms of every start that scans.
//
// File layout (little-endian): u32 states, u32 sets, u32 set entries, u32 first state with an output (states with
// outputs come last; the root is 0); u16 delta[states * 256] (padded to 4 bytes); i32 out[states] (an output set,
// or -1); u32 setStart[sets + 1]; i32 setRules[set entries].

const lower = (b) => (b >= 65 && b <= 90 ? b + 32 : b);

/** The automaton for `triggers[r]` (lower-case keywords of rule r, or null), as the bytes of the file. */
export function buildKeywordAutomaton(triggers) {
  const words = triggers.flatMap((ws, rule) => (ws ?? []).map((w) => ({ w: Buffer.from(w, 'latin1'), rule })));
  const max = words.reduce((n, x) => n + x.w.length, 1);
  const go = new Int32Array(max * 256).fill(-1);
  const ends = [[]];
  let n = 1;
  for (const { w, rule } of words) {
    let s = 0;
    for (const ch of w) {
      const k = s * 256 + lower(ch);
      if (go[k] < 0) {
        go[k] = n++;
        ends.push([]);
      }
      s = go[k];
    }
    if (!ends[s].includes(rule)) ends[s].push(rule);
  }
  if (n >= 65536) throw new Error('too many keyword states');
  const fail = new Int32Array(n);
  const delta = new Uint16Array(n * 256);
  // breadth first: a state's failure state (and its row) is complete before the state's own
  const queue = [];
  for (let b = 0; b < 256; b++) {
    const t = go[lower(b)];
    delta[b] = t < 0 ? 0 : t;
    if (t > 0 && b === lower(b)) queue.push(t);
  }
  for (let q = 0; q < queue.length; q++) {
    const s = queue[q];
    for (const x of ends[fail[s]]) if (!ends[s].includes(x)) ends[s].push(x);
    for (let b = 0; b < 256; b++) {
      const t = go[s * 256 + lower(b)];
      if (t < 0) delta[s * 256 + b] = delta[fail[s] * 256 + b];
      else {
        delta[s * 256 + b] = t;
        if (b === lower(b)) {
          fail[t] = delta[fail[s] * 256 + b];
          queue.push(t);
        }
      }
    }
  }
  const out = new Int32Array(n).fill(-1);
  const sets = [];
  const seen = new Map();
  for (let s = 0; s < n; s++) {
    if (ends[s].length === 0) continue;
    const list = [...ends[s]].sort((a, b) => a - b);
    const key = list.join(',');
    if (!seen.has(key)) {
      seen.set(key, sets.length);
      sets.push(list);
    }
    out[s] = seen.get(key);
  }
  // number the states with an output last, so the scan loop tells them by number (no second load per byte)
  const order = [...Array(n).keys()].sort((a, b) => (out[a] >= 0) - (out[b] >= 0) || a - b);
  const rename = new Int32Array(n);
  order.forEach((old, i) => (rename[old] = i));
  const firstOutput = order.findIndex((s) => out[s] >= 0);
  const delta2 = new Uint16Array(n * 256);
  const out2 = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    for (let b = 0; b < 256; b++) delta2[rename[s] * 256 + b] = rename[delta[s * 256 + b]];
    out2[rename[s]] = out[s];
  }
  const entries = sets.reduce((k, l) => k + l.length, 0);
  const deltaBytes = (n * 256 * 2 + 3) & ~3;
  const buf = Buffer.alloc(16 + deltaBytes + n * 4 + (sets.length + 1) * 4 + entries * 4);
  buf.writeUInt32LE(n, 0);
  buf.writeUInt32LE(sets.length, 4);
  buf.writeUInt32LE(entries, 8);
  buf.writeUInt32LE(firstOutput < 0 ? n : firstOutput, 12);
  Buffer.from(delta2.buffer).copy(buf, 16);
  let at = 16 + deltaBytes;
  Buffer.from(out2.buffer).copy(buf, at);
  at += n * 4;
  let k = 0;
  for (let i = 0; i <= sets.length; i++) {
    buf.writeUInt32LE(k, at + i * 4);
    if (i < sets.length) k += sets[i].length;
  }
  at += (sets.length + 1) * 4;
  for (const l of sets) for (const r of l) (buf.writeInt32LE(r, at), (at += 4));
  return buf;
}

// Shannon entropy of a secret, exactly as gitleaks computes it (detect/utils.go shannonEntropy): characters are
// UTF-8 runes (an invalid byte is one U+FFFD rune, as Go's range over a string gives), frequencies are divided by
// the length in bytes.

/** The Go rune starting at bytes[i] (as a number; invalid → 0xfffd) and its length in bytes. */
function rune(bytes: string, i: number): [number, number] {
  const b0 = bytes.charCodeAt(i);
  if (b0 < 0x80) return [b0, 1];
  const cont = (k: number) => {
    const b = bytes.charCodeAt(i + k);
    return i + k < bytes.length && b >= 0x80 && b <= 0xbf ? b & 0x3f : -1;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    const c1 = cont(1);
    if (c1 >= 0) return [((b0 & 0x1f) << 6) | c1, 2];
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    const c1 = cont(1);
    const c2 = cont(2);
    const cp = ((b0 & 0x0f) << 12) | (c1 << 6) | c2;
    if (c1 >= 0 && c2 >= 0 && cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff)) return [cp, 3];
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    const c1 = cont(1);
    const c2 = cont(2);
    const c3 = cont(3);
    const cp = ((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
    if (c1 >= 0 && c2 >= 0 && c3 >= 0 && cp >= 0x10000 && cp <= 0x10ffff) return [cp, 4];
  }
  return [0xfffd, 1];
}

/** Shannon entropy (bits per byte, as gitleaks) of a latin1 string holding the secret's bytes. */
export function shannonEntropy(bytes: string): number {
  if (bytes.length === 0) return 0;
  const counts = new Map<number, number>();
  for (let i = 0; i < bytes.length; ) {
    const [cp, n] = rune(bytes, i);
    counts.set(cp, (counts.get(cp) ?? 0) + 1);
    i += n;
  }
  const inv = 1 / bytes.length;
  let h = 0;
  for (const c of counts.values()) {
    const f = c * inv;
    h -= f * Math.log2(f);
  }
  return h;
}

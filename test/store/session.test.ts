// Session names to folder names and back: `/` becomes %2F (and `%` %25), so `feature/login` is one folder.
import { describe, expect, it } from 'vitest';
import { sessionFolderName, sessionOfFolder, sessionProblem } from '../../src/store/session.js';

describe('session folders', () => {
  it('encode / and % only, and decode back exactly', () => {
    for (const [name, folder] of [
      ['feature/login', 'feature%2Flogin'],
      ['100%', '100%25'],
      ['%2F', '%252F'],
      ['a/%/b', 'a%2F%25%2Fb'],
      ['plain name', 'plain name'],
      ['/', '%2F'],
    ]) {
      expect(sessionFolderName(name)).toBe(folder);
      expect(sessionOfFolder(folder)).toBe(name);
      expect(sessionFolderName(name)).not.toContain('/');
    }
  });

  it('read a folder an older lro made for a name with a lone % as that name', () => {
    expect(sessionOfFolder('50% done')).toBe('50% done');
  });

  it('accept / but still refuse .., control characters and a folder name past 255 bytes', () => {
    expect(sessionProblem('feature/login')).toBeNull();
    expect(sessionProblem('a/../b')).toMatch(/\.\./);
    expect(sessionProblem('a\nb')).toMatch(/control/);
    expect(sessionProblem('/'.repeat(85))).toBeNull();
    expect(sessionProblem('/'.repeat(86))).toMatch(/255 bytes/);
  });
});

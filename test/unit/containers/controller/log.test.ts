import { maxOutputLineChars, redactSecrets } from '../../../../containers/controller/log';

const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
const registrationKey = 'Qm9vdHN0cmFwLWtleS1vZi1leGFjdGx5LTQzLWNoYXJz';

describe('redactSecrets', () => {
  it.each([
    ['a known secret', 'my token is short-secret-1', ['short-secret-1'], 'my token is [redacted]'],
    ['a JWT', `auth ${jwt} ok`, [], 'auth [redacted] ok'],
    ['a registration key', `player ${registrationKey} joined`, [], 'player [redacted] joined'],
    ['ordinary text', 'listening on 38001 map=harbor', [], 'listening on 38001 map=harbor'],
  ])('removes %s', (_, line, secrets, expected) => {
    expect(redactSecrets(line, secrets)).toBe(expected);
  });

  it('ignores secrets too short to redact without mangling text', () => {
    expect(redactSecrets('a b c', ['a'])).toBe('a b c');
  });

  it('cuts long lines after redacting, so no secret survives the cut', () => {
    const line = `${'x '.repeat(maxOutputLineChars / 2 - 10)}${jwt}`;
    const out = redactSecrets(line, []);
    expect(out.length).toBeLessThanOrEqual(maxOutputLineChars + 1);
    expect(out).not.toContain('eyJ');
  });
});

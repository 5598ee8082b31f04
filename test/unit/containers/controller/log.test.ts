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

  describe('with the room id kept', () => {
    // The platform's room ids are UUIDs: a 36-character base64url run, the shape of a secret.
    const roomId = '3f2c9a4e-8b1d-4c6f-9e0a-7d5b2c1e4f60';

    it.each([
      ['alone', `room ${roomId} ready`, `room ${roomId} ready`],
      ['inside a longer name', `queue reply-${roomId}-assign`, `queue reply-${roomId}-assign`],
      ['twice, beside a key', `${roomId} ${registrationKey} ${roomId}`, `${roomId} [redacted] ${roomId}`],
      ['beside a JWT', `room=${roomId} token=${jwt}`, `room=${roomId} token=[redacted]`],
      ['glued to a key', `${registrationKey}${roomId}`, `[redacted]${roomId}`],
    ])('keeps it %s, and still redacts what is around it', (_, line, expected) => {
      expect(redactSecrets(line, [], [roomId])).toBe(expected);
    });

    it('redacts any other UUID-shaped run, as before', () => {
      expect(redactSecrets('other 11111111-2222-3333-4444-555555555555', [], [roomId])).toBe('other [redacted]');
    });
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

import { openedEnvironment } from '../../../../containers/controller/sealed-environment';
import {
  envelopeKeyFromSecret,
  openSidecarVariables,
  sealSidecarVariables,
  SidecarEnvelopeError,
  type EnvelopeFailure,
} from '../../../../core/gameservers/sidecar-envelope';

/**
 * The controller container's secrets cross the ECS API sealed (AES-256-GCM under the
 * deployment's envelope key, bound to the room): only a sidecar of that room holding that key
 * opens them, and any other outcome is a typed refusal naming why.
 */
const secret = 'A'.repeat(32) + 'b'.repeat(32);
const key = envelopeKeyFromSecret(secret);
const variables = {
  SIDECAR_KEY: 'k'.repeat(43),
  AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret/access+key',
  AWS_SESSION_TOKEN: 'session-token',
};

function refusal(open: () => unknown): EnvelopeFailure | undefined {
  try {
    open();
  } catch (error) {
    if (error instanceof SidecarEnvelopeError) return error.reason;
    throw error;
  }
  return undefined;
}

/** The sealed text with one character of part `index` (1 key id, 2 iv, 3 data) changed. */
function altered(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const part = parts[index]!;
  parts[index] = (part[0] === 'A' ? 'B' : 'A') + part.slice(1);
  return parts.join('.');
}

describe('sealSidecarVariables / openSidecarVariables', () => {
  it('round trip: the room the blob was sealed for opens it with the same key, and nothing shows in clear', () => {
    const sealed = sealSidecarVariables(key, 'room-1', variables);
    expect(sealed).toMatch(/^v1\.[\w-]{8}\.[\w-]{16}\.[\w-]+$/);
    for (const value of Object.values(variables)) expect(sealed).not.toContain(value);
    expect(openSidecarVariables(key, 'room-1', sealed)).toEqual(variables);
    // A fresh IV each time: two seals of the same values differ.
    expect(sealSidecarVariables(key, 'room-1', variables)).not.toBe(sealed);
  });

  it("another room's task cannot open it", () => {
    const sealed = sealSidecarVariables(key, 'room-1', variables);
    expect(refusal(() => openSidecarVariables(key, 'room-2', sealed))).toBe('does-not-open');
  });

  it.each([
    ['the IV', 2],
    ['the ciphertext', 3],
  ])('a blob with %s altered does not open', (_part, index) => {
    const sealed = sealSidecarVariables(key, 'room-1', variables);
    expect(refusal(() => openSidecarVariables(key, 'room-1', altered(sealed, index)))).toBe('does-not-open');
  });

  it('a blob sealed under another key is refused as a key mismatch, naming both key ids', () => {
    const other = envelopeKeyFromSecret('Z'.repeat(64));
    const sealed = sealSidecarVariables(other, 'room-1', variables);
    expect(refusal(() => openSidecarVariables(key, 'room-1', sealed))).toBe('wrong-key');
    expect(() => openSidecarVariables(key, 'room-1', sealed)).toThrow(
      `sealed with envelope key ${other.keyId}; this container was given key ${key.keyId}`,
    );
    // A key id rewritten to match does not help: the tag covers it.
    const relabelled = sealed.replace(other.keyId, key.keyId);
    expect(refusal(() => openSidecarVariables(key, 'room-1', relabelled))).toBe('does-not-open');
  });

  it('refuses what is not a sealed environment, and secrets too short to be the generated one', () => {
    expect(refusal(() => openSidecarVariables(key, 'room-1', 'AWS_SECRET_ACCESS_KEY=x'))).toBe('malformed');
    expect(refusal(() => envelopeKeyFromSecret('short'))).toBe('malformed');
    expect(() => sealSidecarVariables(key, 'room-1', { OTHER: 'x' } as never)).toThrow();
  });
});

describe('the sidecar opens its environment before parsing it (containers/controller)', () => {
  const sealedEnv = (roomId: string, envelope = secret) => ({
    ROOM_ID: roomId,
    GAME_PORTS: '7777',
    SIDECAR_SEALED: sealSidecarVariables(key, roomId, variables),
    SIDECAR_ENVELOPE_KEY: envelope,
  });

  it('merges the sealed variables and drops the blob and the envelope key', () => {
    expect(openedEnvironment(sealedEnv('room-1'))).toEqual({ ROOM_ID: 'room-1', GAME_PORTS: '7777', ...variables });
  });

  it('leaves an environment without SIDECAR_SEALED (the local fleet) as it is', () => {
    expect(openedEnvironment({ ROOM_ID: 'room-1', GAME_PORTS: '7777' })).toEqual({
      ROOM_ID: 'room-1',
      GAME_PORTS: '7777',
    });
  });

  it('refuses a sealed environment without the envelope key, or with another one', () => {
    const { SIDECAR_ENVELOPE_KEY: _key, ...withoutKey } = sealedEnv('room-1');
    expect(refusal(() => openedEnvironment(withoutKey))).toBe('wrong-key');
    expect(refusal(() => openedEnvironment(sealedEnv('room-1', 'Q'.repeat(64))))).toBe('wrong-key');
    expect(refusal(() => openedEnvironment({ ...sealedEnv('room-1'), ROOM_ID: 'room-2' }))).toBe('does-not-open');
  });
});

import {
  decodeRoomKey,
  deriveRoomKey,
  encodeRoomKey,
  openReply,
  openRequest,
  sealReply,
  sealRequest,
  SidecarChannelError,
  sidecarKeys,
  sidecarKeysFromRoomKey,
} from '../../../../core/protocol/sidecar-channel';

const secret = Buffer.alloc(32, 9);
const platformKeys = (roomId: string) => Promise.resolve(sidecarKeys(secret, roomId));
const payload = JSON.stringify({ type: 'heartbeat', roomId: 'room-a', sentAt: '2026-01-01T00:00:00.000Z' });

describe('sidecar-channel', () => {
  describe('keys', () => {
    it('derives one key per room, the same on the platform and in the sidecar', () => {
      const a = sidecarKeys(secret, 'room-a');
      expect(sidecarKeys(secret, 'room-b').roomKey.equals(a.roomKey)).toBe(false);
      expect(sidecarKeys(Buffer.alloc(32, 8), 'room-a').roomKey.equals(a.roomKey)).toBe(false);
      const sidecar = sidecarKeysFromRoomKey('room-a', decodeRoomKey(encodeRoomKey(a)));
      expect(sidecar).toEqual(a);
      expect(a.macKey.equals(a.replyKey)).toBe(false);
      expect(a.macKey.equals(a.roomKey)).toBe(false);
    });

    it.each([[''], ['short'], ['!'.repeat(43)], [`${'A'.repeat(43)}x`]])('refuses %j as a room key', (text) => {
      expect(() => decodeRoomKey(text)).toThrow(SidecarChannelError);
    });

    it('refuses a platform secret too short to derive from', () => {
      expect(() => deriveRoomKey(Buffer.alloc(8), 'room-a')).toThrow(SidecarChannelError);
    });
  });

  describe('openRequest', () => {
    it("accepts an envelope MAC'd with its room's key", async () => {
      const body = JSON.stringify(sealRequest(sidecarKeys(secret, 'room-a'), payload));
      await expect(openRequest(body, platformKeys)).resolves.toEqual({ ok: true, roomId: 'room-a', payload });
    });

    it.each([
      [
        'another room key',
        () => sealRequest({ ...sidecarKeys(secret, 'room-b'), roomId: 'room-a' }, payload),
        'bad-mac',
      ],
      ['a made-up key', () => sealRequest(sidecarKeysFromRoomKey('room-a', Buffer.alloc(32)), payload), 'bad-mac'],
      [
        'a room id swapped in',
        () => ({ ...sealRequest(sidecarKeys(secret, 'room-b'), payload), roomId: 'room-a' }),
        'bad-mac',
      ],
      [
        'a payload changed',
        () => ({
          ...sealRequest(sidecarKeys(secret, 'room-a'), payload),
          payload: payload.replace('heartbeat', 'exited'),
        }),
        'bad-mac',
      ],
      ['a bare request', () => JSON.parse(payload) as unknown, 'malformed'],
      ['a short MAC', () => ({ ...sealRequest(sidecarKeys(secret, 'room-a'), payload), mac: 'AAAA' }), 'malformed'],
    ])('refuses %s', async (_name, make, reason) => {
      const result = await openRequest(JSON.stringify(make()), platformKeys);
      expect(result).toMatchObject({ ok: false, reason });
    });

    it('refuses a body that is not JSON', async () => {
      await expect(openRequest('{not json', platformKeys)).resolves.toEqual({ ok: false, reason: 'malformed' });
    });
  });

  describe('sealReply / openReply', () => {
    const a = sidecarKeys(secret, 'room-a');
    const b = sidecarKeys(secret, 'room-b');
    const reply = JSON.stringify({ type: 'reply', correlationId: 'c', result: { access_token: 'secret-token' } });

    it('only the room it was sealed for can read it, and the text does not show', () => {
      const body = JSON.stringify(sealReply(a, reply));
      expect(body).not.toContain('secret-token');
      expect(openReply(a, body)).toBe(reply);
      // Replayed into another room's queue.
      expect(openReply(b, body)).toBeUndefined();
    });

    it('uses a fresh nonce per message', () => {
      expect(sealReply(a, reply).iv).not.toBe(sealReply(a, reply).iv);
    });

    it.each([
      ['a plain command', JSON.stringify({ type: 'command', commandId: 'c', method: 'say' })],
      ['garbage', 'nope'],
      [
        'a flipped bit',
        (() => {
          const sealed = sealReply(a, reply);
          const data = Buffer.from(sealed.data, 'base64url');
          data[0] = (data[0] ?? 0) ^ 1;
          return JSON.stringify({ ...sealed, data: data.toString('base64url') });
        })(),
      ],
      ['a truncated tag', JSON.stringify({ ...sealReply(a, reply), data: 'AAAA' })],
    ])('drops %s', (_name, body) => {
      expect(openReply(a, body)).toBeUndefined();
    });
  });
});

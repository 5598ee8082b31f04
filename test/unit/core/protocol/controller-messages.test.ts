import {
  controllerRequestSchema,
  forwardedCall,
  forwardedParams,
  gameRequestId,
} from '../../../../core/protocol/controller-messages';
import { storedHashOfKey } from '../../../../core/rooms/document';
import { generateRegistrationKey, hashRegistrationKey } from '../../../../core/rooms/registration-keys';

const key = 'y3l1GmZx0Kc8e5m3QbXoJg2dH6rT9vA1sWqLpN4uEiY';
const envelope = {
  type: 'rpc',
  roomId: 'room-1',
  sentAt: new Date(0).toISOString(),
  correlationId: 'corr-1',
  replyTo: 'https://sqs.local/reply-room-1',
};
const request = (method: string, params: unknown) => controllerRequestSchema.safeParse({ ...envelope, method, params });
const firstIssue = (method: string, params: unknown) => {
  const parsed = request(method, params);
  return parsed.success ? undefined : parsed.error.issues[0];
};

describe('controller-messages', () => {
  describe('controllerRequestSchema: a forwarded joined or left', () => {
    it.each(['joined', 'left'])('accepts %s naming the key by its SHA-256', (method) => {
      const parsed = request(method, { keyHash: hashRegistrationKey(key) });
      expect(parsed.success && parsed.data).toMatchObject({ method, params: { keyHash: hashRegistrationKey(key) } });
    });

    it.each(['joined', 'left'])('refuses %s carrying the key in clear, even beside its hash', (method) => {
      // An old sidecar's message: served, it would keep keys worth reading on the queue.
      expect(firstIssue(method, { key })).toMatchObject({ path: ['params', 'keyHash'] });
      expect(firstIssue(method, { key, keyHash: hashRegistrationKey(key) })).toMatchObject({
        path: ['params', 'key'],
        message: 'a registration key never crosses the queue in clear; send keyHash',
      });
    });

    it.each([
      ['the key itself', key],
      ['the stored form (128 bits, base64url)', storedHashOfKey(key)],
      ['upper-case hex', hashRegistrationKey(key).toUpperCase()],
      ['one digit short', hashRegistrationKey(key).slice(1)],
      ['one digit more', `${hashRegistrationKey(key)}0`],
      ['a number', 42],
    ])('refuses a keyHash that is %s', (_name, keyHash) => {
      expect(firstIssue('joined', { keyHash })).toMatchObject({ path: ['params', 'keyHash'] });
    });

    it('leaves inited params to the consumer', () => {
      expect(request('inited', { settings: { key: 'not a registration key' } }).success).toBe(true);
    });
  });

  describe("gameRequestId: the game's request a forwarded joined or left is", () => {
    it('is the same for the same JSON-RPC id and differs for any other, 7 and "7" included', () => {
      const ids = [7, '7', 8, 't-1', 't-01', '', 0, -1];
      expect(new Set(ids.map(gameRequestId)).size).toBe(ids.length);
      expect(gameRequestId('t-1')).toBe(gameRequestId('t-1'));
    });

    it.each(['joined', 'left'])(
      'travels with %s; a message without one (the previous release) is still read',
      (method) => {
        const params = { keyHash: hashRegistrationKey(key) };
        const current = controllerRequestSchema.safeParse({
          ...envelope,
          method,
          params,
          gameRequest: gameRequestId(1),
        });
        expect(current.success && current.data).toMatchObject({ gameRequest: gameRequestId(1) });
        expect(request(method, params).success).toBe(true);
        const forged = controllerRequestSchema.safeParse({ ...envelope, method, params, gameRequest: 'x'.repeat(200) });
        expect(forged.success).toBe(false);
      },
    );
  });

  describe('forwardedCall', () => {
    it.each(['joined', 'left'] as const)(
      'replaces the key of %s by its SHA-256 and keeps the other params',
      (method) => {
        const call = forwardedCall(method, { key, extend_scopes: 'chat' }, gameRequestId(3));
        expect(call).toEqual({
          method,
          params: { keyHash: hashRegistrationKey(key), extend_scopes: 'chat' },
          gameRequest: gameRequestId(3),
        });
        expect(request(method, call.params).success).toBe(true);
        expect(forwardedParams[method].safeParse(call.params).success).toBe(true);
      },
    );

    it('shows no encoding of the key: not the text, nor its bytes as hex or base64', () => {
      const fresh = generateRegistrationKey();
      const text = JSON.stringify(forwardedCall('joined', { key: fresh }));
      const raw = Buffer.from(fresh, 'base64url');
      const utf8 = Buffer.from(fresh, 'utf8');
      for (const encoded of [
        fresh,
        raw.toString('hex'),
        raw.toString('base64'),
        utf8.toString('hex'),
        utf8.toString('base64'),
        utf8.toString('base64url'),
      ]) {
        expect(text).not.toContain(encoded);
      }
    });

    it('forwards inited as the game sent it', () => {
      expect(forwardedCall('inited', { settings: { map: 'harbor' } })).toEqual({
        method: 'inited',
        params: { settings: { map: 'harbor' } },
      });
    });

    it('fails closed on a key that is not text: the message is refused, not sent with a guess', () => {
      const call = forwardedCall('left', { key: 7 });
      expect(JSON.stringify(call)).not.toContain('7');
      expect(request('left', call.params).success).toBe(false);
    });
  });
});

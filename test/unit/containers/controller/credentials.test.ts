import { Logger } from '@aws-lambda-powertools/logger';
import {
  renewalDelayMs,
  renewBeforeMs,
  renewRetryMs,
  SessionCredentials,
} from '../../../../containers/controller/credentials';

const now = new Date('2026-01-01T00:00:00.000Z');
const session = (expiration: string, id = 'A') => ({
  accessKeyId: id,
  secretAccessKey: 's',
  sessionToken: 't',
  expiration,
});

describe('credentials', () => {
  describe('renewalDelayMs', () => {
    it.each([
      ['an hour-long session', '2026-01-01T01:00:00.000Z', 3_600_000 - renewBeforeMs],
      ['a session inside the renewal window', '2026-01-01T00:10:00.000Z', 0],
      ['an expired session', '2025-12-31T23:00:00.000Z', 0],
    ])('%s', (_name, expiration, delay) => {
      expect(renewalDelayMs(expiration, now)).toBe(delay);
    });
  });

  describe('SessionCredentials', () => {
    beforeEach(() => jest.useFakeTimers({ now }));
    afterEach(() => jest.useRealTimers());

    it('renews before expiry, retries a failed renewal, and hands the SDK the current session', async () => {
      const credentials = new SessionCredentials(
        session('2026-01-01T01:00:00.000Z'),
        new Logger({ logLevel: 'SILENT' }),
        () => new Date(Date.now()),
      );
      const answers = [undefined, session('2026-01-01T02:00:00.000Z', 'B')];
      const renew = jest.fn(() => Promise.resolve(answers.shift()));
      credentials.start(renew);

      await jest.advanceTimersByTimeAsync(3_600_000 - renewBeforeMs - 1);
      expect(renew).not.toHaveBeenCalled();
      await jest.advanceTimersByTimeAsync(1);
      expect(renew).toHaveBeenCalledTimes(1);
      expect((await credentials.provider()).accessKeyId).toBe('A');
      await jest.advanceTimersByTimeAsync(renewRetryMs);
      expect(renew).toHaveBeenCalledTimes(2);
      expect(await credentials.provider()).toEqual({
        accessKeyId: 'B',
        secretAccessKey: 's',
        sessionToken: 't',
        expiration: new Date('2026-01-01T02:00:00.000Z'),
      });
      credentials.stop();
      await jest.advanceTimersByTimeAsync(3_600_000);
      expect(renew).toHaveBeenCalledTimes(2);
    });
  });
});

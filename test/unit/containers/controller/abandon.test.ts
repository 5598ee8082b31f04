import { abandonDeduplicationId, abandonNotice } from '../../../../containers/controller/abandon';
import { controllerRequestSchema, gameRequestId } from '../../../../core/protocol/controller-messages';
import { hashRegistrationKey } from '../../../../core/rooms/registration-keys';

describe('abandonNotice', () => {
  it("names the abandoned joined by the game's request, the key only by its hash", () => {
    const notice = abandonNotice('joined', { key: 'secret-key' }, 'corr-1', gameRequestId(7));
    expect(notice).toEqual({
      type: 'abandoned',
      correlationId: 'corr-1',
      method: 'joined',
      keyHash: hashRegistrationKey('secret-key'),
      gameRequest: gameRequestId(7),
    });
    expect(JSON.stringify(notice)).not.toContain('secret-key');
    // It is a valid platform message once the bridge adds the envelope.
    const enveloped = { ...notice, roomId: 'room-1', sentAt: new Date(0).toISOString() };
    expect(controllerRequestSchema.safeParse(enveloped).success).toBe(true);
  });

  it.each([
    ['inited', { settings: {} }],
    ['left', { key: 'k' }],
    ['joined', {}],
    ['joined', null],
  ] as const)('has nothing to undo for %s %p', (method, params) => {
    expect(abandonNotice(method, params, 'corr-1', gameRequestId(1))).toBeUndefined();
  });

  it('deduplicates apart from the request itself', () => {
    expect(abandonDeduplicationId('corr-1')).not.toBe('corr-1');
    expect(abandonDeduplicationId('corr-1')).toBe(abandonDeduplicationId('corr-1'));
  });
});

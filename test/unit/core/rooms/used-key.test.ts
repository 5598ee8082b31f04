import { gameRequestId } from '../../../../core/protocol/controller-messages';
import { memberStateCode, type StoredMember } from '../../../../core/rooms/document';
import { usedKeyAnswer } from '../../../../core/rooms/member-writes';
import { aRoom } from '../../../helpers/factories';

describe('usedKeyAnswer: a registration key is single use', () => {
  const room = aRoom({ state: 'ready' });
  const confirmedAt = Date.parse('2026-01-01T00:00:05.000Z');
  const usedBy = gameRequestId(7);
  const member = (state: 'active' | 'inactive'): StoredMember => ({
    s: memberStateCode(state),
    t: confirmedAt,
    k: 'stored-key-hash',
    u: usedBy,
    a: confirmedAt,
  });

  it.each(['active', 'inactive'] as const)(
    'answers the request that used the key (%s member) as the first time: same member, same confirmedAt',
    (state) => {
      expect(usedKeyAnswer(room, 'alice', member(state), 'stored-key-hash', usedBy)).toEqual({
        state: 'AlreadyConfirmed',
        member: expect.objectContaining({
          account: 'alice',
          keyUsedBy: usedBy,
          confirmedAt: new Date(confirmedAt).toISOString(),
        }),
      });
    },
  );

  it.each([
    ['another JSON-RPC id of the same game', gameRequestId(8)],
    ['the same id as a string', gameRequestId('7')],
    ["a forward's correlation id", 'aaaaaaaaaaaaaaaaaaaaaa'],
  ])('rejects %s, while its member holds the slot', (_name, requestId) => {
    for (const state of ['active', 'inactive'] as const) {
      expect(usedKeyAnswer(room, 'alice', member(state), 'stored-key-hash', requestId)).toEqual({
        state: 'Rejected',
        reason: 'used',
      });
    }
  });
});

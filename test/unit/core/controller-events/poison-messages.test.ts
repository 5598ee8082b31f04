import { giveUpOnMessage, isLastDelivery } from '../../../../core/controller-events/poison-messages';
import type { RoomStore } from '../../../../core/rooms/room-store';

describe('isLastDelivery', () => {
  it.each([
    ['1', 5, false],
    ['4', 5, false],
    ['5', 5, true],
    // A count past the limit (a redrive that has not happened yet) is still the last.
    ['6', 5, true],
    [undefined, 5, false],
    ['', 5, false],
    ['five', 5, false],
    ['4.5', 5, false],
  ] as const)('receive count %p of at most %p → %p', (count, max, expected) => {
    expect(isLastDelivery(count, max)).toBe(expected);
  });
});

describe('giveUpOnMessage', () => {
  const sentAt = '2026-01-01T00:00:00.000Z';
  function deps() {
    const failed: string[] = [];
    const replies: unknown[] = [];
    return {
      failed,
      replies,
      deps: {
        rooms: {
          markFailed: async (roomId: string) => {
            failed.push(roomId);
            return { applied: true as const, room: undefined as never };
          },
        } as unknown as RoomStore,
        reply: async (_replyTo: string, reply: unknown) => {
          replies.push(reply);
        },
        now: () => new Date(sentAt),
      },
    };
  }

  it('fails the room of a message that could not be applied, and tells a waiting sidecar', async () => {
    const { deps: d, failed, replies } = deps();
    await giveUpOnMessage(
      {
        type: 'rpc',
        roomId: 'r1',
        sentAt,
        correlationId: 'c',
        replyTo: 'q',
        method: 'joined',
        params: { keyHash: 'a'.repeat(64) },
      },
      d,
    );
    expect(failed).toEqual(['r1']);
    expect(replies).toEqual([expect.objectContaining({ type: 'reply', correlationId: 'c' })]);
  });

  it.each([
    ['a command result', { type: 'commandResult', roomId: 'r1', sentAt, commandId: 'x', result: 1 }],
    ['a game message', { type: 'message', roomId: 'r1', sentAt, messageId: 'm', data: {} }],
  ] as const)('drops %s without failing the room', async (_what, request) => {
    const { deps: d, failed, replies } = deps();
    await giveUpOnMessage(request, d);
    expect(failed).toEqual([]);
    expect(replies).toEqual([]);
  });
});

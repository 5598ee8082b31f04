import { tellInvited } from '../../../../core/invites/notify';
import type { ConnectionSender } from '../../../../core/live/connection-sender';
import type { ServerFrame } from '../../../../core/live/messages';
import { serverFrameSchema } from '../../../../core/live/messages';
import { InMemoryLiveSubscriptions } from '../../../helpers/fakes/live-subscriptions';

describe('tellInvited', () => {
  it("sends the invite frame on each of the invited account's sockets and forgets a gone one", async () => {
    const now = new Date('2026-01-01T00:00:00.000Z');
    const sockets = new InMemoryLiveSubscriptions(() => now);
    for (const [connectionId, account] of [
      ['b1', 'bob'],
      ['b2', 'bob'],
      ['c1', 'carol'],
    ] as const) {
      await sockets.connect({ connectionId, account, admin: false }, now);
    }
    const sent: [string, ServerFrame][] = [];
    const sender: ConnectionSender = {
      send: async (connectionId, frame) => {
        sent.push([connectionId, frame]);
        return connectionId === 'b2' ? 'gone' : 'sent';
      },
    };
    const expiresAt = now.getTime() + 45_000;
    await tellInvited({ roomId: 'r1', invitedBy: 'alice', expiresAt }, ['bob'], { sockets, sender });
    const frame = { type: 'invite', roomId: 'r1', invitedBy: 'alice', expiresAt: new Date(expiresAt).toISOString() };
    expect(sent.sort(([a], [b]) => a.localeCompare(b))).toEqual([
      ['b1', frame],
      ['b2', frame],
    ]);
    expect(serverFrameSchema.parse(frame)).toEqual(frame);
    expect(await sockets.socketsOf('bob')).toEqual(['b1']);
    expect(await sockets.socketsOf('carol')).toEqual(['c1']);
  });
});

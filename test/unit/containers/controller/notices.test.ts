import { createNoticeRelay } from '../../../../containers/controller/notices';
import { controllerReplySchema } from '../../../../core/protocol/controller-messages';

const mismatch = {
  account: 'bob',
  client: { hash: '1111111111111111', builtAt: '2026-03-01T10:00:00Z' },
  server: { hash: '2222222222222222' },
  added: ['Game::Emote'],
  removed: [],
  changed: ['Game::Move'],
  newer: 'client',
};

function setup(open = true) {
  const sent: { method: string; params: Record<string, unknown> }[] = [];
  const relay = createNoticeRelay({
    open: () => open,
    notify: async (method, params) => {
      sent.push({ method, params });
      return true;
    },
    log: { info: () => undefined, warn: () => undefined },
  });
  return { relay, sent };
}

describe('platform notices relayed to the game', () => {
  it('relays protocol_mismatch as a notification with its params', async () => {
    const { relay, sent } = setup();
    await relay({ type: 'notice', method: 'protocol_mismatch', params: mismatch });
    expect(sent).toEqual([{ method: 'protocol_mismatch', params: mismatch }]);
  });

  it('relays nothing once the room is ending', async () => {
    const { relay, sent } = setup(false);
    await relay({ type: 'notice', method: 'protocol_mismatch', params: mismatch });
    expect(sent).toEqual([]);
  });

  it('relays no notice whose params are not the table’s', async () => {
    const { relay, sent } = setup();
    await relay({ type: 'notice', method: 'protocol_mismatch', params: { account: 'bob' } });
    expect(sent).toEqual([]);
  });

  it('reads only the names of the table off the reply queue', () => {
    expect(
      controllerReplySchema.safeParse({ type: 'notice', method: 'protocol_mismatch', params: mismatch }).success,
    ).toBe(true);
    for (const method of ['shutdown', 'assign', 'status', '__proto__']) {
      expect(controllerReplySchema.safeParse({ type: 'notice', method, params: {} }).success).toBe(false);
    }
  });
});

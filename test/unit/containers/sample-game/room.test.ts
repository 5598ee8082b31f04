import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { ChatRoom, closeCodes, type SlotAuthority } from '../../../../containers/sample-game/room';
import { rpcErrorCodes } from '../../../../core/protocol/jsonrpc';

/** The chat room over real WebSockets, with the controller replaced by a table of keys. */
function authority(accounts: Record<string, string>): SlotAuthority & { left: jest.Mock } {
  return {
    joined: async (key) =>
      accounts[key]
        ? { result: { access_token: 't', account: accounts[key], info: {}, scopes: [] } }
        : { error: { code: rpcErrorCodes.keyRejected, message: 'Registration key rejected.' } },
    left: jest.fn(async () => ({ result: { status: 'OK' as const } })),
  };
}

let server: WebSocketServer;
let url: string;
const clients: WebSocket[] = [];

async function start(slots: SlotAuthority) {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const room = new ChatRoom(slots);
  room.attach(server);
  return room;
}

function player(key: string) {
  const socket = new WebSocket(url);
  clients.push(socket);
  const messages: Array<Record<string, unknown>> = [];
  socket.on('message', (data) => messages.push(JSON.parse(data.toString()) as Record<string, unknown>));
  socket.once('open', () => socket.send(key));
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  const waitFor = async (type: string) => {
    for (let i = 0; i < 200; i += 1) {
      const found = messages.find((m) => m.type === type);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`no ${type}: ${JSON.stringify(messages)}`);
  };
  return { socket, messages, closed, waitFor };
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.terminate();
  await new Promise((resolve) => server.close(resolve));
});

describe('ChatRoom', () => {
  it('welcomes a player whose key the platform confirms', async () => {
    await start(authority({ k1: 'alice' }));
    expect(await player('k1').waitFor('welcome')).toEqual({
      type: 'welcome',
      account: 'alice',
      players: ['alice'],
      history: [],
    });
  });

  it.each([
    ['a rejected key', 'unknown-key', rpcErrorCodes.keyRejected, closeCodes.keyRejected],
    ['an empty first message', '   ', closeCodes.badKey, closeCodes.badKey],
    ['an oversized key', 'k'.repeat(300), closeCodes.badKey, closeCodes.badKey],
  ])('sends an error and closes the connection for %s', async (_, key, code, closeCode) => {
    await start(authority({}));
    const refused = player(key);
    expect(await refused.waitFor('error')).toMatchObject({ type: 'error', code });
    expect(await refused.closed).toBe(closeCode);
  });

  it('relays chat between confirmed players and announces leaving, calling left once', async () => {
    const slots = authority({ k1: 'alice', k2: 'bob' });
    const room = await start(slots);
    const alice = player('k1');
    await alice.waitFor('welcome');
    const bob = player('k2');
    await bob.waitFor('welcome');
    bob.socket.send('  hi alice  ');
    expect(await alice.waitFor('chat')).toEqual({ type: 'chat', from: 'bob', text: 'hi alice' });
    expect(room.accounts).toEqual(['alice', 'bob']);
    alice.socket.close();
    expect(await bob.waitFor('left')).toEqual({ type: 'left', account: 'alice' });
    expect(slots.left).toHaveBeenCalledTimes(1);
    expect(slots.left).toHaveBeenCalledWith('k1');
  });

  it('sends a "/owner …" line to the room\'s owner instead of the players', async () => {
    const toOwner = jest.fn();
    await start({ ...authority({ k1: 'alice', k2: 'bob' }), toOwner });
    const alice = player('k1');
    await alice.waitFor('welcome');
    const bob = player('k2');
    await bob.waitFor('welcome');
    bob.socket.send('/owner  the server lags ');
    bob.socket.send('/ownerless is chat');
    expect(await alice.waitFor('chat')).toEqual({ type: 'chat', from: 'bob', text: '/ownerless is chat' });
    expect(toOwner.mock.calls).toEqual([[{ type: 'chat', from: 'bob', text: 'the server lags' }]]);
    expect(alice.messages.filter((m) => m.type === 'chat')).toHaveLength(1);
  });

  it('keeps one connection per account: a new key of the same account replaces the older connection without freeing the slot', async () => {
    // A key is single use: a player who reconnects has joined again through the API, same slot, new key.
    const slots = authority({ k1: 'alice', k2: 'alice' });
    const room = await start(slots);
    const first = player('k1');
    await first.waitFor('welcome');
    const second = player('k2');
    await second.waitFor('welcome');
    expect(await first.closed).toBe(closeCodes.replaced);
    expect(room.accounts).toEqual(['alice']);
    expect(slots.left).not.toHaveBeenCalled();
  });

  it('closes everyone on shutdown with 1001 and frees their slots', async () => {
    const slots = authority({ k1: 'alice' });
    const room = await start(slots);
    const alice = player('k1');
    await alice.waitFor('welcome');
    await room.closeAll('shutdown');
    expect(await alice.closed).toBe(closeCodes.shuttingDown);
    expect(slots.left).toHaveBeenCalledWith('k1');
  });
});

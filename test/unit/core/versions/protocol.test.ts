import { rpcMethods } from '../../../../core/protocol/game-methods';
import { protocolDiff, protocolSchema, setHashOf } from '../../../../core/versions/protocol';

/**
 * The protocol value's two edges: a body (strict, an unknown key is a 400) and a game server's
 * `inited` (an unknown key is dropped), with the set-hash check in both; and the diff, whose
 * component names may be any identifier, those of `Object.prototype` included.
 */
const components = { 'Game::Chat': '0123456789abcdef', constructor: 'fedcba9876543210' };
const build = { hash: setHashOf(components), components };

describe('protocol in a body and in inited', () => {
  const inited = rpcMethods.inited.params;

  it('drops a key it does not know from inited and refuses it in a body, checking the set hash in both', () => {
    const extra = { ...build, toolVersion: '2.1' };
    expect(inited.safeParse({ protocol: extra })).toEqual({ success: true, data: { protocol: build } });
    expect(protocolSchema.safeParse(extra).error?.issues).toMatchObject([{ code: 'unrecognized_keys' }]);
    const tampered = { ...extra, hash: '0000000000000000' };
    expect(inited.safeParse({ protocol: tampered }).error?.issues).toMatchObject([{ path: ['protocol', 'hash'] }]);
    expect(protocolSchema.safeParse({ ...build, hash: '0000000000000000' }).error?.issues).toMatchObject([
      { path: ['hash'] },
    ]);
  });
});

describe('protocolDiff', () => {
  it('tells components named like Object.prototype members apart like any other', () => {
    const client = { hash: setHashOf(components), components };
    const serverComponents = { 'Game::Chat': '0123456789abcdef', toString: '1111111111111111' };
    const server = { hash: setHashOf(serverComponents), components: serverComponents };
    expect(protocolDiff(client, server)).toEqual({
      added: ['constructor'],
      removed: ['toString'],
      changed: [],
      newer: 'unknown',
    });
  });
});

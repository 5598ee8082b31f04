import { assignParams } from '../../../../core/pool/assign';
import { gameMethods, rpcMethods } from '../../../../core/protocol/game-methods';
import { forwardedParams } from '../../../../core/protocol/controller-messages';

describe('the table of JSON-RPC methods', () => {
  it("declares the params the platform's assign sends, which the game checks", () => {
    const params = assignParams({ roomId: 'r-1', settings: { map: 'dock' }, maxPlayers: 4 });
    expect(rpcMethods.assign.params.safeParse(params)).toMatchObject({ success: true });
  });

  it('forwards to the platform exactly the game methods the platform answers', () => {
    const forwarded = Object.entries(rpcMethods)
      .filter(([, spec]) => spec.forwarded === 'platform')
      .map(([name]) => name);
    expect(forwarded).toEqual(Object.keys(gameMethods));
    expect(Object.keys(forwardedParams).every((name) => forwarded.includes(name))).toBe(true);
  });
});

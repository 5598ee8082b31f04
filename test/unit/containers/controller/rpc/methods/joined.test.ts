import { createDispatcher } from '../../../../../../containers/controller/rpc/dispatcher';
import { joinedMethod } from '../../../../../../containers/controller/rpc/methods/joined';
import { PlayerLoad } from '../../../../../../containers/controller/heartbeat';
import { rpcErrorCodes, type RpcId } from '../../../../../../core/protocol/jsonrpc';

describe('joinedMethod', () => {
  function setup() {
    const forwarded: Array<{ params: unknown; id: RpcId }> = [];
    const load = new PlayerLoad();
    const dispatch = createDispatcher({
      joined: joinedMethod(async (params, id) => {
        forwarded.push({ params, id });
        return { result: { access_token: 't', account: 'alice', info: {}, scopes: [] } };
      }, load),
    });
    return { dispatch, forwarded, load };
  }

  it("forwards the game's JSON-RPC id with the call: the platform knows a retry by it", async () => {
    const { dispatch, forwarded, load } = setup();
    await dispatch({ jsonrpc: '2.0', id: 7, method: 'joined', params: { key: 'k' } });
    expect(forwarded).toEqual([{ params: { key: 'k' }, id: 7 }]);
    expect(load.players).toBe(1);
  });

  it('refuses a joined sent as a notification (-32600, id null), forwarding nothing: its answer is the token', async () => {
    const { dispatch, forwarded } = setup();
    expect(await dispatch({ jsonrpc: '2.0', method: 'joined', params: { key: 'k' } })).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: rpcErrorCodes.invalidRequest, message: expect.stringContaining('joined must carry an id') },
    });
    expect(forwarded).toEqual([]);
  });
});

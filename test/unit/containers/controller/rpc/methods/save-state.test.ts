import { createDispatcher } from '../../../../../../containers/controller/rpc/dispatcher';
import { saveStateMethod } from '../../../../../../containers/controller/rpc/methods/save-state';
import { rpcErrorCodes } from '../../../../../../core/protocol/jsonrpc';

describe('the save_state method', () => {
  it('forwards at most one save a second: a game saving in a loop costs the platform one write a second', async () => {
    const forwarded: unknown[] = [];
    let nowMs = 0;
    const dispatch = createDispatcher({
      save_state: saveStateMethod(
        async (params) => {
          forwarded.push(params);
          return { result: { epoch: 1, savedAt: 'then' } };
        },
        () => nowMs,
      ),
    });
    const save = (round: number, id: number) =>
      dispatch({ jsonrpc: '2.0', method: 'save_state', params: { state: { round } }, id });

    expect(await save(1, 1)).toMatchObject({ result: { epoch: 1 } });
    nowMs += 999;
    expect(await save(2, 2)).toMatchObject({ error: { code: rpcErrorCodes.notAllowed } });
    nowMs += 1;
    expect(await save(3, 3)).toMatchObject({ result: { epoch: 1 } });
    expect(forwarded).toEqual([{ state: { round: 1 } }, { state: { round: 3 } }]);
  });
});

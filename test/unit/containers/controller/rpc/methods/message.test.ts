import { createDispatcher } from '../../../../../../containers/controller/rpc/dispatcher';
import { messageMethod } from '../../../../../../containers/controller/rpc/methods/message';
import { rpcErrorCodes } from '../../../../../../core/protocol/jsonrpc';

function setup(options: { sent?: boolean; open?: boolean } = {}) {
  const forwarded: unknown[] = [];
  let nowMs = 0;
  const dispatch = createDispatcher({
    message: messageMethod({
      forward: async (data) => {
        forwarded.push(data);
        return options.sent ?? true;
      },
      open: () => options.open ?? true,
      now: () => nowMs,
      perSecond: 2,
    }),
  });
  const message = (params: unknown, id?: number) =>
    dispatch({ jsonrpc: '2.0', method: 'message', params: params as Record<string, unknown>, id });
  return { message, forwarded, advance: (ms: number) => (nowMs += ms) };
}

describe('the message method', () => {
  it('forwards a notification and answers nothing; with an id it answers OK', async () => {
    const { message, forwarded } = setup();
    expect(await message({ data: { hp: 3 } })).toBeUndefined();
    expect(await message({ data: { hp: 2 } }, 7)).toEqual({ jsonrpc: '2.0', id: 7, result: { status: 'OK' } });
    expect(forwarded).toEqual([{ hp: 3 }, { hp: 2 }]);
  });

  it.each([
    ['no data', {}],
    ['data that is not an object', { data: [1] }],
    ['data over 4 KiB', { data: { text: 'x'.repeat(4097) } }],
    ['data that cannot be stored', { data: { n: 2 ** 60 } }],
  ])('refuses %s with -32602 and forwards nothing', async (_why, params) => {
    const { message, forwarded } = setup();
    expect(await message(params, 1)).toMatchObject({ error: { code: rpcErrorCodes.invalidParams } });
    expect(forwarded).toEqual([]);
  });

  it('refuses messages beyond its rate with -32003, and takes them again the next second', async () => {
    const { message, forwarded, advance } = setup();
    await message({ data: { n: 1 } });
    await message({ data: { n: 2 } });
    expect(await message({ data: { n: 3 } })).toMatchObject({ id: null, error: { code: rpcErrorCodes.notAllowed } });
    advance(1_000);
    expect(await message({ data: { n: 4 } })).toBeUndefined();
    expect(forwarded).toEqual([{ n: 1 }, { n: 2 }, { n: 4 }]);
  });

  it('answers -32603 when SQS did not take it, and -32002 once the room is ending', async () => {
    expect(await setup({ sent: false }).message({ data: {} }, 1)).toMatchObject({
      error: { code: rpcErrorCodes.internalError },
    });
    const ending = setup({ open: false });
    expect(await ending.message({ data: {} }, 1)).toMatchObject({ error: { code: rpcErrorCodes.roomClosed } });
    expect(ending.forwarded).toEqual([]);
  });
});

import type { ForwardOutcome } from '../../../../../../containers/controller/bridge';
import { initedMethod } from '../../../../../../containers/controller/rpc/methods/inited';
import { rpcErrorCodes } from '../../../../../../core/protocol/jsonrpc';

function setup(outcomes: ForwardOutcome[]) {
  const forwarded: unknown[] = [];
  const events: string[] = [];
  const handler = initedMethod({
    forward: async (params) => {
      forwarded.push(params);
      const next = outcomes.shift();
      if (!next) throw new Error('unexpected forward');
      return next;
    },
    onAccepted: () => events.push('accepted'),
    onRefused: (error) => events.push(`refused ${error.code}`),
  });
  return { handler, forwarded, events };
}

const ok: ForwardOutcome = { result: { status: 'OK' }, decidedBy: 'platform' };

describe('initedMethod', () => {
  it('forwards the first inited and refuses later ones with -32003 without forwarding', async () => {
    const { handler, forwarded, events } = setup([ok]);
    expect(await handler.handle({ settings: { map: 'x' } })).toEqual(ok);
    expect(await handler.handle({})).toEqual({
      error: { code: rpcErrorCodes.notAllowed, message: 'inited was already accepted.' },
    });
    expect(forwarded).toEqual([{ settings: { map: 'x' } }]);
    expect(events).toEqual(['accepted']);
  });

  it('refuses an inited while the first still waits for the platform', async () => {
    let release: (outcome: ForwardOutcome) => void = () => undefined;
    const handler = initedMethod({
      forward: () => new Promise((resolve) => (release = resolve)),
      onAccepted: () => undefined,
      onRefused: () => undefined,
    });
    const first = handler.handle({});
    expect(await handler.handle({})).toMatchObject({
      error: { code: rpcErrorCodes.notAllowed, message: 'inited is already waiting for the platform.' },
    });
    release(ok);
    expect(await first).toEqual(ok);
  });

  it('reports a refusal decided by the platform', async () => {
    const refusal: ForwardOutcome = {
      error: { code: rpcErrorCodes.roomClosed, message: 'closed' },
      decidedBy: 'platform',
    };
    const { handler, events } = setup([refusal]);
    expect(await handler.handle({})).toEqual(refusal);
    expect(events).toEqual([`refused ${rpcErrorCodes.roomClosed}`]);
  });

  it.each([
    ['platform timeout', rpcErrorCodes.platformTimeout],
    ['SQS unreachable', rpcErrorCodes.internalError],
  ])('lets the game try again after a failure of the controller (%s)', async (_, code) => {
    const { handler, events, forwarded } = setup([{ error: { code, message: 'x' }, decidedBy: 'controller' }, ok]);
    expect(await handler.handle({})).toMatchObject({ error: { code } });
    expect(await handler.handle({})).toEqual(ok);
    expect(forwarded).toHaveLength(2);
    expect(events).toEqual(['accepted']);
  });
});

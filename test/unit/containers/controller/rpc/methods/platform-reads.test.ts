import { createDispatcher } from '../../../../../../containers/controller/rpc/dispatcher';
import { initedMethod } from '../../../../../../containers/controller/rpc/methods/inited';
import {
  checkDeploymentMethod,
  checkDeploymentPerSecond,
  updateSettingsMethod,
  updateSettingsPerSecond,
} from '../../../../../../containers/controller/rpc/methods/platform-reads';
import { forwardedCall } from '../../../../../../core/protocol/controller-messages';
import { parseFrame, rpcErrorCodes } from '../../../../../../core/protocol/jsonrpc';
import { taskOverridesBudget } from '../../../../../../core/gameservers/task-overrides';
import { maxComponents, setHashOf } from '../../../../../../core/versions/protocol';

/** The Anthill runtimes' two methods as the sidecar takes them from a game, and a large `inited`. */
function setup() {
  const forwarded: { method: string; params: unknown }[] = [];
  let nowMs = 0;
  const forward = (method: string) => async (params: unknown) => {
    forwarded.push({ method, params });
    return method === 'check_deployment' ? { result: { current: true } } : { result: { status: 'OK' } };
  };
  const dispatch = createDispatcher({
    update_settings: updateSettingsMethod(forward('update_settings'), () => nowMs),
    check_deployment: checkDeploymentMethod(forward('check_deployment'), () => nowMs),
    inited: initedMethod({
      forward: forward('inited') as never,
      onAccepted: () => undefined,
      onRefused: () => undefined,
    }),
  });
  /** One frame as the game sends it, through the sidecar's frame parser and its dispatcher. */
  const frame = async (text: string) => {
    const parsed = parseFrame(Buffer.from(text));
    if (parsed.kind !== 'request') throw new Error(`not a request: ${JSON.stringify(parsed)}`);
    return dispatch(parsed.request);
  };
  return { frame, forwarded, advance: (ms: number) => (nowMs += ms) };
}

describe('update_settings and check_deployment, as the Anthill runtimes call them', () => {
  it('forwards update_settings { settings } and answers the platform’s OK', async () => {
    const { frame, forwarded } = setup();
    const answer = await frame(
      '{"jsonrpc":"2.0","id":1,"method":"update_settings","params":{"settings":{"map":"dunes"}}}',
    );
    expect(answer).toEqual({ jsonrpc: '2.0', id: 1, result: { status: 'OK' } });
    expect(forwarded).toEqual([{ method: 'update_settings', params: { settings: { map: 'dunes' } } }]);
  });

  it('forwards check_deployment with params {} and with no params member at all', async () => {
    const { frame, forwarded, advance } = setup();
    expect(await frame('{"jsonrpc":"2.0","id":1,"method":"check_deployment","params":{}}')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { current: true },
    });
    advance(1_000);
    expect(await frame('{"jsonrpc":"2.0","id":2,"method":"check_deployment"}')).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { current: true },
    });
    expect(forwarded).toEqual([
      { method: 'check_deployment', params: {} },
      { method: 'check_deployment', params: {} },
    ]);
  });

  it.each([
    ['no settings', '{}'],
    ['settings over 4 KiB', JSON.stringify({ settings: { text: 'x'.repeat(4096) } })],
    ['settings that cannot be stored', '{"settings":{"n":1e300}}'],
  ])('refuses update_settings with %s (-32602), forwarding nothing', async (_why, params) => {
    const { frame, forwarded } = setup();
    const answer = await frame(`{"jsonrpc":"2.0","id":1,"method":"update_settings","params":${params}}`);
    expect(answer).toMatchObject({ error: { code: rpcErrorCodes.invalidParams } });
    expect(forwarded).toEqual([]);
  });

  it('forwards at most the bound a second of each; the excess gets -32003', async () => {
    const { frame, forwarded, advance } = setup();
    const update = (id: number) =>
      frame(`{"jsonrpc":"2.0","id":${id},"method":"update_settings","params":{"settings":{"round":${id}}}}`);
    const check = (id: number) => frame(`{"jsonrpc":"2.0","id":${id},"method":"check_deployment"}`);
    for (let i = 0; i < updateSettingsPerSecond; i++) expect(await update(i)).toHaveProperty('result');
    expect(await update(99)).toMatchObject({ error: { code: rpcErrorCodes.notAllowed } });
    for (let i = 0; i < checkDeploymentPerSecond; i++) expect(await check(i)).toHaveProperty('result');
    expect(await check(99)).toMatchObject({ error: { code: rpcErrorCodes.notAllowed } });
    advance(1_000);
    expect(await update(100)).toHaveProperty('result');
    expect(await check(100)).toHaveProperty('result');
    expect(forwarded).toHaveLength(updateSettingsPerSecond + checkDeploymentPerSecond + 2);
  });

  it('forwards both as the game sent them: neither carries a registration key', () => {
    expect(forwardedCall('update_settings', { settings: { map: 'x' } })).toEqual({
      method: 'update_settings',
      params: { settings: { map: 'x' } },
    });
    expect(forwardedCall('check_deployment', {})).toEqual({ method: 'check_deployment', params: {} });
  });
});

describe("the sidecar's bounds admit the largest inited a build may send", () => {
  it('forwards an inited with 256 components of 128-character names and the most settings a task takes', async () => {
    const { frame, forwarded } = setup();
    const components = Object.fromEntries(
      Array.from({ length: maxComponents }, (_, i) => [
        `N${String(i).padStart(3, '0')}${'x'.repeat(124)}`,
        i.toString(16).padStart(16, '0'),
      ]),
    );
    const protocol = { hash: setHashOf(components), components, builtAt: '2026-01-01T00:00:00Z' };
    // The settings' bound is the game server task's overrides (taskOverridesBudget.roomSettings).
    const settings = { blob: 'y'.repeat(taskOverridesBudget.roomSettings - 60) };
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'inited', params: { settings, protocol } });
    expect(await frame(text)).toEqual({ jsonrpc: '2.0', id: 1, result: { status: 'OK' } });
    expect(forwarded).toEqual([{ method: 'inited', params: { settings, protocol } }]);
  });

  it('refuses 257 components with -32602 naming protocol.components', async () => {
    const { frame, forwarded } = setup();
    const components = Object.fromEntries(
      Array.from({ length: maxComponents + 1 }, (_, i) => [`C${i}`, i.toString(16).padStart(16, '0')]),
    );
    const params = { protocol: { hash: setHashOf(components), components } };
    const answer = await frame(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'inited', params }));
    expect(answer).toMatchObject({ error: { code: rpcErrorCodes.invalidParams } });
    expect(JSON.stringify(answer)).toContain('protocol.components');
    expect(forwarded).toEqual([]);
  });
});

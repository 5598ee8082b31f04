import { ManualClock } from '../../../core/infra/clock';
import { EcsSpawner } from '../../../core/gameservers/ecs-spawner';
import { ThrottledSpawner } from '../../../core/gameservers/throttled-spawner';
import { TemplateFollowingSpawner } from '../../../core/gameservers/template-revisions';

import type { Spawner } from '../../../core/gameservers/spawner';
import { configurePlatform, platform, resetPlatform } from '../../../lambdas/dependencies';

/** ECS, behind the wrapper that retries throttled RunTask calls and the one that keeps revisions on the deployed template. */
function expectEcsSpawner(spawner: Spawner): void {
  expect(spawner).toBeInstanceOf(ThrottledSpawner);
  const current = (spawner as ThrottledSpawner).inner;
  expect(current).toBeInstanceOf(TemplateFollowingSpawner);
  expect((current as TemplateFollowingSpawner).inner).toBeInstanceOf(EcsSpawner);
}

/** A deployed environment with nothing optional: enough to build the platform, no AWS call made. */
const deployed = {
  TABLE_NAME: 'rooms',
  AWS_REGION: 'us-east-1',
  AUTH_ISSUER: 'https://id.example',
  ECS_CLUSTER: 'cluster',
  ECS_TASK_DEFINITION: 'task',
};
const saved = { ...process.env };

const recordingSpawner = (): Spawner => ({
  spawn: () => Promise.reject(new Error('not in this test')),
  stop: () => Promise.resolve(),
});

beforeEach(() => {
  Object.assign(process.env, deployed);
  resetPlatform();
});
afterEach(() => {
  resetPlatform();
  process.env = { ...saved };
});

describe('platform()', () => {
  it('builds every store once and hands the same ones to every handler', () => {
    const first = platform();
    const second = platform();
    expect(second).toBe(first);
    for (const store of [
      'rooms',
      'gameConfigurations',
      'fillingRooms',
      'roomListing',
      'abuse',
      'idempotency',
      'sweeperState',
    ] as const) {
      expect(first[store]).toBeDefined();
      expect(second[store]).toBe(first[store]);
    }
  });

  it('runs on the system clock and ECS by default', () => {
    const before = Date.now();
    const now = platform().now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expectEcsSpawner(platform().spawner);
  });
});

describe('configurePlatform', () => {
  it('puts the chosen clock and spawner into the platform built next', () => {
    const built = platform();
    const clock = new ManualClock(new Date('2030-05-01T00:00:00.000Z'));
    const spawner = recordingSpawner();

    configurePlatform({ clock, spawner: () => spawner });

    const p = platform();
    expect(p).not.toBe(built);
    expect(p.clock).toBe(clock);
    expect(p.spawner).toBe(spawner);
    clock.advance(1_000);
    expect(p.now().toISOString()).toBe('2030-05-01T00:00:01.000Z');
  });

  it('keeps choices it is not given, and an explicit undefined restores the default', () => {
    const clock = new ManualClock();
    configurePlatform({ clock, spawner: () => recordingSpawner() });
    configurePlatform({ spawner: undefined });
    expect(platform().clock).toBe(clock);
    expectEcsSpawner(platform().spawner);
  });
});

describe('resetPlatform', () => {
  it('is the one reset: choices, adapters and the parsed configuration are all rebuilt', () => {
    configurePlatform({ clock: new ManualClock(), spawner: () => recordingSpawner() });
    const before = platform();
    process.env.TABLE_NAME = 'other-rooms';

    resetPlatform();

    const after = platform();
    expect(after).not.toBe(before);
    expect(after.config.tableName).toBe('other-rooms');
    expectEcsSpawner(after.spawner);
    expect(after.now().getFullYear()).toBeGreaterThanOrEqual(2026);
    expect(after.now().getTime()).not.toBe(new ManualClock().now().getTime());
  });
});

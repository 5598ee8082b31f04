import * as fs from 'node:fs';
import * as path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { addRoomkeeper } from '../../cdk/lib/roomkeeper-app';
import { sweeperEntry } from '../../cdk/lib/constructs/platform-schedules';
import { deployableRoutes } from '../../cdk/lib/constructs/player-api';
import { liveFunctionNeeds, liveSocketEntry, roomTapsEntry } from '../../cdk/lib/constructs/live-api';
import type { RoomkeeperStack } from '../../cdk/lib/roomkeeper-stack';
import type { ProjectFunction } from '../../cdk/lib/constructs/project-function';
import type { FunctionNeed } from '../../core/infra/function-needs';
import { parseConfig } from '../../core/infra/config';
import { queueDefinitions, type QueueId } from '../../core/infra/queues';
import { auth, gameImage, logicalId, render, renderedEnvironment, statementsOf, useScratch } from './support';

/**
 * Issue 10, point 2: every function whose code can start a game server or use the signing
 * key gets the grants and environment for it. What a function *can* do is derived from its
 * entry's import graph (value imports of project modules), not from the route table's
 * `needs`, so a new spawning route that forgets to declare `spawn` fails here.
 *
 * The composition root (lambdas/dependencies.ts) builds every adapter for every function; a
 * function uses what its own imports reach, so the walk does not descend into it.
 */
const repoRoot = path.resolve(__dirname, '..', '..');
const compositionRoot = 'lambdas/dependencies.ts';

/** What a module's own source does, by the calls that need a grant. */
const usesOf: Record<FunctionNeed, RegExp> = {
  // Starting a game server: only through a Spawner's spawn().
  spawn: /\bspawner\.spawn\(/,
  // The signing key: platform tokens, the sidecar channel keys (commands are sealed with them), idempotency records.
  signTokens: /\.(signToken|verifyPlatformToken|sidecarKeys|idempotency|deliverCommand)\b/,
  sidecarCredentials: /\.sidecarCredentials\b/,
  // Stopping a game server task: only through a Spawner's stop().
  stopServers: /\bspawner\.stop\(/,
  // A command for a sidecar: sealed (the signing key) and sent to its reply queue.
  sendCommands: /\.deliverCommand\b/,
  // A create that may take a warm-pool server: `assign` out and its answer back.
  takeStandby: /\bwarmPool:\s*\w+\.warmPool\b/,
  // A frame to a live socket: only through a ConnectionSender's send().
  postToSockets: /\bsender\.send\(/,
  // The operators' view of the queues, and the redrive (core/infra/queue-admin.ts).
  inspectQueues: /\.queueAdmin\.list\(/,
  redriveQueues: /\.queueAdmin\.redrive\(/,
};

/** A need another one includes: `spawn` binds the fleet for stopping too. */
const includedBy: Partial<Record<FunctionNeed, FunctionNeed>> = { stopServers: 'spawn' };

/** Project modules a module imports for their values (`import type` is erased by esbuild). */
function valueImports(file: string): string[] {
  const text = fs.readFileSync(path.join(repoRoot, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(?!type\s)(?:[^;]*?\sfrom\s+)?'(\.{1,2}\/[^']+)'/gm)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), match[2]!));
    for (const candidate of [`${target}.ts`, `${target}/index.ts`, target]) {
      if (fs.existsSync(path.join(repoRoot, candidate)) && candidate.endsWith('.ts')) {
        found.push(candidate);
        break;
      }
    }
  }
  return found;
}

/** Every project module an entry reaches, itself included. */
function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (file === compositionRoot) continue;
    pending.push(...valueImports(file));
  }
  return seen;
}

/** The needs an entry's code shows, with the module that shows each. */
function needsShownBy(entry: string): Map<FunctionNeed, string> {
  const shown = new Map<FunctionNeed, string>();
  for (const file of reachable(entry)) {
    if (file === compositionRoot) continue;
    const text = fs.readFileSync(path.join(repoRoot, file), 'utf8');
    for (const [need, pattern] of Object.entries(usesOf) as [FunctionNeed, RegExp][]) {
      if (!shown.has(need) && pattern.test(text)) shown.set(need, file);
    }
  }
  return shown;
}

const { newApp, cleanUp } = useScratch();
let stack: RoomkeeperStack;
let template: Template;

beforeAll(() => {
  stack = addRoomkeeper(newApp({ stage: 'needs', ...auth, gameImage }));
  template = Template.fromStack(stack);
});
afterAll(cleanUp);

interface Deployed {
  readonly name: string;
  readonly entry: string;
  readonly declared: readonly FunctionNeed[];
  readonly fn: () => ProjectFunction;
}

const deployed: Deployed[] = [
  ...deployableRoutes().map((route) => ({
    name: `route ${route.id}`,
    entry: route.entry,
    declared: route.needs ?? [],
    fn: () => stack.routeFunctions.get(route.id)!,
  })),
  ...(Object.keys(queueDefinitions) as QueueId[]).map((queueId) => ({
    name: `consumer of ${queueId}`,
    entry: queueDefinitions[queueId].consumer,
    declared: (queueDefinitions[queueId] as { needs?: readonly FunctionNeed[] }).needs ?? [],
    fn: () => stack.consumers[queueId],
  })),
  { name: 'live socket', entry: liveSocketEntry, declared: liveFunctionNeeds.socket, fn: () => stack.live.socket },
  { name: 'room taps', entry: roomTapsEntry, declared: liveFunctionNeeds.taps, fn: () => stack.live.taps },
];

describe('needs derived from the code', () => {
  it('sees the room-creating handlers spawn and the idempotent ones use the signing key', () => {
    // The analysis itself can fail: these are known facts of today's handlers.
    expect(needsShownBy('lambdas/http/rooms/create.ts').get('spawn')).toBe('core/rooms/create.ts');
    expect(needsShownBy('lambdas/http/matchmaking/join.ts').get('spawn')).toBe('core/rooms/create.ts');
    // Which module shows a need first depends on the walk's order: the join reaches idempotency's use of the key.
    expect(reachable('lambdas/http/rooms/join.ts').has('lambdas/http/idempotency.ts')).toBe(true);
    expect(needsShownBy('lambdas/http/idempotency.ts').get('signTokens')).toBe('lambdas/http/idempotency.ts');
    expect(needsShownBy('lambdas/http/rooms/get.ts').has('spawn')).toBe(false);
    expect(needsShownBy('lambdas/http/rooms/get.ts').get('stopServers')).toBe(
      'lambdas/http/rooms/session-dependencies.ts',
    );
    expect(needsShownBy('lambdas/queue/controller-events.ts').has('sidecarCredentials')).toBe(true);
    expect(needsShownBy('lambdas/http/rooms/commands.ts').get('sendCommands')).toBe('lambdas/http/rooms/commands.ts');
    // A refused build is told to the room's server from the joins' and creates' shared wiring.
    for (const entry of [
      'lambdas/http/rooms/join.ts',
      'lambdas/http/matchmaking/join.ts',
      'lambdas/http/rooms/create.ts',
    ])
      expect(needsShownBy(entry).get('sendCommands')).toBe('lambdas/http/rooms/create-dependencies.ts');
    expect(needsShownBy('lambdas/http/rooms/create.ts').get('takeStandby')).toBe('lambdas/http/rooms/create.ts');
    expect(needsShownBy('lambdas/http/matchmaking/join.ts').has('takeStandby')).toBe(false);
    // Invites are told on the invited accounts' sockets; the taps are sent by the stream's consumer.
    expect(needsShownBy('lambdas/http/rooms/invite.ts').get('postToSockets')).toBe('core/invites/notify.ts');
    expect(needsShownBy('lambdas/stream/room-taps.ts').get('postToSockets')).toBe('core/live/fanout.ts');
    expect(needsShownBy('lambdas/http/rooms/join.ts').has('postToSockets')).toBe(false);
  });

  it.each(deployed.map((d) => [d.name, d] as const))('%s declares every need its code shows', (_name, d) => {
    const shown = needsShownBy(d.entry);
    const missing = [...shown].filter(
      ([need]) => !d.declared.includes(need) && !(includedBy[need] && d.declared.includes(includedBy[need])),
    );
    expect(missing.map(([need, file]) => `${need} (used in ${file})`)).toEqual([]);
  });
});

describe('grants and environment of every function that can spawn, stop servers or sign', () => {
  it.each(deployed.map((d) => [d.name, d] as const))('%s', (_name, d) => {
    const shown = needsShownBy(d.entry);
    const fn = d.fn();
    const actions = statementsOf(template, stack, fn).flatMap((s) => s.actions);
    const config = parseConfig(renderedEnvironment(template, logicalId(stack, fn)));
    if (shown.has('spawn')) {
      for (const action of ['ecs:RunTask', 'ecs:StopTask', 'iam:PassRole', 'ecs:TagResource', 'sts:AssumeRole']) {
        expect(actions).toContain(action);
      }
      expect(config.spawner).toBe('ecs');
      expect(config.ecs.cluster).toBeDefined();
      expect(config.ecs.taskDefinition).toBeDefined();
      expect(config.ecs.subnets.length).toBeGreaterThan(0);
      expect(config.ecs.securityGroups.length).toBeGreaterThan(0);
      expect(config.queueUrls.controllerRequests).toBeDefined();
      expect(config.sidecarRole).toBeDefined();
      // The sidecar's secrets travel sealed under the envelope key.
      expect(config.sidecarEnvelopeKeySecretArn).toBeDefined();
      // A spawn mints the game server's token.
      expect(shown.has('signTokens')).toBe(true);
    } else {
      expect(actions).not.toContain('ecs:RunTask');
      expect(config.sidecarEnvelopeKeySecretArn).toBeUndefined();
    }
    if (shown.has('stopServers')) {
      expect(actions).toContain('ecs:StopTask');
      expect(config.ecs.cluster).toBeDefined();
    }
    if (shown.has('signTokens')) {
      expect(actions).toContain('secretsmanager:GetSecretValue');
      expect(config.tokenSigningJwkSecretArn).toBeDefined();
    } else {
      expect(actions).not.toContain('secretsmanager:GetSecretValue');
    }
    if (shown.has('sendCommands')) {
      expect(actions).toEqual(expect.arrayContaining(['sqs:SendMessage', 'sqs:GetQueueUrl']));
      expect(config.replyQueuePrefix).toMatch(/reply-$/);
    }
    if (shown.has('postToSockets')) {
      expect(actions).toContain('execute-api:ManageConnections');
      expect(config.liveEndpoint).toBeDefined();
    } else {
      expect(actions).not.toContain('execute-api:ManageConnections');
    }
    const dlqStatements = statementsOf(template, stack, fn).filter((st) =>
      st.resources.some((r) => render(r).includes('DeadLetter')),
    );
    const dlqActions = dlqStatements.flatMap((st) => st.actions);
    if (shown.has('inspectQueues')) {
      expect(actions).toEqual(expect.arrayContaining(['sqs:GetQueueAttributes', 'cloudwatch:GetMetricData']));
      expect(config.queueUrls.controllerRequests).toBeDefined();
    }
    if (shown.has('redriveQueues')) {
      expect(dlqActions).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage']));
      expect(actions).toContain('sqs:SendMessage');
      expect(config.queueUrls.controllerRequests).toBeDefined();
    } else {
      // Nothing else deletes from a dead-letter queue; only an inspection may peek at one.
      expect(dlqActions).not.toContain('sqs:DeleteMessage');
      if (!shown.has('inspectQueues')) expect(dlqActions).not.toContain('sqs:ReceiveMessage');
    }
    if (shown.has('sidecarCredentials')) {
      expect(actions).toContain('sts:AssumeRole');
      expect(config.sidecarRole).toBeDefined();
    }
    // Only a create that takes warm-pool servers reads sidecars' queues, and only the assign queues.
    const receives = statementsOf(template, stack, fn).filter(
      (st) => st.actions.includes('sqs:ReceiveMessage') && st.resources.some((r) => render(r).includes('reply-')),
    );
    if (shown.has('takeStandby')) {
      expect(actions).toEqual(expect.arrayContaining(['sqs:SendMessage', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage']));
      expect(receives.flatMap((st) => st.resources.map(render))).toEqual([expect.stringMatching(/reply-\*-assign$/)]);
      expect(config.queueUrls.controllerRequests).toBeDefined();
    } else {
      expect(receives).toEqual([]);
    }
  });
});

describe('the pool keeper (bound by the stack, not by a table)', () => {
  it('starts standby servers, so it has RunTask, the spawner settings and the signing key', () => {
    const actions = statementsOf(template, stack, stack.poolKeeper).flatMap((s) => s.actions);
    expect(actions).toEqual(expect.arrayContaining(['ecs:RunTask', 'ecs:StopTask', 'iam:PassRole']));
    expect(actions).toContain('secretsmanager:GetSecretValue');
    const config = parseConfig(renderedEnvironment(template, logicalId(stack, stack.poolKeeper)));
    expect(config.ecs.cluster).toBeDefined();
    expect(config.ecs.taskDefinition).toBeDefined();
    expect(config.queueUrls.controllerRequests).toBeDefined();
    expect(config.sidecarEnvelopeKeySecretArn).toBeDefined();
  });
});

describe('the room sweeper (bound by the stack, not by a table)', () => {
  it('stops tasks and starts the replacement servers of rooms that migrate their host, so it has both and the spawner settings', () => {
    expect(needsShownBy(sweeperEntry).get('spawn')).toBe('core/rooms/server-replacement.ts');
    const actions = statementsOf(template, stack, stack.sweeper).flatMap((s) => s.actions);
    expect(actions).toEqual(expect.arrayContaining(['ecs:StopTask', 'ecs:RunTask', 'iam:PassRole']));
    const config = parseConfig(renderedEnvironment(template, logicalId(stack, stack.sweeper)));
    expect(config.ecs.cluster).toBeDefined();
    expect(config.ecs.taskDefinition).toBeDefined();
  });
});

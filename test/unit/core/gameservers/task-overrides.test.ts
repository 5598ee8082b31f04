import { createHash, generateKeyPairSync } from 'node:crypto';
import { ECSClient, RunTaskCommand, type RunTaskCommandInput } from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import type { JWK } from 'jose';
import { gameServerTokenClaims } from '../../../../core/auth/token-model';
import { createTokenSigner } from '../../../../core/auth/tokens';
import { RequestInvalidError } from '../../../../core/errors';
import type { GameServerConfiguration } from '../../../../core/gameservers/configuration';
import { EcsSpawner } from '../../../../core/gameservers/ecs-spawner';
import { gameServerConfigurationBodySchema } from '../../../../core/gameservers/schema';
import { sidecarEnvironmentSchema } from '../../../../core/gameservers/sidecar-environment';
import { envelopeKeyFromSecret } from '../../../../core/gameservers/sidecar-envelope';
import {
  assertRoomSettingsFitTask,
  assumedMaxSessionTokenChars,
  configurationOverrideChars,
  roomSettingsOverrideChars,
  runTaskOverridesMaxChars,
  taskOverridesBudget,
} from '../../../../core/gameservers/task-overrides';
import { qualifiedQueueName, queueDefinitions } from '../../../../core/infra/queues';
import { sidecarKeys } from '../../../../core/protocol/sidecar-channel';
import { maxSettingsBytes, roomSettingsSchema } from '../../../../core/rooms/schema';

/**
 * Issue 10, point 7: RunTask refuses overrides over 8,192 characters. The worst case the
 * platform accepts — the largest room settings and configuration its APIs take, the longest
 * ids, every variable set — is built with the real override builder (EcsSpawner) and measured.
 */
const ecsMock = mockClient(ECSClient);
afterAll(() => ecsMock.restore());

const longest = (prefix: string, length: number) => prefix + 'x'.repeat(length - prefix.length);
/** The longest stage name cdk/lib/roomkeeper-app.ts accepts (20 characters). */
const prefix = `roomkeeper-${longest('s', 20)}`;
const roomId = longest('room-', 64);
/** PLATFORM_TOKEN_ISSUER's longest (core/infra/config.ts). */
const issuer = longest('https://platform.example/', 128);

/**
 * Base64 of pseudo-random bytes, as STS session tokens are (encrypted data): the sealed
 * environment is deflated before it is encrypted, and random base64 deflates least.
 */
function randomBase64(length: number): string {
  const blocks = Array.from({ length: Math.ceil(length / 32) }, (_, i) => createHash('sha256').update(`${i}`).digest());
  return Buffer.concat(blocks).toString('base64').slice(0, length);
}

/** Grows `make(n)` to the largest n whose measure stays within `limit`. */
function largest<T>(make: (n: number) => T, measure: (value: T) => number, limit: number): T {
  let n = 0;
  while (measure(make(n + 1)) <= limit) n++;
  return make(n);
}

/** Quote-heavy strings: each `"` doubles once in JSON and again in the overrides. */
const quotes = (n: number) => '"'.repeat(n);
/** Control characters: each takes six characters in JSON (`\u0001`), seven in the overrides. */
const controls = (n: number) => '\u0001'.repeat(n);

const baseBody = {
  image: 'public.ecr.aws/roomkeeper/arena:1.0.0',
  ports: 16,
  maxPlayers: 100,
  spawnTimeoutS: 600,
  reservationTimeoutS: 3600,
};

/** Configuration bodies at the configuration budget, each spending it a different way. */
const worstConfigurations: [string, Record<string, unknown>][] = [
  [
    'env values of quotes',
    {
      env: largest(
        (n) => ({ A: quotes(n) }),
        (env) => measure({ env }),
        budget(),
      ),
    },
  ],
  [
    'many env variables',
    {
      env: largest(
        (n) => envOf(n),
        (env) => measure({ env }),
        budget(),
      ),
    },
  ],
  [
    'args of control characters',
    {
      args: largest(
        (n) => [controls(n)],
        (args) => measure({ args }),
        budget(),
      ),
    },
  ],
  [
    'a long binary',
    {
      binary: largest(
        (n) => `/${'b'.repeat(n)}`,
        (binary) => measure({ binary }),
        budget(),
      ),
    },
  ],
  [
    'server settings',
    {
      serverSettings: largest(
        (n) => ({ s: quotes(n) }),
        (s) => measure({ serverSettings: s }),
        budget(),
      ),
    },
  ],
  [
    'commands',
    {
      commands: largest(
        (n) => commandsOf(n),
        (commands) => measure({ commands }),
        budget(),
      ),
    },
  ],
  [
    'server scopes',
    {
      serverScopes: largest(
        (n) => scopesOf(n),
        (serverScopes) => measure({ serverScopes }),
        budget(),
      ),
    },
  ],
];

function budget(): number {
  return taskOverridesBudget.configuration;
}
function measure(parts: Record<string, unknown>): number {
  return configurationOverrideChars({
    args: [],
    env: {},
    serverSettings: {},
    commands: [],
    serverScopes: [],
    ...parts,
  } as never);
}
function envOf(n: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`V${i}`, '"']));
}
function commandsOf(n: number): string[] {
  return Array.from({ length: Math.min(n, 64) }, (_, i) => longest(`c${i}`, 64));
}
function scopesOf(n: number): string[] {
  return Array.from({ length: Math.min(n, 32) }, (_, i) => longest(`scope${i}:`, 64));
}

/** Room settings at the room-settings budget, spent on quotes or on control characters. */
const worstSettings: [string, Record<string, unknown>][] = [
  ['quotes', largest((n) => ({ s: quotes(n) }), roomSettingsOverrideChars, taskOverridesBudget.roomSettings)],
  [
    'control characters',
    largest((n) => ({ s: controls(n) }), roomSettingsOverrideChars, taskOverridesBudget.roomSettings),
  ],
  ['plain text', largest((n) => ({ s: 'a'.repeat(n) }), roomSettingsOverrideChars, taskOverridesBudget.roomSettings)],
];

const { privateKey } = generateKeyPairSync('ed25519');
const jwk = { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: longest('kid-', 64) };
const sign = createTokenSigner(jwk, issuer);

async function overridesFor(configuration: GameServerConfiguration, settings: Record<string, unknown>) {
  ecsMock.reset();
  ecsMock.on(RunTaskCommand).resolves({ tasks: [{ taskArn: 'arn:aws:ecs:ap-southeast-2:123456789012:task/c/t' }] });
  const spawner = new EcsSpawner(new ECSClient({ region: 'ap-southeast-2' }), {
    cluster: longest('cluster-', 255),
    taskDefinition: 'arn:aws:ecs:ap-southeast-2:123456789012:task-definition/x:1',
    subnets: ['subnet-0123456789abcdef0'],
    securityGroups: ['sg-0123456789abcdef0'],
    controllerContainer: 'controller',
    gameContainer: 'game',
    sidecar: {
      region: 'ap-southeast-2',
      controllerRequestQueueUrl: `https://sqs.ap-southeast-2.amazonaws.com/123456789012/${qualifiedQueueName(prefix, queueDefinitions.controllerRequests.name)}`,
      replyQueuePrefix: qualifiedQueueName(prefix, 'reply-'),
      discoveryServices: {},
      statusIntervalS: 5,
      statusTimeoutS: 5,
      heartbeatIntervalS: 5,
    },
    sidecarKeys: (id) => Promise.resolve(sidecarKeys(Buffer.alloc(32, 7), id)),
    sidecarCredentials: () =>
      Promise.resolve({
        accessKeyId: longest('ASIA', 20),
        secretAccessKey: randomBase64(40),
        sessionToken: randomBase64(assumedMaxSessionTokenChars),
        expiration: '2026-01-01T01:00:00.000Z',
      }),
    envelopeKey: () => Promise.resolve(envelopeKeyFromSecret('e'.repeat(64))),
  });
  const loginAccessToken = await sign(gameServerTokenClaims(roomId, configuration.serverScopes));
  await spawner.spawn({
    roomId,
    region: 'ap-southeast-2',
    configuration,
    roomSettings: settings,
    maxPlayers: 100,
    loginAccessToken,
  });
  const input = ecsMock.commandCalls(RunTaskCommand)[0]!.args[0].input as RunTaskCommandInput;
  return input.overrides!;
}

function configurationOf(body: Record<string, unknown>): GameServerConfiguration {
  const parsed = gameServerConfigurationBodySchema.parse({ ...baseBody, ...body });
  return {
    ...parsed,
    // Filled at PUT from the fleet's default when left out; 3 digits at most (≤ 600).
    spawnTimeoutS: parsed.spawnTimeoutS ?? 600,
    gameId: longest('g', 64),
    version: longest('v', 64),
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

describe('the budget', () => {
  it('splits 8,192 characters among the platform, the configuration and the room settings', () => {
    const { platform, configuration, roomSettings } = taskOverridesBudget;
    expect(platform + configuration + roomSettings).toBeLessThanOrEqual(runTaskOverridesMaxChars);
  });
});

describe('the worst case the APIs accept fits RunTask', () => {
  it.each(
    worstConfigurations.flatMap(([c, body]) => worstSettings.map(([s, settings]) => [c, s, body, settings] as const)),
  )('configuration with %s, room settings of %s: ≤ 8,192 characters', async (_c, _s, body, settings) => {
    // Both are the largest of their kind the APIs take.
    const configuration = configurationOf(body);
    expect(roomSettingsSchema.safeParse(settings).success).toBe(true);
    expect(() => assertRoomSettingsFitTask(settings)).not.toThrow();

    const overrides = await overridesFor(configuration, settings);

    expect(JSON.stringify(overrides).length).toBeLessThanOrEqual(runTaskOverridesMaxChars);
    // The sidecar still starts from what it gets.
    const env = Object.fromEntries(overrides.containerOverrides![0]!.environment!.map((e) => [e.name, e.value]));
    expect(() => sidecarEnvironmentSchema.parse(env)).not.toThrow();
  });

  it('the platform part stays within its budget', async () => {
    const overrides = await overridesFor(configurationOf({}), {});
    expect(JSON.stringify(overrides).length).toBeLessThanOrEqual(taskOverridesBudget.platform);
  });

  it('room settings go to the game container only, once', async () => {
    const settings = worstSettings[0]![1];
    const overrides = await overridesFor(configurationOf({}), settings);
    const [controller, game] = overrides.containerOverrides!;
    expect(controller!.environment!.map((e) => e.name)).not.toContain('ROOM_SETTINGS');
    expect(controller!.environment!.map((e) => e.name)).not.toContain('LOGIN_ACCESS_TOKEN');
    expect(game!.environment!.find((e) => e.name === 'room_settings')?.value).toBe(JSON.stringify(settings));
  });
});

describe('what does not fit is refused with a 400, never at RunTask', () => {
  it('room settings past the budget (still under the 4 KB the schema allows): RequestInvalidError on body.settings', () => {
    const settings = { s: quotes(1_400) };
    expect(JSON.stringify(settings).length).toBeLessThan(maxSettingsBytes);
    expect(roomSettingsSchema.safeParse(settings).success).toBe(true);
    expect(() => assertRoomSettingsFitTask(settings)).toThrow(RequestInvalidError);
    try {
      assertRoomSettingsFitTask(settings);
    } catch (error) {
      expect((error as RequestInvalidError).details).toEqual({
        fields: [{ field: 'body.settings', message: expect.stringContaining(`${taskOverridesBudget.roomSettings}`) }],
      });
    }
  });

  it('a configuration past its budget: the PUT body is refused on env', () => {
    const result = gameServerConfigurationBodySchema.safeParse({ ...baseBody, env: { A: 'x'.repeat(4_000) } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({
      path: ['env'],
      message: expect.stringContaining('launch overrides'),
    });
  });
});

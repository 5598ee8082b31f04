import { Template } from 'aws-cdk-lib/assertions';
import { addRoomkeeper } from '../../cdk/lib/roomkeeper-app';
import { scaleEnvelope, subnetAddresses } from '../../cdk/lib/scale/envelope';
import { scaleProfiles, workload, type ScaleProfile } from '../../cdk/lib/scale/profiles';
import { parseConfig } from '../../core/infra/config';
import { auth, gameImage, logicalId, useScratch, type Json } from './support';

/**
 * The synthesized stack carries its scale profile's settings (docs/scale.md), so the model
 * that sizes a profile and the stack that deploys it cannot drift apart. One template per
 * profile: the default (`1k`) and `-c scale=100k`.
 */
const { newApp, cleanUp } = useScratch();
afterAll(cleanUp);

describe.each([
  ['the default stack', {}, scaleProfiles['1k']],
  ['-c scale=100k', { scale: '100k' }, scaleProfiles['100k']],
] as const)('%s', (_name, context, profile: ScaleProfile) => {
  const stack = addRoomkeeper(newApp({ stage: 'scale', ...auth, gameImage, ...context }));
  const template = Template.fromStack(stack);
  const functions = Object.values(template.findResources('AWS::Lambda::Function')).map(
    (fn) => ((fn as Json).Properties.Environment?.Variables ?? {}) as Record<string, unknown>,
  );
  const platformFunctions = functions.filter((env) => 'TABLE_NAME' in env);

  it('is built with the profile', () => {
    expect(stack.scale).toBe(profile);
  });

  it("gives every function that starts or counts servers the profile's caps", () => {
    const capped = functions.filter((env) => 'MAX_RUNNING_SERVERS' in env);
    expect(capped.length).toBeGreaterThan(5);
    for (const env of capped) {
      expect(env).toMatchObject({
        MAX_RUNNING_SERVERS: String(profile.maxRunningServers),
        MAX_SERVERS_PER_CONFIGURATION: String(profile.maxServersPerConfiguration),
      });
    }
  });

  it('gives every platform function the heartbeat cadence it judges silence by', () => {
    expect(platformFunctions.length).toBeGreaterThan(10);
    for (const env of platformFunctions) {
      const config = parseConfig({ ...stringsOf(env), AUTH_ISSUER: auth.authIssuer, TABLE_NAME: 'rooms' });
      expect([config.heartbeatIntervalS, config.heartbeatTimeoutS]).toEqual([
        profile.heartbeatIntervalS,
        profile.heartbeatTimeoutS,
      ]);
    }
  });

  it("caps the controller consumer's event source mapping at the profile's concurrency", () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(stack, stack.consumers.controllerRequests) },
      ScalingConfig: { MaximumConcurrency: profile.consumerMaxConcurrency },
    });
  });

  it('sizes the game server subnets as the profile does', () => {
    const blocks = Object.values(template.findResources('AWS::EC2::Subnet')).map(
      (subnet) => (subnet as Json).Properties.CidrBlock as string,
    );
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) expect(block).toMatch(new RegExp(`/${profile.subnetCidrMask}$`));
  });

  it("throttles the stage and the spawning routes at the profile's rates", () => {
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0] as Json;
    expect(stage.Properties.DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: profile.apiThrottle.rateLimit,
      ThrottlingBurstLimit: profile.apiThrottle.burstLimit,
    });
    for (const route of ['POST /v1/rooms', 'POST /v1/matchmaking/join']) {
      expect(stage.Properties.RouteSettings[route]).toEqual({
        ThrottlingRateLimit: profile.spawnRouteThrottle.rateLimit,
        ThrottlingBurstLimit: profile.spawnRouteThrottle.burstLimit,
      });
    }
  });

  it("warms the table only where the profile asks, and keeps the model's other assumptions", () => {
    const table = Object.values(template.findResources('AWS::DynamoDB::GlobalTable'))[0] as Json;
    expect(table.Properties.WarmThroughput?.WriteUnitsPerSecond).toBe(profile.tableWarmWritesPerS);
    // The model counts SendMessage against the high-throughput FIFO quota, and 0.5 vCPU a task.
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
    });
    template.hasResourceProperties('AWS::ECS::TaskDefinition', { Cpu: String(workload.taskVcpu * 1024) });
  });

  it('fits the players the profile is sized for, with the settings read back from the template', () => {
    const env = stringsOf(platformFunctions[0]!);
    const config = parseConfig({ ...env, AUTH_ISSUER: auth.authIssuer, TABLE_NAME: 'rooms' });
    const deployed: ScaleProfile = {
      ...profile,
      maxRunningServers: config.costBounds.maxRunningServers,
      maxServersPerConfiguration: config.costBounds.maxServersPerConfiguration,
      heartbeatIntervalS: config.heartbeatIntervalS,
      heartbeatTimeoutS: config.heartbeatTimeoutS,
    };
    const envelope = scaleEnvelope({ ccu: profile.ccu, profile: deployed, quotas: 'requested' });
    expect(envelope.breaks).toEqual([]);
    expect(subnetAddresses(profile.subnetCidrMask, workload.availabilityZones)).toBeGreaterThan(
      profile.maxRunningServers,
    );
  });
});

function stringsOf(env: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

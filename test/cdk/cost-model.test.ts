import * as fs from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnTaskDefinition } from 'aws-cdk-lib/aws-ecs';
import { addRoomkeeper } from '../../cdk/lib/roomkeeper-app';
import type { RoomkeeperStack } from '../../cdk/lib/roomkeeper-stack';
import { deployableRoutes } from '../../cdk/lib/constructs/player-api';
import { ecsSpawnTiming } from '../../cdk/lib/constructs/game-server-fleet';
import { scaleNames, scaleProfiles, workload, type ScaleName } from '../../cdk/lib/scale/profiles';
import { queueDefinitions } from '../../core/infra/queues';
import { costModelDocPath, docWithReport, priceScenarios } from '../../scripts/cost-model/doc';
import type { TemplateJson } from '../../scripts/cost-model/template';
import { auth, gameImage, useScratch } from './support';

/**
 * The cost model reads the real templates: the stack with its defaults (idle) and with each
 * scale profile, every function in its place, the settings each profile deploys; and
 * docs/cost-model.md shows exactly what it computes.
 */
const { newApp, cleanUp } = useScratch();
afterAll(cleanUp);

describe('cost model on the synthesized stacks', () => {
  const stacks = new Map<ScaleName | undefined, RoomkeeperStack>();
  const priced = priceScenarios((scale) => {
    const stack = addRoomkeeper(newApp({ stage: 'cost', ...auth, gameImage, ...(scale ? { scale } : {}) }));
    stacks.set(scale, stack);
    return Template.fromStack(stack).toJSON() as TemplateJson;
  });
  const idle = priced[0]!;
  const defaults = stacks.get(undefined)!;

  it('finds one function per deployed route, one consumer per queue and the scheduled sweeper and pool keeper', () => {
    const roles = (role: string) => idle.scenario.resources.functions.filter((f) => f.role === role).length;
    expect(roles('route')).toBe(deployableRoutes().length);
    expect(roles('consumer')).toBe(Object.keys(queueDefinitions).length);
    expect(roles('scheduled')).toBe(2);
    expect(idle.scenario.resources.schedulesPerHour).toEqual([60, 60]);
  });

  it('reads the game server task size from its task definition', () => {
    const task = defaults.fleet.taskDefinition.node.defaultChild as CfnTaskDefinition;
    expect(idle.scenario.resources.tasks[0]).toMatchObject({
      vcpu: Number(task.cpu) / 1024,
      memoryGB: Number(task.memory) / 1024,
    });
  });

  it("bills the template's KMS key, flow log, controller image and secrets", () => {
    const template = Template.fromStack(defaults);
    const resources = idle.scenario.resources;
    expect(resources.kmsKeys).toBe(Object.keys(template.findResources('AWS::KMS::Key')).length);
    expect(resources.kmsKeys).toBeGreaterThan(0);
    expect(resources.flowLogs).toBe(1);
    expect(resources.imageAssets).toBe(1);
    expect(resources.secrets).toBe(Object.keys(template.findResources('AWS::SecretsManager::Secret')).length);
    for (const service of ['KMS', 'ECR', 'Secrets Manager'] as const) {
      expect(idle.cost.byService[service]).toBeGreaterThan(0);
    }
  });

  it("prices each scale profile with its own template's caps, heartbeat and create wait, and its standby servers", () => {
    for (const name of scaleNames) {
      const { cost } = priced.find((p) => p.scenario.name === name)!;
      const profile = scaleProfiles[name];
      expect({ ccu: cost.ccu, standby: cost.standbyServers, ...cost.settings }).toMatchObject({
        ccu: profile.ccu,
        standby: profile.warmStandbyServers,
        maxRunningServers: profile.maxRunningServers,
        maxServersPerConfiguration: profile.maxServersPerConfiguration,
        heartbeatIntervalS: profile.heartbeatIntervalS,
        createWaitS: ecsSpawnTiming.createWaitS,
      });
    }
  });

  it("sizes the scale envelope with the room overhead and the poll cadence each profile's template carries", () => {
    for (const { cost, scenario } of priced) {
      expect([scenario.name, cost.overhead.totalS]).toEqual([scenario.name, workload.serverOverheadMinutes * 60]);
      expect(cost.settings.spawnPollAfterS).toBe(ecsSpawnTiming.pollAfterS);
    }
  });

  it('docs/cost-model.md shows what the model computes (run `npm run cost-model -- --write`)', async () => {
    const doc = fs.readFileSync(costModelDocPath, 'utf8');
    expect(doc).toBe(await docWithReport(doc, priced));
  });
});

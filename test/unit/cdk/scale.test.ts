import * as fs from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { tableDefinition } from '../../../core/infra/table';
import { heartbeatTimeoutFor } from '../../../core/protocol/heartbeat';
import { scaleContext } from '../../../cdk/lib/scale/context';
import { headroom, hotKeys, scaleEnvelope, subnetAddresses, trafficAt } from '../../../cdk/lib/scale/envelope';
import { awsDefaultLimits, type LimitId } from '../../../cdk/lib/scale/limits';
import { scaleNames, scaleProfiles, workload } from '../../../cdk/lib/scale/profiles';
import { renderScaleReport } from '../../../cdk/lib/scale/report';

const ids = (checks: readonly { id: string }[]) => checks.map((check) => check.id);

describe('scale envelope', () => {
  it('counts 12,500 rooms of 8 at 100k players, and the servers, starts and messages they make', () => {
    const traffic = trafficAt(100_000, scaleProfiles['100k']);
    expect(traffic.rooms).toBe(12_500);
    // 12,500 rooms, each running 3.5 minutes beyond its 30-minute session, and 200 standbys.
    expect(traffic.servers).toBeCloseTo(12_500 * (33.5 / 30) + 200);
    expect(traffic.steadyJoinsPerS).toBeCloseTo(100_000 / 1_800);
    expect(traffic.peakStartsPerS).toBeCloseTo((100_000 / 1_800 / 8) * workload.peakFactor);
  });

  it('breaks the default stack at 100k players on the limits the review named, and more', () => {
    const envelope = scaleEnvelope({ ccu: 100_000, profile: scaleProfiles['1k'], quotas: 'default' });
    expect(ids(envelope.breaks)).toEqual(
      expect.arrayContaining([
        'runningServers',
        'serversPerConfiguration',
        'fargateVcpu',
        'networkInterfaces',
        'subnetAddresses',
        'consumerConcurrency',
        'sqsSendMessage',
        'apiThrottle',
        'spawnRouteThrottle',
        'newTableWrites',
      ]),
    );
    const check = (id: string) => envelope.checks.find((c) => c.id === id)!;
    // 2 s heartbeats from every server: more than 6,250 messages a second on 20 executions.
    expect(envelope.traffic.controllerMessagesPerS).toBeGreaterThan(6_250);
    expect(check('consumerConcurrency').limit).toBe(20);
    // Three /20 subnets: about 12,000 task addresses; the default ENI quota: 5,000.
    expect(check('subnetAddresses').limit).toBe(12_273);
    expect(check('networkInterfaces').limit).toBe(5_000);
    expect([check('runningServers').limit, check('serversPerConfiguration').limit]).toEqual([200, 200]);
  });

  it.each(scaleNames)('fits %s players with its profile once its quota requests are granted', (name) => {
    const profile = scaleProfiles[name];
    const envelope = scaleEnvelope({ ccu: profile.ccu, profile, quotas: 'requested' });
    expect(ids(envelope.breaks)).toEqual([]);
    // By design the platform's own cap runs out first, with a 503 and Retry-After.
    expect(envelope.firstToRunOut.id).toBe('runningServers');
  });

  it.each(scaleNames)('lists for %s exactly the quotas its size breaks by default', (name) => {
    const profile = scaleProfiles[name];
    const onDefaults = scaleEnvelope({ ccu: profile.ccu, profile, quotas: 'default' });
    const quotaOf: Partial<Record<string, LimitId>> = {
      fargateVcpu: 'fargateVcpu',
      networkInterfaces: 'networkInterfaces',
    };
    const needed = onDefaults.breaks.map((check) => quotaOf[check.id] ?? check.id);
    expect(needed.sort()).toEqual(Object.keys(profile.quotaRequests).sort());
    for (const id of Object.keys(profile.quotaRequests) as LimitId[])
      expect(awsDefaultLimits[id].adjustable).toBe(true);
  });

  it.each(scaleNames)('keeps %s servers inside their quotas and subnets: the cap binds first', (name) => {
    const profile = scaleProfiles[name];
    const quota = (id: LimitId) => profile.quotaRequests[id] ?? awsDefaultLimits[id].value;
    expect(profile.maxRunningServers * workload.taskVcpu).toBeLessThanOrEqual(quota('fargateVcpu'));
    expect(profile.maxRunningServers).toBeLessThanOrEqual(quota('networkInterfaces'));
    // Two Availability Zones (two subnets) must hold the cap too (docs/scale.md).
    expect(profile.maxRunningServers).toBeLessThanOrEqual(subnetAddresses(profile.subnetCidrMask, 2));
    expect(profile.maxServersPerConfiguration).toBeLessThanOrEqual(profile.maxRunningServers);
    expect(profile.heartbeatTimeoutS).toBe(heartbeatTimeoutFor(profile.heartbeatIntervalS));
  });

  it('keeps every hot partition under its limit at 100k players', () => {
    const profile = scaleProfiles['100k'];
    const byKey = Object.fromEntries(hotKeys(trafficAt(100_000, profile), profile).map((hot) => [hot.key, hot]));
    // Starts at the peak and ends at the steady rate, 3 items × 2 WCU per transaction.
    expect(byKey.SERVERS!.writes).toBeCloseTo((17.36 + 6.94) * 6, 0);
    expect(byKey['BUCKET#<bucket>']!.reads).toBeCloseTo(138.9, 1);
    expect(byKey['gsi1 OPEN#<bucket>']!.writes).toBeCloseTo(329.9, 1);
    expect(byKey['gsi2 LIVE#<game>#<version>#<region>']!.writes).toBeCloseTo(625, 0);
    expect(byKey['SWEEPER/PIPELINE']!.writes).toBe(100);
    const envelope = scaleEnvelope({ ccu: 100_000, profile, quotas: 'requested' });
    const partitions = envelope.checks.filter((check) => check.id.startsWith('partition'));
    expect(partitions.length).toBeGreaterThanOrEqual(8);
    for (const check of partitions) expect(headroom(check)).toBeGreaterThan(0.3);
  });

  it('models heartbeats as touching no index: no index projects lastHeartbeatAt', () => {
    for (const index of tableDefinition.globalSecondaryIndexes) {
      expect([index.partitionKey, index.sortKey, ...(index.nonKeyAttributes ?? [])]).not.toContain('lastHeartbeatAt');
    }
  });
});

describe('scaleContext (-c scale=…)', () => {
  const context = (scale?: unknown) => scaleContext(new App({ context: scale === undefined ? {} : { scale } }));

  it('reads 1k, 10k and 100k, and leaves the default to the stack when absent', () => {
    expect(context('100k')).toEqual({ scale: '100k' });
    expect(context('10k')).toEqual({ scale: '10k' });
    expect(context()).toEqual({});
  });

  it('refuses anything else, naming the sizes it accepts', () => {
    expect(() => context('1m')).toThrow(/"scale" must be one of 1k, 10k, 100k/);
    expect(() => context(100_000)).toThrow(/"scale"/);
  });
});

describe('docs/scale.md', () => {
  /** Markdown tables compared cell by cell: prettier pads the columns. */
  const normalized = (markdown: string) =>
    markdown
      .split('\n')
      .map((line) =>
        line.startsWith('|')
          ? line
              .split('|')
              .map((cell) => cell.trim().replace(/^-+$/, '---'))
              .join('|')
          : line.trim(),
      )
      .filter(Boolean)
      .join('\n');

  it('shows the tables the model computes (npm run scale-model -- --write)', () => {
    const doc = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'scale.md'), 'utf8');
    const block = /<!-- scale-model:begin[^>]*-->([\s\S]*?)<!-- scale-model:end -->/.exec(doc)?.[1] ?? '';
    expect(normalized(block)).toBe(normalized(renderScaleReport()));
  });
});

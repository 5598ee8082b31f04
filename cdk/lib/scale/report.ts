import { headroom, hotKeys, scaleEnvelope, trafficAt, type Envelope, type ScaleCheck } from './envelope';
import { awsDefaultLimits, type LimitId } from './limits';
import { scaleNames, scaleProfiles, workload, type ScaleName } from './profiles';

/**
 * docs/scale.md's generated part (`npm run scale-model -- --write`): the workload, each
 * profile's settings and quota requests, the envelope at 1k, 10k and 100k players, what runs
 * out first, and the hot partitions. A test compares the doc with this output.
 */

function num(n: number): string {
  if (Math.abs(n) < 1 && n !== 0) return n.toFixed(2);
  if (Math.abs(n) < 10 && !Number.isInteger(n)) return n.toFixed(1);
  return Math.round(n).toLocaleString('en-US');
}

const pct = (fraction: number) => `${Math.round(fraction * 100)} %`;

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Each profile at the players it is sized for, its quota requests granted. */
function profileEnvelopes(): Record<ScaleName, Envelope> {
  const envelope = (name: ScaleName) =>
    scaleEnvelope({ ccu: scaleProfiles[name].ccu, profile: scaleProfiles[name], quotas: 'requested' });
  return { '1k': envelope('1k'), '10k': envelope('10k'), '100k': envelope('100k') };
}

function workloadSection(): string {
  const rows = scaleNames.map((name) => {
    const t = trafficAt(scaleProfiles[name].ccu, scaleProfiles[name]);
    return [
      name,
      num(t.rooms),
      num(t.servers),
      num(t.steadyJoinsPerS),
      num(t.peakJoinsPerS),
      num(t.peakStartsPerS),
      num(t.controllerMessagesPerS),
      num(t.apiRequestsPerS),
    ];
  });
  return table(
    [
      'players',
      'rooms',
      'servers running',
      'joins/s (steady)',
      'joins/s (peak)',
      'starts/s (peak)',
      'controller messages/s',
      'API requests/s',
    ],
    rows,
  );
}

function settingsSection(): string {
  const p = scaleNames.map((name) => scaleProfiles[name]);
  const row = (setting: string, values: readonly string[]) => [setting, ...values];
  return table(
    ['setting', ...scaleNames.map((name) => `\`-c scale=${name}\``)],
    [
      row(
        '`maxRunningServers`',
        p.map((x) => num(x.maxRunningServers)),
      ),
      row(
        '`maxServersPerConfiguration`',
        p.map((x) => num(x.maxServersPerConfiguration)),
      ),
      row(
        'heartbeat interval / timeout',
        p.map((x) => `${x.heartbeatIntervalS} s / ${x.heartbeatTimeoutS} s`),
      ),
      row(
        'controller consumer, most executions',
        p.map((x) => num(x.consumerMaxConcurrency)),
      ),
      row(
        'game server subnets',
        p.map((x) => `3 × /${x.subnetCidrMask}`),
      ),
      row(
        'API stage throttle (rate / burst)',
        p.map((x) => `${num(x.apiThrottle.rateLimit)} / ${num(x.apiThrottle.burstLimit)}`),
      ),
      row(
        'spawning routes throttle (rate / burst)',
        p.map((x) => `${num(x.spawnRouteThrottle.rateLimit)} / ${num(x.spawnRouteThrottle.burstLimit)}`),
      ),
      row(
        'table warm throughput (writes/s)',
        p.map((x) => (x.tableWarmWritesPerS ? num(x.tableWarmWritesPerS) : 'none')),
      ),
      row(
        'standby servers assumed (`standby`)',
        p.map((x) => num(x.warmStandbyServers)),
      ),
    ],
  );
}

function quotaSection(): string {
  const ids = [...new Set(scaleNames.flatMap((name) => Object.keys(scaleProfiles[name].quotaRequests)))] as LimitId[];
  return table(
    ['quota', 'default', ...scaleNames],
    ids.map((id) => {
      const limit = awsDefaultLimits[id];
      return [
        `[${limit.name}](${limit.source})`,
        num(limit.value),
        ...scaleNames.map((name) => {
          const requested = scaleProfiles[name].quotaRequests[id];
          return requested === undefined ? 'default' : `**${num(requested)}**`;
        }),
      ];
    }),
  );
}

const cell = (check: ScaleCheck) => `${num(check.demand)} / ${num(check.limit)} (${pct(headroom(check))})`;

function envelopeSection(envelopes: Record<ScaleName, Envelope>): string {
  const base = envelopes['100k'].checks;
  return table(
    ['resource', ...scaleNames, 'limit (at 100k) from', 'at the edge'],
    base.map((check, i) => [
      check.source ? `[${check.resource}](${check.source})` : check.resource,
      ...scaleNames.map((name) => cell(envelopes[name].checks[i]!)),
      check.limitFrom,
      check.edge,
    ]),
  );
}

function firstSection(envelopes: Record<ScaleName, Envelope>): string {
  const rows = scaleNames.map((name) => {
    const first = envelopes[name].firstToRunOut;
    const onDefault = scaleEnvelope({ ccu: scaleProfiles[name].ccu, profile: scaleProfiles['1k'], quotas: 'default' });
    return [
      name,
      `${first.resource}: ${pct(headroom(first))} left; ${first.edge}`,
      onDefault.breaks.length === 0 ? 'nothing' : onDefault.breaks.map((check) => check.resource).join('; '),
    ];
  });
  return table(
    ['players', 'runs out first (its profile, quotas raised)', 'breaks on the default stack and quotas'],
    rows,
  );
}

function hotKeySection(): string {
  const profile = scaleProfiles['100k'];
  const traffic = trafficAt(profile.ccu, profile);
  return table(
    ['partition', 'what', 'writes (WCU/s, of 1,000)', 'reads (RCU/s, of 3,000)'],
    hotKeys(traffic, profile).map((hot) => [`\`${hot.key}\``, hot.what, num(hot.writes), num(hot.reads)]),
  );
}

export function renderScaleReport(): string {
  const envelopes = profileEnvelopes();
  return [
    `Workload: rooms of ${workload.playersPerRoom}, ${workload.sessionMinutes}-minute sessions, one join per session, ` +
      `peaks at ${workload.peakFactor}× the steady arrival rate, ${workload.taskVcpu} vCPU per game server.`,
    '',
    '#### Traffic at each size',
    '',
    workloadSection(),
    '',
    '#### What each profile sets',
    '',
    settingsSection(),
    '',
    '#### Quotas to request before deploying',
    '',
    quotaSection(),
    '',
    '#### The envelope: demand / limit (headroom left) at each size, with its profile',
    '',
    envelopeSection(envelopes),
    '',
    '#### What fails first',
    '',
    firstSection(envelopes),
    '',
    '#### Hot partitions at 100k players (one bucket, one game version, one region)',
    '',
    hotKeySection(),
  ].join('\n');
}

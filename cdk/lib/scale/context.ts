import type { App } from 'aws-cdk-lib';
import type { RoomkeeperStackProps } from '../roomkeeper-stack';
import { scaleNames, type ScaleName } from './profiles';

/**
 * `scale` (`-c scale=10k`, or in cdk.json): the scale profile the stack is built with
 * (docs/scale.md). Absent: the stack's default, `1k`.
 */
export function scaleContext(app: App): Pick<RoomkeeperStackProps, 'scale'> {
  const value: unknown = app.node.tryGetContext('scale');
  if (value === undefined || value === null || value === '') return {};
  if (typeof value === 'string' && (scaleNames as readonly string[]).includes(value)) {
    return { scale: value as ScaleName };
  }
  throw new Error(
    `CDK context "scale" must be one of ${scaleNames.join(', ')} (concurrent players the stack is sized for, ` +
      `docs/scale.md), not ${JSON.stringify(value)}.`,
  );
}

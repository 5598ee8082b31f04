import { EC2ServiceException } from '@aws-sdk/client-ec2';
import { ECSServiceException } from '@aws-sdk/client-ecs';

/**
 * What the SDK throws when ECS refuses a call by `name` (`ThrottlingException`,
 * `InvalidParameterException`, …): ECS models no class of its own for most of them.
 */
export function ecsError(name: string, message = name): ECSServiceException {
  return new ECSServiceException({ name, $fault: 'client', $metadata: { httpStatusCode: 400 }, message });
}

/** What the SDK throws when EC2 refuses a call by `name` (`RequestLimitExceeded`, …). */
export function ec2Error(name: string, message = name, httpStatusCode = 400): EC2ServiceException {
  return new EC2ServiceException({ name, $fault: 'client', $metadata: { httpStatusCode }, message });
}

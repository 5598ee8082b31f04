import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Structured JSON logs (Powertools). Level from `POWERTOOLS_LOG_LEVEL`; the local cloud
 * sets `POWERTOOLS_DEV` in a terminal for readable output. Never log keys or tokens.
 */
export const logger = new Logger({ serviceName: 'roomkeeper' });

export function childLogger(component: string): Logger {
  return logger.createChild({ persistentKeys: { component } });
}

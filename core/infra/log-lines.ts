import * as z from 'zod';

/**
 * The local cloud's tail of its own structured log lines (`GET /v1/dev/logs`, local only):
 * the port the dev route reads, the local cloud's ring buffer (local/log-tail.ts) implements.
 * Deployed there is none: CloudWatch Logs Insights reads the functions' logs (docs/operations.md).
 */
export const logLinesQuerySchema = z
  .strictObject({
    roomId: z.string().min(1).max(64).optional().describe('Only lines that name this room (a `roomId` field).'),
    after: z.coerce
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Only lines after this `seq`: the `next` of the last page.'),
    limit: z.coerce.number().int().min(1).max(1_000).default(200),
  })
  .meta({ id: 'LogLinesQuery' });
export type LogLinesQuery = z.output<typeof logLinesQuerySchema>;

const logLineSchema = z
  .looseObject({
    seq: z.number().int().describe('Increases by one per line the local cloud printed.'),
    at: z.string().describe("The line's timestamp (ISO 8601)."),
    level: z.string(),
    message: z.string(),
    roomId: z.string().optional(),
  })
  .describe("A structured log line: these fields, and the line's own (component, error, …).")
  .meta({ id: 'LogLine' });
export type LogLine = z.output<typeof logLineSchema>;

export const logLinesPageSchema = z
  .strictObject({
    lines: z.array(logLineSchema).describe('Oldest first.'),
    next: z.number().int().describe('Pass as `after` to read on from here.'),
  })
  .meta({ id: 'LogLines' });
export type LogLinesPage = z.output<typeof logLinesPageSchema>;

export interface LogLines {
  read(query: LogLinesQuery): LogLinesPage;
}

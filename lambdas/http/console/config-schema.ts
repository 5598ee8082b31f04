import * as z from 'zod';

/**
 * `GET /console/config.json`: how the console signs in. The local cloud hands it an admin
 * token it mints with its own dev key (the same key `POST /v1/dev/tokens` signs with, and no
 * more exposed than that route); a deployed stack has no such key, so the console asks the
 * operator for a token. Imported by the console itself (console/src/session.ts) to parse it.
 */
export const consoleConfigSchema = z
  .strictObject({
    local: z.boolean().describe('True in the local cloud: `token` is there and the console signs in by itself.'),
    token: z.string().min(1).optional().describe('Local cloud only: an admin access token.'),
    expiresIn: z.number().int().positive().optional().describe('Seconds `token` is valid for.'),
    liveUrl: z.string().min(1).optional().describe('The live-session WebSocket (`ws://…/v1/live`, `wss://…/live`).'),
  })
  .meta({ id: 'ConsoleConfig' });

export type ConsoleConfig = z.infer<typeof consoleConfigSchema>;

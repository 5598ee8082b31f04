import { z } from 'zod';
import { roomStates } from './model';

/** Room ids are ours (UUIDs), but any short URL-safe id is accepted on read so a bad one is a 404, not a 400. */
export const roomIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be URL-safe characters');

export const roomViewSchema = z
  .object({
    roomId: z.string(),
    gameId: z.string(),
    version: z.string(),
    region: z.string(),
    state: z.enum(roomStates),
    settings: z.record(z.string(), z.unknown()),
    maxPlayers: z.number().int(),
    players: z.number().int(),
    changeNumber: z.number().int(),
  })
  .meta({ id: 'Room' });

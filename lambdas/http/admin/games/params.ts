import * as z from 'zod';
import { gameIdSchema, gameVersionSchema } from '../../../../core/gameservers/schema';

export const gameVersionParamsSchema = z.strictObject({ gameId: gameIdSchema, version: gameVersionSchema });

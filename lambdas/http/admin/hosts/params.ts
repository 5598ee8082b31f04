import * as z from 'zod';
import { hostIdSchema } from '../../../../core/placement/fleet-model';

export const hostParamsSchema = z.strictObject({ hostId: hostIdSchema });

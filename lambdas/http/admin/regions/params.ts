import * as z from 'zod';
import { regionNameSchema } from '../../../../core/placement/fleet-model';

export const regionParamsSchema = z.strictObject({ region: regionNameSchema });

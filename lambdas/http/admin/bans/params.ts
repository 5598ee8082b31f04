import * as z from 'zod';
import { accountSchema } from '../../../../core/abuse/bans';

export const banAccountParamsSchema = z.strictObject({ account: accountSchema });

import * as z from 'zod';

/** A list of OAuth-style scopes, as tokens carry them (`admin`, `chat`, `game:trade`). */
export const scopeListSchema = z
  .array(
    z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9:_.-]+$/),
  )
  .max(32)
  .default([]);

import { storableJsonObjectSchema } from '../protocol/storable-json';
import { sessionCustomLimits } from './session-model';

/**
 * The client-chosen JSON of a session document, each capped so a full room's item stays far
 * below DynamoDB's 400 KB (see `sessionCustomLimits`).
 */
export const sessionConstantsCustomSchema = storableJsonObjectSchema(sessionCustomLimits.constantsBytes);
/** A room's `properties.custom`, as a member writes it (whole: a PATCH replaces it). */
export const sessionPropertiesCustomSchema = storableJsonObjectSchema(sessionCustomLimits.propertiesBytes);
/** One member's `properties.custom`, written by that member alone (whole: a PATCH replaces it). */
export const memberPropertiesCustomSchema = storableJsonObjectSchema(sessionCustomLimits.memberPropertiesBytes);

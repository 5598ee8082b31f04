import { keys } from '../infra/keys';
import type { Member } from './model';

/** TTL (garbage collection only) a day after a reservation would have expired. */
export const ttlOf = (iso: string | undefined) => (iso ? { ttl: Math.ceil(Date.parse(iso) / 1000) + 86_400 } : {});

/** The stored form of a member, as every write path puts it. */
export function memberItem(member: Member): Record<string, unknown> {
  return { ...keys.member(member.roomId, member.account), type: 'member', ...member, ...ttlOf(member.expiresAt) };
}

/** The stored form of a registration key (its hash only) pointing at its member. */
export function registrationKeyItem(member: Member, keyHash: string = member.keyHash): Record<string, unknown> {
  return {
    ...keys.registrationKey(member.roomId, keyHash),
    type: 'registrationKey',
    account: member.account,
    ...ttlOf(member.expiresAt),
  };
}

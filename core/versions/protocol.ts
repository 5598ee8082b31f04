import { createHash } from 'node:crypto';
import * as z from 'zod';

/**
 * What a client or a game server says of its build's network components (docs/versions.md):
 * the set hash, optionally each component's hash, and when the build was made. Clients send it
 * with joins and creates, game servers with `inited`.
 */

/** A 64-bit hash as docs/versions.md writes it: 16 lower-case hex digits. */
export const protocolHashSchema = z
  .string()
  .regex(/^[0-9a-f]{16}$/, 'must be a 64-bit hash: 16 lower-case hex digits (docs/versions.md)');

/**
 * A component's qualified name: `Namespace::Name` (C++-style identifiers joined by `::`), or
 * `Name` without a namespace. ASCII only, so every language sorts and hashes it the same way.
 */
export const componentNameSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*$/,
    'must be a qualified component name: identifiers joined by :: (docs/versions.md)',
  );

/** The most components one build may report: their map rides on every join body and `inited`. */
export const maxComponents = 256;

export type ComponentHashes = Readonly<Record<string, string>>;

export interface Protocol {
  readonly hash: string;
  readonly components?: ComponentHashes;
  readonly builtAt?: string;
}

/** The first line of the text the set hash is taken of (docs/versions.md "The set hash"). */
const setHeader = 'roomkeeper-protocol-set 1\n';

/** Byte order of ASCII names: the same order in every language. */
const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The first 8 bytes of a text's SHA-256, as 16 lower-case hex digits. */
export function hash64(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest().subarray(0, 8).toString('hex');
}

/**
 * The set hash of a build's components, from each component's hash (docs/versions.md):
 * SHA-256 of the header line and one `name<TAB>hash` line per component in byte order of
 * names, first 8 bytes. The order components were listed in carries no meaning.
 *
 * @example
 * setHashOf({}) === hash64('roomkeeper-protocol-set 1\n');
 */
export function setHashOf(components: ComponentHashes): string {
  const names = Object.keys(components).sort(byteOrder);
  return hash64(setHeader + names.map((name) => `${name}\t${components[name]}\n`).join(''));
}

const protocolShape = {
  hash: protocolHashSchema,
  components: z
    .record(componentNameSchema, protocolHashSchema)
    .refine((components) => Object.keys(components).length <= maxComponents, {
      message: `may list at most ${maxComponents} components`,
    })
    .optional(),
  builtAt: z.iso.datetime({ offset: true }).optional(),
};

/**
 * `protocol` with a key it does not know refused (`strict`) or dropped (`strip`). A component
 * map must hash to `hash` either way: a build whose two hashes disagree has a bug worth hearing
 * about at once, and a map stored under a hash (core/versions/protocol-store.ts) is then that
 * hash's alone.
 */
export function protocolSchemaOf(unknownKeys: 'strict' | 'strip') {
  const object = unknownKeys === 'strict' ? z.strictObject(protocolShape) : z.object(protocolShape);
  return object.superRefine((protocol, ctx) => {
    if (protocol.components === undefined) return;
    const expected = setHashOf(protocol.components);
    if (expected !== protocol.hash) {
      ctx.addIssue({
        code: 'custom',
        path: ['hash'],
        message: `is not the set hash of components (they hash to ${expected}; docs/versions.md "The set hash")`,
      });
    }
  });
}

/** `protocol` in a join, create or matchmaking body and in a configuration: a 400 names an unknown key. */
export const protocolSchema = protocolSchemaOf('strict').meta({ id: 'Protocol' });

/** Which side's build was made later, by `builtAt`; `unknown` when either is missing or they are equal. */
export type NewerSide = 'client' | 'server' | 'unknown';

/** What a PROTOCOL_MISMATCH names (docs/api.md "Version safety"): as seen from the client. */
export interface ProtocolDiff {
  /** Components the client has and the server does not. */
  readonly added: string[];
  /** Components the server has and the client does not. */
  readonly removed: string[];
  /** Components both have, with different hashes. */
  readonly changed: string[];
  readonly newer: NewerSide;
}

/**
 * The difference between a client's build and a server's. Without both component maps only the
 * set hashes are known to differ: the three lists are then empty. Pure.
 */
export function protocolDiff(client: Protocol, server: Protocol): ProtocolDiff {
  const newer = newerSide(client.builtAt, server.builtAt);
  if (!client.components || !server.components) return { added: [], removed: [], changed: [], newer };
  const ours = client.components;
  const theirs = server.components;
  // Own keys only: `constructor` or `toString` are valid component names, and `in` finds them on every object.
  const added = Object.keys(ours).filter((name) => !Object.hasOwn(theirs, name));
  const removed = Object.keys(theirs).filter((name) => !Object.hasOwn(ours, name));
  const changed = Object.keys(ours).filter((name) => Object.hasOwn(theirs, name) && ours[name] !== theirs[name]);
  return { added: added.sort(byteOrder), removed: removed.sort(byteOrder), changed: changed.sort(byteOrder), newer };
}

function newerSide(client: string | undefined, server: string | undefined): NewerSide {
  if (client === undefined || server === undefined) return 'unknown';
  const c = Date.parse(client);
  const s = Date.parse(server);
  if (c === s || Number.isNaN(c) || Number.isNaN(s)) return 'unknown';
  return c > s ? 'client' : 'server';
}

/**
 * A room's server build as the room item keeps it (`protocol` on the item): the set hash and
 * when it was built. Short names: it rides on every write of the room. The component map is
 * kept apart, once per hash (core/versions/protocol-store.ts).
 */
export interface StoredProtocol {
  readonly h: string;
  readonly b?: string;
}

export function storedProtocol(protocol: Protocol): StoredProtocol {
  return { h: protocol.hash, ...(protocol.builtAt === undefined ? {} : { b: protocol.builtAt }) };
}

export function protocolOfStored(stored: StoredProtocol, components?: ComponentHashes): Protocol {
  return {
    hash: stored.h,
    ...(components === undefined ? {} : { components }),
    ...(stored.b === undefined ? {} : { builtAt: stored.b }),
  };
}

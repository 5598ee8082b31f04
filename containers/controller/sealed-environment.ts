import {
  envelopeKeyFromSecret,
  openSidecarVariables,
  SidecarEnvelopeError,
} from '../../core/gameservers/sidecar-envelope';
import { sealedSidecarEnvironmentSchema } from '../../core/gameservers/sidecar-environment';

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The sidecar's environment with SIDECAR_SEALED opened: its variables (the channel key, the
 * scoped session) merged in, and the sealed blob and the envelope key left out. An environment
 * without SIDECAR_SEALED (the local fleet: the key comes on stdin) is returned as it is.
 * Throws SidecarEnvelopeError when the blob cannot be opened; its message names key ids and
 * the room only.
 */
export function openedEnvironment(env: Environment): Environment {
  const { SIDECAR_SEALED: sealed, SIDECAR_ENVELOPE_KEY: secret } = sealedSidecarEnvironmentSchema.parse(env);
  const { SIDECAR_SEALED: _sealed, SIDECAR_ENVELOPE_KEY: _secret, ...rest } = env;
  // Without a room the environment is invalid anyway: the schema says so by name.
  if (!sealed || !env.ROOM_ID) return rest;
  if (!secret) {
    throw new SidecarEnvelopeError(
      'wrong-key',
      'SIDECAR_SEALED is set but SIDECAR_ENVELOPE_KEY is not: the task definition gives the controller container no envelope key.',
    );
  }
  return { ...rest, ...openSidecarVariables(envelopeKeyFromSecret(secret), env.ROOM_ID, sealed) };
}

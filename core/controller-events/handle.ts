import type { z } from 'zod';
import { commandOutcome, messageDataSchema } from '../commands/model';
import { countSpawnFailure } from '../infra/metrics';
import type { ControllerRequest } from '../protocol/controller-messages';
import { rpcErrorCodes } from '../protocol/jsonrpc';
import { isLive } from '../rooms/model';
import { applyHeartbeat } from './heartbeat';
import { inited } from './inited';
import { gameRequestOf, joined, left } from './members';
import type { ControllerEventDependencies } from './ports';
import { endsCleanly, fail, type Outcome } from './rules';

type Request<T extends ControllerRequest['type']> = Extract<ControllerRequest, { type: T }>;

/**
 * Applies one message from a controller sidecar. Safe to run more than once for the same
 * message: every state change is a conditional write that recognises its own request id.
 */
export async function handleControllerRequest(
  request: ControllerRequest,
  deps: ControllerEventDependencies,
): Promise<void> {
  const now = deps.now();
  switch (request.type) {
    case 'heartbeat':
      return applyHeartbeat(request, deps, now);
    case 'exited':
      return exited(request, deps, now);
    case 'abandoned':
      // No answer: the sidecar stopped waiting. The result only tells the logs what happened.
      await deps.rooms.abandon(request.roomId, request.keyHash, gameRequestOf(request), deps.now());
      return;
    case 'rpc': {
      const outcome = await applyRpc(request, deps, now);
      await deps.reply(request.replyTo, { type: 'reply', correlationId: request.correlationId, ...outcome });
      return;
    }
    case 'commandResult':
      // Keyed by the room the MAC proves: another room's sidecar cannot answer this room's
      // command, and a repeated or late answer finds the record no longer `sent`.
      await deps.commands.recordOutcome(request.roomId, request.commandId, commandOutcome(request), now);
      return;
    case 'message':
      return message(request, deps, now);
    case 'credentials': {
      const outcome = await credentials(request, deps);
      await deps.reply(request.replyTo, { type: 'reply', correlationId: request.correlationId, ...outcome });
      return;
    }
  }
}

async function applyRpc(request: Request<'rpc'>, deps: ControllerEventDependencies, now: Date): Promise<Outcome> {
  switch (request.method) {
    case 'inited':
      return inited(request, deps, now);
    case 'joined':
      return joined(request, deps, now);
    case 'left':
      return left(request, deps, now);
  }
}

async function exited(request: Request<'exited'>, deps: ControllerEventDependencies, now: Date): Promise<void> {
  const closed = endsCleanly(request.reason) ? await deps.rooms.markClosed(request.roomId, now) : undefined;
  if (!closed?.applied) {
    const failed = await deps.rooms.markFailed(request.roomId, request.reason, now);
    // The sidecar killed a server that missed its spawn deadline.
    if (failed.applied && request.reason === 'spawn-timeout') countSpawnFailure('spawn-timeout', now);
  }
  // The server is gone whatever the room's state: a redelivery finds nothing to release.
  await deps.slots?.release(request.roomId);
}

/**
 * The sidecar checked the same, so only a sidecar out of step with the platform sends data
 * that cannot be stored exactly. Retrying cannot fix it: it is dropped, but with a trace, or
 * the owner's missing message would be a mystery.
 */
async function message(request: Request<'message'>, deps: ControllerEventDependencies, now: Date): Promise<void> {
  const data = messageDataSchema.safeParse(request.data);
  if (!data.success) {
    deps.log.warn('dropping a game message the platform cannot store', {
      roomId: request.roomId,
      messageId: request.messageId,
      reason: issueSummary(data.error.issues),
    });
    return;
  }
  await deps.messages.append(request.roomId, request.messageId, data.data, now);
}

/** An ended room's sidecar gets nothing more: its credentials lapse within the hour. */
async function credentials(request: Request<'credentials'>, deps: ControllerEventDependencies): Promise<Outcome> {
  if (!deps.sidecarCredentials) return fail(rpcErrorCodes.notAllowed, 'This platform issues no sidecar credentials.');
  const room = await deps.rooms.find(request.roomId);
  if (!room || !isLive(room.state)) return fail(rpcErrorCodes.roomClosed, 'The room is not open.');
  return { result: await deps.sidecarCredentials(request.roomId) };
}

/** Zod's issues as one line for a log: `path: message`, `(root)` for the value itself. */
function issueSummary(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).join('; ');
}

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
import { saveState } from './save-state';
import { updateSettings } from './update-settings';
import { checkDeployment } from './check-deployment';
import { isStaleReport } from '../rooms/replacement';

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
  // A heartbeat's epoch is judged by its own write; a `joined` by the read it makes anyway.
  if (request.type !== 'heartbeat' && !(request.type === 'rpc' && request.method === 'joined')) {
    if (await fromReplacedServer(request, deps)) return refuseReplaced(request, deps);
  }
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
    case 'save_state':
      return saveState(request, deps, now);
    case 'update_settings':
      return updateSettings(request, deps, now);
    case 'check_deployment':
      return checkDeployment(request, deps);
  }
}

/** Whether the room has moved on to a replacement of the server that sent this (one read). */
async function fromReplacedServer(request: ControllerRequest, deps: ControllerEventDependencies): Promise<boolean> {
  const room = await deps.rooms.find(request.roomId);
  return room !== undefined && isStaleReport(room, request.epoch);
}

/**
 * A replaced server's message changes nothing: its death report, its joins and saves, its
 * messages. A call it waits on is answered, so its game learns the room is no longer its own.
 */
async function refuseReplaced(request: ControllerRequest, deps: ControllerEventDependencies): Promise<void> {
  deps.log.warn('refused a message of a replaced game server', {
    roomId: request.roomId,
    type: request.type,
    epoch: request.epoch ?? 1,
  });
  if (request.type === 'rpc' || request.type === 'credentials') {
    await deps.reply(request.replyTo, {
      type: 'reply',
      correlationId: request.correlationId,
      ...fail(rpcErrorCodes.roomClosed, 'This game server was replaced; the room is no longer its own.'),
    });
  }
}

async function exited(request: Request<'exited'>, deps: ControllerEventDependencies, now: Date): Promise<void> {
  const closed = endsCleanly(request.reason) ? await deps.rooms.markClosed(request.roomId, now) : undefined;
  if (!closed?.applied) {
    // A `migrateHost` room outlives a server that did not end cleanly; any other room fails.
    const replacing = deps.replaceServer && !endsCleanly(request.reason) ? deps.replaceServer : undefined;
    const failed = replacing
      ? (await replacing(request.roomId, { reason: request.reason, epoch: request.epoch ?? 1 })).kind
      : (await deps.rooms.markFailed(request.roomId, request.reason, now)).applied && 'failed';
    // The replacement keeps the room's server slot: nothing to give back.
    if (failed === 'replaced') return;
    // The sidecar killed a server that missed its spawn deadline.
    if (failed === 'failed' && request.reason === 'spawn-timeout') countSpawnFailure('spawn-timeout', now);
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

/**
 * An ended room's sidecar gets nothing more: its credentials lapse within the hour. A live
 * one's are scoped to the queue of its own epoch (a replaced server's request was refused above).
 */
async function credentials(request: Request<'credentials'>, deps: ControllerEventDependencies): Promise<Outcome> {
  if (!deps.sidecarCredentials) return fail(rpcErrorCodes.notAllowed, 'This platform issues no sidecar credentials.');
  const room = await deps.rooms.find(request.roomId);
  if (!room || !isLive(room.state)) return fail(rpcErrorCodes.roomClosed, 'The room is not open.');
  return { result: await deps.sidecarCredentials(request.roomId, request.epoch ?? 1) };
}

/** Zod's issues as one line for a log: `path: message`, `(root)` for the value itself. */
function issueSummary(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).join('; ');
}

import type { Logger } from '@aws-lambda-powertools/logger';
import type { PlatformTokenVerifier, TokenSigner } from '../auth/tokens';
import type { SidecarDelivery } from '../commands/delivery';
import type { GameConfigurations } from '../gameservers/configuration-store';
import type { ProtocolComponents } from '../versions/protocol-store';
import type { RoomMessages } from '../commands/message-store';
import type { Commands } from '../commands/store';
import type { ServerSlots } from '../gameservers/server-slot-store';
import type { ServerLocator } from '../gameservers/server-address';
import type { PoolStore } from '../pool/pool-store';
import type { ControllerReply, SidecarCredentials } from '../protocol/controller-messages';
import type { RoomBounds } from '../rooms/model';
import type { RoomStore } from '../rooms/room-store';
import type { DeathOutcome, ServerDeath } from '../rooms/server-replacement';

/** What applying a sidecar's message needs: the room's one store and the ports around it. */
export interface ControllerEventDependencies {
  /** The room and its members: every write to them goes through this port. */
  readonly rooms: RoomStore;
  readonly signToken: TokenSigner;
  /** Verifies a platform-minted token for one audience (a game server's own, for `extend_token`). */
  readonly verifyServerToken: PlatformTokenVerifier;
  readonly reply: (replyTo: string, reply: ControllerReply) => Promise<void>;
  /** Fresh AWS credentials scoped to one room's queues; absent where sidecars need none (local). */
  readonly sidecarCredentials?: (roomId: string, epoch: number) => Promise<SidecarCredentials>;
  /** The address players reach, for a room whose spawner did not know it (deployed: the task's public IP). */
  readonly locateServer: ServerLocator;
  readonly now: () => Date;
  /** Running-server caps: a server that exited gives its slot back at once (docs/cost-bounds.md). */
  readonly slots?: Pick<ServerSlots, 'release'>;
  /**
   * Cost bounds judged at every heartbeat (docs/cost-bounds.md): rooms without bounds of their
   * own get `defaults`; a room closed for one is told to end through `tell`, its sidecar's
   * reply queue. Absent: only the sweeper ends rooms for cost.
   */
  readonly costBounds?: { readonly defaults: RoomBounds; readonly tell: SidecarDelivery };
  /**
   * A server's death reported by its sidecar: a `migrateHost` room gets a replacement
   * (core/rooms/server-replacement.ts `replaceOrFail`). Absent: the room fails.
   */
  readonly replaceServer?: (roomId: string, death: ServerDeath) => Promise<DeathOutcome>;
  /** The warm pool: a standby server's `inited` makes it ready to be taken, or its game unpoolable. */
  readonly pool?: Pick<PoolStore, 'markReady' | 'markUnsupported' | 'remove'>;
  /** Owners' commands: the game's answers are recorded on them (core/commands/relay.ts). */
  readonly commands: Pick<Commands, 'recordOutcome'>;
  /** Each room's log of game → owner messages. */
  readonly messages: Pick<RoomMessages, 'append'>;
  /** Builds' component maps: a server's `inited` keeps its build's, to explain later mismatches. */
  readonly protocolComponents: Pick<ProtocolComponents, 'remember'>;
  /** The game versions' configurations: `check_deployment` compares the room's with its version's now. */
  readonly configurations: Pick<GameConfigurations, 'get'>;
  /** The room's sidecar's reply queue, for notices to the game (a `protocol_mismatch`). */
  readonly deliver: SidecarDelivery;
  /** For what is dropped without an answer to anyone (a message the platform cannot store), and rooms it closes. */
  readonly log: Pick<Logger, 'warn' | 'info'>;
}

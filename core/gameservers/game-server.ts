/** The settings a game server is started with: its room's, free-form JSON the game reads. */
export type GameSettings = Record<string, unknown>;

/** Where a started server runs. */
export interface Placement {
  /** ECS task ARN, or the local fleet's process id for the sidecar. */
  readonly taskId: string;
  /** Where players connect. */
  readonly host: string;
  readonly ports: readonly number[];
}
